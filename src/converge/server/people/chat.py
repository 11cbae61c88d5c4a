"""Chat: lines typed, or chosen from the quick messages, in three kinds of room — a match's two players, its
spectators (whom its players do not read), and the lobby.

A line carries only what its sender typed or chose, their name (None: anonymous) and when: the server adds
nothing of the match to it, so chat is no door to what the game hides. Every line is stored before it is
sent (kept with its match, so that a report carries it, and deleted with it), then sent to this process's
readers of the room; the other processes read the new lines every ``chat_poll_s`` seconds and send them to
theirs. A reader who muted the sender gets none of their lines; one whose chat is off gets only the quick
messages (a player's chat is on by default once they have a name, off while they are anonymous).

Safety: each line is checked against the sender as the database has them now (a ban, by any process,
silences them at once; a browser signed out says nothing), counts against their budget and their address's,
is at most :data:`MAX_CHARS` characters of printable text on one line, and has the server's blocked words
masked. A page shows a line as text: a link in it is not made clickable."""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import Engine

from converge.server.config import ServerConfig
from converge.server.lobby.players import refuse_banned
from converge.server.play.process.lifecycle import Lifecycle, Periodic
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.messages import ChatLineInfo, ChatLines, ChatMessage, ChatRoom
from converge.server.security.limits import KeyedRateLimit
from converge.server.storage import chat_store, lobby_store
from converge.server.storage.chat_store import Line
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Tx, Writer

#: The quick messages: their keys and words (no typing needed; they work wherever chat does, even for a
#: reader whose typed chat is off).
QUICK_MESSAGES: dict[str, str] = {"glhf": "Good luck", "gg": "Good game", "thanks": "Thanks",
                                  "wp": "Well played"}
#: The longest line, in characters.
MAX_CHARS = 200
#: How many of a room's last lines a new reader gets.
HISTORY = 50
#: Seconds a line sent here is remembered, so that the read of other processes' lines does not send it again.
REMEMBER_S = 60.0


def room_of(match_id: str | None, view: int = -1) -> str:
    """The stored room of a match's seat (``view`` 0 or 1) or spectator (-1), or of the lobby (no match)."""
    if match_id is None:
        return "lobby"
    return f"{match_id}:{'players' if view >= 0 else 'spectators'}"


def mute_key(player_id: str, muted_id: str) -> str:
    """How a player names one they muted, to unmute them: no player's id is ever shown."""
    return hashlib.sha256(f"mute:{player_id}:{muted_id}".encode()).hexdigest()[:20]


def kind_of(room: str) -> ChatRoom:
    """The room as its readers know it."""
    if room == "lobby":
        return "lobby"
    return "players" if room.endswith(":players") else "spectators"


def mask(text: str, blocked: tuple[str, ...]) -> str:
    """``text`` with each blocked word (whole, whatever its case) masked.

    >>> mask("What a Cheat, cheater", ("cheat",))
    'What a *****, cheater'
    """
    for word in blocked:
        if word.strip():
            text = re.sub(rf"(?<!\w){re.escape(word.strip())}(?!\w)", lambda m: "*" * len(m.group()), text,
                          flags=re.IGNORECASE)
    return text


def clean(text: str, blocked: tuple[str, ...] = ()) -> str:
    """A typed line as it is kept: its spaces (new lines too) made single, at most :data:`MAX_CHARS`
    characters, no control or invisible format characters, blocked words masked; refused if empty or too long.

    >>> clean("  good   game\\n  ")
    'good game'
    """
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs") and not ch.isspace() for ch in text):
        raise ProtocolError("malformed", "a chat line is text without control characters")
    said = " ".join(text.split())
    if not said:
        raise ProtocolError("malformed", "say something: the line is empty")
    if len(said) > MAX_CHARS:
        raise ProtocolError("malformed", f"a chat line is at most {MAX_CHARS} characters (this one has "
                                         f"{len(said)})")
    return mask(said, blocked)


class Reader(Protocol):
    """A connection that reads a room (a match's seat or spectator, a lobby page)."""

    closed: bool

    def send(self, message: Mapping[str, object] | str) -> None: ...


@dataclass
class Seat:
    """A reader in a room, and the player it reads as (None: a connection without a player)."""

    conn: Reader
    player_id: str | None


class Chat:
    """The chat of one server process: its readers by room, and every line said here."""

    def __init__(self, config: ServerConfig, engine: Engine, writer: Writer, life: Lifecycle, multi: bool,
                 now: Callable[[], float] = time.time) -> None:
        self.config = config
        self.engine = engine
        self.writer = writer
        self.now = now
        self.per_player = KeyedRateLimit(config.chat_per_minute / 60, config.chat_burst, max_keys=100_000)
        self.per_address = KeyedRateLimit(config.chat_per_address_minute / 60,  # (a household, a school: several
                                          max(config.chat_burst, config.chat_per_address_minute / 4),  # players)
                                          max_keys=100_000)
        self.rooms: dict[str, dict[int, Seat]] = {}
        #: The lines this process sent (their ids, and when): the others' are read from the database.
        self._sent: dict[int, float] = {}
        self._read_since = now()
        self._periodic = Periodic("chat_relay", "the chat lines of other processes", config.chat_poll_s,
                                  self.relay, life) if multi else None

    def start(self) -> None:
        if self._periodic is not None:
            self._periodic.start()

    # ------------------------------------------------------------------ readers

    async def join(self, room: str, conn: Reader, player_id: str | None) -> None:
        """``conn`` reads ``room`` from now on; it is sent the room's last lines it may read, if there are any
        (a client that gets none knows its room is empty: a page that never chats sees nothing new)."""
        self.rooms.setdefault(room, {})[id(conn)] = Seat(conn, player_id)
        try:
            lines = await asyncio.to_thread(chat_store.recent, self.engine, room, HISTORY)
            on, muted = await asyncio.to_thread(self._view, player_id)
        except Exception:  # (the database is away: no history now; the lines to come still come)
            return
        shown = [self._info(line, player_id) for line in lines if self._reads(line, player_id, on, muted)]
        if not shown:
            return
        message: ChatLines = {"type": "chat_lines", "room": kind_of(room), "lines": shown}
        conn.send(message)

    def leave(self, room: str, conn: Reader) -> None:
        readers = self.rooms.get(room)
        if readers is not None:
            readers.pop(id(conn), None)
            if not readers:
                del self.rooms[room]

    def _view(self, player_id: str | None) -> tuple[bool, set[str]]:
        return (False, set()) if player_id is None else chat_store.reader(self.engine, player_id)

    @staticmethod
    def _reads(line: Line, player_id: str | None, on: bool, muted: set[str]) -> bool:
        if line.player_id == player_id:
            return True
        return line.player_id not in muted and (on or line.quick is not None)

    @staticmethod
    def _info(line: Line, player_id: str | None) -> ChatLineInfo:
        return {"id": line.id, "name": line.name, "mine": line.player_id == player_id, "text": line.text,
                "quick": line.quick, "at": line.at}

    # ------------------------------------------------------------------ speaking

    async def say(self, room: str, match_id: str | None, cookie_hash: str | None, address: str, *,
                  text: str | None = None, quick: str | None = None) -> None:
        """A line from the player the browser's cookie (its hash) names, said in ``room``; refused (and nothing
        stored or sent) when they are banned or signed out, over their budget, or the line is not one."""
        fresh = None if cookie_hash is None else await asyncio.to_thread(lobby_store.player_by_hash, self.engine,
                                                                          cookie_hash)
        if fresh is None:
            raise ProtocolError("no_player", "chat needs a player: choose a name (or play anonymously) on the "
                                             "home page first")
        refuse_banned(fresh)
        if quick is not None:
            if quick not in QUICK_MESSAGES:
                raise ProtocolError("malformed", f"the quick messages are {', '.join(QUICK_MESSAGES)}")
            said = QUICK_MESSAGES[quick]
        else:
            said = clean(text or "", self.config.chat_blocked_words)
            on, _muted = await asyncio.to_thread(chat_store.reader, self.engine, fresh.id)
            if not on:
                raise ProtocolError("chat_off", "your chat is off: turn it on in the You panel to type (the quick "
                                                "messages work without it)")
        short = self.per_player.take([fresh.id])
        if short or self.per_address.take([address]):
            if not short:
                self.per_player.give_back([fresh.id])
            raise ProtocolError("rate_limited", "too many chat lines; wait a little")
        stored: list[Line] = []

        def write(conn: Tx) -> None:
            stored.append(chat_store.add(conn, room, match_id, fresh.id, fresh.name, self.now(), said, quick))

        try:
            await self.writer.write(write)
        except StorageError:
            raise ProtocolError("storage", "the line could not be saved now, so it was not sent: try again") \
                from None
        line = stored[0]
        self._sent[line.id] = line.at
        await self._deliver(line)

    async def _deliver(self, line: Line) -> None:
        """Send a line to this process's readers of its room who may read it."""
        readers = list(self.rooms.get(line.room, {}).values())
        if not readers:
            return
        ids = [r.player_id for r in readers if r.player_id is not None and r.player_id != line.player_id]
        on, muted_by = await asyncio.to_thread(chat_store.readers, self.engine, ids, line.player_id)
        kind = kind_of(line.room)
        for reader in readers:
            if reader.conn.closed or reader.player_id in muted_by:
                continue
            if self._reads(line, reader.player_id, reader.player_id in on, set()):
                message: ChatMessage = {"type": "chat", "room": kind, "line": self._info(line, reader.player_id)}
                reader.conn.send(message)

    async def relay(self) -> None:
        """Send this process's readers the lines other processes stored since the last look (several
        processes only)."""
        now = self.now()
        since, self._read_since = self._read_since - 5.0, now  # (a line stored as the last read ran)
        for key, at in list(self._sent.items()):
            if at < now - REMEMBER_S:
                del self._sent[key]
        if not self.rooms:
            return
        for line in await asyncio.to_thread(chat_store.since, self.engine, since, list(self.rooms)):
            if line.id not in self._sent:
                self._sent[line.id] = line.at
                await self._deliver(line)

    # ------------------------------------------------------------------ a player's choices

    async def reader(self, player_id: str) -> tuple[bool, set[str]]:
        """Whether ``player_id``'s typed chat is on, and the ids of whom they muted."""
        return await asyncio.to_thread(chat_store.reader, self.engine, player_id)

    async def set_chat(self, player_id: str, on: bool) -> None:
        await self._write(lambda conn: chat_store.set_chat(conn, player_id, on))

    async def mute_sender(self, player_id: str, line_id: int) -> None:
        """``player_id`` mutes the sender of line ``line_id`` (not themselves)."""
        line = await asyncio.to_thread(chat_store.line, self.engine, line_id)
        if line is None:
            raise ProtocolError("not_found", "no such chat line")
        if line.player_id == player_id:
            raise ProtocolError("malformed", "you cannot mute yourself")
        await self._write(lambda conn: chat_store.mute(conn, player_id, line.player_id, self.now()))

    async def mutes(self, player_id: str) -> list[tuple[str, str | None]]:
        """Whom ``player_id`` muted, newest first: (a key to unmute them by, their name now)."""
        found = await asyncio.to_thread(chat_store.muted, self.engine, player_id)
        return [(mute_key(player_id, mid), name) for mid, name in found]

    async def unmute(self, player_id: str, key: str) -> None:
        found = await asyncio.to_thread(chat_store.muted, self.engine, player_id)
        target = [mid for mid, _name in found if mute_key(player_id, mid) == key]
        if not target:
            raise ProtocolError("not_found", "you have not muted such a player")
        await self._write(lambda conn: chat_store.unmute(conn, player_id, target[0]))

    async def _write(self, fn: Callable[[Tx], object]) -> None:
        try:
            await self.writer.write(fn)
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; nothing changed: try again") from None
