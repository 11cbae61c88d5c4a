"""Finding opponents: players, the lobby's tables, quick match, ratings on finish.

:class:`Lobby` sits beside the :class:`~converge.server.play.hub.Hub` and uses it to create matches; the hub
calls :meth:`Lobby.on_finish` inside the transaction that finishes a match, which updates the ratings of a
rated match there and then (exactly once: :func:`converge.server.storage.lobby_store.record_result`).

* **Tables.** A public table is a row in the database until someone joins: the host's seat token is made
  when the table is opened (only its hash is stored), and joining creates the match with that id, the
  host on their seat and the joiner on the other. One ``UPDATE ... WHERE status = 'open'`` decides who
  joins, in the transaction that stores the match: a crash leaves the table open or the match whole. A
  private table is a friend match made at once, with an invite link (as before), never listed.
* **What a match costs.** Every match stored is paid for from the hourly budget of the client address of
  each player it is stored for (:meth:`Hub.charge <converge.server.play.hub.Hub.charge>`): a private table's
  host; a public table's host when it is opened and its guest when they join; both players of a quick
  match, all or none (a refused side is told, the other goes back to the queue in its place); the player
  who takes a bot offer.
* **Names.** A player may rename ``renames_per_hour`` times in any hour and ``rename_interval_s`` apart,
  counted in the database (:func:`~converge.server.storage.lobby_store.rename`); a match records the names its
  players have when it starts, so a rename never changes what a match shows.
* **Live updates.** Lobby pages hold a WebSocket (``/ws/lobby``); every change this process makes is sent
  at once, and the open tables are read again from the database every ``lobby_poll_s`` seconds, so that
  changes other server processes make are seen too.
* **Quick match** (:mod:`converge.server.lobby.matchmaking`): the queue lives in this process's memory.

What lobby messages hold is public (names, ratings, playsets, clocks); a seat token goes only to its own
player's connection, in the message that tells them their match is ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from converge.bots import BOTS
from converge.ratings import Rating
from converge.server.config import ServerConfig
from converge.server.lobby.identity import check_name, issue_token, name_key, token_hash_of
from converge.server.lobby.matchmaking import QueueSettings, QuickMatchQueue, Waiting
from converge.server.play.budget import BudgetExceeded
from converge.server.play.hub import Hub
from converge.server.play.session import Session
from converge.server.protocol.errors import ProtocolError
from converge.server.security.limits import KeyedRateLimit, OpenCount
from converge.server.security.tokens import hash_token, new_match_id, new_token
from converge.server.storage import lobby_store as store
from converge.server.storage.database import StorageError, pause_point
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.transport.connections import Connection, dumps

log = logging.getLogger("converge.server.lobby")

#: The bots' fixed ratings (README, "Bots"): random = 1000 by definition; greedy 1869 from `converge ladder`
#: (400 matches a pair). Medium and hard are rated from 400 matches each against their earlier selves
#: (`benchmarks/versus_previous.py`), whose ratings were measured: the earlier hard was 2239 (`converge
#: ladder`), the earlier medium 2110 (it beat greedy in 194 of 230 matches, greedy + 292 = 2161, and lost
#: 22 of 30 to the earlier hard, 2239 - 176 = 2063: the mean). With their half-greedy playouts medium beat
#: the earlier medium in 244 of 400 matches (+78: 2188) and hard the earlier hard in 264 of 400 (+115: 2354).
#: Expert has no measured rating, so quick match never offers it and no match against it is rated.
BOT_RATINGS: dict[str, float] = {"beginner": 1000.0, "random": 1000.0, "easy": 1869.0, "greedy": 1869.0,
                                 "medium": 2188.0, "hard": 2354.0}
#: The levels quick match may offer, weakest first.
OFFERED_BOTS = ("beginner", "easy", "medium", "hard")

class LobbyConnection(Connection):
    """A lobby page's WebSocket: a :class:`~converge.server.play.hub.Connection` that knows its player."""

    def __init__(self, ws: Any, config: ServerConfig, address: str, player: store.Player | None) -> None:
        super().__init__(ws, -1, config, address)
        self.player = player


@dataclass
class Ready:
    """A match made for a player: what their page needs to go and play it."""

    match_id: str
    seat: int
    token: str

    def message(self, opponent: dict[str, Any] | None = None, kind: str = "matched") -> dict[str, Any]:
        return {"type": kind, "match_id": self.match_id, "seat": self.seat, "token": self.token,
                "url": f"/m/{self.match_id}", "opponent": opponent}


def _duration(seconds: float) -> str:
    """A wait in words for players: "45 seconds", "12 minutes"."""
    whole = max(1, math.ceil(seconds))
    if whole < 90:
        return f"{whole} second{'s' if whole != 1 else ''}"
    return f"{math.ceil(whole / 60)} minutes"


def queue_settings(cfg: ServerConfig) -> QueueSettings:
    return QueueSettings(base_range=cfg.quick_match_range, widen_per_s=cfg.quick_match_widen_per_s,
                         max_range=cfg.quick_match_max_range, bot_after_s=cfg.quick_match_bot_after_s)


def closest_bot(rating: float) -> str:
    """The quick-match bot whose fixed rating is closest to ``rating``."""
    return min(OFFERED_BOTS, key=lambda b: (abs(BOT_RATINGS[b] - rating), BOT_RATINGS[b]))


class Lobby:
    """Players, tables, the quick-match queue and the lobby's connections of one server process."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.cfg = hub.config
        self.engine = hub.storage.engine
        self.queue = QuickMatchQueue(queue_settings(self.cfg))
        self.conns: set[LobbyConnection] = set()
        #: Open lobby sockets per client address and in all, from their opening (:meth:`admit`) to their close.
        self.sockets = OpenCount(self.cfg.max_lobby_connections_per_address, self.cfg.max_lobby_connections)
        self.table_limit = KeyedRateLimit(self.cfg.table_rate, self.cfg.table_burst)
        self.queue_limit = KeyedRateLimit(self.cfg.queue_rate, self.cfg.queue_burst)
        self.player_limit = (KeyedRateLimit(self.cfg.players_per_hour / 3600, self.cfg.players_per_hour,
                                            max_keys=100_000) if self.cfg.players_per_hour > 0 else None)
        self.rename_limit = store.RenameLimit(self.cfg.renames_per_hour, self.cfg.rename_interval_s)
        #: When each player who was refused a rename (or just renamed) may rename again, as far as this process
        #: knows: a flood of renames is refused here, without a database transaction each (the database's
        #: count is the one that decides).
        self.rename_after: dict[str, float] = {}
        self.listed: str | None = None  # the last table list sent (JSON)
        self.last_poll = time.time()
        self.notified: set[str] = set()  # tables whose host was told it started
        self.poll_task: asyncio.Task[None] | None = None
        self.queue_task: asyncio.Task[None] | None = None
        self.grace: dict[str, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        hub.writes.finish_hooks.append(self.on_finish)

    # ------------------------------------------------------------------ connections

    def admit(self, address: str) -> None:
        """Count in a new lobby socket from ``address``, or refuse it (``busy``) when that address, or the
        lobby, has as many as it may hold; the caller counts it out (``sockets.discard``) when it closes."""
        over = self.sockets.over(address)
        if over == "key":
            raise ProtocolError("busy", "too many lobby connections from your address; close some of its pages")
        if over == "total":
            raise ProtocolError("busy", "the lobby is as full as it can be; try again in a moment")
        self.sockets.add(address)

    # ------------------------------------------------------------------ players

    async def player_of(self, cookie: str | None) -> store.Player | None:
        digest = token_hash_of(cookie)
        if digest is None:
            return None
        return await asyncio.to_thread(store.player_by_hash, self.engine, digest)

    async def need_player(self, cookie: str | None) -> store.Player:
        player = await self.player_of(cookie)
        if player is None:
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        return player

    async def set_name(self, cookie: str | None, raw: object, address: str) -> tuple[store.Player, str | None]:
        """Set (or clear: ``raw`` None) the caller's name, making them a player if they are not one yet.
        Returns the player and, for a new player, the token for their cookie."""
        name = None if raw is None else check_name(raw)
        key = None if name is None else name_key(name)
        player = await self.player_of(cookie)
        if player is not None and player.name == name:
            return player, None  # no change: nothing written, nothing counted
        if player is not None:
            self._check_rename(player.id, time.time())
        if key is not None and await asyncio.to_thread(store.name_taken, self.engine, key,
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

                def create(conn: Any) -> None:
                    store.create_player(conn, pid, new.token_hash, name, key)

                await self.hub.writer.write(create)
                fresh = new.token
                player = store.Player(pid, name, Rating(), 0)
            else:
                pid, now = player.id, time.time()

                def rename(conn: Any) -> None:
                    store.rename(conn, pid, name, key, self.rename_limit, now)

                try:
                    await self.hub.writer.write(rename)
                except store.RenameTooSoon as exc:
                    self._note_rename(pid, now + exc.wait_s)
                    raise self._rename_refused(exc.wait_s) from None
                if self.rename_limit.interval_s > 0:
                    self._note_rename(pid, now + self.rename_limit.interval_s)
                player.name = name
        except StorageError:  # most likely the name was taken at the same moment
            if key is not None and await asyncio.to_thread(store.name_taken, self.engine, key, None):
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

    # ------------------------------------------------------------------ making matches for players

    async def make_match(self, *, seats: dict[int, tuple[str | None, str]], playset: list[str],
                         clock_ms: int | None, rated: bool, kind: str, payers: Sequence[str],
                         bot: str | None = None, match_id: str | None = None,
                         also: Callable[[Any], None] | None = None) -> tuple[Session, dict[int, str | None]]:
        """Create a match whose human seats are ``seats`` ({seat: (player id or None, seat token hash)}) and
        whose other seat, if any, ``bot`` plays, paid for by the addresses ``payers``; recorded with its
        players and their names now, and ``also(conn)``, in the same transaction. Returns the session and
        those names by seat."""
        ps = self.hub.catalog.playset(playset)
        rows = [SeatRow(0, None, None, False, clock_ms), SeatRow(1, None, None, False, clock_ms)]
        for seat, (_pid, digest) in seats.items():
            rows[seat].token_hash = digest
        for r in rows:
            if r.token_hash is None:
                r.bot = bot
        row = MatchRow(id=match_id or new_match_id(), mode="bot" if bot else "friend", playset=ps.names(),
                       seed=secrets.randbelow(2**63), start="random", decks=ps.digest,
                       bot_seed=secrets.randbelow(2**63), clock_ms=clock_ms, seats=rows)
        players = {seat: pid for seat, (pid, _d) in seats.items() if pid is not None}
        names: dict[int, str | None] = {}

        def with_players(conn: Any) -> None:
            if also is not None:
                also(conn)
            names.update(store.add_match_players(conn, row.id, players, rated, kind) if players else {})

        session = await self.hub.matches.store(row, ps, payers=payers, also=with_players)
        return session, names

    def on_finish(self, conn: Any, session: Session, winner: int | None) -> None:
        """The hub's finish hook (inside the finishing transaction): rate the match if it is rated."""
        bots: dict[int, str | None] = {s.seat: s.bot for s in session.row.seats
                                       if s.bot is not None and not s.replaced}
        try:
            with conn.begin_nested():
                store.record_result(conn, session.id, winner, bots, BOT_RATINGS)
        except (ArithmeticError, ValueError, KeyError, TypeError) as exc:  # a bug must not lose the end
            log.error("match %s: ratings not updated: %s", session.id, exc)

    # ------------------------------------------------------------------ tables

    async def open_table(self, player: store.Player, address: str, *, playset: object, clock: object,
                         seat: object, private: bool, rated: bool) -> dict[str, Any]:
        """Open a table (see the module's docstring); returns the host's seat, token and links. The host's
        address pays for the match now: a private table is one, a public one becomes one when joined."""
        if not self.table_limit.allow(address):
            raise ProtocolError("rate_limited", "too many tables opened; wait a little")
        settings = self.hub.catalog.check("friend", playset, None, seat, clock)
        names, seat_no, clock_ms = settings.playset, settings.seat, settings.clock_ms
        if not private:
            n = await asyncio.to_thread(store.count_open, self.engine, player.id)
            if n >= self.cfg.open_tables_per_player:
                raise ProtocolError("too_many_tables", f"you have {n} open tables already: close one first")
        self.hub.catalog.playset(names)  # checked now: a table that could never start is not opened
        token = new_token()
        table_id = new_match_id()
        out: dict[str, Any] = {"table_id": table_id, "match_id": table_id, "seat": seat_no, "token": token,
                               "url": f"/m/{table_id}", "invite_url": None, "private": private,
                               "rated": rated and not private}
        if private:
            invite = new_token()
            seats: dict[int, tuple[str | None, str]] = {seat_no: (player.id, hash_token(token)),
                                                        1 - seat_no: (None, hash_token(invite))}
            await self.make_match(seats=seats, playset=names, clock_ms=clock_ms, rated=False, kind="invite",
                                  payers=[address], match_id=table_id)
            out["invite_url"] = f"/m/{table_id}#token={invite}"
            return out

        def add(conn: Any) -> None:
            store.add_table(conn, table_id=table_id, host_id=player.id, host_seat=seat_no,
                            host_token_hash=hash_token(token), playset=names, clock_ms=clock_ms, rated=rated,
                            private=False)

        self.hub.budget.charge([address])
        try:
            await self.hub.writer.write(add)
        except StorageError:
            self.hub.budget.give_back([address])
            raise ProtocolError("storage", "the table could not be saved; try again") from None
        await self.refresh()
        return out

    async def join_table(self, player: store.Player, table_id: object, address: str) -> Ready:
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

        def claim(conn: Any) -> None:
            store.claim_table(conn, table_id, player.id)
            pause_point("table_join")  # (tests: a crash here must leave the table open)

        try:
            _session, names = await self.make_match(
                seats=seats, playset=json.loads(table["playset"]), clock_ms=table["clock_ms"],
                rated=bool(table["rated"]), kind="table", payers=[address], match_id=table_id, also=claim)
        except store.TableGone:
            raise ProtocolError("table_gone", "someone else took this table, or its host closed it") from None
        self._tell_host(str(table["host_id"]), table_id, {**player.public(), "name": names.get(1 - host_seat)})
        await self.refresh()
        return Ready(table_id, 1 - host_seat, token)

    async def close_table(self, player: store.Player, table_id: str) -> None:
        done: list[bool] = []

        def close(conn: Any) -> None:
            done.append(store.close_table(conn, table_id, player.id))

        await self.hub.writer.write(close)
        if not done or not done[0]:
            raise ProtocolError("table_gone", "you have no open table with that id")
        await self.refresh()

    def _tell_host(self, host_id: str, table_id: str, guest: dict[str, Any] | None) -> None:
        self.notified.add(table_id)
        text = dumps({"type": "table_started", "table_id": table_id, "match_id": table_id,
                      "url": f"/m/{table_id}", "opponent": guest})
        for conn in list(self.conns):
            if conn.player is not None and conn.player.id == host_id:
                conn.send(text)

    # ------------------------------------------------------------------ live lobby

    async def tables(self) -> list[dict[str, Any]]:
        return await asyncio.to_thread(store.open_tables, self.engine)

    async def refresh(self) -> None:
        """Read the open tables; send them to every lobby page if they changed; tell hosts whose table
        another process started."""
        try:
            listed = await self.tables()
            since = self.last_poll - max(5.0, 3 * self.cfg.lobby_poll_s)
            self.last_poll = time.time()
            hosts = {c.player.id for c in self.conns if c.player is not None}
            started = await asyncio.to_thread(self._started_for, hosts, since) if hosts else []
        except Exception as exc:  # the database is away: next time
            log.warning("lobby refresh failed: %s", exc)
            return
        text = dumps({"type": "tables", "tables": listed})
        if text != self.listed:
            self.listed = text
            for conn in list(self.conns):
                conn.send(text)
        for table_id, host_id in started:
            if table_id not in self.notified:
                self._tell_host(host_id, table_id, None)

    def _started_for(self, hosts: set[str], since: float) -> list[tuple[str, str]]:
        out = []
        for host in hosts:
            out += [(t["id"], host) for t in store.tables_of(self.engine, host, since) if t["status"] == "started"]
        return out

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def _ensure_poll(self) -> None:
        if self.poll_task is not None and not self.poll_task.done():
            return

        async def poll() -> None:
            while self.conns and not self.hub.closing:
                await asyncio.sleep(self.cfg.lobby_poll_s)
                await self.refresh()

        self.poll_task = self._spawn(poll())

    async def welcome(self, conn: LobbyConnection) -> None:
        self.conns.add(conn)
        if conn.player is not None:
            task = self.grace.pop(conn.player.id, None)
            if task is not None:
                task.cancel()
        listed = await self.tables()
        conn.send({"type": "welcome", "player": conn.player.public() if conn.player else None, "tables": listed,
                   "queue": {"bot_after_s": self.cfg.quick_match_bot_after_s}})
        self._ensure_poll()

    def leave(self, conn: LobbyConnection) -> None:
        self.conns.discard(conn)
        conn.close()
        player = conn.player
        if player is None:
            return
        if self.queue.leave(player.id, conn) is not None:
            log.debug("player left the queue (page closed)")
        if any(c.player is not None and c.player.id == player.id for c in self.conns):
            return
        if self.hub.closing or self.cfg.table_grace_s <= 0:
            return

        async def close_later(pid: str = player.id) -> None:
            await asyncio.sleep(self.cfg.table_grace_s)
            self.grace.pop(pid, None)

            def close(c: Any) -> None:
                for t in store.tables_of(self.engine, pid):
                    if t["status"] == "open":
                        store.close_table(c, t["id"], pid)

            with contextlib.suppress(StorageError):
                await self.hub.writer.write(close)
            await self.refresh()

        old = self.grace.pop(player.id, None)
        if old is not None:
            old.cancel()
        self.grace[player.id] = self._spawn(close_later())

    # ------------------------------------------------------------------ quick match

    def join_queue(self, conn: LobbyConnection, clock: object) -> dict[str, Any]:
        player = conn.player
        if player is None:
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        if not self.queue_limit.allow(player.id):
            raise ProtocolError("rate_limited", "you joined the queue too often; wait a little")
        self.hub.budget.check(conn.address)  # (a pairing would be refused: it does not wait in the queue)
        clock_ms = self.hub.catalog.check("friend", "random", None, 0, clock).clock_ms
        clock_s = None if clock_ms is None else clock_ms // 1000
        entry = self.queue.join(Waiting(player.id, player.rating.r, clock_s, time.monotonic(), conn,
                                        extra={"player": player}))
        self._ensure_queue_task()
        return {"type": "queued", "clock_s": clock_s, "rating": round(player.rating.r),
                "bot_after_s": self.cfg.quick_match_bot_after_s,
                "waited_s": round(time.monotonic() - entry.since, 1)}

    def leave_queue(self, conn: LobbyConnection) -> bool:
        return conn.player is not None and self.queue.leave(conn.player.id, conn) is not None

    def _ensure_queue_task(self) -> None:
        if self.queue_task is not None and not self.queue_task.done():
            return

        async def run() -> None:
            while len(self.queue) and not self.hub.closing:
                await self.step()
                await asyncio.sleep(0.1)

        self.queue_task = self._spawn(run())

    async def step(self, now: float | None = None) -> None:
        """One round of the queue: pair who can be, offer bots to who has waited long enough."""
        pairs, offers = self.queue.step(time.monotonic() if now is None else now)
        for entry in offers:
            bot = closest_bot(entry.rating)
            entry.conn.send({"type": "bot_offer", "bot": bot, "bot_rating": round(BOT_RATINGS[bot]),
                             "waited_s": round(self.cfg.quick_match_bot_after_s, 1)})
        for a, b in pairs:
            self._spawn(self._start_pair(a, b))

    async def _start_pair(self, a: Waiting, b: Waiting) -> None:
        assert a.player_id != b.player_id
        first = random.SystemRandom().randrange(2)
        seat_of = {a.player_id: first, b.player_id: 1 - first}
        tokens = {a.player_id: new_token(), b.player_id: new_token()}
        seats: dict[int, tuple[str | None, str]] = {
            seat_of[e.player_id]: (e.player_id, hash_token(tokens[e.player_id])) for e in (a, b)}
        try:
            names = self.hub.catalog.check("friend", "random", None, 0, None).playset
            session, started = await self.make_match(
                seats=seats, playset=names, clock_ms=None if a.clock_s is None else a.clock_s * 1000, rated=True,
                kind="quick", payers=[a.conn.address, b.conn.address])
        except BudgetExceeded as exc:
            for e in (a, b):
                if e.conn.address in exc.refused:  # out of the queue: told why
                    e.conn.send({"type": "unqueued"})
                    e.conn.send(exc.to_message())
                elif not e.conn.closed:  # unharmed: back in the queue in its place, nothing to tell
                    self.queue.join(e)
            self._ensure_queue_task()
            return
        except ProtocolError as exc:
            for e in (a, b):  # back in the queue, in their places
                if not e.conn.closed:
                    self.queue.join(e)
                    e.conn.send(ProtocolError(exc.code, "the match could not be created; you are still in the "
                                                        "queue").to_message())
            self._ensure_queue_task()
            return
        for me, them in ((a, b), (b, a)):
            other: store.Player = them.extra["player"]
            ready = Ready(session.id, seat_of[me.player_id], tokens[me.player_id])
            me.conn.send(ready.message({**other.public(), "name": started.get(seat_of[them.player_id])}))

    async def accept_bot(self, conn: LobbyConnection) -> Ready:
        player = conn.player
        if player is None:
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        entry = self.queue.waiting.get(player.id)
        if entry is None or not entry.offered:
            raise ProtocolError("no_offer", "no bot was offered to you: join the queue and wait a little")
        self.queue.leave(player.id)
        bot = closest_bot(entry.rating)
        token = new_token()
        seat = random.SystemRandom().randrange(2)
        names = self.hub.catalog.check("friend", "random", None, 0, None).playset
        if self.hub.pool.full:
            self.queue.join(entry)
            raise ProtocolError("busy", "every bot on this server is thinking: stay in the queue, or try again")
        try:
            session, _names = await self.make_match(
                seats={seat: (player.id, hash_token(token))}, playset=names,
                clock_ms=None if entry.clock_s is None else entry.clock_s * 1000, rated=True, kind="quick",
                payers=[conn.address], bot=bot)
        except BudgetExceeded:
            conn.send({"type": "unqueued"})  # out of the queue: no match can be stored for it now
            raise
        except ProtocolError:
            self.queue.join(entry)
            raise
        return Ready(session.id, seat, token)

    # ------------------------------------------------------------------ linking seats to players

    async def claim_seat(self, player: store.Player, session: Session, seat: int) -> bool:
        """Record that ``player`` plays ``seat`` of a match they reached by a link (an invite, or a match made
        from the home page's forms; unrated): their history lists it. False if the seat already has a player
        (or the player holds the other seat)."""
        mid = session.id
        done: list[bool] = []

        def link(conn: Any) -> None:
            done.append(store.link_seat(conn, mid, seat, player.id))

        try:
            await self.hub.writer.write(link)
        except StorageError:
            return False
        return bool(done and done[0])

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(BaseException):
                await task


__all__ = ["BOT_RATINGS", "OFFERED_BOTS", "Lobby", "LobbyConnection", "Ready", "closest_bot"]


def _check_bot_ratings() -> None:
    unknown = [b for b in BOT_RATINGS if b not in BOTS]
    assert not unknown, unknown


_check_bot_ratings()
