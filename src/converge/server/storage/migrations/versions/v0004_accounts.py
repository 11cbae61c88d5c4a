"""Accounts: a player's sign-in address and mail setting, their other devices' tokens, the sign-in links
mailed, more keys to a seat (a signed-in player's other devices), and the queue of "your turn" mails.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("converge_players") as batch:
        batch.add_column(sa.Column("email", sa.String(length=254), nullable=True))
        batch.add_column(sa.Column("notify_turns", sa.Boolean(), nullable=True))
        batch.create_unique_constraint("uq_converge_players_email", ["email"])
    op.create_table(
        "converge_device_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    op.create_index("ix_converge_device_tokens_player_id", "converge_device_tokens", ["player_id"])
    op.create_table(
        "converge_sign_ins",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("used_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    op.create_index("ix_converge_sign_ins_email", "converge_sign_ins", ["email"])
    op.create_table(
        "converge_seat_keys",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["converge_matches.id"]),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    op.create_index("ix_converge_seat_keys_match_id", "converge_seat_keys", ["match_id"])
    op.create_table(
        "converge_outbox",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("next_at", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("done_at", sa.Float(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("match_id", "idx"),
    )
    op.create_index("converge_outbox_due", "converge_outbox", ["done_at", "next_at"])


def downgrade() -> None:
    op.drop_index("converge_outbox_due", "converge_outbox")
    op.drop_table("converge_outbox")
    op.drop_index("ix_converge_seat_keys_match_id", "converge_seat_keys")
    op.drop_table("converge_seat_keys")
    op.drop_index("ix_converge_sign_ins_email", "converge_sign_ins")
    op.drop_table("converge_sign_ins")
    op.drop_index("ix_converge_device_tokens_player_id", "converge_device_tokens")
    op.drop_table("converge_device_tokens")
    with op.batch_alter_table("converge_players") as batch:
        batch.drop_constraint("uq_converge_players_email", type_="unique")
        batch.drop_column("email")
