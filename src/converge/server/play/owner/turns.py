"""Turn-based matches: each decision may take the match's time per move (hours or days), counted on the wall
clock from the last move, whether or not anyone is connected. A player who lets it run out loses the match.

The database says who ran out (:meth:`Storage.out_of_time
<converge.server.storage.match_store.Storage.out_of_time>`), so a match evicted from memory, or one whose
server restarted, is still ended on time; every server process looks, and the loss is stored with the match's
number of actions, so it is stored once (a second process's write fails and changes nothing)."""

from __future__ import annotations

import asyncio

from converge.server.play.ground import Ground
from converge.server.play.match.live import Live
from converge.server.play.owner.clocks import Clocks
from converge.server.play.process.lifecycle import Periodic
from converge.server.protocol.errors import ProtocolError
from converge.server.storage.match_store import Storage


class Turns:
    """Ends the turn-based matches whose player to move ran out of time."""

    def __init__(self, ground: Ground, storage: Storage, live: Live, clocks: Clocks) -> None:
        self.ground = ground
        self.life = ground.life
        self.storage = storage
        self.live = live
        self.clocks = clocks
        self._periodic = Periodic("turn_check", "turn-based time check", ground.config.turn_check_every_s,
                                  self.sweep, ground.life)

    async def sweep(self) -> int:
        """End every turn-based match whose player to move is out of time now (on the server's wall clock);
        returns how many this process ended."""
        now = self.ground.wall()
        overdue = await asyncio.to_thread(self.storage.out_of_time, now)
        ended = 0
        for match_id, n_actions in overdue:
            if self.life.closing:
                break
            try:
                session = await self.live.get(match_id)
            except ProtocolError:  # cannot be loaded now (logged): try again next time
                continue
            if session is None:
                continue
            async with session.lock:
                if (session.seq == n_actions and self.clocks.out_of_turn_time(session)
                        and await self.clocks.lose(session, session.match.current_player, "time")):
                    ended += 1
        return ended

    def start(self) -> None:
        """Run :meth:`sweep` every ``turn_check_every_s`` seconds while the server runs."""
        self._periodic.start()

    def stop(self) -> asyncio.Task[None] | None:
        """Stop looking; returns the task if it was still running (the caller awaits it)."""
        return self._periodic.stop()
