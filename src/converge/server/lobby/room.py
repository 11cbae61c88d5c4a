"""The lobby's live pages: each holds a WebSocket (``/ws/lobby``), counted per client address and in all from
the moment it opens. Every change this process makes to the open tables is sent at once, and the tables are
read again from the database every ``lobby_poll_s`` seconds, so that changes other server processes make are
seen too; a table's host is told when it started."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Coroutine
from typing import Any

from sqlalchemy import Engine

from converge.server.config import ServerConfig
from converge.server.ops.meter import Meter
from converge.server.play.process.lifecycle import Lifecycle
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.messages import LobbyWelcome, OpenTable, PlayerInfo, TableList, TableStarted
from converge.server.security.limits import OpenCount
from converge.server.storage import lobby_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Writer
from converge.server.transport.connections import Connection, WebSocketLike, dumps

#: Runs a coroutine as one of the lobby's tasks (cancelled when the lobby closes).
Spawn = Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]]


class LobbyConnection(Connection):
    """A lobby page's WebSocket: a :class:`~converge.server.transport.connections.Connection` that knows its
    player, and the hash of the cookie that named them (which a sign-out may since have revoked)."""

    def __init__(self, ws: WebSocketLike, config: ServerConfig, address: str, player: store.Player | None,
                 cookie_hash: str | None = None, meter: Meter | None = None) -> None:
        super().__init__(ws, -1, config, address, meter)
        self.player = player
        self.cookie_hash = cookie_hash


class Room:
    """The lobby's connections of one server process, and the table list they are sent."""

    def __init__(self, config: ServerConfig, engine: Engine, writer: Writer, life: Lifecycle,
                 spawn: Spawn) -> None:
        self.config = config
        self.engine = engine
        self.writer = writer
        self.life = life
        self.spawn = spawn
        self.conns: set[LobbyConnection] = set()
        #: Open lobby sockets per client address and in all, from their opening (:meth:`admit`) to their close.
        self.sockets = OpenCount(config.max_lobby_connections_per_address, config.max_lobby_connections)
        self._listed: str | None = None  # the last table list sent (JSON)
        self._last_poll = time.time()
        self._notified: set[str] = set()  # tables whose host was told it started
        self._poll: asyncio.Task[None] | None = None
        #: The refresh's health (it fails while the database is away: /readyz, the metrics, logged once).
        self.health = life.jobs.add("lobby_refresh", "the lobby's refresh")
        #: Per host whose last page closed: the task that closes their open tables after ``table_grace_s``.
        self._grace: dict[str, asyncio.Task[None]] = {}

    def admit(self, address: str) -> None:
        """Count in a new lobby socket from ``address``, or refuse it (``busy``) when that address, or the
        lobby, has as many as it may hold; the caller counts it out (:meth:`let_out`) when it closes."""
        over = self.sockets.over(address)
        if over == "key":
            raise ProtocolError("busy", "too many lobby connections from your address; close some of its pages")
        if over == "total":
            raise ProtocolError("busy", "the lobby is as full as it can be; try again in a moment")
        self.sockets.add(address)

    def let_out(self, address: str) -> None:
        """A socket :meth:`admit` counted in has closed."""
        self.sockets.discard(address)

    async def tables(self) -> list[OpenTable]:
        """The public open tables, as the lobby lists them."""
        return await asyncio.to_thread(store.open_tables, self.engine)

    async def welcome(self, conn: LobbyConnection) -> None:
        """Register a page's connection and send it the lobby: its player, the tables, the queue's settings."""
        self.conns.add(conn)
        if conn.player is not None:
            task = self._grace.pop(conn.player.id, None)
            if task is not None:
                task.cancel()
        welcome: LobbyWelcome = {"type": "welcome", "player": conn.player.public() if conn.player else None,
                                 "tables": await self.tables(),
                                 "queue": {"bot_after_s": self.config.quick_match_bot_after_s}}
        conn.send(welcome)
        self._ensure_poll()

    def leave(self, conn: LobbyConnection) -> None:
        """``conn`` closed; when it was its player's last page, their open tables close after the grace."""
        self.conns.discard(conn)
        conn.close()
        player = conn.player
        if player is None or any(c.player is not None and c.player.id == player.id for c in self.conns):
            return
        if self.life.closing or self.config.table_grace_s <= 0:
            return

        async def close_later(pid: str = player.id) -> None:
            await asyncio.sleep(self.config.table_grace_s)
            self._grace.pop(pid, None)

            def close(c: Any) -> None:
                for t in store.tables_of(self.engine, pid):
                    if t["status"] == "open":
                        store.close_table(c, t["id"], pid)

            with contextlib.suppress(StorageError):
                await self.writer.write(close)
            await self.refresh()

        old = self._grace.pop(player.id, None)
        if old is not None:
            old.cancel()
        self._grace[player.id] = self.spawn(close_later())

    async def refresh(self) -> None:
        """Read the open tables; send them to every lobby page if they changed; tell hosts whose table
        another process started."""
        try:
            listed = await self.tables()
            since = self._last_poll - max(5.0, 3 * self.config.lobby_poll_s)
            self._last_poll = time.time()
            hosts = {c.player.id for c in self.conns if c.player is not None}
            started = await asyncio.to_thread(self._started_for, hosts, since) if hosts else []
        except Exception as exc:  # the database is away: next time
            self.health.failed(exc, self.config.lobby_poll_s)
            return
        self.health.worked()
        message: TableList = {"type": "tables", "tables": listed}
        text = dumps(message)
        if text != self._listed:
            self._listed = text
            for conn in list(self.conns):
                conn.send(text)
        for table_id, host_id in started:
            if table_id not in self._notified:
                self.tell_host(host_id, table_id, None)

    def tell_host(self, host_id: str, table_id: str, guest: PlayerInfo | None) -> None:
        """Tell a table's host (each of their pages) that it started (``guest``: who joined, when known)."""
        self._notified.add(table_id)
        started: TableStarted = {"type": "table_started", "table_id": table_id, "match_id": table_id,
                                 "url": f"/m/{table_id}", "opponent": guest}
        text = dumps(started)
        for conn in list(self.conns):
            if conn.player is not None and conn.player.id == host_id:
                conn.send(text)

    def _started_for(self, hosts: set[str], since: float) -> list[tuple[str, str]]:
        out = []
        for host in hosts:
            out += [(t["id"], host) for t in store.tables_of(self.engine, host, since) if t["status"] == "started"]
        return out

    def _ensure_poll(self) -> None:
        if self._poll is not None and not self._poll.done():
            return

        async def poll() -> None:
            while self.conns and not self.life.closing:
                await asyncio.sleep(self.config.lobby_poll_s)
                await self.refresh()
            self.health.idle()  # (no page to refresh: not failing, whatever the last try did)

        self._poll = self.spawn(poll())
