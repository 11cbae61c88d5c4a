"""The lobby of one server process: finding opponents, beside the hub (:class:`~converge.server.play.hub.Hub`),
whose match operations it uses to make matches; the hub calls its ratings hook inside the transaction that
finishes a match (:func:`~converge.server.lobby.ratings.rate_on_finish`: exactly once).

* **Players** (:mod:`.players`): names, renamed ``renames_per_hour`` times in any hour and ``rename_interval_s``
  apart, counted in the database; a match records the names its players have when it starts.
* **Tables** (:mod:`.tables`): public ones listed until someone joins, private ones with an invite link.
* **What a match costs.** Every match stored is paid for from the hourly budget of the client address of each
  player it is stored for (:class:`~converge.server.play.match.budget.MatchBudget`): a private table's host; a
  public table's host when it is opened and its guest when they join; both players of a quick match, all or none (a
  refused side is told, the other goes back to the queue in its place); the player who takes a bot offer.
* **Live updates** (:mod:`.room`): every lobby page holds a WebSocket, sent each change of the tables.
* **Quick match** (:mod:`.quick`): the queue lives in this process's memory.
* **Profiles** (:mod:`.profiles`): a named player's page, hidden if they wish; a player's history, filtered.

What lobby messages hold is public (names, ratings, playsets, clocks); a seat token goes only to its own
player's connection, in the message that tells them their match is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from converge.server.lobby.players import Players
from converge.server.lobby.profiles import Profiles
from converge.server.lobby.quick import QuickMatch
from converge.server.lobby.ratings import BOT_RATINGS, rate_on_finish
from converge.server.lobby.room import LobbyConnection, Room
from converge.server.lobby.seating import Seating
from converge.server.lobby.tables import Tables
from converge.server.play.hub import Hub

log = logging.getLogger("converge.server.lobby")


class Lobby:
    """Players, tables, the quick-match queue and the lobby's connections of one server process."""

    def __init__(self, hub: Hub) -> None:
        cfg, engine, writer = hub.config, hub.storage.engine, hub.writer
        self._tasks: set[asyncio.Task[None]] = set()
        self.players = Players(cfg, engine, writer)
        self.profiles = Profiles(engine, writer, self.players, hub.catalog.skillsets)
        self.room = Room(cfg, engine, writer, hub.life, self.spawn)
        self.seating = Seating(hub.live, hub.catalog, writer)
        self.tables = Tables(cfg, writer, self.seating, self.room)
        self.quick = QuickMatch(cfg, self.players, self.seating, hub.pool, hub.life, self.spawn)
        hub.writes.finish_hooks.append(rate_on_finish)
        hub.live.bot_ratings.update(BOT_RATINGS)  # (the table shows a bot's fixed rating)

    def leave(self, conn: LobbyConnection) -> None:
        """A lobby page's connection closed: out of the queue (if it was the page that waited) and the room."""
        if self.quick.leave(conn):
            log.debug("player left the queue (page closed)")
        self.room.leave(conn)

    def connections(self) -> list[LobbyConnection]:
        """Every lobby page's connection of this process (told to reconnect when it drains for a restart)."""
        return list(self.room.conns)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` as one of the lobby's tasks, cancelled when it closes (the sign-in mails' too)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        """Stop the lobby's tasks (the poll, the queue, the tables' grace)."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
