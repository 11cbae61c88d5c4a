"""A move, a player's or a bot's: checked legal, committed to the database, then applied — the server's
hottest path. Nothing is applied before it is committed; a failed commit changes nothing."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from converge.engine.errors import ConvergeError
from converge.server.ops.meter import Meter
from converge.server.play.coordination import LocalCoordinator
from converge.server.play.housekeeping import Housekeeping
from converge.server.play.session import Session
from converge.server.play.wallclock import WallClock
from converge.server.play.writes import MatchWrites
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import outbox_store as outbox
from converge.server.storage.database import StorageError, pause_point
from converge.server.storage.match_store import Storage

log = logging.getLogger("converge.server")

#: Reads what other server processes stored of a match beyond this copy and takes it in (the caller holds the
#: session's lock); whether the match is now past action ``seq`` or over
#: (:meth:`Sync.caught_up <converge.server.play.sync.Sync.caught_up>`).
CatchUp = Callable[[Session, int], Awaitable[bool]]


class Moves:
    """Commits and applies the moves of every match of this process."""

    def __init__(self, writes: MatchWrites, coord: LocalCoordinator, housekeeping: Housekeeping,
                 catch_up: CatchUp, wall: WallClock, mail_delay: float = 0.0, meter: Meter | None = None) -> None:
        #: Told each action applied, by whoever applied it (a player's or a bot's move).
        self.meter = meter or Meter()
        self.wall = wall
        self.mail_delay = mail_delay  # (seconds before a "your turn" mail goes)
        self.writes = writes
        self.coord = coord
        self.housekeeping = housekeeping
        self.catch_up = catch_up

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

    async def commit(self, session: Session, seat: int, aid: int, clock_left: int | None) -> None:
        """Commit then apply ``aid`` (already checked legal) for ``seat``, whose clock has ``clock_left`` ms
        left; the caller holds the lock, and restarts what acts for the match afterwards."""
        match = session.match
        idx = session.row.n_actions
        trial = match.clone(history=False, events=False)  # the outcome is written with the action, before
        trial.apply(aid, player=seat)                      # the action is applied to the live match
        over, final = trial.is_terminal, trial.winner
        status, winner, reason = ("over", final, "match") if over else ("active", None, None)
        match_id = session.id
        writes = self.writes
        at = self.wall()
        # a turn-based match's turn passes: its "your turn" mail is queued with the move
        mail_to = trial.current_player if session.row.move_s is not None and not over and \
            trial.current_player != seat else None
        delay = self.mail_delay
        turn_based = session.row.move_s is not None
        vacation = session.row.vacation_after(seat, at) or 0.0
        to_move = None if over else trial.current_player

        def write(conn: Any) -> None:
            pause_point("action")  # (tests: a move in flight while the process is told to stop)
            Storage.append_action(conn, match_id, idx, aid, seat, status=status, winner=winner, reason=reason,
                                  clock_left_ms=clock_left, at=at)
            if turn_based:
                Storage.turn_moved(conn, match_id, to_move, seat, vacation)
            if mail_to is not None:
                outbox.queue(conn, match_id, idx + 1, mail_to, at, delay)
            if over:
                writes.finished(conn, session, winner)

        payload = (self.coord.action_payload(match_id, idx, aid, seat, clock_left, status, winner)
                   if self.coord.multi else None)
        try:
            # (the last action runs the finish hooks; a turn-based match's moves note the seat to move, the
            # vacation left and the turn's mail: SQLAlchemy, not a driver write)
            await writes.write(match_id, write, payload, driver=not over and not turn_based)
        except StorageError as exc:
            if self.coord.multi and await self.catch_up(session, idx):
                raise ProtocolError("stale", "another move was made first; nothing was done") from None
            log.error("match %s: action %d not stored: %s", match_id, idx, exc)
            self.housekeeping.evict(session)  # the database is the truth: reload it on next use
            raise ProtocolError("storage", "the action could not be saved; nothing was done") from None
        session.apply(seat, aid, clock_left, status, winner, at)
