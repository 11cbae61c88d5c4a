"""Players: who a request speaks for (the player cookie), and their names — set, changed within the rename
limits (counted in the database: :func:`converge.server.storage.lobby_store.rename`), never another's."""

from __future__ import annotations

import asyncio
import math
import time

from sqlalchemy import Engine

from converge.ratings import Rating
from converge.server.config import ServerConfig
from converge.server.lobby.identity import issue_token, named, token_hash_of
from converge.server.protocol.answers import MyTable, Ranked
from converge.server.protocol.errors import ProtocolError
from converge.server.security.limits import KeyedRateLimit
from converge.server.security.tokens import new_match_id
from converge.server.storage import lobby_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Tx, Writer


def _duration(seconds: float) -> str:
    """A wait in words for players: "45 seconds", "12 minutes"."""
    whole = max(1, math.ceil(seconds))
    if whole < 90:
        return f"{whole} second{'s' if whole != 1 else ''}"
    return f"{math.ceil(whole / 60)} minutes"


def banned(reason: str) -> ProtocolError:
    """The refusal a banned player meets at every door, with the hosts' reason."""
    why = f" ({reason})" if reason else ""
    return ProtocolError("banned", f"this player is banned from this server{why}: you may watch, not play")


def refuse_banned(player: store.Player | None) -> None:
    """Refuse a banned player (``banned``, with the hosts' reason)."""
    if player is not None and player.banned is not None:
        raise banned(player.banned)


class Players:
    """The players of the lobby, and their names."""

    def __init__(self, config: ServerConfig, engine: Engine, writer: Writer) -> None:
        self.engine = engine
        self.writer = writer
        self.player_limit = (KeyedRateLimit(config.players_per_hour / 3600, config.players_per_hour,
                                            max_keys=100_000) if config.players_per_hour > 0 else None)
        self.rename_limit = store.RenameLimit(config.renames_per_hour, config.rename_interval_s)
        #: When each player who was refused a rename (or just renamed) may rename again, as far as this process
        #: knows: a flood of renames is refused here, without a database transaction each (the database's
        #: count is the one that decides).
        self.rename_after: dict[str, float] = {}

    async def player_of(self, cookie: str | None) -> store.Player | None:
        """The player whose token the cookie holds, or None."""
        digest = token_hash_of(cookie)
        if digest is None:
            return None
        return await asyncio.to_thread(store.player_by_hash, self.engine, digest)

    async def need_player(self, cookie: str | None) -> store.Player:
        """The player the cookie holds (refused when there is none)."""
        player = await self.player_of(cookie)
        if player is None:
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        return player

    async def may_play(self, cookie: str | None) -> store.Player:
        """The player the cookie holds, who may play here: refused when there is none, or when the hosts banned
        them. Every door that opens, joins or queues for a match asks here (a lobby page's queue asks
        :meth:`still_allowed`); a banned player may still watch, read their history, sign out or leave."""
        player = await self.need_player(cookie)
        refuse_banned(player)
        return player

    async def refuse_banned_cookie(self, cookie: str | None) -> None:
        """Refuse the request if its cookie holds a banned player (doors open to anyone: a new bot or friend
        match, a seat's connection)."""
        if cookie is not None:
            refuse_banned(await self.player_of(cookie))

    async def still_allowed(self, player: store.Player, cookie_hash: str | None) -> None:
        """Refuse ``player`` if the browser's cookie (its hash) no longer names them — it was signed out, here or
        everywhere — or if the hosts have banned them since they were read (a lobby page's player is read when
        it connects; a sign-out or a ban made meanwhile, by any process, is in the database)."""
        fresh = None if cookie_hash is None else await asyncio.to_thread(store.player_by_hash, self.engine,
                                                                          cookie_hash)
        if fresh is None or fresh.id != player.id:
            raise ProtocolError("no_player", "this browser was signed out: reload the page, and sign in again to "
                                             "play as yourself")
        refuse_banned(fresh)

    async def open_tables(self, player: store.Player) -> list[MyTable]:
        """The player's open tables."""
        tables = await asyncio.to_thread(store.tables_of, self.engine, player.id)
        return [{"id": t["id"], "status": t["status"], "private": t["private"]} for t in tables
                if t["status"] == "open"]

    async def leaderboard(self) -> list[Ranked]:
        """Named players with a rated match, best first."""
        return await asyncio.to_thread(store.leaderboard, self.engine)

    async def set_name(self, cookie: str | None, raw: object, address: str) -> tuple[store.Player, str | None]:
        """Set (or clear: ``raw`` None) the caller's name, making them a player if they are not one yet.
        Returns the player and, for a new player, the token for their cookie."""
        checked = None if raw is None else named(raw)
        name = None if checked is None else checked.name
        player = await self.player_of(cookie)
        refuse_banned(player)  # (a banned player's name is the hosts' to change)
        if player is not None and player.name == name:
            return player, None  # no change: nothing written, nothing counted
        if player is not None:
            self._check_rename(player.id, time.time())
        if checked is not None and await asyncio.to_thread(store.name_taken, self.engine, checked,
                                                        player.id if player else None):
            raise ProtocolError("name_taken", "another player has that name, or one that looks the same; choose "
                                              "another")
        fresh: str | None = None
        try:
            if player is None:
                if self.player_limit is not None and not self.player_limit.allow(address):
                    raise ProtocolError("rate_limited", "too many new players from your address; try again later")
                new = issue_token()
                pid = new_match_id()

                def create(conn: Tx) -> None:
                    store.create_player(conn, pid, new.token_hash, checked)

                await self.writer.write(create)
                fresh = new.token
                player = store.Player(pid, name, Rating(), 0)
            else:
                pid, now = player.id, time.time()

                def rename(conn: Tx) -> None:
                    store.rename(conn, pid, checked, self.rename_limit, now)

                try:
                    await self.writer.write(rename)
                except store.RenameTooSoon as exc:
                    self._note_rename(pid, now + exc.wait_s)
                    raise self._rename_refused(exc.wait_s) from None
                if self.rename_limit.interval_s > 0:
                    self._note_rename(pid, now + self.rename_limit.interval_s)
                player.name = name
        except StorageError:  # most likely the name was taken at the same moment
            if checked is not None and await asyncio.to_thread(store.name_taken, self.engine, checked,
                                                            player.id if player else None):
                raise ProtocolError("name_taken", "another player has that name, or one that looks the same; "
                                                  "choose another") from None
            raise ProtocolError("storage", "the name could not be saved; try again") from None
        return player, fresh

    def _check_rename(self, player_id: str, now: float) -> None:
        after = self.rename_after.get(player_id, 0.0)
        if after > now:
            raise self._rename_refused(after - now)

    def _note_rename(self, player_id: str, after: float) -> None:
        if len(self.rename_after) >= 100_000:
            now = time.time()
            self.rename_after = {pid: t for pid, t in self.rename_after.items() if t > now}
        self.rename_after[player_id] = after

    def _rename_refused(self, wait_s: float) -> ProtocolError:
        lim = self.rename_limit
        rules = [f"{lim.per_hour} times an hour"] if lim.per_hour > 0 else []
        if lim.interval_s > 0:
            rules.append(f"{_duration(lim.interval_s)} apart")
        return ProtocolError("rate_limited", f"a name can be changed {' and '.join(rules)}: you may change yours "
                                             f"again in {_duration(wait_s)}")
