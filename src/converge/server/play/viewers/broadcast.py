"""The send path: each connection of a match gets its own view of it, and only that.

What goes out is only ever ``observation(seat)`` for a seat's connections and ``observation(-1)`` for
spectators (with the events the connection already has left out), plus public metadata."""

from __future__ import annotations

from converge.engine.schema import Observation
from converge.server.play.events import Committed
from converge.server.play.match.session import Session
from converge.server.protocol.errors import CLOSE_UNAUTHORIZED, ProtocolError
from converge.server.protocol.messages import Ack, MatchMeta, RematchMade, State
from converge.server.transport.connections import Connection, dumps


def send_state(session: Session, ack: tuple[Connection, Ack] | None = None) -> None:
    """Send every connection its own view of the new state (events it already has left out); ``ack``: the
    connection whose action this was, which takes its acknowledgement in its state message."""
    meta: MatchMeta = session.views.meta()
    fresh: dict[int, tuple[int, Observation, int]] = {}  # view -> (events it had, observation, start)
    # (view, events already sent) -> the message and the events sent with it; its text once written
    cache: dict[tuple[int, int], tuple[State, int]] = {}
    texts: dict[tuple[int, int], str] = {}
    for conn in list(session.presence.conns):
        if conn.closed:
            continue
        key = (conn.view, conn.events_sent)
        got = cache.get(key)
        if got is None:
            if conn.view not in fresh:
                observer = session.views.observer(conn.view)
                had = observer.seen
                fresh[conn.view] = (had, *observer.observe())  # describes the new events only
            had, obs, start = fresh[conn.view]
            if conn.events_sent != had:  # (a connection that is not where the others are)
                obs = session.match.observation(conn.view, conn.events_sent)
                start = conn.events_sent
                if start and not obs["events"] and start > session.views.observer(conn.view).seen:
                    # (its count is stale: send them all again)
                    obs, start = session.match.observation(conn.view), 0
            got = cache[key] = (session.views.state(conn.view, obs, start, meta), start + len(obs["events"]))
        if ack is not None and conn is ack[0]:
            conn.send({**got[0], "ack": ack[1]})
        else:
            text = texts.get(key)
            if text is None:
                text = texts[key] = dumps(got[0])
            conn.send(text)
        conn.events_sent = got[1]
    session.turns_sent()


def committed(event: Committed) -> None:
    """Tell every connection of a change this process committed: a move or an end as each one's new view (the
    mover's connection acknowledged — in a message of its own first, if it asked for acknowledgements apart),
    who plays a seat or allows hints as the match's public facts."""
    session = event.session
    if event.change == "seat" or event.change == "hints":
        send_meta(session)
        return
    if event.reply is None:
        send_state(session)
        return
    source, aid = event.reply
    ack: Ack = {"seq": session.seq, "action": aid}
    if source.acks:
        source.send({"type": "ack", **ack})
    send_state(session, None if source.acks else (source, ack))


def send_meta(session: Session, skip: Connection | None = None) -> None:
    """Tell every connection (but ``skip``) the match's public facts: who is connected, clocks, stand-ins."""
    text = dumps({"type": "meta", "match": session.views.meta()})
    for conn in list(session.presence.conns):
        if conn is not skip:
            conn.send(text)


def send_rematch(session: Session, match_id: str) -> None:
    """Tell every connection that the rematch ``match_id`` was created."""
    made: RematchMade = {"type": "rematch", "match_id": match_id}
    text = dumps(made)
    for conn in list(session.presence.conns):
        conn.send(text)


def shut_out_revoked(session: Session) -> int:
    """Close each seat connection whose token no longer holds its seat (its player signed out everywhere: every
    device signs in again to play on), with the reason; how many there were."""
    error = ProtocolError("signed_out", "this device was signed out of this match (Sign out everywhere): sign in "
                                        "again to play it; you may watch")
    gone = [c for c in session.presence.conns
            if c.view >= 0 and not c.closed and c.key not in session.row.seats[c.view].hashes()]
    for conn in gone:
        conn.refuse(error)
        conn.close(CLOSE_UNAUTHORIZED, "this device was signed out")
    return len(gone)
