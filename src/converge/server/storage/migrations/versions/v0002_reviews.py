"""Reviews: a finished match reviewed for a seat, stored beside the match (``converge_reviews``).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "converge_reviews",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("doc", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["converge_matches.id"]),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )


def downgrade() -> None:
    op.drop_table("converge_reviews")
