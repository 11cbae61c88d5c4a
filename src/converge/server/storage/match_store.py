"""Where matches live: SQLite by default, PostgreSQL when given its URL (SQLAlchemy Core).

A match is stored as its *record* — playset, seed, start setting, deck digest and the list of accepted
actions — plus metadata (mode, seats, clocks, result, rematch links). The state is never stored: it is
rebuilt by replaying the record, so whatever was committed is exactly what a restarted server resumes.

Seat tokens are never stored, only their SHA-256 hashes.

Writes go through one :class:`Writer` thread that commits queued writes in groups (one transaction, one
``fsync`` for all the writes that arrived together) and resolves each write's future only after the
commit: an action is acknowledged only once it is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ColumnElement,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    and_,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

log = logging.getLogger("converge.server.storage")

SCHEMA_VERSION = "4"

#: Columns added since schema version 1, added in place to an older database when it is opened:
#: (table, column, SQL type). Version 2: each action's clock (the acting seat's time left after it, for
#: replays) and the seats that allow hints in a friend match.
_ADDED_IN_2 = (("converge_actions", "clock_left_ms", "INTEGER"), ("converge_matches", "hints", "INTEGER"))
#: Version 3 adds the lobby's tables (players, lobby tables, match players, rating changes:
#: :mod:`converge.server.storage.lobby_store`); ``create_all`` makes them in an older database, nothing else
#: changes.
#: Version 4: the name each seat's player had when the match started (the stored names are filled in from the
#: players' present names), and the players' name changes (``create_all`` makes that table).
_ADDED_IN_4 = (("converge_match_players", "name", "VARCHAR(64)"),)

metadata = MetaData()

settings_table = Table(
    "converge_settings", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", String(256), nullable=False),
)

matches_table = Table(
    "converge_matches", metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("mode", String(8), nullable=False),  # "bot" or "friend"
    Column("playset", String(256), nullable=False),  # JSON list of three skillset names
    Column("seed", BigInteger, nullable=False),
    Column("start", String(8), nullable=False),  # "random", "0" or "1" (M2)
    Column("decks", String(64), nullable=False),  # the playset's deck digest
    Column("bot_seed", BigInteger, nullable=False),
    Column("status", String(8), nullable=False),  # "active" or "over"
    Column("n_actions", Integer, nullable=False),
    Column("winner", Integer, nullable=True),
    Column("reason", String(16), nullable=True),  # "match" (the engine's result) or "time"
    Column("clock_ms", Integer, nullable=True),  # per-player time for the whole match, or None
    Column("rematch_of", String(32), nullable=True),
    Column("rematch_id", String(32), nullable=True),
    Column("hints", Integer, nullable=True),  # bit p set: seat p allows hints (friend matches)
)

#: For the retention clean-up: finished / in-progress matches by the time of their last change.
status_index = Index("converge_matches_status_updated", matches_table.c.status, matches_table.c.updated_at)

seats_table = Table(
    "converge_seats", metadata,
    Column("match_id", String(32), ForeignKey("converge_matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("token_hash", String(64), nullable=True),  # None: a bot's seat (no one can act for it)
    Column("bot", String(32), nullable=True),  # the bot playing this seat, if any
    Column("replaced", Boolean, nullable=False, default=False),  # a bot stands in for a player who left
    Column("clock_left_ms", Integer, nullable=True),
)

actions_table = Table(
    "converge_actions", metadata,
    Column("match_id", String(32), ForeignKey("converge_matches.id"), primary_key=True),
    Column("idx", Integer, primary_key=True),  # 0, 1, 2... : a second write of the same index fails
    Column("action", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("at", Float, nullable=False),
    Column("clock_left_ms", Integer, nullable=True),  # the acting seat's clock after the action
)


class StorageError(Exception):
    """The database could not do what was asked (nothing was changed)."""


class Refused(StorageError):
    """A write that found the database otherwise than it requires (a lobby table already taken, a limit
    reached) and so wrote nothing: not a failure of the database. Its message is for players."""


#: A fault-injection point for tests (``CONVERGE_TEST_PAUSE=<point>:<seconds>``): a write that calls
#: :func:`pause_point` with that point's name logs that it got there, then sleeps inside its transaction, so
#: that a test can kill the process there. Read once; nothing happens without it.
_PAUSE = os.environ.get("CONVERGE_TEST_PAUSE", "")


def pause_point(name: str) -> None:
    """Sleep here, in the writer's thread, if a test asked to (see :data:`_PAUSE`)."""
    point, _, seconds = _PAUSE.partition(":")
    if point == name:
        log.warning("test pause point %s reached: sleeping %s s", name, seconds)
        time.sleep(float(seconds))


@dataclass(frozen=True)
class Retention:
    """How long matches are kept, in seconds since their last change; 0: forever."""

    #: a finished match (its record serves replays)
    finished_s: float = 0.0
    #: a match in which no move was ever played
    unstarted_s: float = 0.0
    #: a match in progress (abandoned)
    abandoned_s: float = 0.0

    @property
    def active(self) -> bool:
        return self.finished_s > 0 or self.unstarted_s > 0 or self.abandoned_s > 0

    def expired(self, now: float) -> ColumnElement[bool]:
        """The matches this policy says are to be deleted at time ``now`` (the policy must be active)."""
        c = matches_table.c
        parts: list[ColumnElement[bool]] = []
        if self.finished_s > 0:
            parts.append(and_(c.status == "over", c.updated_at < now - self.finished_s))
        if self.unstarted_s > 0:
            parts.append(and_(c.status == "active", c.n_actions == 0, c.updated_at < now - self.unstarted_s))
        if self.abandoned_s > 0:
            parts.append(and_(c.status == "active", c.updated_at < now - self.abandoned_s))
        return or_(*parts)


@dataclass
class SeatRow:
    seat: int
    token_hash: str | None
    bot: str | None
    replaced: bool = False
    clock_left_ms: int | None = None


@dataclass
class MatchRow:
    """A stored match: its record fields, metadata, seats and actions."""

    id: str
    mode: str
    playset: list[str]
    seed: int
    start: str
    decks: str
    bot_seed: int
    status: str = "active"
    n_actions: int = 0
    winner: int | None = None
    reason: str | None = None
    clock_ms: int | None = None
    rematch_of: str | None = None
    rematch_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    seats: list[SeatRow] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    #: Who took each action, and their clock after it (None: no clock, a bot, or stored before version 2).
    action_clocks: list[tuple[int, int | None]] = field(default_factory=list)
    #: Seats that allow hints (bit p: seat p), in a friend match.
    hints: int = 0

    def record(self) -> dict[str, Any]:
        """The match record (the engine's save and replay format). It holds the seed: server-side only
        while the match is in progress."""
        return {"format": "converge-record", "version": 1, "playset": list(self.playset), "seed": self.seed,
                "start": self.start, "decks": self.decks, "chance": False, "actions": list(self.actions)}


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
    """An SQLAlchemy engine for ``url``; SQLite files get WAL journaling and ``synchronous=FULL``."""
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
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
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
        return create_engine(url, pool_pre_ping=True)
    except Exception as exc:  # e.g. a missing driver
        raise StorageError(f"cannot use database {parsed.render_as_string(hide_password=True)}: {exc}") from None


# Statements built once (SQLAlchemy caches their compiled form): the hot path of every action.
class DriverTransaction:
    """A transaction on the database driver's own connection, for writes made only of :class:`_OnDriver`
    statements (an action's): the :class:`Writer` commits it without SQLAlchemy's transaction machinery."""

    __slots__ = ("connection", "dialect")

    def __init__(self, connection: Any, dialect: Any) -> None:
        self.connection = connection
        self.dialect = dialect


class _OnDriver:
    """A statement compiled once per kind of database and run on the driver's own cursor, inside the
    connection's transaction: an action's write is the server's hottest path, and SQLAlchemy's execution
    machinery cost more CPU than the statement itself."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self.compiled: dict[str, tuple[str, tuple[str, ...] | None]] = {}

    def __call__(self, conn: Connection | DriverTransaction, params: dict[str, Any]) -> int:
        """Run with ``params`` (by name); returns the number of rows it changed."""
        dialect = conn.dialect
        got = self.compiled.get(dialect.name)
        if got is None:
            compiled = self.statement.compile(dialect=dialect)
            order = tuple(compiled.positiontup) if compiled.positiontup else None
            got = self.compiled[dialect.name] = (compiled.string, order)
        sql, order = got
        cursor = conn.connection.cursor()
        try:
            cursor.execute(sql, [params[k] for k in order] if order is not None else params)
            return int(cursor.rowcount)
        finally:
            cursor.close()


_INSERT_ACTION = _OnDriver(insert(actions_table))
_ADVANCE_MATCH = _OnDriver(
    update(matches_table)
    .where(matches_table.c.id == bindparam("mid"), matches_table.c.n_actions == bindparam("idx"))
    .values(n_actions=bindparam("n"), status=bindparam("st"), winner=bindparam("w"), reason=bindparam("r"),
            updated_at=bindparam("t")))
#: The PostgreSQL channel on which server processes announce changes to matches (see coordination.py).
CHANNEL = "converge_matches"
_NOTIFY = _OnDriver(text("SELECT pg_notify(:channel, :payload)"))
_SET_CLOCK = _OnDriver(update(seats_table)
                       .where(seats_table.c.match_id == bindparam("mid"), seats_table.c.seat == bindparam("s"))
                       .values(clock_left_ms=bindparam("left")))


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


class Storage:
    """Synchronous access to the tables. Writes are functions of a connection, run by the :class:`Writer`."""

    def __init__(self, url: str, sqlite_sync: str = "FULL", exclusive: bool = False) -> None:
        """Open (and create or upgrade) the database at ``url``. ``exclusive``: this is a server, and an
        SQLite file may have only one (:class:`SingleServerLock`); PostgreSQL takes any number."""
        self.engine = make_engine(url, sqlite_sync)
        self.url = self.engine.url.render_as_string(hide_password=True)
        self.lock: SingleServerLock | None = None
        if exclusive and self.engine.dialect.name == "sqlite":
            self.lock = SingleServerLock(Path(self.engine.url.database or ""))
        try:
            with self.engine.begin() as conn:
                if conn.dialect.name == "postgresql":  # server processes starting together: one at a time
                    conn.execute(text("SELECT pg_advisory_xact_lock(7250615)"))
                metadata.create_all(conn)
                status_index.create(conn, checkfirst=True)  # databases made before the index existed
                row = conn.execute(select(settings_table.c.value)
                                   .where(settings_table.c.key == "schema_version")).first()
                if row is None:
                    conn.execute(insert(settings_table).values(key="schema_version", value=SCHEMA_VERSION))
                elif row[0] in ("1", "2", "3"):
                    self._upgrade(conn, row[0])
                elif row[0] != SCHEMA_VERSION:
                    raise StorageError(f"the database has schema version {row[0]}, this server needs "
                                       f"{SCHEMA_VERSION}")
                _lobby_store.on_open(conn)
                #: how commits are made durable (for operators and benchmarks: read once, at start)
                self.durability = self._durability(conn)
        except StorageError:
            raise
        except Exception as exc:
            raise StorageError(f"cannot open the database {self.url}: {exc}") from None

    @staticmethod
    def _durability(conn: Connection) -> str:
        """How commits are made durable, as the database itself says, e.g. ``"SQLite (WAL,
        synchronous=FULL)"`` or ``"PostgreSQL (fsync on)"``."""
        if conn.dialect.name == "sqlite":
            journal = str(conn.exec_driver_sql("PRAGMA journal_mode").scalar()).upper()
            level = conn.exec_driver_sql("PRAGMA synchronous").scalar()
            name = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(int(level or 0), str(level))
            return f"SQLite ({journal}, synchronous={name})"
        if conn.dialect.name == "postgresql":
            return f"PostgreSQL (fsync {conn.exec_driver_sql('SHOW fsync').scalar()})"
        return conn.dialect.name

    @staticmethod
    def _upgrade(conn: Connection, version: str) -> None:
        """Bring a version 1, 2 or 3 database to the current version: version 2's new nullable columns (from
        1); version 3's new tables were made by ``create_all``; version 4's column of the names at a match's
        start (from 3), filled in from the players' present names, the best there is."""
        from sqlalchemy import inspect

        inspector = inspect(conn)
        added = (*(_ADDED_IN_2 if version == "1" else ()), *(_ADDED_IN_4 if version in ("1", "2", "3") else ()))
        for table, column, kind in added:
            if column not in {c["name"] for c in inspector.get_columns(table)}:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))
        if version == "3":
            _lobby_store.fill_match_names(conn)
        conn.execute(update(settings_table).where(settings_table.c.key == "schema_version")
                     .values(value=SCHEMA_VERSION))
        log.info("database upgraded to schema version %s", SCHEMA_VERSION)

    def close(self) -> None:
        self.engine.dispose()
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    # ------------------------------------------------------------------ reads

    def load(self, match_id: str, since: int = 0) -> MatchRow | None:
        """The stored match ``match_id`` with its seats and actions, or None. With ``since``, only the
        actions from that index on are read (in :attr:`MatchRow.actions`; the caller has the others)."""
        with self.engine.connect() as conn:
            m = conn.execute(select(matches_table).where(matches_table.c.id == match_id)).mappings().first()
            if m is None:
                return None
            seats = conn.execute(select(seats_table).where(seats_table.c.match_id == match_id)
                                 .order_by(seats_table.c.seat)).mappings().all()
            a = actions_table.c
            actions = conn.execute(select(a.idx, a.action, a.seat, a.clock_left_ms)
                                   .where(a.match_id == match_id, a.idx >= since, a.idx < m["n_actions"])
                                   .order_by(a.idx)).all()  # (none committed after the match row was read)
        for i, (idx, *_rest) in enumerate(actions, since):
            if idx != i:
                raise StorageError(f"match {match_id}: action #{i} is missing from the database")
        return MatchRow(
            id=m["id"], mode=m["mode"], playset=list(json.loads(m["playset"])), seed=int(m["seed"]),
            start=m["start"], decks=m["decks"], bot_seed=int(m["bot_seed"]), status=m["status"],
            n_actions=int(m["n_actions"]), winner=m["winner"], reason=m["reason"], clock_ms=m["clock_ms"],
            rematch_of=m["rematch_of"], rematch_id=m["rematch_id"], created_at=float(m["created_at"]),
            updated_at=float(m["updated_at"]),
            seats=[SeatRow(int(s["seat"]), s["token_hash"], s["bot"], bool(s["replaced"]), s["clock_left_ms"])
                   for s in seats],
            actions=[int(act) for _i, act, _s, _c in actions],
            action_clocks=[(int(seat), None if c is None else int(c)) for _i, _a, seat, c in actions],
            hints=int(m["hints"] or 0))

    def progress(self, match_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Each stored match's number of actions and status, by id (the missing ones left out)."""
        if not match_ids:
            return {}
        c = matches_table.c
        with self.engine.connect() as conn:
            rows = conn.execute(select(c.id, c.n_actions, c.status).where(c.id.in_(list(match_ids)))).all()
        return {mid: (int(n), status) for mid, n, status in rows}

    def active_ids(self) -> list[str]:
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(select(matches_table.c.id)
                                               .where(matches_table.c.status == "active"))]

    def actions_of(self, match_id: str) -> list[int]:
        with self.engine.connect() as conn:
            return [int(r[0]) for r in conn.execute(select(actions_table.c.action)
                                                    .where(actions_table.c.match_id == match_id)
                                                    .order_by(actions_table.c.idx))]

    # ------------------------------------------------------------------ writes (run inside a transaction)

    @staticmethod
    def create_match(conn: Connection, row: MatchRow) -> None:
        now = time.time()
        conn.execute(insert(matches_table).values(
            id=row.id, created_at=now, updated_at=now, mode=row.mode, playset=json.dumps(row.playset),
            seed=row.seed, start=row.start, decks=row.decks, bot_seed=row.bot_seed, status=row.status,
            n_actions=0, winner=None, reason=None, clock_ms=row.clock_ms, rematch_of=row.rematch_of,
            rematch_id=None, hints=row.hints))
        conn.execute(insert(seats_table), [
            {"match_id": row.id, "seat": s.seat, "token_hash": s.token_hash, "bot": s.bot, "replaced": s.replaced,
             "clock_left_ms": s.clock_left_ms} for s in row.seats])

    @staticmethod
    def append_action(conn: Connection | DriverTransaction, match_id: str, idx: int, action: int, seat: int, *,
                      status: str, winner: int | None, reason: str | None,
                      clock_left_ms: int | None = None) -> None:
        """Append action ``idx`` of a match; fails (nothing written) if that index is already stored or the
        match does not have exactly ``idx`` actions."""
        now = time.time()
        _INSERT_ACTION(conn, {"match_id": match_id, "idx": idx, "action": action, "seat": seat, "at": now,
                              "clock_left_ms": clock_left_ms})
        if _ADVANCE_MATCH(conn, {"mid": match_id, "idx": idx, "n": idx + 1, "st": status, "w": winner, "r": reason,
                                 "t": now}) != 1:
            raise StorageError(f"match {match_id} does not have {idx} stored actions")
        if clock_left_ms is not None:
            _SET_CLOCK(conn, {"mid": match_id, "s": seat, "left": clock_left_ms})

    @staticmethod
    def finish(conn: Connection, match_id: str, winner: int, reason: str, n_actions: int,
               clock: Sequence[tuple[int, int]] = ()) -> None:
        """End a match outside the engine (a player ran out of time); fails (nothing written) unless the
        match is still in progress with exactly ``n_actions`` actions."""
        c = matches_table.c
        res = conn.execute(update(matches_table)
                           .where(c.id == match_id, c.status == "active", c.n_actions == n_actions)
                           .values(status="over", winner=winner, reason=reason, updated_at=time.time()))
        if res.rowcount != 1:
            raise StorageError(f"match {match_id} moved on or ended before it could be ended on time")
        for seat, left in clock:
            conn.execute(update(seats_table)
                         .where(seats_table.c.match_id == match_id, seats_table.c.seat == seat)
                         .values(clock_left_ms=left))

    @staticmethod
    def set_hints(conn: Connection, match_id: str, hints: int) -> None:
        conn.execute(update(matches_table).where(matches_table.c.id == match_id).values(hints=hints))

    @staticmethod
    def set_seat(conn: Connection, match_id: str, seat: int, bot: str | None, replaced: bool) -> None:
        conn.execute(update(seats_table).where(seats_table.c.match_id == match_id, seats_table.c.seat == seat)
                     .values(bot=bot, replaced=replaced))

    @staticmethod
    def delete_expired(conn: Connection, now: float, policy: Retention, keep: Sequence[str] = (),
                       limit: int = 500) -> list[str]:
        """Delete up to ``limit`` matches that ``policy`` says are expired at ``now`` (except those in
        ``keep``), with their seats and actions; return their ids. Links to them from other matches (rematch
        of / rematch) are cleared."""
        if not policy.active:
            return []
        c = matches_table.c
        query = select(c.id).where(policy.expired(now)).limit(limit)
        if keep:
            query = query.where(c.id.not_in(list(keep)))
        ids = [r[0] for r in conn.execute(query)]
        if not ids:
            return []
        conn.execute(delete(actions_table).where(actions_table.c.match_id.in_(ids)))
        conn.execute(delete(seats_table).where(seats_table.c.match_id.in_(ids)))
        conn.execute(update(matches_table).where(c.rematch_id.in_(ids)).values(rematch_id=None))
        conn.execute(update(matches_table).where(c.rematch_of.in_(ids)).values(rematch_of=None))
        conn.execute(delete(matches_table).where(c.id.in_(ids)))
        return ids

    def count(self) -> int:
        """How many matches are stored."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(matches_table)).scalar_one())

    @staticmethod
    def announce(conn: Connection | DriverTransaction, payload: str) -> None:
        """Tell every server process listening on this database that a match changed (PostgreSQL's
        NOTIFY, delivered when this transaction commits; nothing on SQLite, which has one process)."""
        if conn.dialect.name == "postgresql":
            _NOTIFY(conn, {"channel": CHANNEL, "payload": payload})

    @staticmethod
    def link_rematch(conn: Connection, old_id: str, new_id: str) -> None:
        res = conn.execute(update(matches_table)
                           .where(matches_table.c.id == old_id, matches_table.c.rematch_id.is_(None))
                           .values(rematch_id=new_id))
        if res.rowcount != 1:
            raise StorageError(f"match {old_id} already has a rematch")


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


T = TypeVar("T")
WriteFn = Callable[[Connection], Any]
#: A write waiting for the writer: the function, what to call when it is done, and whether it is a driver write.
_Write = tuple[WriteFn, Callable[[BaseException | None], None], bool]


class Writer:
    """One thread that runs writes in groups: each group is one transaction, committed before any of its
    writes is reported done. A group that fails is retried write by write, so that one bad write fails
    alone and the others are still committed."""

    def __init__(self, storage: Storage, max_group: int = 256) -> None:
        self.storage = storage
        self.max_group = max_group
        self.checkpointer = Checkpointer(storage) if storage.engine.dialect.name == "sqlite" else None
        # (SimpleQueue: its put is one C call; a Queue's Python-level locking showed in profiles)
        self.queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="converge-db-writer", daemon=True)
        self.groups = 0
        self.writes = 0
        self.conn: Connection | None = None
        self.thread.start()

    def submit(self, fn: WriteFn, done: Callable[[BaseException | None], None], driver: bool = False) -> None:
        self.queue.put((fn, done, driver))

    async def write(self, fn: WriteFn, driver: bool = False) -> None:
        """Run ``fn(connection)`` in a transaction; return once it is committed (raise StorageError if not).

        ``driver``: ``fn`` runs only :class:`_OnDriver` statements (an action's write), so it may be given
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
                    fut.set_exception(exc if isinstance(exc, StorageError) else StorageError(str(exc)))
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
        as much as the writes); a connection that failed is closed and the next group opens another."""
        if self.conn is None:
            self.conn = self.storage.engine.connect()
        return self.conn

    def _commit(self, group: list[_Write]) -> None:
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
                if not isinstance(exc, Refused):
                    log.warning("a database write failed: %s", exc)
                group[0][1](exc)
                return
            for one in group:  # find the write that failed; commit the others
                self._commit([one])
            return
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


# The lobby's tables (players, lobby tables, ratings) live in their own module, on the same metadata: imported
# here so that every Storage creates them, and checks them when it opens (lobby_store.on_open).
from converge.server.storage import lobby_store as _lobby_store  # noqa: E402
