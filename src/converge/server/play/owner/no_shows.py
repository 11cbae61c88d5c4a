"""No-shows: a player of a tournament's live match who has neither come to it (connected, here or on another
process) nor moved ``no_show_s`` seconds after it was made loses it, so that an absent player cannot hold up
a round: the match's clock only runs once both players came. Their opponent wins by forfeit (the event
counts it so: :func:`converge.server.tournaments.director.record_result`). If neither came, the player to
move loses. Only the process that owns a match looks; a match taken over or read again looks from when it
was made, so a restart does not give an absent player a second wait. A turn-based event needs none of this:
its time per move runs whether or not anyone is connected."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from converge.server.play.ground import Ground
from converge.server.play.match.session import NO_SHOW, Session
from converge.server.play.owner.clocks import Clocks

log = logging.getLogger("converge.server")


def absent(session: Session) -> list[int]:
    """The seats of players who have neither come to the match nor moved in it (a bot's seat never is)."""
    moved = {seat for seat, _clock in session.row.action_clocks}
    return [s.seat for s in session.row.seats
            if s.bot is None and s.seat not in moved and not session.presence.connected(s.seat)]


class NoShows:
    """The no-show waits of the tournament matches this process owns."""

    def __init__(self, ground: Ground, clocks: Clocks) -> None:
        self.ground = ground
        self.clocks = clocks

    def schedule(self, session: Session) -> None:
        """Look ``no_show_s`` after the match was made (at once if that is past), if it is a live event's match
        this process owns and nothing looks already."""
        wait = self.ground.config.no_show_s
        if (not wait or not session.seating.event or session.row.move_s is not None or not session.active
                or not session.owned or session.tasks.pending(NO_SHOW)):
            return
        delay = max(0.0, session.row.created_at + wait - self.ground.wall())
        life, coord = self.ground.life, self.ground.coord

        async def look_later() -> None:
            await asyncio.sleep(delay)
            backoff, tries = life.jobs.backoff, 0
            while not life.closing:
                async with session.lock:
                    if coord.multi:  # (come to another process meanwhile?)
                        with contextlib.suppress(Exception):
                            found = await coord.present_elsewhere([session.id])
                            session.set_remote(found.get(session.id, set()))
                    away = absent(session) if session.active and session.owned else []
                    if not away:
                        session.take_task(NO_SHOW)
                        return
                    seat = session.match.current_player if session.match.current_player in away else away[0]
                    if await self.clocks.lose(session, seat, "absent"):
                        log.info("match %s: player %d never came and forfeits", session.id, seat)
                        session.take_task(NO_SHOW)
                        return
                tries += 1  # (not stored: the database is away, or the match moved on) looked at again
                await asyncio.sleep(backoff.delay(tries, backoff.longest_s))

        session.start_task(NO_SHOW, look_later())
