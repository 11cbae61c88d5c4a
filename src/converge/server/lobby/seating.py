"""Matches made for players: stored with who plays which seat and the names they have now (so that a rename
afterwards changes nothing the match shows), a seat reached by a link recorded as its player's, and a key to
a player's seat for another device they signed in on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from converge.engine.seeds import new_seed
from converge.server.play.match.catalog import Catalog
from converge.server.play.match.live import Live
from converge.server.play.match.session import Session
from converge.server.play.viewers import broadcast
from converge.server.protocol.answers import Seated
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.messages import BotOpponent, Matched, PlayerInfo
from converge.server.security.tokens import hash_token, new_match_id, new_token
from converge.server.storage import accounts_store as accounts
from converge.server.storage import lobby_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.storage.writer import Tx, Writer

#: The most keys one seat may have (its player's other devices); more are refused.
MAX_SEAT_KEYS = 16


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

    def __init__(self, live: Live, catalog: Catalog, writer: Writer) -> None:
        self.live = live
        #: What a match may be (the settings a table or the queue asks for are checked against it).
        self.catalog = catalog
        #: The hourly budget of new matches per client address, which every match made here pays from.
        self.budget = live.budget
        self.writer = writer

    async def make_match(self, *, seats: dict[int, tuple[str | None, str]], playset: list[str],
                         clock_ms: int | None, rated: bool, kind: str, payers: Sequence[str],
                         move_s: int | None = None,
                         bot: str | None = None, match_id: str | None = None, start: str = "random",
                         also: Callable[[Tx], None] | None = None) -> tuple[Session, dict[int, str | None]]:
        """Create a match whose human seats are ``seats`` ({seat: (player id or None, seat token hash)}) and
        whose other seats, if any, ``bot`` plays, paid for by the addresses ``payers``; recorded with its
        players and their names now, and ``also(conn)``, in the same transaction. ``start``: who holds the
        artifact first (0, 1 or "random"). Returns the session and those names by seat."""
        ps = self.catalog.playset(playset)
        vacation = self.catalog.vacation_s if move_s is not None else None
        rows = [SeatRow(0, None, None, False, clock_ms, vacation_left_s=vacation),
                SeatRow(1, None, None, False, clock_ms, vacation_left_s=vacation)]
        for seat, (_pid, digest) in seats.items():
            rows[seat].token_hash = digest
        for r in rows:
            if r.token_hash is None:
                r.bot = bot
        row = MatchRow(id=match_id or new_match_id(), mode="bot" if bot else "friend", playset=ps.names(),
                       seed=new_seed(), start=start, decks=ps.digest,
                       bot_seed=new_seed(), clock_ms=clock_ms, move_s=move_s, seats=rows)
        players = {seat: pid for seat, (pid, _d) in seats.items() if pid is not None}
        names: dict[int, str | None] = {}

        def with_players(conn: Tx) -> None:
            if also is not None:
                also(conn)
            names.update(store.add_match_players(conn, row.id, players, rated, kind) if players else {})

        session = await self.live.store(row, ps, payers=payers, also=with_players)
        return session, names

    async def claim_seat(self, player: store.Player, session: Session, seat: int) -> bool:
        """Record that ``player`` plays ``seat`` of a match they reached by a link (an invite, or a match made
        from the home page's forms; unrated): their history lists it. False if the seat already has a player
        (or the player holds the other seat)."""
        mid = session.id
        done: list[bool] = []

        def link(conn: Tx) -> None:
            done.append(store.link_seat(conn, mid, seat, player.id))

        try:
            await self.writer.write(link)
        except StorageError:
            return False
        if done and done[0]:  # the table names the player now
            await self.live.read_players(session)
            broadcast.send_meta(session)
        return bool(done and done[0])

    async def revoke(self, fn: Callable[[Tx], list[str]]) -> None:
        """Commit ``fn``, which revokes keys to seats and returns the matches whose seats it changed (a sign-out
        everywhere); then each of those matches this process holds takes the change in, as the other
        processes do when the database tells them: the connections whose key no longer holds their seat are
        closed, with the reason."""
        try:
            changed = await self.live.writes.write_changing(fn)
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; nothing changed: try again") from None
        for match_id in changed:
            session = self.live.sessions.get(match_id)
            if session is not None and not session.broken:
                await self.live.sync.refresh(session)

    async def device_key(self, player: store.Player, session: Session) -> Ready:
        """A new key to the seat ``player`` plays in this match, for the device they ask from (signed in
        there: the seat's own token stays on the device that made or joined the match). Stored hashed."""
        seats = await asyncio.to_thread(store.seats_of_player, self.live.storage.engine, session.id, player.id)
        if not seats:
            raise ProtocolError("unauthorized", "you play no seat in this match")
        seat = seats[0]
        if len(session.row.seats[seat].keys) >= MAX_SEAT_KEYS:
            raise ProtocolError("rate_limited", f"your seat in this match has keys for {MAX_SEAT_KEYS} devices "
                                                "already")
        token = new_token()
        digest, mid = hash_token(token), session.id

        def add(conn: Tx) -> None:
            accounts.add_seat_key(conn, mid, seat, digest)

        try:
            await self.live.writes.write(mid, add)
        except StorageError:
            raise ProtocolError("storage", "the seat's key could not be saved; try again") from None
        session.add_seat_key(seat, digest)
        return Ready(mid, seat, token)
