"""Alembic's environment for the server's database: the revisions run on the connection the server opened the
database with (``config.attributes["connection"]``, given by :func:`converge.server.storage.migrate.upgrade`),
inside its transaction. There is no offline mode (SQL scripts): a server upgrades its database itself."""

from __future__ import annotations

from alembic import context

from converge.server.storage.schema import metadata


def run() -> None:
    """Run the revisions Alembic's command asked for on the server's connection."""
    connection = context.config.attributes.get("connection")
    if connection is None or context.is_offline_mode():
        raise RuntimeError("the server's migrations run on the connection that "
                           "converge.server.storage.migrate.upgrade gives them")
    # render_as_batch: new revisions made with --autogenerate alter SQLite's tables by copying them
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():  # (inside the caller's transaction: Alembic opens none of its own)
        context.run_migrations()


run()
