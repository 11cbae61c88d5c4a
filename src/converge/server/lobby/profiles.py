"""People's pages: a named player's profile (``/@/<name>``), hidden by its player if they wish, and a player's
own history with its filters (read from :mod:`converge.server.storage.people_store`).

A hidden profile answers exactly as a name nobody has (``not_found``, the same words) to everyone but its
owner, so that nobody can tell that it exists. An anonymous player has no profile. A banned player's profile
is shown like any other's: the ban is between them and the hosts.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Sequence
from typing import Literal

from sqlalchemy import Engine

from converge.bots import BOTS
from converge.server.lobby.identity import name_key
from converge.server.lobby.players import Players
from converge.server.protocol.answers import Played
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.people_answers import HeadToHead, Profile
from converge.server.storage import lobby_store, people_store
from converge.server.storage.people_store import HistoryFilter
from converge.server.storage.writer import Tx, Writer

#: The finished matches a profile lists, and the matches between two players its head-to-head lists.
RECENT = 20
HEAD_TO_HEAD = 5
#: The longest name looked up (a stored name is at most 64 characters; longer is nobody's).
NAME_LOOKUP_MAX = 64
#: The latest time a history filter takes (Unix seconds: the year 5138).
TIME_MAX = 10**11

_NOBODY = "nobody with that name has a profile to show"


def _nobody() -> ProtocolError:
    """The one answer for a name nobody has and for a hidden profile: they must not be told apart."""
    return ProtocolError("not_found", _NOBODY)


def _lookup_key(name: str) -> str | None:
    """The key a profile's name is looked up by, or None for a text no name can be (too long, or holding
    control characters)."""
    if not name or len(name) > NAME_LOOKUP_MAX or any(unicodedata.category(c)[0] == "C" for c in name):
        return None
    key = name_key(name)
    return key or None


def _malformed(parameter: str, why: str) -> ProtocolError:
    return ProtocolError("malformed", f"query parameter {parameter!r} {why}")


class Profiles:
    """Profiles, and the filters of a player's history."""

    def __init__(self, engine: Engine, writer: Writer, players: Players, skillsets: Sequence[str]) -> None:
        self.engine = engine
        self.writer = writer
        self.players = players
        self.skillsets = tuple(skillsets)

    async def profile(self, name: str, cookie: str | None) -> Profile:
        """The profile of the player named ``name`` (whatever its case), as the caller may see it."""
        # (the caller first, whoever is asked for: a hidden profile's refusal takes the same steps as a missing
        # name's)
        caller = await self.players.player_of(cookie)
        key = _lookup_key(name)
        found = None if key is None else await asyncio.to_thread(people_store.named_player, self.engine, key)
        if found is None:
            raise _nobody()
        own = caller is not None and caller.id == found.id
        if found.hidden and not own:
            raise _nobody()
        ratings, matches, skillsets, events = await asyncio.gather(
            asyncio.to_thread(people_store.rating_points, self.engine, found.id),
            asyncio.to_thread(people_store.history, self.engine, found.id, None, RECENT, True),
            asyncio.to_thread(people_store.skillset_records, self.engine, found.id),
            asyncio.to_thread(people_store.events_entered, self.engine, found.id))
        head = None
        if caller is not None and caller.name is not None and not own:
            head = await self._head_to_head(caller, found.id)
        return {"name": found.name, "rating": round(found.r), "rd": round(found.rd), "provisional": found.rd > 110,
                "games": found.games, "member_since": round(found.created_at, 3), "hidden": found.hidden,
                "own": own, "ratings": ratings, "matches": matches, "skillsets": skillsets, "tournaments": events,
                "head_to_head": head}

    async def _head_to_head(self, caller: lobby_store.Player, other_id: str) -> HeadToHead:
        """The caller's finished matches against ``other_id``, as the caller's history shows them."""
        played = await asyncio.to_thread(people_store.history, self.engine, caller.id,
                                         HistoryFilter(opponent_ids=(other_id,)), None)
        won = sum(m["result"] == "won" for m in played)
        return {"won": won, "lost": len(played) - won, "matches": played[:HEAD_TO_HEAD]}

    async def set_hidden(self, cookie: str | None, hidden: bool) -> bool:
        """Hide the caller's profile from everyone but them, or show it again; returns whether it is hidden."""
        player = await self.players.need_player(cookie)

        def write(conn: Tx) -> None:
            people_store.set_profile_hidden(conn, player.id, hidden)

        await self.writer.write(write)
        return hidden

    async def history(self, player: lobby_store.Player, f: HistoryFilter) -> list[Played]:
        """The player's finished matches that ``f`` keeps, newest first."""
        return await asyncio.to_thread(people_store.history, self.engine, player.id, f)

    async def history_filter(self, *, opponent: str | None = None, result: Literal["won", "lost"] | None = None,
                             rated: Literal["true", "false"] | None = None, playset: str | None = None,
                             since: int | None = None, until: int | None = None) -> HistoryFilter:
        """The filter of a history's query parameters, checked: a bad value is ``malformed``, naming it."""
        if since is not None and until is not None and until <= since:
            raise _malformed("until", "must come after 'since'")
        skillset = None
        if playset is not None:
            skillset = playset.strip().casefold()
            if skillset not in self.skillsets:
                raise _malformed("playset", "must be one of the skillsets: " + ", ".join(self.skillsets))
        ids: tuple[str, ...] = ()
        name: str | None = None
        bot: str | None = None
        if opponent is not None:
            name = " ".join(opponent.split())
            if not name or any(unicodedata.category(c)[0] == "C" for c in name):
                raise _malformed("opponent", "must be a player's name or a bot's level")
            level = name.casefold().removesuffix(" bot")
            bot = level if level in BOTS else None
            key = _lookup_key(name)
            if key is not None:
                ids = await asyncio.to_thread(people_store.player_ids_named, self.engine, key)
        return HistoryFilter(opponent_ids=ids, opponent_name=name, bot=bot, result=result,
                             rated=None if rated is None else rated == "true", skillset=skillset,
                             since=None if since is None else float(since),
                             until=None if until is None else float(until))
