"""The lobby's tables. A public table is a row in the database until someone joins: the host's seat token is
made when the table is opened (only its hash is stored), and joining creates the match with that id, the host
on their seat and the joiner on the other. One ``UPDATE ... WHERE status = 'open'`` decides who joins, in the
transaction that stores the match: a crash leaves the table open or the match whole. A private table is a
friend match made at once, with an invite link, never listed."""

from __future__ import annotations

import asyncio
import json

from converge.server.config import ServerConfig
from converge.server.lobby.room import Room
from converge.server.lobby.seating import Ready, Seating
from converge.server.protocol.answers import TableOpened
from converge.server.protocol.errors import ProtocolError
from converge.server.security.limits import KeyedRateLimit
from converge.server.security.tokens import hash_token, new_match_id, new_token
from converge.server.storage import lobby_store as store
from converge.server.storage.database import StorageError, pause_point
from converge.server.storage.writer import Tx, Writer


class Tables:
    """Opening, joining and closing the lobby's tables."""

    def __init__(self, config: ServerConfig, writer: Writer, seating: Seating, room: Room) -> None:
        self.config = config
        self.engine = writer.storage.engine
        self.writer = writer
        self.catalog = seating.catalog
        self.budget = seating.budget
        self.seating = seating
        self.room = room
        #: Tables opened per client address.
        self.limit = KeyedRateLimit(config.table_rate, config.table_burst)

    async def open(self, player: store.Player, address: str, *, playset: object, clock: object, seat: object,
                   private: bool, rated: bool, move_hours: object = None) -> TableOpened:
        """Open a table; returns the host's seat, token and links. The host's address pays for the match now:
        a private table is one, a public one becomes one when joined."""
        if not self.limit.allow(address):
            raise ProtocolError("rate_limited", "too many tables opened; wait a little")
        settings = self.catalog.check("friend", playset, None, seat, clock, move_hours)
        if not private:
            n = await asyncio.to_thread(store.count_open, self.engine, player.id)
            if n >= self.config.open_tables_per_player:
                raise ProtocolError("too_many_tables", f"you have {n} open tables already: close one first")
        self.catalog.playset(settings.playset)  # checked now: a table that could never start is not opened
        token = new_token()
        table_id = new_match_id()
        out: TableOpened = {"table_id": table_id, "match_id": table_id, "seat": settings.seat, "token": token,
                            "url": f"/m/{table_id}", "invite_url": None, "private": private,
                            "rated": rated and not private}
        if private:
            invite = new_token()
            seats: dict[int, tuple[str | None, str]] = {settings.seat: (player.id, hash_token(token)),
                                                        1 - settings.seat: (None, hash_token(invite))}
            await self.seating.make_match(seats=seats, playset=settings.playset, clock_ms=settings.clock_ms,
                                          move_s=settings.move_s, rated=False, kind="invite", payers=[address],
                                          match_id=table_id)
            out["invite_url"] = f"/m/{table_id}#token={invite}"
            return out

        def add(conn: Tx) -> None:
            store.add_table(conn, table_id=table_id, host_id=player.id, host_seat=settings.seat,
                            host_token_hash=hash_token(token), playset=settings.playset,
                            clock_ms=settings.clock_ms, move_s=settings.move_s, rated=rated, private=False)

        self.budget.charge([address])
        try:
            await self.writer.write(add)
        except StorageError:
            self.budget.give_back([address])
            raise ProtocolError("storage", "the table could not be saved; try again") from None
        await self.room.refresh()
        return out

    async def join(self, player: store.Player, table_id: object, address: str) -> Ready:
        """Take the other seat at an open table: its match starts now, paid for by the joiner's ``address``
        (the host paid when opening it). The claim is in the transaction that stores the match."""
        if not isinstance(table_id, str) or not 0 < len(table_id) <= 32:
            raise ProtocolError("table_gone", "no such table")
        table = await asyncio.to_thread(store.get_table, self.engine, table_id)
        if table is None or table["private"]:
            raise ProtocolError("table_gone", "no such table")
        if table["host_id"] == player.id:
            raise ProtocolError("own_table", "this is your own table: wait for someone to join it")
        if table["status"] != "open":
            raise ProtocolError("table_gone", "someone else took this table, or its host closed it")
        token = new_token()
        host_seat = int(table["host_seat"])
        seats: dict[int, tuple[str | None, str]] = {
                 host_seat: (str(table["host_id"]), str(table["host_token_hash"])),
                 1 - host_seat: (player.id, hash_token(token))}

        def claim(conn: Tx) -> None:
            store.claim_table(conn, table_id, player.id)
            pause_point("table_join")  # (tests: a crash here must leave the table open)

        try:
            _session, names = await self.seating.make_match(
                seats=seats, playset=json.loads(table["playset"]), clock_ms=table["clock_ms"],
                move_s=table["move_s"],
                rated=bool(table["rated"]), kind="table", payers=[address], match_id=table_id, also=claim)
        except store.TableGone:
            raise ProtocolError("table_gone", "someone else took this table, or its host closed it") from None
        self.room.tell_host(str(table["host_id"]), table_id, {**player.public(), "name": names.get(1 - host_seat)})
        await self.room.refresh()
        return Ready(table_id, 1 - host_seat, token)

    async def close(self, player: store.Player, table_id: str) -> None:
        """Close one of ``player``'s open tables."""
        done: list[bool] = []

        def close(conn: Tx) -> None:
            done.append(store.close_table(conn, table_id, player.id))

        await self.writer.write(close)
        if not done or not done[0]:
            raise ProtocolError("table_gone", "you have no open table with that id")
        await self.room.refresh()
