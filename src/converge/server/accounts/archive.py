"""A player's archive: a copy of every piece of data the server holds about them, as one JSON document — for
the player ("Download my data", ``GET /api/me/export``) and for the hosts (``converge admin export``).

The rows come from :mod:`converge.server.storage.export_store`, which says what is left out and why; this adds
the player's own view of each match they play that is still in progress (what their page shows: their hand,
never the other's, nor the deck's order or the seed)."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Literal

from converge.server.play.hub import Hub
from converge.server.protocol.archive_answers import ArchivedMatch, PlayerArchive
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import export_store

log = logging.getLogger("converge.server.accounts")

#: The archive's format, and its version (raised when a field changes meaning).
FORMAT: Literal["converge-player-archive"] = "converge-player-archive"
VERSION = 1

ABOUT = (
    "Every row of this Converge server's database that names you, table by table (tables), and your matches "
    "(matches): for each one still in progress, your own view of it, as your page shows it. Left out, marked "
    f"{export_store.WITHHELD!r} or {export_store.ANOTHER!r}: secrets (the hashes of your browsers', seats' and "
    "links' keys), other players' ids (your opponents and friends are shown by the name their pages show), "
    "who follows or muted you and who reported you (their choices, not yours), any address that is not yours, "
    "and what a match in progress hides (its seed, and your opponent's moves beyond what you saw). Times are "
    "seconds since 1970-01-01 UTC.")


async def archive(hub: Hub, player_id: str) -> PlayerArchive:
    """The archive of ``player_id`` (a ProtocolError ``not_found`` when there is no such player)."""
    try:
        data = await asyncio.to_thread(export_store.read, hub.storage.engine, player_id)
    except LookupError:
        raise ProtocolError("not_found", "no such player") from None
    matches: list[ArchivedMatch] = []
    for match_id, seat, status, opponent, bot, _held in data.seats:
        entry: ArchivedMatch = {"match_id": match_id, "seat": seat, "status": "over" if status == "over" else
                                "active", "opponent": opponent, "opponent_bot": bot, "view": None}
        if status != "over":
            try:
                session = await hub.live.get(match_id)
            except ProtocolError as exc:  # (the database away: the rows are there, the view is not)
                log.warning("archive of %s: match %s not loaded (%s)", player_id, match_id, exc.message)
                session = None
            if session is not None:
                async with session.lock:
                    entry["view"] = session.views.match_view(seat)
        matches.append(entry)
    return {"format": FORMAT, "version": VERSION, "made_at": round(time.time(), 3), "player_id": player_id,
            "about": ABOUT, "matches": matches, "tables": dict(data.tables),
            "not_about_players": {name: why for name, why in export_store.PARTS.items() if isinstance(why, str)}}


def archive_name(name: str | None, player_id: str) -> str:
    """The file an archive is saved as: ``converge-export-<name>.json`` (the id for an anonymous player), in
    letters, digits, ``-`` and ``_`` only (a name is any printable text).

    >>> archive_name("Ada Lovelace", "p1"), archive_name(None, "3f2a"), archive_name("Ωμέγα", "3f2a")
    ('converge-export-Ada-Lovelace.json', 'converge-export-3f2a.json', 'converge-export-3f2a.json')
    """
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", name or "").strip("-")
    return f"converge-export-{safe or player_id}.json"
