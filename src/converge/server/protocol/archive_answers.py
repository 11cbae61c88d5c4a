"""The answer of a player's archive (``GET /api/me/export``, ``converge admin export``): every row that names
the player, and their matches as they may see them; declared as :mod:`.answers` declares the others."""

# (no `from __future__ import annotations`: pydantic reads the TypedDicts' annotations as they are)

from typing import Literal

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.server.protocol.messages import MatchView


class ArchivedMatch(TypedDict):
    """A match the player plays or played, in their archive: their seat, who sat at the other (as the match's
    page shows them), and for a match in progress the player's own view, nothing hidden from them."""

    match_id: str
    seat: int
    status: Literal["active", "over"]
    opponent: str | None  #: the other player's name in that match (None: anonymous, or a bot, or nobody yet)
    opponent_bot: str | None  #: the bot at the other seat, if any
    view: MatchView | None  #: a match in progress: the player's view of it, as their page has it


class PlayerArchive(TypedDict):
    """``GET /api/me/export`` and ``converge admin export``: every row of the server's database that names the
    player, table by table (other players' ids, secrets and hidden information left out, as ``about`` says),
    and their matches."""

    format: Literal["converge-player-archive"]
    version: int
    made_at: float
    player_id: str
    about: str
    matches: list[ArchivedMatch]
    #: Each table that can name a player: its rows that name this one (column: value).
    tables: dict[str, list[dict[str, object]]]
    #: The tables that never name a player, and why.
    not_about_players: dict[str, str]
