"""Following players: a player's friends are the named players they follow. The friends list says of each
whether they are online and which of their matches in progress anyone may watch.

Online means: a lobby page of theirs is open on this server process, or one of their matches in progress
changed in the last :data:`ONLINE_WINDOW_S` seconds (a move, or its end: in the database, so every process
sees it). With several processes, a friend whose only open page is another process's lobby, and who has not moved
lately, shows as offline: an honest "seen lately", not a socket count across processes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from converge.server.lobby.identity import name_key
from converge.server.lobby.players import Players
from converge.server.lobby.room import Room
from converge.server.protocol.answers import Followed, Friend, FriendList, Watching
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import friends_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Tx, Writer

#: A player whose match changed this recently is online.
ONLINE_WINDOW_S = 600.0
#: The most matches shown of one friend.
MAX_WATCHING = 5


def friend_doc(person: store.Person, online: bool, playing: list[str]) -> Friend:
    return {"name": person.name, "rating": round(person.rating.r), "provisional": person.rating.rd > 110,
            "online": online, "playing": [_watching(m) for m in playing[:MAX_WATCHING]],
            "profile": f"/@/{person.name}"}


def _watching(match_id: str) -> Watching:
    return {"match_id": match_id, "url": f"/m/{match_id}"}


class Follows:
    """Who follows whom, and the friends list."""

    def __init__(self, players: Players, room: Room, writer: Writer, now: Callable[[], float]) -> None:
        self.players = players
        self.room = room
        self.writer = writer
        self.engine = players.engine
        #: The wall clock the matches' times are written with (tests move it).
        self.now = now

    async def person(self, raw: str) -> store.Person:
        """The named player called ``raw`` (any case or look-alike of their name), or not_found."""
        key = name_key(raw.strip()) if raw.strip() else ""
        found = await asyncio.to_thread(store.person_by_key, self.engine, key) if key else None
        if found is None:
            raise ProtocolError("not_found", "no player has that name")
        return found

    async def follow(self, cookie: str | None, raw: str) -> Followed:
        me = await self.players.need_player(cookie)
        if me.name is None:
            raise ProtocolError("no_player", "choose a name before you follow players")
        them = await self.person(raw)
        if them.id == me.id:
            raise ProtocolError("malformed", "you cannot follow yourself")
        await self._write(lambda conn: store.follow(conn, me.id, them.id, time.time()))
        return {"name": them.name, "following": True}

    async def unfollow(self, cookie: str | None, raw: str) -> Followed:
        me = await self.players.need_player(cookie)
        them = await self.person(raw)
        done: list[bool] = []
        await self._write(lambda conn: done.append(store.unfollow(conn, me.id, them.id)))
        if not done[0]:
            raise ProtocolError("not_found", "you do not follow that player")
        return {"name": them.name, "following": False}

    async def friends(self, cookie: str | None) -> FriendList:
        """The caller's friends, online ones first, then by name."""
        me = await self.players.need_player(cookie)
        ids = await asyncio.to_thread(store.followed, self.engine, me.id)
        people = await asyncio.to_thread(store.people_by_ids, self.engine, ids)
        since = self.now() - ONLINE_WINDOW_S
        matches = await asyncio.to_thread(store.matches_of, self.engine, list(people), since)
        here = {c.player.id for c in self.room.conns if c.player is not None}
        playing: dict[str, list[str]] = {}
        lately: set[str] = set()
        for pid, mid, updated, active in matches:
            if active:
                playing.setdefault(pid, []).append(mid)
            if updated >= since:
                lately.add(pid)
        docs = [friend_doc(p, p.id in here or p.id in lately, playing.get(p.id, []))
                for p in people.values()]
        docs.sort(key=lambda f: (not f["online"], f["name"].casefold()))
        return {"friends": docs}

    async def _write(self, fn: Callable[[Tx], object]) -> None:
        try:
            await self.writer.write(fn)
        except store.TooMany as exc:
            raise ProtocolError("malformed", str(exc)) from None
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; nothing changed: try again") from None
