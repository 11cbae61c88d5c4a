"""Clocks: each player's time for the whole match runs down during their decisions (once every player has
come, or the match has begun); running out loses the match. Only the process that owns a match runs its
clock. A turn-based match has a time per move instead, counted on the wall clock from the last move
(:mod:`converge.server.play.owner.turns` looks for the players who ran out of it)."""

from __future__ import annotations

import asyncio
import logging

from converge.server.play.commit.commits import Commits
from converge.server.play.commit.writes import MatchWrites
from converge.server.play.ground import Ground
from converge.server.play.match.session import CLOCK, Session
from converge.server.protocol.errors import ProtocolError
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Tx

log = logging.getLogger("converge.server")


class Clocks:
    """The time losses of the matches of this process."""

    def __init__(self, ground: Ground, writes: MatchWrites, commits: Commits) -> None:
        self.ground = ground
        self.life = ground.life
        self.wall = ground.wall
        self.writes = writes
        self.commits = commits

    def out_of_turn_time(self, session: Session) -> bool:
        """A turn-based match whose player to move has let their time per move run out."""
        deadline = session.row.deadline(session.match.current_player)
        return deadline is not None and session.active and self.wall() >= deadline

    def schedule(self, session: Session) -> None:
        """Flag the player to decide when their time runs out, if it runs now (replacing the earlier timer)."""
        session.cancel_task(CLOCK)
        if (session.row.clock_ms is None or not session.active or self.life.closing or not session.clock.started
                or not session.owned):
            return
        seat = session.match.current_player
        if seat < 0 or session.is_bot(seat):
            return
        left = session.clock_left(seat)
        if left is None:
            return
        seq = session.seq

        async def flag_later() -> None:
            await asyncio.sleep(left / 1000 + 0.05)
            backoff, tries = self.life.jobs.backoff, 0
            while not self.life.closing:
                async with session.lock:
                    if session.seq != seq or not session.active or session.match.current_player != seat:
                        return
                    left_now = session.clock_left(seat)
                    if left_now is None or left_now > 0 or await self.lose(session, seat, "time"):
                        return
                tries += 1  # (the loss could not be stored: the database is away) tried again, as a job is
                await asyncio.sleep(backoff.delay(tries, backoff.longest_s))

        session.start_task(CLOCK, flag_later())

    def start_when_all_came(self, session: Session) -> None:
        """Start the clock once every seat that is not a bot's has a connection (here or elsewhere)."""
        if not session.clock.started and all(s.bot is not None or session.presence.connected(s.seat)
                                             for s in session.row.seats):
            session.start_clock()
            self.schedule(session)

    async def flag(self, session: Session, seat: int) -> None:
        """``seat`` ran out of time: the other player wins the match (the caller holds the lock)."""
        await self.lose(session, seat, "time")

    async def lose(self, session: Session, seat: int, reason: str) -> bool:
        """``seat`` loses the match outside the engine — out of time ("time") or by resigning ("resign"): the
        other player wins, a rated match changes ratings as any end does, and everyone is sent the end (the
        caller holds the lock). False if the match moved on or could not be ended (nothing changed here)."""
        winner = 1 - seat
        match_id = session.id
        idx = session.seq
        writes = self.writes
        clock = [(seat, 0)] if reason == "time" else []
        at = self.wall()

        def write(conn: Tx) -> None:
            Storage.finish(conn, match_id, winner, reason, idx, clock, at=at)
            writes.finished(conn, session, winner)

        try:
            await self.commits.commit(session, write, lambda: session.end_by(seat, reason), "ended",
                                      what=f"loss of player {seat} ({reason})",
                                      failed="the match's end could not be saved")
        except ProtocolError:
            return False  # the match moved on (or ended) meanwhile on another process, or the database is away
        log.info("match %s: player %d lost (%s)", match_id, seat, reason)
        return True
