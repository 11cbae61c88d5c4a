"""Statements run on the database driver's own cursor: an action's write is the server's hottest path, and
SQLAlchemy's execution machinery cost more CPU than the statement itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection


class DriverTransaction:
    """A transaction on the database driver's own connection, for writes made only of :class:`OnDriver`
    statements (an action's): the :class:`Writer` commits it without SQLAlchemy's transaction machinery."""

    __slots__ = ("connection", "dialect")

    def __init__(self, connection: Any, dialect: Any) -> None:
        self.connection = connection
        self.dialect = dialect


class OnDriver:
    """A statement compiled once per kind of database and run on the driver's own cursor, inside the
    connection's transaction: an action's write is the server's hottest path, and SQLAlchemy's execution
    machinery cost more CPU than the statement itself."""

    def __init__(self, statement: Any) -> None:
        self.statement = statement
        self.compiled: dict[str, tuple[str, tuple[str, ...] | None]] = {}

    def __call__(self, conn: Connection | DriverTransaction, params: Mapping[str, object]) -> int:
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
