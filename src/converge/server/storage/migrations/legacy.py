"""The databases of the versions before Alembic: ``converge_settings.schema_version`` "1" to "3", brought to
version 4 — the baseline revision's schema — step by step, each step adding only what is missing.

* 1 → 2: each action's clock (the acting seat's time left after it, for replays) and the seats that allow
  hints in a friend match;
* 2 → 3: the lobby's tables (players, open tables, who played which seat, rating changes);
* 3 → 4: the name each seat's player had when the match started, filled in from the players' present names
  (the best there is), and the players' name changes.

Any database made before Alembic may also lack the retention clean-up's index, which came without a version.
"""

from __future__ import annotations

import logging

import sqlalchemy as sa
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection

from converge.server.storage.migrations import schema_4

log = logging.getLogger("converge.server.storage")

#: The versions before Alembic that are upgraded (the baseline is version 4).
VERSIONS = ("1", "2", "3", "4")


def upgrade(conn: Connection, version: str) -> None:
    """Bring a database of ``version`` (one of :data:`VERSIONS`) to version 4, in the caller's transaction."""
    op = Operations(MigrationContext.configure(conn))
    if version < "2":
        _add_missing(conn, op, "converge_actions", sa.Column("clock_left_ms", sa.Integer, nullable=True))
        _add_missing(conn, op, "converge_matches", sa.Column("hints", sa.Integer, nullable=True))
    if version < "3":
        for table in ("converge_players", "converge_lobby_tables", "converge_rating_changes"):
            _create_missing(conn, op, table)
        if not sa.inspect(conn).has_table("converge_match_players"):
            schema_4.match_players(op, names=False)  # as version 3 made it; the next step adds the names
    if version < "4":
        if _add_missing(conn, op, "converge_match_players", sa.Column("name", sa.String(64), nullable=True)):
            _fill_match_names(conn)
        _create_missing(conn, op, "converge_name_changes")
    if "converge_matches_status_updated" not in {i["name"] for i in sa.inspect(conn).get_indexes(
            "converge_matches")}:
        schema_4.status_index(op)
    settings = sa.table("converge_settings", sa.column("key", sa.String), sa.column("value", sa.String))
    conn.execute(sa.update(settings).where(settings.c.key == "schema_version").values(value=schema_4.VERSION))
    if version != schema_4.VERSION:
        log.info("database upgraded from schema version %s to %s", version, schema_4.VERSION)


def _add_missing(conn: Connection, op: Operations, table: str, column: sa.Column[object]) -> bool:
    """Add ``column`` to ``table`` unless it is there; whether it was added."""
    if column.name in {c["name"] for c in sa.inspect(conn).get_columns(table)}:
        return False
    op.add_column(table, column)
    return True


def _create_missing(conn: Connection, op: Operations, table: str) -> None:
    if not sa.inspect(conn).has_table(table):
        schema_4.TABLES[table](op)


def _fill_match_names(conn: Connection) -> None:
    """The names of the players of the matches stored before version 4, from their present names (what the
    history showed until then)."""
    mp = sa.table("converge_match_players", sa.column("player_id", sa.String), sa.column("name", sa.String))
    p = sa.table("converge_players", sa.column("id", sa.String), sa.column("name", sa.String))
    conn.execute(sa.update(mp).where(mp.c.name.is_(None))
                 .values(name=sa.select(p.c.name).where(p.c.id == mp.c.player_id).scalar_subquery()))
