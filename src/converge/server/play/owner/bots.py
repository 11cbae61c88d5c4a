"""The server's bots and hints: a bot seat's decisions, and the strong bot's options for a player who asks.
Both are searched by the bot workers (:mod:`converge.server.play.owner.botpool`), off the event loop, on the
deciding seat's view alone."""

from __future__ import annotations

import asyncio
import logging
import random
import time

from converge.bots.hint import HintAnswer
from converge.server.play.commit.commits import Commits
from converge.server.play.commit.moves import Moves
from converge.server.play.ground import Ground
from converge.server.play.match.catalog import default_bot
from converge.server.play.match.session import BOTS, Session
from converge.server.play.owner.botpool import BotPool
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.messages import HintResult
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Tx

log = logging.getLogger("converge.server")


class Bots:
    """Plays the bot seats of the matches this process owns."""

    def __init__(self, ground: Ground, pool: BotPool, moves: Moves) -> None:
        self.config = ground.config
        self.life = ground.life
        self.pool = pool
        self.moves = moves

    def kick(self, session: Session) -> None:
        """Start playing the bot seats if a bot is to decide (and none is playing already)."""
        if not session.active or self.life.closing or not session.owned:
            return
        seat = session.match.current_player
        if seat < 0 or not session.is_bot(seat):
            return
        if not session.tasks.running(BOTS):
            session.start_task(BOTS, self._play(session))

    async def _play(self, session: Session) -> None:
        """Play the decisions of bot seats, one after the other, until a person is to decide.

        A bot thinks on a copy of the match, in a worker and without the lock (so that views and connections
        are served meanwhile); its action is committed only if the match has not moved on."""
        failures = 0
        while not self.life.closing:
            if self.config.bot_delay > 0:
                await asyncio.sleep(self.config.bot_delay)
            seat = session.match.current_player
            if (session.broken or not session.active or seat < 0 or not session.is_bot(seat)
                    or not session.owned):
                return
            seq = session.seq
            name = session.row.seats[seat].bot or default_bot()  # (the seat's level, or the default)
            legal = session.match.legal_actions()
            try:
                aid = await self.pool.decide(session.match, seat, name,
                                             (session.row.bot_seed + 7919 * seat + seq) % 2**62)
                if aid not in legal:
                    raise ValueError(f"bot {name} chose {aid!r}, not a legal action")
            except Exception as exc:
                log.error("match %s: bot %s failed or took too long (%s); playing a random legal action",
                          session.id, name, exc or type(exc).__name__)
                aid = random.Random(session.row.bot_seed + seq).choice(legal)
            arrived = time.perf_counter()  # (its latency: from the decision's arrival to its broadcast)
            async with session.lock:
                if (session.broken or session.seq != seq or not session.active
                        or session.match.current_player != seat or not session.is_bot(seat)):
                    continue  # the match moved on (a player took the seat back...): look again
                kind = session.match.decision_kind
                try:
                    await self.moves.commit(session, seat, aid, None)
                except ProtocolError:
                    failures += 1
                    if failures >= 3:
                        return
                    continue
                failures = 0  # (this task plays on if the next decision is a bot's too)
                self.moves.meter.action("bot", kind, time.perf_counter() - arrived)


class Hints:
    """The strong bot's options for a player's decision, and who allows them in a friend match."""

    def __init__(self, ground: Ground, pool: BotPool, commits: Commits) -> None:
        self.config = ground.config
        self.pool = pool
        self.commits = commits
        #: One search at a time (each takes a CPU for a while).
        self.slot = asyncio.Semaphore(1)

    async def allow(self, session: Session, seat: int, allow: bool) -> None:
        """``seat`` allows (or no longer allows) hints in a friend match: they are on once both allow (never
        in a rated match: allowing them there is refused, with the reason)."""
        async with session.lock:
            if session.row.mode != "friend":
                return  # on against a bot, always
            if session.rated and allow:
                raise ProtocolError("hints_off", str(session.hints_off))
            bits = session.row.hints | (1 << seat) if allow else session.row.hints & ~(1 << seat)
            if bits == session.row.hints:
                return
            match_id = session.id

            def write(conn: Tx) -> None:
                Storage.set_hints(conn, match_id, bits)

            await self.commits.commit(session, write, lambda: session.set_hints(bits), "hints",
                                      what="hints allowed", failed="the setting could not be saved; try again")

    async def hint(self, session: Session, seat: int) -> HintResult:
        """The strong bot's options for ``seat``'s decision, each with its estimated chance to win the
        round, worked out from that seat's view alone (:func:`converge.bots.hint.hint`) by the bot workers;
        one search at a time per server, and each (seat, decision) is searched once."""
        if not session.active:
            raise ProtocolError("over", "the match is over")
        if session.hints_off is not None:
            raise ProtocolError("hints_off", session.hints_off)
        if session.match.current_player != seat:
            raise ProtocolError("not_your_turn", "a hint is for your own decision")
        seq = session.seq
        cfg = self.config

        async def search() -> HintAnswer:
            async with self.slot:  # searched on the seat's view alone, off the event loop
                return await self.pool.hint(session.match, seat, cfg.hint_simulations or None, cfg.hint_seed)

        found = await session.hint((seat, seq), search)
        return {"seq": seq, "options": found["options"], "verdict": found["verdict"],
                "calibrated": found["calibrated"]}
