"""The schema as version 4 left it, frozen: each table's creation as it was then. The baseline revision
creates them all; the upgrades of the databases of older versions (:mod:`.legacy`) create those they lack.

Frozen: a later revision changes the schema in its own script, never here (the present schema is
:mod:`converge.server.storage.schema`)."""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic.operations import Operations

#: The hand-numbered version this schema is; databases of older ones are upgraded to it (:mod:`.legacy`).
VERSION = "4"


def settings(op: Operations) -> None:
    op.create_table(
        "converge_settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(256), nullable=False),
    )


def matches(op: Operations) -> None:
    op.create_table(
        "converge_matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("playset", sa.String(256), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("start", sa.String(8), nullable=False),
        sa.Column("decks", sa.String(64), nullable=False),
        sa.Column("bot_seed", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("n_actions", sa.Integer, nullable=False),
        sa.Column("winner", sa.Integer, nullable=True),
        sa.Column("reason", sa.String(16), nullable=True),
        sa.Column("clock_ms", sa.Integer, nullable=True),
        sa.Column("rematch_of", sa.String(32), nullable=True),
        sa.Column("rematch_id", sa.String(32), nullable=True),
        sa.Column("hints", sa.Integer, nullable=True),
    )


def status_index(op: Operations) -> None:
    """The retention clean-up's index (databases made before it existed lack it)."""
    op.create_index("converge_matches_status_updated", "converge_matches", ["status", "updated_at"])


def seats(op: Operations) -> None:
    op.create_table(
        "converge_seats",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("converge_matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("replaced", sa.Boolean, nullable=False),
        sa.Column("clock_left_ms", sa.Integer, nullable=True),
    )


def actions(op: Operations) -> None:
    op.create_table(
        "converge_actions",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("converge_matches.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("clock_left_ms", sa.Integer, nullable=True),
    )


def players(op: Operations) -> None:
    op.create_table(
        "converge_players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("name_key", sa.String(64), nullable=True, unique=True),
        sa.Column("r", sa.Float, nullable=False),
        sa.Column("rd", sa.Float, nullable=False),
        sa.Column("vol", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def lobby_tables(op: Operations) -> None:
    op.create_table(
        "converge_lobby_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("host_id", sa.String(32), nullable=False),
        sa.Column("host_seat", sa.Integer, nullable=False),
        sa.Column("host_token_hash", sa.String(64), nullable=False),
        sa.Column("playset", sa.String(256), nullable=False),
        sa.Column("clock_ms", sa.Integer, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("guest_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("converge_lobby_tables_status", "converge_lobby_tables", ["status", "created_at"])


def match_players(op: Operations, names: bool = True) -> None:
    """``names``: with the name each player had when the match started (version 4; version 3 had none)."""
    op.create_table(
        "converge_match_players",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        *([sa.Column("name", sa.String(64), nullable=True)] if names else []),
    )
    op.create_index("ix_converge_match_players_player_id", "converge_match_players", ["player_id"])


def name_changes(op: Operations) -> None:
    op.create_table(
        "converge_name_changes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("reason", sa.String(8), nullable=False),
    )
    op.create_index("ix_converge_name_changes_player_id", "converge_name_changes", ["player_id"])


def rating_changes(op: Operations) -> None:
    op.create_table(
        "converge_rating_changes",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("r_before", sa.Float, nullable=False),
        sa.Column("rd_before", sa.Float, nullable=False),
        sa.Column("r_after", sa.Float, nullable=False),
        sa.Column("rd_after", sa.Float, nullable=False),
        sa.Column("vol_after", sa.Float, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


#: Every table of version 4 by name, with its creation (in an order that creates a table before the tables
#: whose foreign keys name it).
TABLES: dict[str, Callable[[Operations], None]] = {
    "converge_settings": settings,
    "converge_matches": matches,
    "converge_seats": seats,
    "converge_actions": actions,
    "converge_players": players,
    "converge_lobby_tables": lobby_tables,
    "converge_match_players": match_players,
    "converge_name_changes": name_changes,
    "converge_rating_changes": rating_changes,
}
