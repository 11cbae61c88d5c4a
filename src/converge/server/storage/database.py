"""Opening a database: its URL, the SQLAlchemy engine (SQLite's settings), one server per SQLite file, and
the errors of storage."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

log = logging.getLogger("converge.server.storage")


class StorageError(Exception):
    """The database could not do what was asked (nothing was changed)."""


def describe(exc: BaseException) -> str:
    """A database's error in one line that holds none of the data written: its kind and the first line of the
    driver's message. Left out: the statement and its parameters (SQLAlchemy's ``[SQL: ...]`` and
    ``[parameters: ...]``: a match's seed among them) and PostgreSQL's DETAIL (``Failing row contains (...)``:
    the whole row).

    >>> describe(ValueError("no such table: matches\\n[SQL: SELECT seed FROM matches]"))
    'ValueError: no such table: matches'
    """
    orig = getattr(exc, "orig", None) or exc  # (a DBAPIError wraps the driver's own)
    lines = str(orig).strip().splitlines()
    return f"{type(orig).__name__}: {lines[0]}" if lines else type(orig).__name__


class Refused(StorageError):
    """A write that found the database otherwise than it requires (a lobby table already taken, a limit
    reached) and so wrote nothing: not a failure of the database. Its message is for players."""


#: A fault-injection point for tests (``CONVERGE_TEST_PAUSE=<point>:<seconds>``): a write that calls
#: :func:`pause_point` with that point's name logs that it got there, then sleeps inside its transaction, so
#: that a test can kill the process there. Read once; nothing happens without it.
_PAUSE = os.environ.get("CONVERGE_TEST_PAUSE", "")


def pause_point(name: str) -> None:
    """Sleep here, in the writer's thread, if a test asked to (see :data:`_PAUSE`)."""
    if not _PAUSE:
        return
    point, _, seconds = _PAUSE.partition(":")
    if point == name:
        log.warning("test pause point %s reached: sleeping %s s", name, seconds)
        time.sleep(float(seconds))


def normalize_url(url: str) -> str:
    """Accept ``postgresql://`` and ``postgres://`` URLs (use psycopg 3) and plain file paths (SQLite)."""
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser()}"
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url


def make_engine(url: str, sqlite_sync: str = "FULL") -> Engine:
    """An SQLAlchemy engine for ``url``; SQLite files get WAL journaling and ``synchronous=FULL``. Its errors and
    its log lines never show a statement's parameters (``hide_parameters``): a match's seed is one."""
    url = normalize_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StorageError(f"not a database URL: {exc}") from None
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            raise StorageError("an in-memory SQLite database would lose every match: give a file path")
        parent = Path(database).expanduser().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(f"cannot create {parent}: {exc.strerror or exc}") from None
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, hide_parameters=True)
        sync = sqlite_sync.upper()
        if sync not in ("FULL", "NORMAL", "EXTRA"):
            raise StorageError(f"sqlite synchronous must be FULL, NORMAL or EXTRA, got {sqlite_sync!r}")

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sync}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            # No checkpoint on commit: the writer would stall while it copies the log into the database
            # (and fsyncs it); the Checkpointer thread does that beside it.
            cur.execute("PRAGMA wal_autocheckpoint=0")
            cur.close()

        return engine
    try:
        return create_engine(url, pool_pre_ping=True, hide_parameters=True)
    except Exception as exc:  # e.g. a missing driver
        raise StorageError(f"cannot use database {parsed.render_as_string(hide_password=True)}: {exc}") from None


class SingleServerLock:
    """One server process per SQLite file: each server holds an exclusive lock on ``<file>.lock`` (released
    by the system when the process ends, even by SIGKILL). Matches live in their server's memory between
    actions, so a second process on the same file would play the same matches from stale copies."""

    def __init__(self, database: Path) -> None:
        import fcntl

        self.path = database.with_name(database.name + ".lock")
        try:
            self.file = self.path.open("a+")
        except OSError as exc:
            raise StorageError(f"cannot open {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.file.seek(0)
            holder = self.file.read(32).strip()
            self.file.close()
            raise StorageError(
                f"{database} is in use by another converge server"
                f"{f' (process {holder})' if holder.isdigit() else ''}: an SQLite database serves one server "
                "process; stop the other one, or use PostgreSQL (--db postgresql://...) to run several") from None
        self.file.seek(0)
        self.file.truncate()
        self.file.write(str(os.getpid()))
        self.file.flush()

    def release(self) -> None:
        self.file.close()  # closing the file releases the lock
