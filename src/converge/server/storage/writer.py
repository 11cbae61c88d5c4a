"""The database writer: one thread that commits queued writes in groups (one transaction, one ``fsync`` for
all the writes that arrived together) and resolves each write's future only after the commit, so that an
action is acknowledged only once it is durable."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from sqlalchemy import Connection

from converge.server.ops.meter import Meter
from converge.server.storage.database import Refused, StorageError, describe
from converge.server.storage.driver import DriverTransaction
from converge.server.storage.match_store import Storage

log = logging.getLogger("converge.server.storage")


class Checkpointer:
    """SQLite only: copies the write-ahead log into the database from its own thread, every ``interval``
    seconds, without holding up the writer (PASSIVE checkpoints), and truncates the log when it is idle."""

    def __init__(self, storage: Storage, interval: float = 1.0) -> None:
        self.storage = storage
        self.interval = interval
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name="converge-db-checkpointer", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stop_event.wait(self.interval):
            self.checkpoint("PASSIVE")

    def checkpoint(self, mode: str) -> None:
        try:
            with self.storage.engine.connect() as conn:
                conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")
        except Exception as exc:  # a busy database: next time
            log.debug("checkpoint failed: %s", exc)

    def close(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=30)
        self.checkpoint("TRUNCATE")


#: Seconds after which the writer's connection, unused, is pinged before its next group.
PING_AFTER_S = 1.0

T = TypeVar("T")
#: The connection a write runs on, inside its transaction (the writes' functions take it).
Tx = Connection
WriteFn = Callable[[Tx], Any]
#: A write waiting for the writer: the function, what to call when it is done, and whether it is a driver write.
_Write = tuple[WriteFn, Callable[[BaseException | None], None], bool]


class Writer:
    """One thread that runs writes in groups: each group is one transaction, committed before any of its
    writes is reported done. A group that fails is retried write by write, so that one bad write fails
    alone and the others are still committed."""

    def __init__(self, storage: Storage, max_group: int = 256, meter: Meter | None = None) -> None:
        self.storage = storage
        self.meter = meter or Meter()  # (told each commit's time)
        self.max_group = max_group
        self.checkpointer = Checkpointer(storage) if storage.engine.dialect.name == "sqlite" else None
        # (SimpleQueue: its put is one C call; a Queue's Python-level locking showed in profiles)
        self.queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="converge-db-writer", daemon=True)
        self.groups = 0
        self.writes = 0
        self.conn: Connection | None = None
        self.used = 0.0  # (monotonic) when the connection was last used
        self.thread.start()

    def submit(self, fn: WriteFn, done: Callable[[BaseException | None], None], driver: bool = False) -> None:
        self.queue.put((fn, done, driver))

    async def write(self, fn: WriteFn, driver: bool = False) -> None:
        """Run ``fn(connection)`` in a transaction; return once it is committed (raise StorageError if not).

        ``driver``: ``fn`` runs only :class:`OnDriver` statements (an action's write), so it may be given
        a :class:`DriverTransaction`; a group of such writes is committed on the driver's connection."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()

        def done(exc: BaseException | None) -> None:
            def resolve() -> None:
                if fut.done():
                    return
                if exc is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(exc if isinstance(exc, StorageError) else StorageError(describe(exc)))
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(resolve)

        self.submit(fn, done, driver)
        await fut

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=30)
        if self.conn is not None and not self.thread.is_alive():
            with contextlib.suppress(Exception):
                self.conn.close()
            self.conn = None
        if self.checkpointer is not None:
            self.checkpointer.close()

    def _run(self) -> None:
        stop = False
        while not stop:
            item = self.queue.get()
            if item is None:
                break
            group = [item]
            while len(group) < self.max_group:
                try:
                    nxt = self.queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                group.append(nxt)
            self._commit(group)

    def _connection(self) -> Connection:
        """The writer's own connection, kept between groups (taking one from the pool for each group cost
        as much as the writes); a connection that failed is closed and the next group opens another. One idle
        for :data:`PING_AFTER_S` is pinged first (as the pool pings what it hands out), so that a database
        restarted meanwhile costs no write: the dead connection is replaced before the group is written."""
        now = time.monotonic()
        idle, self.used = now - self.used, now
        if self.conn is not None and idle > PING_AFTER_S:
            try:
                raw = self.conn.connection.dbapi_connection
                if raw is None or not self.storage.engine.dialect.do_ping(raw):
                    raise StorageError("the connection is gone")
            except Exception:
                with contextlib.suppress(Exception):
                    self.conn.invalidate()
                    self.conn.close()
                self.conn = None
        if self.conn is None:
            self.conn = self.storage.engine.connect()
        return self.conn

    def _commit(self, group: list[_Write]) -> None:
        start = time.perf_counter()
        try:
            conn = self._connection()
            if all(driver for _fn, _done, driver in group):
                self._commit_on_driver(conn, group)
            else:
                with conn.begin():
                    for fn, _done, _driver in group:
                        fn(conn)
        except Exception as exc:
            if self.conn is not None and self.conn.invalidated:
                with contextlib.suppress(Exception):
                    self.conn.close()
                self.conn = None
            if len(group) == 1:
                # A refused write (a table taken meanwhile, a limit reached) is the players' doing, not a
                # failure of the database: the failures' counter is what a host is alerted on.
                if not isinstance(exc, Refused):  # (the error whole, its parameters hidden, in `exception`)
                    self.meter.commit(time.perf_counter() - start, 1, False)
                    log.warning("a database write failed, nothing of it stored: %s", describe(exc), exc_info=exc)
                group[0][1](exc)
                return
            # (The group is not counted: each of its writes is, as it is committed again alone.)
            for one in group:  # find the write that failed; commit the others
                self._commit([one])
            return
        self.meter.commit(time.perf_counter() - start, len(group), True)
        self.groups += 1
        self.writes += len(group)
        for _fn, done, _driver in group:
            done(None)

    def _commit_on_driver(self, conn: Connection, group: list[_Write]) -> None:
        """Commit ``group`` on the driver's connection (the SQLAlchemy connection is between transactions);
        a failure rolls it back, and a connection that cannot even roll back is given up."""
        raw = conn.connection.dbapi_connection
        tx = DriverTransaction(raw, conn.dialect)
        try:
            for fn, _done, _driver in group:
                cast(Callable[[DriverTransaction], Any], fn)(tx)  # (submitted as a driver write)
            raw.commit()  # type: ignore[union-attr]
        except Exception:
            try:
                raw.rollback()  # type: ignore[union-attr]
            except Exception:
                conn.invalidate()
            raise
