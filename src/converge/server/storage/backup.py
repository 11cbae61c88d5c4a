"""The server's database backed up, restored and upgraded: ``converge db backup|restore|upgrade|status``.

* SQLite: a backup is a consistent copy made with SQLite's online backup API, safe while a server runs on the
  database and writes to it. The server's database is in WAL mode, where a reader never holds up the writer;
  the copy is read from one snapshot (a read transaction held on the source for the whole copy), in steps,
  so a commit of the server between two steps neither shows in the copy nor makes the copy start again.
  A restore copies a backup into the target in one transaction (all or nothing), refused while a server
  holds the target (its :class:`~converge.server.storage.database.SingleServerLock`).
* PostgreSQL: ``pg_dump --format=custom`` and ``pg_restore``, the password given to them in ``PGPASSWORD``,
  never on their command line. The dump reads the snapshot in which the matches were counted.

Every mistake (no such file, not a database, a database that cannot be reached) is a
:class:`~converge.server.storage.database.StorageError` whose one line names the file or the database (its
password masked), raised before anything is changed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, func, inspect, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from converge.server.storage import lobby_store, migrate
from converge.server.storage.database import SingleServerLock, StorageError, make_engine, normalize_url
from converge.server.storage.migrations import legacy
from converge.server.storage.schema import matches_table, settings_table

log = logging.getLogger("converge.server.storage")

#: Pages copied per step of an SQLite backup (4 MB of 4 KB pages).
STEP_PAGES = 1024
#: The advisory lock servers take as they open a PostgreSQL database (:class:`~.match_store.Storage`): an
#: upgrade or restore waits for a server that is starting.
_OPEN_LOCK = 7250615
_SQLITE_HEADER = b"SQLite format 3\x00"
_PGDUMP_HEADER = b"PGDMP"
_CLIENT_TOOLS = "install the PostgreSQL client tools (Debian, Ubuntu: apt-get install postgresql-client)"


@dataclass(frozen=True)
class Database:
    """A database as the commands name it: its SQLAlchemy URL (which may hold a password), its kind, its file
    (SQLite) and how messages show it (password masked)."""

    url: str
    kind: str  # "sqlite" or "postgresql"
    path: Path | None
    shown: str
    password: str | None = None


@dataclass(frozen=True)
class Counts:
    """What a database or a backup holds: its revision (or the legacy schema version) and its matches."""

    revision: str | None
    finished: int
    running: int

    @property
    def matches(self) -> int:
        return self.finished + self.running

    def summary(self) -> str:
        return (f"{self.matches} match{'es' if self.matches != 1 else ''} ({self.finished} finished, "
                f"{self.running} in progress), {shown_revision(self.revision)}")


#: What the units above storage check when the database is opened, in the opening transaction.
AtOpen = Sequence[Callable[[Connection], None]]


def shown_revision(revision: str | None) -> str:
    if revision is None:
        return "no schema yet"
    if revision.startswith("v"):
        return f"schema version {revision[1:]} (made before revisions)"
    return f"revision {revision}"


def size_text(size: int) -> str:
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def locate(url: str) -> Database:
    """The database ``url`` names (an SQLAlchemy URL, ``postgres://``, or an SQLite file path)."""
    try:
        parsed = make_url(normalize_url(url))
    except ArgumentError:
        raise StorageError("not a database URL: give an SQLite file path, sqlite:///PATH or "
                           "postgresql://user:password@host/database") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        database = parsed.database or ""
        if database in ("", ":memory:"):
            raise StorageError("an in-memory SQLite database holds nothing to back up: give a file path")
        path = Path(database).expanduser()
        return Database(parsed.render_as_string(hide_password=False), "sqlite", path, str(path))
    if backend != "postgresql":
        raise StorageError(f"the database commands know SQLite and PostgreSQL, not {backend}")
    password = parsed.password or parsed.query.get("password")
    query = {k: v for k, v in parsed.query.items() if k != "password"}
    shown = parsed.set(drivername="postgresql", query=query).render_as_string(hide_password=True)
    return Database(parsed.render_as_string(hide_password=False), "postgresql", None, shown,
                    None if password is None else str(password))


def _masked(db: Database, message: str) -> str:
    """``message`` (a driver's or a tool's) on one line, with no trace of the database's password."""
    line = " ".join(message.split())
    return line.replace(db.password, "***") if db.password else line


# ---------------------------------------------------------------------- reading a database


def counts(conn: Connection) -> Counts:
    """The revision and the matches of the database on ``conn`` (a converge database: see :func:`_ours`)."""
    c = matches_table.c
    rows: dict[str, int] = {str(s): int(n) for s, n in conn.execute(select(c.status, func.count())
                                                                     .group_by(c.status))}
    return Counts(_revision(conn), int(rows.get("over", 0)), sum(int(n) for s, n in rows.items() if s != "over"))


def _revision(conn: Connection) -> str | None:
    """The Alembic revision, else ``"v4"`` for a database of a hand-numbered schema version, else None."""
    current = migrate.revision(conn)
    if current is not None:
        return current
    if inspect(conn).has_table(settings_table.name):
        s = settings_table.c
        found = conn.execute(select(s.value).where(s.key == "schema_version")).scalar()
        if found is not None:
            return f"v{found}"
    return None


def _ours(conn: Connection) -> bool | None:
    """True: a converge database; None: one with no tables at all; False: someone else's."""
    tables = inspect(conn).get_table_names()
    if matches_table.name in tables:
        return True
    return None if not tables else False


def _known(revision: str | None) -> bool:
    """Whether this version of converge can bring a database at ``revision`` up to date."""
    if revision is None:
        return True
    if revision.startswith("v"):
        return revision[1:] in legacy.VERSIONS
    return revision in _revisions()


def _revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    return {r.revision for r in ScriptDirectory.from_config(migrate.config()).walk_revisions()}


def _newer(where: str, revision: str | None) -> StorageError:
    return StorageError(f"{where} is at {shown_revision(revision)}, which this converge does not know (a newer "
                        f"version made it; this one's newest is revision {migrate.head()}): install the newer "
                        "converge to use it")


@contextlib.contextmanager
def _engine(db: Database) -> Iterator[Engine]:
    engine = make_engine(db.url)
    try:
        yield engine
    finally:
        engine.dispose()


@contextlib.contextmanager
def _connected(db: Database, engine: Engine, transaction: bool = False) -> Iterator[Connection]:
    """A connection (in a transaction if asked), its failures to reach the database as one line naming it."""
    try:
        with engine.begin() if transaction else engine.connect() as conn:
            yield conn
    except StorageError:
        raise
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        raise StorageError(f"cannot use the database {db.shown}: {_masked(db, reason[0] if reason else '')}") \
            from None


def _sqlite_file(path: Path, what: str) -> None:
    """``path`` is an SQLite file, else a StorageError naming it (``what`` it was to be)."""
    if not path.exists():
        raise StorageError(f"{path}: no such file")
    if path.is_dir():
        raise StorageError(f"{path} is a folder, not {what}")
    try:
        with path.open("rb") as f:
            head = f.read(len(_SQLITE_HEADER))
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if head.startswith(_PGDUMP_HEADER):
        raise StorageError(f"{path} is a PostgreSQL dump, not {what}: restore it into a PostgreSQL database "
                           "(--db postgresql://...)")
    if head != _SQLITE_HEADER and path.stat().st_size > 0:
        raise StorageError(f"{path} is not {what}: it is not an SQLite database")


def _read_only(path: Path) -> sqlite3.Connection:
    """A connection that can neither create ``path`` nor change it; reads begin only when asked (BEGIN)."""
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, timeout=30)


def _sqlite_counts(con: sqlite3.Connection, where: str, what: str) -> Counts:
    """Check that ``con`` is a sound converge database (``what`` it is to be) and count what it holds."""
    try:
        check = con.execute("PRAGMA quick_check").fetchone()
        if check is None or check[0] != "ok":
            raise StorageError(f"{where} is damaged (SQLite's check: {check[0] if check else 'no answer'})")
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = ?", ("table",))}
        if matches_table.name not in tables:
            raise StorageError(f"{where} is not {what}: it has no converge tables")
        revision: str | None = None
        if "alembic_version" in tables:
            found = con.execute("SELECT version_num FROM alembic_version").fetchone()
            revision = None if found is None else str(found[0])
        if revision is None and settings_table.name in tables:
            found = con.execute("SELECT value FROM converge_settings WHERE key = 'schema_version'").fetchone()
            revision = None if found is None else f"v{found[0]}"
        rows = dict(con.execute("SELECT status, count(*) FROM converge_matches GROUP BY status").fetchall())
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{where} is not {what}: {exc}") from None
    return Counts(revision, int(rows.get("over", 0)), sum(int(n) for s, n in rows.items() if s != "over"))


# ---------------------------------------------------------------------- backup


@dataclass(frozen=True)
class Written:
    """A backup written: where, how large, and what it holds."""

    path: Path
    size: int
    counts: Counts


def backup(db: Database, dest: Path, force: bool = False) -> Written:
    """Back ``db`` up to the file ``dest`` (an existing one only with ``force``)."""
    dest = dest.expanduser()
    _check_destination(dest, force)
    if db.path is not None and dest.resolve() == db.path.resolve():
        raise StorageError(f"{dest} is the database itself: give another file for its backup")
    partial = dest.with_name(f".{dest.name}.{os.getpid()}.partial")
    try:
        found = _backup_sqlite(db, partial) if db.kind == "sqlite" else _backup_postgresql(db, partial)
        _check_destination(dest, force)  # (made meanwhile by someone else?)
        os.replace(partial, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return Written(dest, dest.stat().st_size, found)


def _check_destination(dest: Path, force: bool) -> None:
    if dest.is_dir():
        raise StorageError(f"{dest} is a folder: give the backup's file name")
    if dest.exists() and not force:
        raise StorageError(f"{dest} already exists: give another name, or --force to overwrite it")
    if not dest.parent.is_dir():
        raise StorageError(f"{dest.parent}: no such folder")
    if not os.access(dest.parent, os.W_OK):
        raise StorageError(f"cannot write in {dest.parent}")


def _backup_sqlite(db: Database, partial: Path) -> Counts:
    assert db.path is not None
    _sqlite_file(db.path, "a converge database")
    source = _read_only(db.path)
    try:
        try:
            source.execute("BEGIN")  # one snapshot for the whole copy (see the module's docstring)
            found = _sqlite_counts(source, str(db.path), "a converge database")
            target = sqlite3.connect(partial)
            try:
                source.backup(target, pages=STEP_PAGES, progress=_step)
                target.execute("PRAGMA journal_mode=DELETE")  # the backup is one file, with no -wal beside it
                _sqlite_counts(target, str(partial), "a converge database")
            finally:
                target.close()
        except sqlite3.Error as exc:
            raise StorageError(f"cannot back up {db.path}: {exc}") from None
    finally:
        source.close()
    return found


def _step(_status: int, remaining: int, total: int) -> None:
    """After each step of an SQLite backup."""
    log.debug("backup: %d of %d pages copied", total - remaining, total)


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise StorageError(f"{name} is not installed here: {_CLIENT_TOOLS}")
    return found


def _libpq(db: Database) -> tuple[str, dict[str, str]]:
    """The URL libpq's tools take (no password in it) and their environment (the password in PGPASSWORD)."""
    parsed: URL = make_url(db.url)
    query = {k: v for k, v in parsed.query.items() if k != "password"}
    uri = URL.create("postgresql", parsed.username, None, parsed.host, parsed.port, parsed.database, query)\
        .render_as_string(hide_password=False)
    env = dict(os.environ)
    if db.password is not None:
        env["PGPASSWORD"] = db.password
    return uri, env


def _run(db: Database, cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL tool; a StorageError with its error line (the password masked) when it fails."""
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        errors = [line for line in lines if "error" in line.lower()] or lines or ["no message"]
        raise StorageError(f"{Path(cmd[0]).name} failed on {db.shown}: {_masked(db, errors[0])}")
    return done


def _backup_postgresql(db: Database, partial: Path) -> Counts:
    pg_dump = _tool("pg_dump")
    uri, env = _libpq(db)
    with _engine(db) as engine, _connected(db, engine) as plain:
        # The dump reads the snapshot in which the matches were counted (an exported snapshot).
        conn = plain.execution_options(isolation_level="REPEATABLE READ")
        snapshot = str(conn.execute(text("SELECT pg_export_snapshot()")).scalar_one())
        if not _ours(conn):
            raise StorageError(f"{db.shown} holds no converge database: nothing to back up")
        found = counts(conn)
        _run(db, [pg_dump, "--format=custom", f"--snapshot={snapshot}", f"--file={partial}",
                  f"--dbname={uri}"], env)
        conn.rollback()
    return found


# ---------------------------------------------------------------------- restore


@dataclass(frozen=True)
class Restored:
    """A backup restored: what it held, the revision it was brought to, and what the target held before."""

    counts: Counts
    revision: str
    replaced: int


def restore(db: Database, source: Path, replace: bool = False, at_open: AtOpen = ()) -> Restored:
    """Restore the backup ``source`` into ``db`` (one that holds matches only with ``replace``), then bring
    it up to date (``at_open``: as a server opening it would, :data:`converge.server.app.AT_OPEN`)."""
    source = source.expanduser()
    if db.kind == "sqlite":
        return _restore_sqlite(db, source, replace, at_open)
    return _restore_postgresql(db, source, replace, at_open)


def _server_lock(db: Database, doing: str) -> SingleServerLock:
    assert db.path is not None
    if not db.path.parent.is_dir():
        raise StorageError(f"{db.path.parent}: no such folder")
    try:
        return SingleServerLock(db.path)
    except StorageError:
        raise StorageError(f"{db.path} is in use by a running converge server: stop it before {doing}") from None


def _restore_sqlite(db: Database, source: Path, replace: bool, at_open: AtOpen) -> Restored:
    assert db.path is not None
    _sqlite_file(source, "a converge backup")
    backup_con = _read_only(source)
    try:
        found = _sqlite_counts(backup_con, str(source), "a converge backup")
        if not _known(found.revision):
            raise _newer(str(source), found.revision)
        if db.path.exists() and db.path.resolve() == source.resolve():
            raise StorageError(f"{source} is the target database itself")
        lock = _server_lock(db, "restoring into it")
        try:
            held = 0
            if db.path.exists() and db.path.stat().st_size > 0:
                _sqlite_file(db.path, "an SQLite database (not replacing it)")
                held = _held_sqlite(db.path)
                if held and not replace:
                    raise StorageError(f"{db.path} already holds {held} match{'es' if held != 1 else ''}: "
                                       "restore into a new file, or give --replace to replace them")
            target = sqlite3.connect(db.path, isolation_level=None, timeout=30)
            try:
                # Out of WAL mode first (the copy may then change the page size), and no -wal left beside it.
                target.execute("PRAGMA journal_mode=DELETE")
                backup_con.backup(target)  # one transaction: all or nothing
            except sqlite3.Error as exc:
                raise StorageError(f"cannot restore into {db.path}: {exc}") from None
            finally:
                target.close()
            revision = _bring_up_to_date(db, at_open)
        finally:
            lock.release()
    finally:
        backup_con.close()
    return Restored(found, revision, held)


def _held_sqlite(path: Path) -> int:
    con = _read_only(path)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = ?", ("table",))}
        if matches_table.name not in tables:
            return 0
        return int(con.execute("SELECT count(*) FROM converge_matches").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"{path} is not an SQLite database (not replacing it): {exc}") from None
    finally:
        con.close()


def _bring_up_to_date(db: Database, at_open: AtOpen) -> str:
    """Run the migrations on ``db`` (as a server opening it would); its revision after."""
    with _engine(db) as engine, _connected(db, engine, transaction=True) as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text(f"SELECT pg_advisory_xact_lock({_OPEN_LOCK})"))
        migrate.upgrade(conn)
        lobby_store.on_open(conn, at_open)
        now = migrate.revision(conn)
    assert now is not None
    return now


def _dump_tables(db: Database, pg_restore: str, source: Path) -> tuple[set[str], str | None]:
    """The tables a custom-format dump holds, and its Alembic revision; a StorageError naming the file when it
    is no converge dump."""
    if not source.is_file():
        raise StorageError(f"{source}: no such file")
    with source.open("rb") as f:
        head = f.read(len(_SQLITE_HEADER))
    if head == _SQLITE_HEADER:
        raise StorageError(f"{source} is an SQLite backup, not a PostgreSQL dump: restore it into an SQLite "
                           "database (--db PATH)")
    if not head.startswith(_PGDUMP_HEADER):
        raise StorageError(f"{source} is not a converge backup: not a PostgreSQL custom-format dump "
                           "(pg_dump --format=custom)")
    env = dict(os.environ)
    done = subprocess.run([pg_restore, "--list", str(source)], env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["pg_restore cannot read it"])[-1]
        raise StorageError(f"{source} is not a converge backup: {reason.removeprefix('pg_restore: ')}")
    listing = done.stdout
    tables = set()
    for line in listing.splitlines():
        words = line.split()
        if "TABLE" in words and "DATA" not in words and not line.startswith(";"):
            at = words.index("TABLE")
            if len(words) > at + 2:
                tables.add(words[at + 2])
    if matches_table.name not in tables:
        raise StorageError(f"{source} is not a converge backup: the dump has no converge tables")
    revision = None
    if "alembic_version" in tables:
        data = _run(db, [pg_restore, "--data-only", "--table=alembic_version", "--file=-", str(source)],
                    env).stdout
        rows = data.split("FROM stdin;", 1)[1].split("\\.", 1)[0].split() if "FROM stdin;" in data else []
        revision = rows[0] if rows else None
    return tables, revision


def _restore_postgresql(db: Database, source: Path, replace: bool, at_open: AtOpen) -> Restored:
    pg_restore = _tool("pg_restore")
    tables, revision = _dump_tables(db, pg_restore, source)
    if not _known(revision):
        raise _newer(str(source), revision)
    with _engine(db) as engine, _connected(db, engine, transaction=True) as conn:
        conn.execute(text(f"SELECT pg_advisory_xact_lock({_OPEN_LOCK})"))
        others = int(conn.execute(text(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'")).scalar_one())
        if others:
            raise StorageError(f"{db.shown} has {others} other connection{'s' if others != 1 else ''} (a "
                               "converge server?): stop every server on it before restoring")
        ours = _ours(conn)
        if ours is False:
            raise StorageError(f"{db.shown} holds tables that are not converge's: restore into an empty database")
        held = counts(conn).matches if ours else 0
        if held and not replace:
            raise StorageError(f"{db.shown} already holds {held} match{'es' if held != 1 else ''}: restore into "
                               "an empty database, or give --replace to replace them")
        # Tables the dump does not hold (a newer revision's) would stand in the way of the migrations after.
        for name in inspect(conn).get_table_names():
            if name not in tables and (name.startswith("converge_") or name == "alembic_version"):
                conn.execute(text(f'DROP TABLE "{name}" CASCADE'))
    uri, env = _libpq(db)
    _run(db, [pg_restore, "--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction",
              "--exit-on-error", f"--dbname={uri}", str(source)], env)
    with _engine(db) as engine, _connected(db, engine) as conn:
        found = counts(conn)
    return Restored(found, _bring_up_to_date(db, at_open), held)


# ---------------------------------------------------------------------- upgrade and status


@dataclass(frozen=True)
class Upgraded:
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _existing(db: Database) -> None:
    if db.path is not None:
        _sqlite_file(db.path, "an SQLite database")


def upgrade(db: Database, at_open: AtOpen = ()) -> Upgraded:
    """Run the migrations on ``db`` to the newest revision (then ``at_open``, as a server opening it would);
    refused (nothing changed) for a newer converge's database, someone else's, or one a server is using while
    it needs upgrading."""
    _existing(db)
    lock: SingleServerLock | None = None
    if db.path is not None:
        with contextlib.suppress(StorageError):
            lock = SingleServerLock(db.path)
    try:
        with _engine(db) as engine, _connected(db, engine, transaction=True) as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text(f"SELECT pg_advisory_xact_lock({_OPEN_LOCK})"))
            if _ours(conn) is False:
                raise StorageError(f"{db.shown} holds tables that are not converge's: not upgrading it")
            before = _revision(conn)
            if before == migrate.head():
                return Upgraded(before, before)
            if not _known(before):
                raise _newer(db.shown, before)
            if _in_use(conn, lock, db):
                raise StorageError(f"{db.shown} is in use by a running converge server: stop it before upgrading "
                                   "(a server also upgrades the database as it starts)")
            try:
                migrate.upgrade(conn)
            except StorageError as exc:
                raise StorageError(f"{db.shown}: {exc}") from None
            lobby_store.on_open(conn, at_open)
            after = migrate.revision(conn)
    finally:
        if lock is not None:
            lock.release()
    assert after is not None
    return Upgraded(before, after)


def _in_use(conn: Connection, lock: SingleServerLock | None, db: Database) -> bool:
    if db.path is not None:
        return lock is None
    others = conn.execute(text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid() AND backend_type = 'client backend'")).scalar_one()
    return bool(others)


def status(db: Database) -> tuple[Counts, int | None]:
    """What ``db`` holds, and its file's size (SQLite)."""
    _existing(db)
    if db.path is not None:
        con = _read_only(db.path)
        try:
            con.execute("BEGIN")
            found = _sqlite_counts(con, str(db.path), "a converge database")
        finally:
            con.close()
        return found, db.path.stat().st_size
    with _engine(db) as engine, _connected(db, engine) as conn:
        if not _ours(conn):
            raise StorageError(f"{db.shown} holds no converge database")
        return counts(conn), None
