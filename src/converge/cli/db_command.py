"""``converge db``: the server's database backed up, restored, upgraded (:mod:`converge.server.storage.backup`).

* ``converge db backup PATH`` — a consistent copy, safe while ``converge serve`` runs on the database (SQLite's
  online backup; ``pg_dump --format=custom`` for PostgreSQL); an existing PATH only with ``--force``.
* ``converge db restore BACKUP`` — into the database, refused while a server holds it (SQLite) or when it holds
  matches (unless ``--replace``); the restored schema is brought up to date.
* ``converge db upgrade`` — the migrations to the newest revision: "from revision X to Y" or "already at Y".
* ``converge db status`` — the revision and the matches.

The database is the one ``converge serve`` would use: ``--db``, else ``CONVERGE_DATABASE_URL``, else the
``--config`` file's ``server.db``, else the default file. Like ``serve``, it needs the ``web`` extra.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from converge.cli.common import Subcommands, UserError, add_command, path_text
from converge.cli.serve_command import web_command

if TYPE_CHECKING:
    from converge.server.storage.backup import Database

P = ParamSpec("P")
R = TypeVar("R")


def _database(args: argparse.Namespace) -> Database:
    """The database the command works on (a :class:`~converge.server.storage.backup.Database`)."""
    from converge.server.config import ServerConfig
    from converge.server.settings import BY_KEY, SettingsError, load_file, resolve
    from converge.server.storage.backup import locate
    from converge.server.storage.database import StorageError

    try:
        tables = load_file(args.config) if args.config is not None else {}
        effective = resolve(tables, flags={BY_KEY["server.db"].name: args.db} if args.db is not None else {},
                            where=str(args.config))
    except SettingsError as exc:
        raise UserError(*exc.problems) from None
    url = ServerConfig(db_url=effective["server.db"].value or "").resolved_db_url()
    try:
        return locate(url)
    except StorageError as exc:
        raise UserError(str(exc)) from None


def _run(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    from converge.server.storage.database import StorageError

    try:
        return fn(*args, **kwargs)
    except StorageError as exc:
        raise UserError(str(exc)) from None


def cmd_backup(args: argparse.Namespace) -> int:
    from converge.server.storage import backup

    db = _database(args)
    written = _run(backup.backup, db, Path(args.path), args.force)
    print(f"wrote {written.path} ({backup.size_text(written.size)}): the backup of {db.shown}, "
          f"{written.counts.summary()}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from converge.server.storage import backup

    db = _database(args)
    from converge.server.app import AT_OPEN

    done = _run(backup.restore, db, Path(args.backup), args.replace, AT_OPEN)
    n = done.replaced
    replaced = f", replacing its {n} match{'es' if n != 1 else ''}" if n else ""
    print(f"restored {args.backup} into {db.shown}{replaced}: {done.counts.summary()}; now at revision "
          f"{done.revision}")
    return 0


def cmd_upgrade(args: argparse.Namespace) -> int:
    from converge.server.storage import backup

    db = _database(args)
    from converge.server.app import AT_OPEN

    done = _run(backup.upgrade, db, AT_OPEN)
    if done.changed:
        before = "an empty database" if done.before is None else backup.shown_revision(done.before)
        print(f"upgraded {db.shown} from {before} to revision {done.after}")
    else:
        print(f"{db.shown} is already at revision {done.after}, the newest")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from converge.server.storage import backup, migrate

    db = _database(args)
    found, size = _run(backup.status, db)
    where = f"{db.shown} ({backup.size_text(size)})" if size is not None else db.shown
    print(f"{where}: {found.summary()}")
    if found.revision != migrate.head():
        print(f"this converge's newest revision is {migrate.head()}: `converge db upgrade` brings it there "
              "(a server also does as it starts)")
    return 0


def register(sub: Subcommands) -> None:
    """Add ``db backup``, ``db restore``, ``db upgrade`` and ``db status`` to the ``converge`` command."""
    p = add_command(sub, "db")
    actions = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)

    def database_options(q: argparse.ArgumentParser) -> None:
        q.add_argument("--db", metavar="URL", type=path_text, default=None,
                       help="the database: an SQLite file path or sqlite:///PATH, or postgresql://user@host/db "
                            "(default: as `converge serve` finds it: CONVERGE_DATABASE_URL, then --config's "
                            "server.db, then server.sqlite3 in the user's data directory)")
        q.add_argument("--config", metavar="FILE", type=path_text, default=None,
                       help="the server's settings file, for its server.db")

    b = actions.add_parser("backup", help="a consistent copy of the database, safe while the server runs",
                           description="Write a consistent copy of the database to PATH, safe while `converge "
                                       "serve` runs on it: SQLite's online backup, or pg_dump --format=custom "
                                       "for PostgreSQL (the password in PGPASSWORD, never on a command line).")
    b.add_argument("path", metavar="PATH", type=path_text, help="the backup file to write")
    b.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    database_options(b)
    b.set_defaults(func=web_command(cmd_backup))

    r = actions.add_parser("restore", help="a backup restored into the database, then brought up to date",
                           description="Restore a backup made by `converge db backup` into the database "
                                       "(pg_restore for PostgreSQL), then run the migrations. Refused while a "
                                       "server uses the database, and when it holds matches (unless --replace).")
    r.add_argument("backup", metavar="BACKUP", type=path_text, help="the backup file")
    r.add_argument("--replace", action="store_true", help="replace the matches the database holds")
    database_options(r)
    r.set_defaults(func=web_command(cmd_restore))

    u = actions.add_parser("upgrade", help="the migrations run to the newest revision",
                           description="Bring the database's schema to this version's newest revision (before "
                                       "starting a new version; a server also does as it starts).")
    database_options(u)
    u.set_defaults(func=web_command(cmd_upgrade))

    s = actions.add_parser("status", help="the database's revision and matches",
                           description="The database's schema revision and its matches, finished and in "
                                       "progress.")
    database_options(s)
    s.set_defaults(func=web_command(cmd_status))
