"""Tournaments (issue 41): the events, their entrants, and each round's games (a match or a bye).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "converge_tournaments",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("format", sa.String(length=12), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("host_id", sa.String(length=32), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("duration_s", sa.Integer(), nullable=True),
        sa.Column("clock_ms", sa.Integer(), nullable=True),
        sa.Column("move_s", sa.Integer(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("playset", sa.String(length=256), nullable=False),
        sa.Column("starts_at", sa.Float(), nullable=True),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("link_hash", sa.String(length=64), nullable=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("first_mover", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=True),
        sa.Column("ended_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_converge_tournaments_host_id", "converge_tournaments", ["host_id"])
    op.create_index("converge_tournaments_status", "converge_tournaments", ["status", "starts_at"])
    op.create_table(
        "converge_tournament_entrants",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("joined", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "player_id"),
    )
    op.create_table(
        "converge_tournament_games",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("first_id", sa.String(length=64), nullable=False),
        sa.Column("second_id", sa.String(length=64), nullable=True),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.Column("outcome", sa.String(length=8), nullable=False),
        sa.Column("forfeit", sa.Boolean(), nullable=False),
        sa.Column("playset", sa.String(length=256), nullable=True),
        sa.Column("paired_at", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "round", "board"),
        sa.UniqueConstraint("match_id"),
    )


def downgrade() -> None:
    op.drop_table("converge_tournament_games")
    op.drop_table("converge_tournament_entrants")
    op.drop_index("converge_tournaments_status", "converge_tournaments")
    op.drop_index("ix_converge_tournaments_host_id", "converge_tournaments")
    op.drop_table("converge_tournaments")
