"""Stand-ins: a player who leaves a friend match is replaced by a bot after ``replace_after`` seconds, and
takes the seat back by coming back (or by acting). Only the process that owns a match puts a stand-in in."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from converge.bots import BOTS
from converge.server.play.commit.commits import Commits
from converge.server.play.ground import Ground
from converge.server.play.match.catalog import default_bot
from converge.server.play.match.session import Session, stand_in
from converge.server.protocol.errors import ProtocolError
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Tx

log = logging.getLogger("converge.server")


class StandIns:
    """The stand-ins of the matches of this process, and who plays each seat."""

    def __init__(self, ground: Ground, commits: Commits) -> None:
        self.config = ground.config
        self.coord = ground.coord
        self.life = ground.life
        self.commits = commits

    def schedule(self, session: Session, seat: int) -> None:
        """Put a bot in ``seat`` after ``replace_after`` seconds if its player is still away then (friend
        matches this process owns, not turn-based ones, whose players come and go, nor a tournament's, where
        the clock decides; nothing if one is pending already)."""
        after = self.config.replace_after
        if (not after or session.row.mode != "friend" or session.row.move_s is not None or session.seating.event
                or not session.active
                or not session.owned
                or session.row.seats[seat].bot is not None or session.tasks.pending(stand_in(seat))
                or session.presence.connected(seat)):
            return

        async def replace() -> None:
            await asyncio.sleep(after)
            backoff, tries = self.life.jobs.backoff, 0
            while not self.life.closing:
                async with session.lock:
                    if self.coord.multi:  # connected to another process meanwhile?
                        with contextlib.suppress(Exception):
                            found = await self.coord.present_elsewhere([session.id])
                            session.set_remote(found.get(session.id, set()))
                    if (not session.active or not session.owned or session.presence.connected(seat)
                            or session.row.seats[seat].bot is not None):
                        session.take_task(stand_in(seat))
                        return
                    name = self.config.replacement_bot or default_bot()
                    if name not in BOTS:
                        name = default_bot()
                    try:
                        await self.set_seat(session, seat, name, True)
                    except ProtocolError:  # not stored (the database is away): tried again, as a job is
                        tries += 1
                    else:
                        log.info("match %s: a bot (%s) stands in for player %d, who left", session.id, name, seat)
                        session.take_task(stand_in(seat))
                        return
                await asyncio.sleep(backoff.delay(tries, backoff.longest_s))

        session.start_task(stand_in(seat), replace())

    def schedule_absent(self, session: Session) -> None:
        """A stand-in for each seat whose player is away, once the match has begun."""
        if session.row.n_actions > 0:
            for seat in (0, 1):
                if not session.presence.connected(seat):
                    self.schedule(session, seat)

    def cancel(self, session: Session, seat: int) -> None:
        """``seat``'s player is back (here or on another process): no stand-in."""
        session.cancel_task(stand_in(seat))

    async def set_seat(self, session: Session, seat: int, bot: str | None, replaced: bool) -> None:
        """``bot`` plays ``seat`` from now on (None: its player takes it back); ``replaced``: a stand-in (the
        caller holds the lock)."""
        match_id = session.id

        def write(conn: Tx) -> None:
            Storage.set_seat(conn, match_id, seat, bot, replaced)

        await self.commits.commit(session, write, lambda: session.set_seat(seat, bot, replaced), "seat",
                                  what=f"seat {seat}", failed="the seat could not be saved; try again")
