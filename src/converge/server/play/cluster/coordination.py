"""Coordination between server processes that share one PostgreSQL database.

Any process accepts any seat or spectator of any match; the database orders each match's actions (an
action is the row ``(match, index)``, so of two processes that try to write the same index one fails and
catches up). What the processes tell each other, PostgreSQL carries:

- **Changes**: each write to a match is followed, in its transaction, by ``NOTIFY converge_matches``
  with ``"<process>:<match>"``; every other process that holds the match in memory reads what is new
  (:meth:`converge.server.play.cluster.sync.Sync.refresh`) and sends its connections their views.
- **Ownership**: what the server does by itself for a match — its bots' moves, the clock's time loss,
  a stand-in for a player who left — is done by the one process that holds the match's advisory lock
  (``pg_try_advisory_lock``, on a connection of its own). When that process dies, PostgreSQL releases
  the lock with its connection, and another process that holds the match takes it over within
  :attr:`PgCoordinator.interval` seconds.
- **Presence**: a process with a connection of seat *s* holds a shared advisory lock on (match, *s*),
  so that the owner knows whether a player is connected anywhere (to start clocks, or to put a bot in
  the seat of someone who left). These too vanish with a dead process.

With SQLite (one process: see :class:`~converge.server.storage.database.SingleServerLock`) the
:class:`LocalCoordinator` owns every match and has no one to tell.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from converge.server.ops.jobs import Jobs
from converge.server.storage.match_store import CHANNEL

log = logging.getLogger("converge.server.coordination")

@dataclass(frozen=True)
class Note:
    """A change another process announced: to a match (read it from the database), to who is connected to
    it (``presence``), or one new action, carried whole so that it can be applied without a read."""

    match_id: str
    presence: bool = False
    #: (index, action, seat, the seat's clock after it, status, winner) of one stored action
    action: tuple[int, int, int, int | None, str, int | None] | None = None


def _opt(text: str) -> int | None:
    return int(text) if text else None


def parse_note(payload: str) -> tuple[str, Note] | None:
    """The origin and the note of a NOTIFY payload (None: not one of ours)."""
    try:
        origin, match_id, kind, *rest = payload.split(":")
        if kind == "a":
            idx, aid, seat, clock, status, winner = rest
            action = (int(idx), int(aid), int(seat), _opt(clock), status, _opt(winner))
            return origin, Note(match_id, action=action)
        return origin, Note(match_id, presence=kind == "p")
    except ValueError:
        return None


#: Called with each note another process sent.
OnChange = Callable[[Note], None]

#: The low bits of a match's advisory lock keys: its seats' presence, and its ownership.
_OWNER = 2
_KEY_MASK = (1 << 62) - 4  # positive keys: pg_locks shows them as (classid, objid) without sign trouble


def lock_key(match_id: str, kind: int) -> int:
    """The advisory lock key of a match's ownership (``kind`` 2) or of a seat's presence (0 or 1)."""
    digest = int.from_bytes(hashlib.blake2b(match_id.encode(), digest_size=8).digest(), "big")
    return (digest & _KEY_MASK) | kind


class LocalCoordinator:
    """One server process: it owns every match, and every connection is its own."""

    multi = False

    def __init__(self) -> None:
        self.origin = f"{os.getpid()}-{secrets.token_hex(4)}"
        #: Set when ownership and presence were lost with the lock connection (never, here).
        self.lost = asyncio.Event()

    async def start(self, on_change: OnChange, on_tick: Callable[[], Awaitable[None]]) -> None:
        return None

    async def close(self) -> None:
        return None

    async def claim(self, match_id: str) -> bool:
        return True

    async def claim_many(self, match_ids: list[str]) -> set[str]:
        return set(match_ids)

    async def release(self, match_id: str) -> None:
        return None

    async def present(self, match_id: str, seat: int, here: bool) -> None:
        return None

    async def say_present(self, match_id: str) -> None:
        """Tell the other processes that who is connected to the match changed here."""
        return None

    async def present_elsewhere(self, match_ids: Iterable[str]) -> dict[str, set[int]]:
        """The seats of these matches that have a connection on another process."""
        return {}

    def payload(self, match_id: str) -> str:
        """The NOTIFY payload of a change to a match."""
        return f"{self.origin}:{match_id}:c"

    def action_payload(self, match_id: str, idx: int, action: int, seat: int, clock: int | None, status: str,
                       winner: int | None) -> str:
        """The NOTIFY payload of one new action (applied by the others without reading the database)."""
        opt = ("" if clock is None else str(clock), "" if winner is None else str(winner))
        return f"{self.origin}:{match_id}:a:{idx}:{action}:{seat}:{opt[0]}:{status}:{opt[1]}"


class PgCoordinator(LocalCoordinator):
    """Several processes on one PostgreSQL database (see the module doc).

    It keeps two connections of its own: one that listens to the channel, one that holds the advisory
    locks (which live as long as that connection does). If the lock connection is lost, so is every
    ownership and presence: each round reconnects, and the hub takes over again what it still holds."""

    multi = True

    def __init__(self, url: str, interval: float = 1.0, jobs: Jobs | None = None) -> None:
        super().__init__()
        self.url = url
        self.interval = interval
        #: The rounds' health: failing while the database is away (/readyz, the metrics, the log).
        self.health = (jobs or Jobs()).add("coordination", "coordination with the other processes")
        self.listener: Any = None
        self.locks: Any = None
        self.owned: set[str] = set()
        self.present_here: set[tuple[str, int]] = set()
        self.on_change: OnChange | None = None
        self.on_tick: Callable[[], Awaitable[None]] | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.closing = False

    async def _connect(self) -> None:
        import psycopg

        if self.listener is None or self.listener.closed:
            self.listener = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            await self.listener.execute(f"LISTEN {CHANNEL}")
        if self.locks is None or self.locks.closed:
            self.locks = await psycopg.AsyncConnection.connect(self.url, autocommit=True)

    async def start(self, on_change: OnChange, on_tick: Callable[[], Awaitable[None]]) -> None:
        self.on_change, self.on_tick = on_change, on_tick
        await self._connect()
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._listen()), loop.create_task(self._tick())]

    async def close(self) -> None:
        self.closing = True
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(BaseException):
                await task
        for conn in (self.listener, self.locks):
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()

    async def _listen(self) -> None:
        """Take in the other processes' notes. A connection that breaks is closed, and the next round
        (:meth:`_tick`) connects again — or fails, and says so — after which every match catches up."""
        while not self.closing:
            listener = self.listener
            try:
                async for notify in listener.notifies():
                    parsed = parse_note(notify.payload)
                    if parsed is not None and parsed[0] != self.origin and self.on_change is not None:
                        self.on_change(parsed[1])
            except asyncio.CancelledError:
                raise
            except Exception:
                if self.closing:
                    return
                with contextlib.suppress(Exception):
                    await listener.close()
                await asyncio.sleep(self.interval)

    async def _tick(self) -> None:
        """Each round: connect again if a connection broke (ownership and presence went with it), then the
        hub's round (:meth:`Sync.coordinate <converge.server.play.cluster.sync.Sync.coordinate>`). A round that
        fails, whatever the error, is tried again: the rounds stop only with the process."""
        delay = self.interval
        while not self.closing:
            await asyncio.sleep(delay)
            try:
                if self.locks is None or self.locks.closed or self.listener is None or self.listener.closed:
                    self._drop_locks()
                    if self.locks is not None and not self.locks.closed:  # (what it holds is let go for real)
                        with contextlib.suppress(Exception):
                            await self.locks.close()
                    await self._connect()
                if self.on_tick is not None:
                    await self.on_tick()
            except Exception as exc:
                if self.closing:
                    return
                delay = self.health.failed(exc, self.interval)
            else:
                self.health.worked()
                delay = self.interval

    def _drop_locks(self) -> None:
        if self.closing:
            return
        if self.owned or self.present_here:
            log.warning("lost the lock connection: %d match(es) to take over again", len(self.owned))
        self.owned.clear()
        self.present_here.clear()
        self.lost.set()

    async def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            cur = await self.locks.execute(sql, params)
            return list(await cur.fetchall())
        except Exception:
            if self.locks is None or self.locks.closed:
                self._drop_locks()
            raise

    async def claim(self, match_id: str) -> bool:
        """Try to become the match's owner (at once: never waits for another process)."""
        if match_id in self.owned:
            return True
        rows = await self._query("SELECT pg_try_advisory_lock(%s)", (lock_key(match_id, _OWNER),))
        if rows and rows[0][0]:
            self.owned.add(match_id)
            return True
        return False

    async def claim_many(self, match_ids: list[str]) -> set[str]:
        """Take over those of these matches that nobody owns; returns the ones we own now."""
        keys = {lock_key(mid, _OWNER): mid for mid in match_ids if mid not in self.owned}
        if keys:
            rows = await self._query("SELECT k FROM unnest(%s::bigint[]) AS k WHERE pg_try_advisory_lock(k)",
                                     (list(keys),))
            self.owned.update(keys[int(k)] for (k,) in rows)
        return {mid for mid in match_ids if mid in self.owned}

    async def say_present(self, match_id: str) -> None:
        await self._query("SELECT pg_notify(%s, %s)", (CHANNEL, f"{self.origin}:{match_id}:p"))

    async def release(self, match_id: str) -> None:
        keys = [(match_id, s) for s in (0, 1) if (match_id, s) in self.present_here]
        for key in keys:
            await self.present(*key, here=False)
        if match_id in self.owned:
            self.owned.discard(match_id)
            with contextlib.suppress(Exception):
                await self._query("SELECT pg_advisory_unlock(%s)", (lock_key(match_id, _OWNER),))

    async def present(self, match_id: str, seat: int, here: bool) -> None:
        """Say whether this process has a connection of ``seat`` (a shared lock that dies with us)."""
        key = (match_id, seat)
        if here == (key in self.present_here):
            return
        if here:
            await self._query("SELECT pg_advisory_lock_shared(%s)", (lock_key(match_id, seat),))
            self.present_here.add(key)
        else:
            self.present_here.discard(key)
            with contextlib.suppress(Exception):
                await self._query("SELECT pg_advisory_unlock_shared(%s)", (lock_key(match_id, seat),))

    async def present_elsewhere(self, match_ids: Iterable[str]) -> dict[str, set[int]]:
        wanted = {lock_key(mid, s): (mid, s) for mid in match_ids for s in (0, 1)}
        if not wanted:
            return {}
        rows = await self._query(
            "SELECT DISTINCT (classid::bigint << 32) | objid::bigint FROM pg_locks "
            "WHERE locktype = 'advisory' AND objsubid = 1 AND mode = 'ShareLock' AND granted "
            "AND pid <> pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = ANY(%s)",
            (list(wanted),))
        out: dict[str, set[int]] = {}
        for (key,) in rows:
            mid, seat = wanted[int(key)]
            out.setdefault(mid, set()).add(seat)
        return out


def psycopg_url(sqlalchemy_url: str) -> str:
    """The libpq URL of an SQLAlchemy PostgreSQL URL (``postgresql+psycopg://`` -> ``postgresql://``)."""
    scheme, sep, rest = sqlalchemy_url.partition("://")
    return f"{scheme.split('+', 1)[0]}{sep}{rest}"


def coordinator_for(url: str, dialect: str, interval: float = 1.0, jobs: Jobs | None = None) -> LocalCoordinator:
    """The coordinator of a server on the database ``url`` (of SQLAlchemy dialect ``dialect``); ``jobs``: where
    its rounds' health is kept."""
    if dialect == "postgresql":
        return PgCoordinator(psycopg_url(url), interval, jobs)
    return LocalCoordinator()
