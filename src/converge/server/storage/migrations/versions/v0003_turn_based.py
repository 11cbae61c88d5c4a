"""Turn-based matches: a time per move (``move_s``) on matches and lobby tables, the seat to move
(``to_move``), and each seat's vacation left (``vacation_left_s``).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("converge_matches") as batch:
        batch.add_column(sa.Column("move_s", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("to_move", sa.Integer(), nullable=True))
    with op.batch_alter_table("converge_lobby_tables") as batch:
        batch.add_column(sa.Column("move_s", sa.Integer(), nullable=True))
    with op.batch_alter_table("converge_seats") as batch:
        batch.add_column(sa.Column("vacation_left_s", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("converge_seats") as batch:
        batch.drop_column("vacation_left_s")
    with op.batch_alter_table("converge_lobby_tables") as batch:
        batch.drop_column("move_s")
    with op.batch_alter_table("converge_matches") as batch:
        batch.drop_column("to_move")
        batch.drop_column("move_s")
