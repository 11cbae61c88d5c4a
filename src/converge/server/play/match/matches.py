"""Match operations: create a match, act in it, resign, ask for its rematch, serve its record and its replay
(making a match live, and loading one: :mod:`converge.server.play.match.live`).

Everything that changes a match runs under its session's lock, in this order: check the action against the
live match, commit it to the database, apply it, then send each connection its own view
(:mod:`converge.server.play.commit.commits`)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Literal, cast

from converge.engine.seeds import new_seed
from converge.engine.state import Match
from converge.server.play.commit.moves import Moves
from converge.server.play.ground import Ground
from converge.server.play.match.catalog import Catalog
from converge.server.play.match.live import Live
from converge.server.play.match.session import Session
from converge.server.play.match.turnlog import Scored, TurnLog
from converge.server.play.owner.botpool import BotPool
from converge.server.play.owner.duties import Duties
from converge.server.play.viewers import broadcast
from converge.server.protocol.answers import MatchRecord, ReplayMove, ReplayStep
from converge.server.protocol.errors import ProtocolError, restarting
from converge.server.protocol.messages import ClockInfo
from converge.server.security.tokens import hash_token, new_match_id, new_token
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.transport.connections import Connection

log = logging.getLogger("converge.server")


@dataclass
class Created:
    """A new match: the creator's seat and token, and the invite's token (a friend match)."""

    session: Session
    seat: int
    token: str
    invite_token: str | None


class Matches:
    """The operations on the matches of this process."""

    def __init__(self, ground: Ground, catalog: Catalog, pool: BotPool, live: Live, moves: Moves,
                 duties: Duties) -> None:
        self.ground = ground
        self.life = ground.life
        self.catalog = catalog
        self.pool = pool
        self.live = live
        self.moves = moves
        self.duties = duties

    # ------------------------------------------------------------------ creating

    async def create(self, mode: object, playset: object = None, bot: object = None, seat: object = 0,
                     clock_s: object = None, move_hours: object = None, *, payer: str) -> Created:
        """A new match against a bot or a friend; returns the creator's seat and token (and the invite's).
        ``payer``: the creator's client address (:meth:`MatchBudget.charge
        <converge.server.play.match.budget.MatchBudget.charge>`), charged once the settings are checked."""
        settings = self.catalog.check(mode, playset, bot, seat, clock_s, move_hours)
        if mode == "bot" and self.pool.full:
            raise ProtocolError("busy", "every bot on this server is thinking: try again in a minute, or play "
                                        "a friend")
        ps = self.catalog.playset(settings.playset)
        token = new_token()
        invite = new_token() if mode == "friend" else None
        seats = [SeatRow(0, None, None), SeatRow(1, None, None)]
        seats[settings.seat].token_hash = hash_token(token)
        other = seats[1 - settings.seat]
        if invite is not None:
            other.token_hash = hash_token(invite)
        else:
            other.bot = settings.bot
        for s in seats:
            s.clock_left_ms, s.vacation_left_s = settings.clock_ms, settings.vacation_s
        row = MatchRow(id=new_match_id(), mode=str(mode), playset=ps.names(), seed=new_seed(),
                       start="random", decks=ps.digest, bot_seed=new_seed(),
                       clock_ms=settings.clock_ms, move_s=settings.move_s, seats=seats)
        session = await self.live.store(row, ps, payers=[payer])
        return Created(session, settings.seat, token, invite)

    # ------------------------------------------------------------------ acting

    async def act(self, session: Session, seat: int, action: int | str, seq: int | None,
                  source: Connection | None = None) -> int:
        """Apply one decision of ``seat``: checked, committed, applied and sent. Returns the new seq."""
        arrived = time.perf_counter()  # (the action's latency counts the wait for the lock)
        async with session.lock:
            if self.life.closing:  # (draining: the move in flight before this one was the last)
                raise restarting()
            if not session.active:
                raise ProtocolError("over", "the match is over" if session.row.status == "over"
                                    else "the match is unavailable")
            if session.is_bot(seat) and not session.row.seats[seat].replaced:
                raise ProtocolError("spectator", "a bot plays this seat")
            if seat != session.match.current_player:
                raise ProtocolError("not_your_turn", "it is not your decision")
            if seq is not None and seq != session.seq:
                raise ProtocolError("stale", f"your view is out of date (action {seq}, the match is at "
                                             f"{session.seq}); nothing was done")
            aid = self.moves.legal(session, action)
            if session.row.seats[seat].bot is not None:  # a bot stood in: the player takes the seat back
                await self.duties.standins.set_seat(session, seat, None, False)
            left = session.clock_left(seat)
            if (left is not None and left <= 0) or self.duties.clocks.out_of_turn_time(session):
                await self.duties.clocks.flag(session, seat)
                raise ProtocolError("over", "your time ran out")
            kind = session.match.decision_kind
            await self.moves.commit(session, seat, aid, left, source)
            self.moves.meter.action("player", kind, time.perf_counter() - arrived)
            return session.seq

    async def resign(self, session: Session, seat: int, reason: Literal["resign", "banned"] = "resign") -> None:
        """``seat`` gives up (``reason`` "resign"), or its player was banned by the hosts ("banned"): the other
        player wins the match, by the path a time loss takes (a rated match changes ratings as any end does)."""
        async with session.lock:
            if self.life.closing:
                raise restarting()
            if not session.active:
                raise ProtocolError("over", "the match is over" if session.row.status == "over"
                                    else "the match is unavailable")
            if not await self.duties.clocks.lose(session, seat, reason):
                raise ProtocolError("storage", "the match's end could not be saved; the match goes on")

    # ------------------------------------------------------------------ rematch, record, replay

    async def rematch(self, session: Session, payer: str) -> tuple[Session, bool]:
        """The rematch of a finished match: same playset, seats and tokens; the loser starts (M2).
        Returns it and whether it was created now (else it existed: everyone was already told).
        ``payer``: the asker's client address, which pays for it if it is created now."""
        async with session.lock:
            if self.life.closing:
                raise restarting()
            if session.row.status != "over":
                raise ProtocolError("not_over", "a rematch can be asked for once the match is over")
            if session.row.rematch_id is not None:
                existing = await self.live.get(session.row.rematch_id)
                if existing is not None:
                    return existing, False
                session.link_rematch(None)  # deleted by the retention policy: make a new one
            old = session.row
            loser = 1 - old.winner if old.winner in (0, 1) else 0
            vacation = self.catalog.vacation_s if old.move_s is not None else None
            seats = [SeatRow(s.seat, s.token_hash, None if s.replaced else s.bot, False, old.clock_ms,
                             vacation_left_s=vacation) for s in old.seats]
            row = MatchRow(id=new_match_id(), mode=old.mode, playset=list(old.playset),
                           seed=new_seed(), start=str(loser), decks=old.decks,
                           bot_seed=new_seed(), clock_ms=old.clock_ms, move_s=old.move_s,
                           rematch_of=old.id, seats=seats)
            try:
                new = await self.live.store(row, session.match.playset, payers=[payer], link_from=old.id)
            except ProtocolError:
                # Asked on two processes at once: the other one's rematch was stored first.
                if self.ground.coord.multi:
                    await self.live.sync.caught_up(session, session.seq)
                    existing = await self.live.get(old.rematch_id) if old.rematch_id is not None else None
                    if existing is not None:
                        return existing, False
                raise
            session.link_rematch(new.id)
            broadcast.send_rematch(session, new.id)
            broadcast.send_meta(session)
            return new, True

    @staticmethod
    def record(session: Session) -> MatchRecord:
        """The record of a finished match (it holds the seed: never while the match is in progress)."""
        if session.row.status != "over":
            raise ProtocolError("not_over", "the record of a match is available once it is over")
        rec = {**session.row.record(), "result": {"winner": session.row.winner, "reason": session.row.reason}}
        return cast(MatchRecord, rec)  # (the record's fields are the engine's record format)

    def replay_step(self, session: Session, step: int, viewer: int) -> ReplayStep:
        """The view of ``viewer`` after the first ``step`` actions of a finished match."""
        self.record(session)  # (finished matches only)
        rec = session.row.record()
        total = len(rec["actions"])
        if not 0 <= step <= total:
            raise ProtocolError("malformed", f"step is 0 to {total}")
        match = Match.replay(rec, self.ground.config.deck_dirs, upto=step)
        move: ReplayMove | None = None
        turns: list[Scored] = []
        log = TurnLog(match)
        if step > 0:
            before = Match.replay(rec, self.ground.config.deck_dirs, upto=step - 1)
            move = {"player": before.current_player, "action": before.action_to_string(rec["actions"][step - 1])}
            turns = [s for s in log.turns if s.index >= len(before.events)]
        return {"step": step, "total": total, "move": move, "observation": match.observation(viewer),
                "clock": self._replay_clock(session, step),
                "turns": [log.summary(s, viewer) for s in turns],
                "rounds": [log.summary(s, viewer) for s in log.rounds()]}

    @staticmethod
    def _replay_clock(session: Session, step: int) -> ClockInfo | None:
        """Each seat's clock after the first ``step`` actions of a finished match (its final clock at the
        end): the time left stored with each seat's last action before that point."""
        row = session.row
        if row.clock_ms is None:
            return None
        if step >= row.n_actions:
            return {"initial_ms": row.clock_ms, "left_ms": [s.clock_left_ms for s in row.seats], "running": -1}
        left: list[int | None] = [row.clock_ms, row.clock_ms]
        for seat, clock in row.action_clocks[:step]:
            if clock is not None:
                left[seat] = clock
        return {"initial_ms": row.clock_ms, "left_ms": left, "running": -1}
