"""The database's schema brought up to date when a server opens it, by Alembic, configured in code: the
revisions are shipped in the package (:mod:`converge.server.storage.migrations`) and run on the server's own
connection, in the transaction that opens the database.

* A new database gets the revisions from the baseline on.
* A database made before Alembic (no ``alembic_version``; ``converge_settings.schema_version`` "1" to "4") is
  first brought to version 4 (:mod:`~converge.server.storage.migrations.legacy`), then stamped with the
  baseline revision, which is version 4, and upgraded from there. A hand-numbered version below 4 is upgraded
  so whatever Alembic's table says (the baseline revision writes "4").
* A database of a newer server (a revision this one does not know, or a hand-numbered version above 4) is
  refused, and nothing is changed.

New revisions: ``python -m converge.server.storage.migrate revision -m "what changes"`` (``--autogenerate
--db URL`` compares the schema module with that database).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Connection, inspect, select

from converge.server.storage.database import StorageError
from converge.server.storage.migrations import legacy, schema_4
from converge.server.storage.schema import settings_table

log = logging.getLogger("converge.server.storage")

SCRIPTS = Path(__file__).resolve().parent / "migrations"
#: The revision that is schema version 4: where the databases made before Alembic join the revisions.
BASELINE = "0001"


def config(conn: Connection | None = None) -> Config:
    """Alembic's configuration, without an ``alembic.ini``: the shipped scripts, and the connection they run on."""
    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPTS))
    cfg.set_main_option("file_template", "v%%(rev)s_%%(slug)s")  # a module name (mypy checks the revisions)
    cfg.attributes["connection"] = conn
    return cfg


@cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(config())


def head() -> str:
    """The newest revision this server knows."""
    found = _scripts().get_current_head()
    assert found is not None
    return found


def revision(conn: Connection) -> str | None:
    """The revision the database is at (None: Alembic has never run on it)."""
    return MigrationContext.configure(conn).get_current_revision()


def upgrade(conn: Connection) -> None:
    """Bring the database on ``conn`` to the newest revision (creating its tables when it has none), in the
    caller's transaction; :class:`~converge.server.storage.database.StorageError`, with nothing changed, for
    the database of a newer server."""
    with _quiet_alembic():
        stored = _hand_numbered_version(conn)
        if stored is not None and stored not in legacy.VERSIONS:
            raise StorageError(f"the database has schema version {stored}, this server needs {schema_4.VERSION}")
        current = revision(conn)
        if current is not None and current not in {r.revision for r in _scripts().walk_revisions()}:
            raise StorageError(f"the database is at schema revision {current}, which this server does not know "
                               f"(a newer server upgraded it); this server's newest is {head()}")
        cfg = config(conn)
        if stored is not None and (current is None or stored != schema_4.VERSION):
            legacy.upgrade(conn, stored)  # made before Alembic (or marked as older than the baseline)
        if stored is not None and current is None:
            command.stamp(cfg, BASELINE)
            log.info("database of schema version %s stamped with revision %s", stored, BASELINE)
        try:
            command.upgrade(cfg, "head")
        except CommandError as exc:
            raise StorageError(f"cannot upgrade the database: {exc}") from None
        now = revision(conn)
    if now != (current or (BASELINE if stored is not None else None)):
        log.info("database schema upgraded to revision %s", now)


@contextmanager
def _quiet_alembic() -> Iterator[None]:
    """Alembic's own INFO lines (which implementation it uses, each revision it runs) left out of the server's
    log, which says what changed in a line of its own."""
    logger = logging.getLogger("alembic")
    level = logger.level
    logger.setLevel(max(level, logging.WARNING))
    try:
        yield
    finally:
        logger.setLevel(level)


def _hand_numbered_version(conn: Connection) -> str | None:
    """``converge_settings.schema_version``, or None in a database without it (a new one)."""
    if not inspect(conn).has_table(settings_table.name):
        return None
    s = settings_table.c
    row = conn.execute(select(s.value).where(s.key == "schema_version")).first()
    return None if row is None else str(row[0])


def main(argv: list[str] | None = None) -> int:
    """``revision -m MESSAGE [--autogenerate --db URL]``: write a new revision script (developers)."""
    parser = argparse.ArgumentParser(prog="python -m converge.server.storage.migrate", description=main.__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    new = sub.add_parser("revision", help="write a new revision script in the package's versions/")
    new.add_argument("-m", "--message", required=True)
    new.add_argument("--autogenerate", action="store_true",
                     help="fill it with what the schema module has and the database --db lacks, once upgraded")
    new.add_argument("--db", help="the database to compare with (an SQLAlchemy URL or an SQLite file)")
    args = parser.parse_args(argv)
    if args.autogenerate and not args.db:
        parser.error("--autogenerate needs --db")
    if not args.autogenerate:
        command.revision(config(), message=args.message, rev_id=_next_id(),
                         version_path=str(SCRIPTS / "versions"))
        return 0
    from converge.server.storage.database import make_engine

    engine = make_engine(args.db)
    with engine.begin() as conn:
        upgrade(conn)  # (autogenerate compares the schema module with a database at the newest revision)
        command.revision(config(conn), message=args.message, autogenerate=True, rev_id=_next_id(),
                         version_path=str(SCRIPTS / "versions"))
    engine.dispose()
    return 0


def _next_id() -> str:
    """Revision ids are numbered: 0001, 0002..."""
    return f"{int(head()) + 1:04d}"


if __name__ == "__main__":
    sys.exit(main())
