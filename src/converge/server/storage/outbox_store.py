"""The queue of "your turn" mails in the database (``converge_outbox``): which are due, who takes one (one
``UPDATE ... WHERE`` decides, so each is taken by one server process at a time), what a mail needs to say,
and how each ends. The functions taking a ``conn`` run inside a transaction; the others open their own read.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, insert, select, update

from converge.server.storage.schema import (
    match_players_table,
    matches_table,
    outbox_table,
    players_table,
    seats_table,
    settings_table,
    tournament_games_table,
    tournaments_table,
)

#: The settings key of the secret that signs unsubscribe links.
SECRET_KEY = "mail_secret"
#: The ``idx`` of a tournament's "your match is ready" mail to the player who does not move first (the one who
#: does is sent the turn mail of action 0, which says the same and that it is their turn).
READY = -1


@dataclass(frozen=True)
class TurnMail:
    """A due "your turn" mail with what it needs: whom to tell, about which match, by when."""

    match_id: str
    idx: int
    player_id: str | None  #: None: nobody to tell (no such player, no address, or no mails asked for)
    email: str | None
    opponent: str | None  #: the opponent's name at the start of the match (None: anonymous)
    #: with the player's vacation left; None: the turn is over (moved, or the match ended). A ready mail's:
    #: the first mover's.
    deadline: float | None
    event: str | None = None  #: a tournament's match: "round 2 of Club Swiss" (an arena's: "Club Arena")
    #: a tournament's "your match is ready" to the player who does not move first (:data:`READY`)
    ready: bool = False


def queue(conn: Connection, match_id: str, idx: int, seat: int, now: float, delay: float) -> None:
    """A turn-based match's turn passed to ``seat`` at action ``idx``: queue its "your turn" mail, to go
    ``delay`` seconds later if the seat's player asked for such mails and has not moved by then."""
    conn.execute(insert(outbox_table).values(match_id=match_id, idx=idx, seat=seat, created_at=now,
                                             next_at=now + delay, attempts=0, done_at=None, outcome=None))


def due(engine: Engine, now: float, limit: int = 50) -> list[tuple[str, int]]:
    """The mails due at ``now`` and not yet done, the oldest first: (match id, idx)."""
    o = outbox_table.c
    with engine.connect() as conn:
        rows = conn.execute(select(o.match_id, o.idx).where(o.done_at.is_(None), o.next_at <= now)
                            .order_by(o.next_at).limit(limit)).all()
    return [(str(mid), int(idx)) for mid, idx in rows]


def take(conn: Connection, match_id: str, idx: int, now: float, lease_s: float) -> bool:
    """Take a due mail for ``lease_s`` seconds (another process may take it after that); False if it is not
    due any more (taken by another process, or done)."""
    o = outbox_table.c
    return conn.execute(update(outbox_table)
                        .where(o.match_id == match_id, o.idx == idx, o.done_at.is_(None), o.next_at <= now)
                        .values(next_at=now + lease_s, attempts=o.attempts + 1)).rowcount == 1


def facts(engine: Engine, match_id: str, idx: int) -> TurnMail:
    """What the mail ``(match_id, idx)`` needs, read now."""
    o, m, mp, p = outbox_table.c, matches_table.c, match_players_table.c, players_table.c
    t, g = tournaments_table.c, tournament_games_table.c
    with engine.connect() as conn:
        seat = conn.execute(select(o.seat).where(o.match_id == match_id, o.idx == idx)).scalar()
        match = conn.execute(select(m.status, m.n_actions, m.updated_at, m.move_s, m.to_move)
                             .where(m.id == match_id)).first()
        event = conn.execute(select(t.name, t.format, g.round)
                             .join(tournament_games_table, g.tournament_id == t.id)
                             .where(g.match_id == match_id)).first()
        seated = {int(s): (pid, name) for s, pid, name in conn.execute(
            select(mp.seat, mp.player_id, mp.name).where(mp.match_id == match_id))}
        vacation = conn.execute(select(seats_table.c.vacation_left_s).where(
            seats_table.c.match_id == match_id, seats_table.c.seat == seat)).scalar() if seat is not None else None
        player = None
        if seat is not None and int(seat) in seated:
            player = conn.execute(select(p.id, p.email, p.notify_turns)
                                  .where(p.id == seated[int(seat)][0])).first()
    ready = idx == READY
    live = (match is not None and match.status == "active" and match.move_s is not None
            and (match.to_move != seat if ready else int(match.n_actions) == idx))  # (their turn: its own mail)
    asked = player is not None and player.email is not None and bool(player.notify_turns)
    other = seated.get(1 - int(seat)) if seat is not None else None
    named = None if event is None else event.name if event.format == "arena" else \
        f"round {event.round} of {event.name}"
    return TurnMail(match_id, idx, str(player.id) if asked and player else None,
                    str(player.email) if asked and player else None, other[1] if other else None,
                    float(match.updated_at) + int(match.move_s) + (0.0 if ready else float(vacation or 0.0))
                    if live and match is not None else None, named, ready)


def done(conn: Connection, match_id: str, idx: int, outcome: str, now: float) -> None:
    """The mail is done: "sent", "skipped" (nobody to tell, or the turn was over) or "failed" (given up)."""
    o = outbox_table.c
    conn.execute(update(outbox_table).where(o.match_id == match_id, o.idx == idx)
                 .values(done_at=now, outcome=outcome))


def again(conn: Connection, match_id: str, idx: int, now: float, waits: Sequence[float]) -> None:
    """A mail that could not be handed over: tried again after ``waits[n - 1]`` seconds, its ``n``-th try
    made; given up ("failed") once every wait is spent."""
    o = outbox_table.c
    tries = int(conn.execute(select(o.attempts).where(o.match_id == match_id, o.idx == idx)).scalar() or 0)
    if tries > len(waits):
        done(conn, match_id, idx, "failed", now)
    else:
        conn.execute(update(outbox_table).where(o.match_id == match_id, o.idx == idx)
                     .values(next_at=now + waits[max(0, tries - 1)]))


def secret(conn: Connection) -> str:
    """The server's secret for unsubscribe links (made on first use, kept in ``converge_settings``)."""
    s = settings_table.c
    found = conn.execute(select(s.value).where(s.key == SECRET_KEY)).scalar()
    if found is None:
        found = secrets.token_hex(32)
        conn.execute(insert(settings_table).values(key=SECRET_KEY, value=found))
    return str(found)


def set_turn_mails(conn: Connection, player_id: str, on: bool) -> None:
    """Whether the player is mailed when it is their turn in a turn-based match."""
    conn.execute(update(players_table).where(players_table.c.id == player_id).values(notify_turns=on))


def turn_mails_on(engine: Engine, player_id: str) -> bool:
    with engine.connect() as conn:
        return bool(conn.execute(select(players_table.c.notify_turns).where(players_table.c.id == player_id))
                    .scalar())
