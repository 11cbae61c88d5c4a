"""Following players: a player's friends are the named players they follow. The friends list says of each
whether they are online and which of their matches in progress anyone may watch.

Online means: a lobby page of theirs is open on this server process; or a match page of a match of theirs in
progress holds their seat's socket on any process (this process's connections, and the other processes'
presence locks on PostgreSQL: :mod:`converge.server.play.cluster.coordination`); or one of their matches
changed in the last :data:`ONLINE_WINDOW_S` seconds (a move, or its end: in the database). With several
processes, a friend whose only open page is another process's lobby, and who has not moved lately, shows as
offline."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from converge.server.lobby.identity import name_key
from converge.server.lobby.players import Players
from converge.server.lobby.room import Room
from converge.server.play.hub import Hub
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.people_answers import Followed, Friend, FriendList, Watching
from converge.server.storage import friends_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Tx, Writer

log = logging.getLogger("converge.server.people")

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

    def __init__(self, players: Players, room: Room, hub: Hub, writer: Writer) -> None:
        self.players = players
        self.room = room
        self.sessions = hub.sessions
        self.coord = hub.coord
        self.writer = writer
        self.engine = players.engine
        #: The wall clock the matches' times are written with (tests move it).
        self.now: Callable[[], float] = hub.wall

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
        online = {c.player.id for c in self.room.conns if c.player is not None}
        online.update(m.player_id for m in matches if m.updated_at >= since)
        playing: dict[str, list[str]] = {}
        for m in matches:
            if m.active:
                playing.setdefault(m.player_id, []).append(m.match_id)
        online.update(await self._seated([m for m in matches if m.active and m.player_id not in online]))
        docs = [friend_doc(p, p.id in online, playing.get(p.id, []))
                for p in people.values()]
        docs.sort(key=lambda f: (not f["online"], f["name"].casefold()))
        return {"friends": docs}

    async def _seated(self, matches: list[store.PlayerMatch]) -> set[str]:
        """The players among these whose seat has a match socket open, here or on another process."""
        found: set[str] = set()
        elsewhere: dict[str, set[int]] = {}
        if self.coord.multi and matches:
            try:
                elsewhere = await self.coord.present_elsewhere(sorted({m.match_id for m in matches}))
            except Exception:  # (the database away: this process's sockets and the moves still say)
                log.info("the other processes' presence could not be read now", exc_info=True)
        for m in matches:
            session = self.sessions.get(m.match_id)
            if m.seat in elsewhere.get(m.match_id, ()) or (session is not None
                                                           and session.presence.connected_here(m.seat)):
                found.add(m.player_id)
        return found

    async def _write(self, fn: Callable[[Tx], object]) -> None:
        try:
            await self.writer.write(fn)
        except store.TooMany as exc:
            raise ProtocolError("malformed", str(exc)) from None
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; nothing changed: try again") from None
