"""Accounts belong to the player who asked (issue 38): a sign-in link keeps who asked for it, and a name has
several keys (as typed, case-folded and in capitals), each of which no other player's name may share.

The name keys are filled in when a server opens the database: their rules changed
(:data:`converge.server.lobby.identity.NAME_RULES_VERSION`), so every stored name is checked and keyed again.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("converge_sign_ins") as batch:
        batch.add_column(sa.Column("player_id", sa.String(length=32), nullable=True))
    op.create_index("ix_converge_sign_ins_player_id", "converge_sign_ins", ["player_id"])
    op.create_table(
        "converge_name_keys",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index("ix_converge_name_keys_player_id", "converge_name_keys", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_converge_name_keys_player_id", "converge_name_keys")
    op.drop_table("converge_name_keys")
    op.drop_index("ix_converge_sign_ins_player_id", "converge_sign_ins")
    with op.batch_alter_table("converge_sign_ins") as batch:
        batch.drop_column("player_id")
