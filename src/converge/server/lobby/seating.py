"""Matches made for players: stored with who plays which seat and the names they have now (so that a rename
afterwards changes nothing the match shows), and a seat reached by a link recorded as its player's."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from converge.server.play import broadcast
from converge.server.play.catalog import Catalog
from converge.server.play.matches import Matches
from converge.server.play.session import Session
from converge.server.protocol.answers import Seated
from converge.server.protocol.messages import BotOpponent, Matched, PlayerInfo
from converge.server.security.tokens import new_match_id
from converge.server.storage import lobby_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.storage.writer import Writer


@dataclass
class Ready:
    """A match made for a player: what their page needs to go and play it."""

    match_id: str
    seat: int
    token: str

    def seated(self) -> Seated:
        return {"match_id": self.match_id, "seat": self.seat, "token": self.token, "url": f"/m/{self.match_id}"}

    def message(self, opponent: PlayerInfo | BotOpponent | None = None) -> Matched:
        """The lobby socket's message that the match is ready (``opponent``: whom it is against)."""
        return {"type": "matched", **self.seated(), "opponent": opponent}


class Seating:
    """Makes the lobby's matches and records their players."""

    def __init__(self, matches: Matches, catalog: Catalog, writer: Writer) -> None:
        self.matches = matches
        self.catalog = catalog
        self.writer = writer

    async def make_match(self, *, seats: dict[int, tuple[str | None, str]], playset: list[str],
                         clock_ms: int | None, rated: bool, kind: str, payers: Sequence[str],
                         move_s: int | None = None,
                         bot: str | None = None, match_id: str | None = None,
                         also: Callable[[Any], None] | None = None) -> tuple[Session, dict[int, str | None]]:
        """Create a match whose human seats are ``seats`` ({seat: (player id or None, seat token hash)}) and
        whose other seat, if any, ``bot`` plays, paid for by the addresses ``payers``; recorded with its
        players and their names now, and ``also(conn)``, in the same transaction. Returns the session and
        those names by seat."""
        ps = self.catalog.playset(playset)
        rows = [SeatRow(0, None, None, False, clock_ms), SeatRow(1, None, None, False, clock_ms)]
        for seat, (_pid, digest) in seats.items():
            rows[seat].token_hash = digest
        for r in rows:
            if r.token_hash is None:
                r.bot = bot
        row = MatchRow(id=match_id or new_match_id(), mode="bot" if bot else "friend", playset=ps.names(),
                       seed=secrets.randbelow(2**63), start="random", decks=ps.digest,
                       bot_seed=secrets.randbelow(2**63), clock_ms=clock_ms, move_s=move_s, seats=rows)
        players = {seat: pid for seat, (pid, _d) in seats.items() if pid is not None}
        names: dict[int, str | None] = {}

        def with_players(conn: Any) -> None:
            if also is not None:
                also(conn)
            names.update(store.add_match_players(conn, row.id, players, rated, kind) if players else {})

        session = await self.matches.store(row, ps, payers=payers, also=with_players)
        return session, names

    async def claim_seat(self, player: store.Player, session: Session, seat: int) -> bool:
        """Record that ``player`` plays ``seat`` of a match they reached by a link (an invite, or a match made
        from the home page's forms; unrated): their history lists it. False if the seat already has a player
        (or the player holds the other seat)."""
        mid = session.id
        done: list[bool] = []

        def link(conn: Any) -> None:
            done.append(store.link_seat(conn, mid, seat, player.id))

        try:
            await self.writer.write(link)
        except StorageError:
            return False
        if done and done[0]:  # the table names the player now
            await self.matches.read_players(session)
            broadcast.send_meta(session)
        return bool(done and done[0])
