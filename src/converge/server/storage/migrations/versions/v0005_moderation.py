"""Moderation: a player's ban (since when, why), players' reports of other players, and the hosts' audit.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("converge_players") as batch:
        batch.add_column(sa.Column("banned_at", sa.Float(), nullable=True))
        batch.add_column(sa.Column("ban_reason", sa.String(length=200), nullable=True))
    op.create_table(
        "converge_reports",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("reporter_id", sa.String(length=32), nullable=False),
        sa.Column("reported_id", sa.String(length=32), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("reported_name", sa.String(length=64), nullable=True),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("note", sa.String(length=500), nullable=True),
        sa.Column("closed_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_converge_reports_reporter_id", "converge_reports", ["reporter_id"])
    op.create_index("ix_converge_reports_reported_id", "converge_reports", ["reported_id"])
    op.create_index("converge_reports_open", "converge_reports", ["closed_at", "at"])
    op.create_table(
        "converge_audit",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("converge_audit")
    op.drop_index("converge_reports_open", "converge_reports")
    op.drop_index("ix_converge_reports_reported_id", "converge_reports")
    op.drop_index("ix_converge_reports_reporter_id", "converge_reports")
    op.drop_table("converge_reports")
    with op.batch_alter_table("converge_players") as batch:
        batch.drop_column("ban_reason")
        batch.drop_column("banned_at")
