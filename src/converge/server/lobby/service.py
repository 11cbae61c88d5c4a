"""The lobby of one server process: finding opponents, beside the hub (:class:`~converge.server.play.hub.Hub`),
whose match operations it uses to make matches; the hub calls its ratings hook inside the transaction that
finishes a match (:func:`~converge.server.lobby.ratings.rate_on_finish`: exactly once).

* **Accounts** (:mod:`converge.server.accounts`): signing in on every device by an emailed link.
* **Players** (:mod:`.players`): names, renamed ``renames_per_hour`` times in any hour and ``rename_interval_s``
  apart, counted in the database; a match records the names its players have when it starts.
* **Tables** (:mod:`.tables`): public ones listed until someone joins, private ones with an invite link.
* **What a match costs.** Every match stored is paid for from the hourly budget of the client address of each
  player it is stored for (:class:`~converge.server.play.budget.MatchBudget`): a private table's host; a public
  table's host when it is opened and its guest when they join; both players of a quick match, all or none (a
  refused side is told, the other goes back to the queue in its place); the player who takes a bot offer.
* **Live updates** (:mod:`.room`): every lobby page holds a WebSocket, sent each change of the tables.
* **Quick match** (:mod:`.quick`): the queue lives in this process's memory.

What lobby messages hold is public (names, ratings, playsets, clocks); a seat token goes only to its own
player's connection, in the message that tells them their match is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from typing import Any

from converge.server.accounts.mailer import mailer_for
from converge.server.accounts.signin import Accounts
from converge.server.accounts.turn_mail import TurnMails
from converge.server.lobby.players import Players
from converge.server.lobby.quick import QuickMatch
from converge.server.lobby.ratings import BOT_RATINGS, rate_on_finish
from converge.server.lobby.room import LobbyConnection, Room
from converge.server.lobby.seating import Seating
from converge.server.lobby.tables import Tables
from converge.server.play.hub import Hub
from converge.server.storage import accounts_store, moderation_store

log = logging.getLogger("converge.server.lobby")


class Lobby:
    """Players, tables, the quick-match queue and the lobby's connections of one server process."""

    def __init__(self, hub: Hub) -> None:
        cfg, engine, writer = hub.config, hub.storage.engine, hub.writer
        self._tasks: set[asyncio.Task[None]] = set()
        self.players = Players(cfg, engine, writer)
        mailer = mailer_for(cfg.smtp_url, cfg.mail_from, cfg.public_url, cfg.resolved_mail_dir())
        self.accounts = Accounts(cfg, engine, writer, self.players, mailer, self._spawn)
        self.turn_mails = TurnMails(cfg, engine, writer, mailer, hub.wall, hub.life)
        self.room = Room(cfg, engine, writer, hub.life, self._spawn)
        self.seating = Seating(hub.matches, hub.catalog, writer)
        self.tables = Tables(cfg, engine, writer, hub.catalog, hub.budget, self.seating, self.room)
        self.quick = QuickMatch(cfg, hub.catalog, hub.budget, hub.pool, self.seating, self.players, hub.life,
                                self._spawn)
        hub.writes.finish_hooks.append(rate_on_finish)
        hub.matches.bot_ratings.update(BOT_RATINGS)  # (the table shows a bot's fixed rating)

    async def sign_out_everywhere(self, cookie: str | None) -> None:
        """Sign every device of the caller's player out, in one transaction: their browsers' tokens, the tokens
        and keys to their seats in every match (the match's connections holding one are closed, here and, told
        by the database, in every other process) and their open tables; they leave the quick-match queue. Each
        device signs in again by a link, and gets a new key to each seat it plays."""
        player, _digest = await self.accounts.signed_in(cookie)
        at = time.time()
        closed: list[str] = []

        def write(conn: Any) -> list[str]:
            accounts_store.sign_out_everywhere(conn, player.id)
            closed[:] = moderation_store.open_tables_of(conn, player.id, at)
            return accounts_store.revoke_seats(conn, player.id)

        await self.seating.revoke(write)
        self.quick.drop_player(player.id)
        if closed:
            await self.room.refresh()

    def leave(self, conn: LobbyConnection) -> None:
        """A lobby page's connection closed: out of the queue (if it was the page that waited) and the room."""
        if self.quick.leave(conn):
            log.debug("player left the queue (page closed)")
        self.room.leave(conn)

    def connections(self) -> list[LobbyConnection]:
        """Every lobby page's connection of this process (told to reconnect when it drains for a restart)."""
        return list(self.room.conns)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def start(self) -> None:
        """Start sending the "your turn" mails."""
        self.turn_mails.start()

    async def close(self) -> None:
        """Stop the lobby's tasks (the poll, the queue, the tables' grace, the mails)."""
        await self.turn_mails.stop()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
