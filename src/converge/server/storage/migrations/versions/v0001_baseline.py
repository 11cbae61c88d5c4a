"""Baseline: the schema of version 4, the last one numbered by hand (``converge_settings.schema_version``).

A new database gets it whole; a database of version 4 made before Alembic is stamped with it, one of an older
version is first upgraded to it (:mod:`converge.server.storage.migrations.legacy`).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from alembic.operations import Operations

from converge.server.storage.migrations import schema_4

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    ops = Operations(op.get_context())  # (the helpers take the Operations that op stands for)
    for create in schema_4.TABLES.values():
        create(ops)
    schema_4.status_index(ops)
    settings = sa.table("converge_settings", sa.column("key", sa.String), sa.column("value", sa.String))
    op.bulk_insert(settings, [{"key": "schema_version", "value": schema_4.VERSION}])


def downgrade() -> None:
    for name in reversed(schema_4.TABLES):
        op.drop_table(name)
