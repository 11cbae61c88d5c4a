"""Puzzles (issue 43): the puzzles with their ratings, each player's puzzle rating and streaks, their rated
attempts, and the finished matches already looked at for puzzles.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "converge_puzzles",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("doc", sa.Text(), nullable=False),
        sa.Column("themes", sa.String(length=400), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=True),
        sa.Column("r", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("vol", sa.Float(), nullable=False),
        sa.Column("tried", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_converge_puzzles_match_id", "converge_puzzles", ["match_id"])
    op.create_index("converge_puzzles_r", "converge_puzzles", ["r"])
    op.create_table(
        "converge_puzzle_players",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("r", sa.Float(), nullable=False),
        sa.Column("rd", sa.Float(), nullable=False),
        sa.Column("vol", sa.Float(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        sa.Column("tried", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("player_id"),
    )
    op.create_table(
        "converge_puzzle_attempts",
        sa.Column("player_id", sa.String(length=32), nullable=False),
        sa.Column("puzzle_id", sa.String(length=16), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("r_before", sa.Float(), nullable=False),
        sa.Column("r_after", sa.Float(), nullable=False),
        sa.Column("puzzle_before", sa.Float(), nullable=False),
        sa.Column("puzzle_after", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("player_id", "puzzle_id"),
    )
    op.create_table(
        "converge_puzzle_scans",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("found", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("match_id"),
    )


def downgrade() -> None:
    op.drop_table("converge_puzzle_scans")
    op.drop_table("converge_puzzle_attempts")
    op.drop_table("converge_puzzle_players")
    op.drop_index("converge_puzzles_r", "converge_puzzles")
    op.drop_index("ix_converge_puzzles_match_id", "converge_puzzles")
    op.drop_table("converge_puzzles")
