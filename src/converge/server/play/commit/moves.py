"""A move, a player's or a bot's: checked legal, committed to the database, then applied — the server's
hottest path. Nothing is applied before it is committed; a failed commit changes nothing."""

from __future__ import annotations

from converge.engine.errors import ConvergeError
from converge.server.ops.meter import Meter
from converge.server.play.commit.commits import Commits
from converge.server.play.commit.writes import MatchWrites
from converge.server.play.ground import Ground
from converge.server.play.match.session import Session
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import outbox_store as outbox
from converge.server.storage.database import pause_point
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Tx
from converge.server.transport.connections import Connection


class Moves:
    """Commits and applies the moves of every match of this process."""

    def __init__(self, ground: Ground, writes: MatchWrites, commits: Commits, meter: Meter | None = None) -> None:
        self.ground = ground
        self.writes = writes
        self.commits = commits
        #: Told each action applied, by whoever applied it (a player's or a bot's move).
        self.meter = meter or Meter()

    @staticmethod
    def legal(session: Session, action: int | str) -> int:
        """The action id of a client's action (an id or its name), which must be legal now; otherwise an error
        that names only what the deciding seat may know (its own legal actions)."""
        match = session.match
        legal = match.legal_actions()
        if isinstance(action, str):
            try:
                aid = match.parse_action(action)
            except ConvergeError:
                aid = -1
        else:
            aid = action
        if aid not in legal:
            names = ", ".join(match.action_to_string(a) for a in legal)
            shown = action if isinstance(action, int) else repr(action[:32])
            raise ProtocolError("illegal", f"{shown} is not a legal action now ({match.decision_kind}); "
                                           f"legal: {names}")
        return aid

    async def commit(self, session: Session, seat: int, aid: int, clock_left: int | None,
                     source: Connection | None = None) -> None:
        """Commit then apply ``aid`` (already checked legal) for ``seat``, whose clock has ``clock_left`` ms
        left, and tell of it (``source``: the connection it came from, acknowledged with the new state); the
        caller holds the lock."""
        match = session.match
        idx = session.row.n_actions
        trial = match.clone(history=False, events=False)  # the outcome is written with the action, before
        trial.apply(aid, player=seat)                      # the action is applied to the live match
        over, final = trial.is_terminal, trial.winner
        status, winner, reason = ("over", final, "match") if over else ("active", None, None)
        match_id = session.id
        writes = self.writes
        at = self.ground.wall()
        # a turn-based match's turn passes: its "your turn" mail is queued with the move
        turn_based = session.row.move_s is not None
        mail_to = trial.current_player if turn_based and not over and trial.current_player != seat else None
        delay = self.ground.config.turn_mail_delay_s
        vacation = session.row.vacation_after(seat, at) or 0.0
        to_move = None if over else trial.current_player

        def write(conn: Tx) -> None:
            pause_point("action")  # (tests: a move in flight while the process is told to stop)
            Storage.append_action(conn, match_id, idx, aid, seat, status=status, winner=winner, reason=reason,
                                  clock_left_ms=clock_left, at=at)
            if turn_based:
                Storage.turn_moved(conn, match_id, to_move, seat, vacation)
            if mail_to is not None:
                outbox.queue(conn, match_id, idx + 1, mail_to, at, delay)
            if over:
                writes.finished(conn, session, winner)

        coord = self.ground.coord
        payload = (coord.action_payload(match_id, idx, aid, seat, clock_left, status, winner) if coord.multi
                   else None)
        # (the last action runs the finish hooks; a turn-based match's moves note the seat to move, the vacation
        # left and the turn's mail: SQLAlchemy, not a driver write)
        await self.commits.commit(
            session, write, lambda: session.apply(seat, aid, clock_left, status, winner, at), "moved",
            what=f"action {idx}",
            failed="the action could not be saved; nothing was done",
            stale="another move was made first; nothing was done", payload=payload,
            driver=not over and not turn_based, evict=True, reply=None if source is None else (source, aid))
