"""People around the table (issue 42): a player's profile and chat choices, who follows whom, whom a player
muted, the chat lines of matches and of the lobby, and challenges to a named player.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("converge_players") as batch:
        batch.add_column(sa.Column("profile_hidden", sa.Boolean(), nullable=True))
        batch.add_column(sa.Column("chat_on", sa.Boolean(), nullable=True))
        batch.add_column(sa.Column("friends_only", sa.Boolean(), nullable=True))
    op.create_table(
        "converge_follows",
        sa.Column("follower_id", sa.String(length=32), nullable=False),
        sa.Column("followed_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("follower_id", "followed_id"),
    )
    op.create_index("ix_converge_follows_followed_id", "converge_follows", ["followed_id"])
    op.create_table(
        "converge_mutes",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("muted_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "muted_id"),
    )
    op.create_table(
        "converge_chat",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("room", sa.String(length=48), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("text", sa.String(length=500), nullable=False),
        sa.Column("quick", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("converge_chat_room", "converge_chat", ["room", "id"])
    op.create_index("ix_converge_chat_match_id", "converge_chat", ["match_id"])
    op.create_index("ix_converge_chat_player_id", "converge_chat", ["player_id"])
    op.create_table(
        "converge_challenges",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("from_id", sa.String(length=32), nullable=False),
        sa.Column("to_id", sa.String(length=32), nullable=False),
        sa.Column("playset", sa.String(length=256), nullable=False),
        sa.Column("clock_ms", sa.Integer(), nullable=True),
        sa.Column("move_s", sa.Integer(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_converge_challenges_from_id", "converge_challenges", ["from_id"])
    op.create_index("ix_converge_challenges_to_id", "converge_challenges", ["to_id"])


def downgrade() -> None:
    op.drop_index("ix_converge_challenges_to_id", "converge_challenges")
    op.drop_index("ix_converge_challenges_from_id", "converge_challenges")
    op.drop_table("converge_challenges")
    op.drop_index("ix_converge_chat_player_id", "converge_chat")
    op.drop_index("ix_converge_chat_match_id", "converge_chat")
    op.drop_index("converge_chat_room", "converge_chat")
    op.drop_table("converge_chat")
    op.drop_table("converge_mutes")
    op.drop_index("ix_converge_follows_followed_id", "converge_follows")
    op.drop_table("converge_follows")
    with op.batch_alter_table("converge_players") as batch:
        batch.drop_column("friends_only")
        batch.drop_column("chat_on")
        batch.drop_column("profile_hidden")
