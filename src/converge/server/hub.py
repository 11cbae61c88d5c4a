"""Live matches: the in-memory cache of stored matches, their connections and their bots.

A :class:`Session` holds one match: the :class:`~converge.engine.state.Match` rebuilt from its record,
its metadata, the open connections and the tasks that act for it (bots, clocks, stand-ins). Everything
that changes a match runs under the session's lock, in this order: check the action against the live
match, commit it to the database, apply it, then send each connection its own view. Nothing is applied
or acknowledged before it is committed; a failed commit changes nothing.

What goes out is only ever ``observation(seat)`` for a seat's connections and ``observation(-1)`` for
spectators (with the events the connection already has left out), plus public metadata.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from converge.bots import BOTS
from converge.bots.hint import hint as strong_hint
from converge.cards.loader import DeckError, load_catalog
from converge.engine.errors import ConvergeError
from converge.engine.observation import card_catalog
from converge.engine.playset import SETS, Playset, all_playsets, catalog_order
from converge.engine.state import Match
from converge.server.botpool import BotPool
from converge.server.config import ServerConfig
from converge.server.protocol import ProtocolError
from converge.server.security import TokenBucket, hash_token, new_match_id, new_token
from converge.server.storage import MatchRow, Retention, SeatRow, Storage, StorageError, Writer
from converge.server.table import Scored, TurnLog, follow_ups

log = logging.getLogger("converge.server")

PREFERRED_DEFAULT_BOTS = ("medium", "greedy")

#: The WebSocket close code of a seat's connection replaced by a newer one of the same seat.
CLOSE_REPLACED = 4409

#: CSS-friendly colour names for the deck colours of the built-in decks (rich's names).
COLOR_NAMES = {"orange3": "orange", "gold3": "gold"}


def default_bot() -> str:
    """The bot offered first: the middle level when it exists."""
    for name in PREFERRED_DEFAULT_BOTS:
        if name in BOTS:
            return name
    return next(iter(BOTS))


def dumps(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


class WebSocketLike(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class Connection:
    """One open WebSocket of a seat (``view`` 0 or 1) or a spectator (``view`` -1).

    Messages go through a bounded queue and a sender task, so that a slow client never holds up the
    others: one that falls too far behind is disconnected (it reconnects and gets its current view).
    """

    _opened = itertools.count()

    def __init__(self, ws: WebSocketLike, view: int, config: ServerConfig, address: str = "?") -> None:
        self.ws = ws
        self.view = view
        #: The client's address as limits count it (:func:`~converge.server.security.address_key`).
        self.address = address
        #: Order of arrival: a seat with too many connections loses its oldest.
        self.opened = next(self._opened)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=config.send_queue)
        self.bucket = TokenBucket(config.rate, config.burst)
        self.strikes = 0
        #: Over the rate limit since the last message let through: told once, then ignored silently.
        self.throttled = False
        self.events_sent = 0
        #: A hint is being worked out for this connection.
        self.hinting = False
        self.closed = False
        self.close_code = 1000
        self.close_reason: str | None = None
        #: A spectator counted in :attr:`Hub.spectators` (until it leaves).
        self.counted = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._sender())

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(message if isinstance(message, str) else dumps(message))
        except asyncio.QueueFull:
            self.close(1013)

    def close(self, code: int = 1000, reason: str | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.close_reason = reason
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:  # no room for the stop marker: drop what is queued and close now
            if self.task is not None:
                self.task.cancel()
            self.task = asyncio.get_running_loop().create_task(self._close_now())

    async def _close_now(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(self.close_code, self.close_reason)

    async def _sender(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if item is None:
                    break
                await self.ws.send_text(item)
        except Exception:  # the peer went away
            self.closed = True
        with contextlib.suppress(Exception):
            await self.ws.close(self.close_code, self.close_reason)

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait until queued messages are sent (or the connection is gone)."""
        if self.task is not None:
            self.close(self.close_code)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.task), timeout)


@dataclass
class Created:
    session: Session
    seat: int
    token: str
    invite_token: str | None


class Session:
    """One live match."""

    def __init__(self, row: MatchRow, match: Match) -> None:
        self.row = row
        self.id = row.id
        self.match = match
        self.lock = asyncio.Lock()
        self.conns: set[Connection] = set()
        self.turn_started = time.monotonic()
        self.bot_task: asyncio.Task[None] | None = None
        self.clock_task: asyncio.Task[None] | None = None
        self.abandon: dict[int, asyncio.Task[None]] = {}
        self.evict_task: asyncio.Task[None] | None = None
        self.catalog = card_catalog(match)
        self.colors = {d.skillset: COLOR_NAMES.get(d.color, d.color) for d in match.playset.decks}
        self.broken = False
        #: Clocks run once every player has come (or the match has begun).
        self.clock_started = row.n_actions > 0
        #: The ends of turn so far (for the table's summaries), and those the last action brought.
        self.turnlog = TurnLog(match)
        self.new_turns: list[Scored] = []
        #: Hints computed for (seat, seq), and the ones being computed.
        self.hints: dict[tuple[int, int], list[dict[str, Any]]] = {}
        self.hinting: dict[tuple[int, int], asyncio.Future[list[dict[str, Any]]]] = {}

    # ------------------------------------------------------------------ facts

    @property
    def active(self) -> bool:
        return self.row.status == "active" and not self.broken

    @property
    def seq(self) -> int:
        return self.row.n_actions

    def seat_row(self, seat: int) -> SeatRow:
        return self.row.seats[seat]

    def is_bot(self, seat: int) -> bool:
        return self.row.seats[seat].bot is not None

    def connected(self, view: int) -> bool:
        return any(c.view == view and not c.closed for c in self.conns)

    def clock_left(self, seat: int, now: float | None = None) -> int | None:
        """The time left to ``seat`` in ms (running down while it is their decision), or None."""
        left = self.row.seats[seat].clock_left_ms
        if left is None or self.row.clock_ms is None:
            return None
        if self.active and self.clock_started and self.match.current_player == seat and not self.is_bot(seat):
            elapsed = ((now if now is not None else time.monotonic()) - self.turn_started) * 1000
            return max(0, int(left - elapsed))
        return left

    def meta(self) -> dict[str, Any]:
        """Public facts about the match (never the seed, the record or anything hidden)."""
        row = self.row
        now = time.monotonic()
        clock = None
        if row.clock_ms is not None:
            running = self.match.current_player if self.active and self.clock_started else -1
            if running >= 0 and self.is_bot(running):
                running = -1
            clock = {"initial_ms": row.clock_ms, "left_ms": [self.clock_left(0, now), self.clock_left(1, now)],
                     "running": running}
        return {
            "id": row.id,
            "mode": row.mode,
            "status": "over" if row.status == "over" else "active",
            "playset": list(self.match.playset.skillsets),
            "seq": row.n_actions,
            "seats": [{"seat": s.seat, "kind": "bot" if s.bot is not None and not s.replaced else "human",
                       "bot": s.bot, "replaced": s.replaced, "connected": self.connected(s.seat)}
                      for s in row.seats],
            "spectators": sum(1 for c in self.conns if c.view == -1 and not c.closed),
            "clock": clock,
            "result": ({"winner": row.winner, "reason": row.reason} if row.status == "over" else None),
            "rematch_id": row.rematch_id,
            "rematch_of": row.rematch_of,
            "hints": {"on": self.hints_on, "allowed": [self.row.mode == "bot" or bool(self.row.hints >> p & 1)
                                                      for p in (0, 1)]},
        }

    def view(self, viewer: int) -> dict[str, Any]:
        return self.match.observation(viewer)

    def bot_name(self, seat: int) -> str:
        """The bot level playing ``seat`` (the seat's own, or the default stand-in)."""
        return self.row.seats[seat].bot or default_bot()

    @property
    def hints_on(self) -> bool:
        """Hints are on against a bot; in a friend match only once both players allow them."""
        return self.row.mode == "bot" or self.row.hints & 3 == 3

    def table(self, viewer: int, welcome: bool = False) -> dict[str, Any]:
        """What the table shows beyond the observation, for ``viewer``: the choices of theirs that can be
        held and taken back (``next``), the ends of turn the last action brought (``turns``) and, for a
        new connection, every finished round and the last end of turn."""
        log = self.turnlog
        out: dict[str, Any] = {"next": follow_ups(self.match, viewer) if viewer >= 0 and self.active else {}}
        if welcome:
            out["rounds"] = [log.summary(s, viewer) for s in log.rounds()]
            out["last_turn"] = log.summary(log.turns[-1], viewer) if log.turns else None
        else:
            out["turns"] = [log.summary(s, viewer) for s in self.new_turns]
        return out


class Hub:
    """All live sessions of one server, and the operations on them."""

    def __init__(self, config: ServerConfig, storage: Storage, writer: Writer) -> None:
        self.config = config
        self.storage = storage
        self.writer = writer
        self.sessions: dict[str, Session] = {}
        self.loading: dict[str, asyncio.Future[Session | None]] = {}
        self.catalog = load_catalog(config.deck_dirs)
        self.skillsets = catalog_order(self.catalog)
        self.playsets = all_playsets(self.catalog)
        self.playset_cache: dict[tuple[str, ...], Playset] = {}
        #: Open spectator connections per client address (over every match).
        self.spectators: dict[str, int] = {}
        self.retention_task: asyncio.Task[None] | None = None
        self.closing = False
        #: Where bots think: worker processes, so that their search never holds up anyone's action.
        self.bots = BotPool(config.bot_workers, config.deck_dirs)
        #: Hints search one at a time (each takes a CPU for a while).
        self.hint_slot = asyncio.Semaphore(1)
        #: Called inside the transaction that finishes a match, as ``hook(conn, session, winner)`` (the
        #: lobby's ratings: :mod:`converge.server.lobby`); an exception fails that transaction.
        self.finish_hooks: list[Callable[[Any, Session, int | None], None]] = []

    # ------------------------------------------------------------------ options

    def options(self) -> dict[str, Any]:
        return {
            "bots": list(BOTS),
            "default_bot": default_bot(),
            "skillsets": [{"key": k, "name": self.catalog[k].skillset, "set": self.catalog[k].set_name,
                           "keyword": self.catalog[k].keyword,
                           "color": COLOR_NAMES.get(self.catalog[k].color, self.catalog[k].color)}
                          for k in self.skillsets],
            "sets": {name: list(keys) for name, keys in SETS.items()},
            "clock": {"min_s": self.config.clock_min_s, "max_s": self.config.clock_max_s},
            "replace_after_s": self.config.replace_after or None,
        }

    def playset(self, names: list[str]) -> Playset:
        key = tuple(sorted(names))
        ps = self.playset_cache.get(key)
        if ps is None:
            try:
                ps = Playset.from_names(names, self.config.deck_dirs)
            except (ConvergeError, DeckError) as exc:
                raise ProtocolError("malformed", str(exc).splitlines()[0]) from None
            self.playset_cache[key] = ps
        return ps

    # ------------------------------------------------------------------ creating and loading

    def check_create(self, mode: object, playset: object, bot: object, seat: object,
                     clock_s: object) -> tuple[list[str], str | None, int, int | None]:
        """The checked settings of a new match (see :meth:`create`), or a ProtocolError."""
        return self._check_create(mode, playset, bot, seat, clock_s)

    def _check_create(self, mode: object, playset: object, bot: object, seat: object,
                      clock_s: object) -> tuple[list[str], str | None, int, int | None]:
        if mode not in ("bot", "friend"):
            raise ProtocolError("malformed", "\"opponent\" must be \"bot\" or \"friend\"")
        if playset is None or playset == "random":
            names = list(random.SystemRandom().choice(self.playsets))
        elif isinstance(playset, str) and playset in SETS:
            names = list(SETS[playset])
        elif (isinstance(playset, list) and len(playset) == 3
              and all(isinstance(n, str) and 0 < len(n) <= 32 for n in playset)):
            names = [n.strip().lower() for n in playset]
            unknown = [n for n in names if n not in self.catalog]
            if unknown:
                raise ProtocolError("malformed", f"unknown skillset {unknown[0][:32]!r}")
            if len(set(names)) != 3:
                raise ProtocolError("malformed", "a playset is three different skillsets")
        else:
            raise ProtocolError("malformed", "\"playset\" is three skillset names, a set name or \"random\"")
        bot_name: str | None = None
        if mode == "bot":
            bot_name = default_bot() if bot is None else bot if isinstance(bot, str) else ""
            if bot_name not in BOTS:
                raise ProtocolError("malformed", f"\"bot\" must be one of {', '.join(BOTS)}")
        if seat is None or seat == "random":
            seat_no = secrets.randbelow(2)
        elif isinstance(seat, int) and not isinstance(seat, bool) and seat in (0, 1):
            seat_no = seat
        else:
            raise ProtocolError("malformed", "\"seat\" must be 0, 1 or \"random\"")
        clock_ms: int | None = None
        if clock_s is not None:
            lo, hi = self.config.clock_min_s, self.config.clock_max_s
            if isinstance(clock_s, bool) or not isinstance(clock_s, int) or not lo <= clock_s <= hi:
                raise ProtocolError("malformed", f"\"clock\" is seconds per player, {lo} to {hi}, or null")
            clock_ms = clock_s * 1000
        return names, bot_name, seat_no, clock_ms

    async def create(self, mode: object, playset: object = None, bot: object = None, seat: object = 0,
                     clock_s: object = None) -> Created:
        """A new match against a bot or a friend; returns the creator's seat and token (and the invite's)."""
        names, bot_name, seat_no, clock_ms = self._check_create(mode, playset, bot, seat, clock_s)
        if mode == "bot" and self.bots.full:
            raise ProtocolError("busy", "every bot on this server is thinking: try again in a minute, or play "
                                        "a friend")
        ps = self.playset(names)
        token = new_token()
        invite = new_token() if mode == "friend" else None
        seats = [SeatRow(0, None, None), SeatRow(1, None, None)]
        seats[seat_no].token_hash = hash_token(token)
        other = seats[1 - seat_no]
        if invite is not None:
            other.token_hash = hash_token(invite)
        else:
            other.bot = bot_name
        for s in seats:
            s.clock_left_ms = clock_ms
        row = MatchRow(id=new_match_id(), mode=str(mode), playset=ps.names(), seed=secrets.randbelow(2**63),
                       start="random", decks=ps.digest, bot_seed=secrets.randbelow(2**63), clock_ms=clock_ms,
                       seats=seats)
        session = await self._create_row(row, ps)
        return Created(session, seat_no, token, invite)

    async def _create_row(self, row: MatchRow, ps: Playset, link_from: str | None = None,
                          also: Callable[[Any], None] | None = None) -> Session:
        """Store a new match (and ``also(conn)`` in the same transaction), then make it live."""
        match = Match.new(ps, row.seed, row.start)
        row.created_at = row.updated_at = time.time()

        def write(conn: Any) -> None:
            Storage.create_match(conn, row)
            if link_from is not None:
                Storage.link_rematch(conn, link_from, row.id)
            if also is not None:
                also(conn)

        try:
            await self.writer.write(write)
        except StorageError as exc:
            log.error("could not store a new match: %s", exc)
            raise ProtocolError("storage", "the match could not be saved; try again") from None
        session = Session(row, match)
        self.sessions[row.id] = session
        self._after_change(session)
        self._schedule_evict(session)
        return session

    async def get(self, match_id: str) -> Session | None:
        """The live session of a match, loading (replaying) it from the database on first use."""
        session = self.sessions.get(match_id)
        if session is not None:
            return session
        pending = self.loading.get(match_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[Session | None] = asyncio.get_running_loop().create_future()
        self.loading[match_id] = fut
        try:
            session = await self._load(match_id)
            if session is not None:
                self.sessions[match_id] = session
            fut.set_result(session)
            return session
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # mark it retrieved
            raise
        finally:
            del self.loading[match_id]

    async def _load(self, match_id: str) -> Session | None:
        try:
            row = await asyncio.to_thread(self.storage.load, match_id)
        except StorageError as exc:
            log.error("cannot load match %s: %s", match_id, exc)
            raise ProtocolError("storage", "the match cannot be loaded now; try again") from None
        except Exception as exc:
            log.error("cannot load match %s: %s", match_id, exc)
            raise ProtocolError("storage", "the match cannot be loaded now; try again") from None
        if row is None:
            return None
        try:
            match = Match.replay(row.record(), self.config.deck_dirs)
        except ConvergeError as exc:
            log.error("match %s does not replay: %s", match_id, exc)
            raise ProtocolError("storage", "this match cannot be resumed by this server (its decks "
                                           "changed)") from None
        session = Session(row, match)
        if row.status == "active" and match.is_terminal:  # cannot happen: the last action sets "over"
            row.status, row.winner, row.reason = "over", match.winner, "match"
        log.info("resumed match %s at action %d", match_id, row.n_actions)
        self._after_change(session)
        self._schedule_evict(session)
        if row.mode == "friend" and row.status == "active" and row.n_actions > 0:
            for s in row.seats:
                if s.bot is None:
                    self._schedule_abandon(session, s.seat)
        return session

    # ------------------------------------------------------------------ acting

    def parse(self, session: Session, seat: int, action: int | str) -> int:
        """The action id of a client's action for ``seat`` (who must be the one to decide), or an error
        that names only what that seat may know (its own legal actions)."""
        match = session.match
        legal = match.legal_actions()
        if isinstance(action, str):
            try:
                aid = match.parse_action(action)
            except ConvergeError:
                aid = -1
        else:
            aid = action
        if aid not in legal:
            names = ", ".join(match.action_to_string(a) for a in legal)
            shown = action if isinstance(action, int) else repr(action[:32])
            raise ProtocolError("illegal", f"{shown} is not a legal action now ({match.decision_kind}); "
                                           f"legal: {names}")
        return aid

    async def act(self, session: Session, seat: int, action: int | str, seq: int | None,
                  source: Connection | None = None) -> int:
        """Apply one decision of ``seat``: checked, committed, applied and sent. Returns the new seq."""
        async with session.lock:
            if not session.active:
                raise ProtocolError("over", "the match is over" if session.row.status == "over"
                                    else "the match is unavailable")
            if session.is_bot(seat) and not session.row.seats[seat].replaced:
                raise ProtocolError("spectator", "a bot plays this seat")
            if seat != session.match.current_player:
                raise ProtocolError("not_your_turn", "it is not your decision")
            if seq is not None and seq != session.seq:
                raise ProtocolError("stale", f"your view is out of date (action {seq}, the match is at "
                                             f"{session.seq}); nothing was done")
            aid = self.parse(session, seat, action)
            if session.row.seats[seat].bot is not None:  # a bot stood in: the player takes the seat back
                await self._set_seat(session, seat, None, False)
            left = session.clock_left(seat)
            if left is not None and left <= 0:
                await self._flag(session, seat)
                raise ProtocolError("over", "your time ran out")
            await self._commit(session, seat, aid, left)
            if source is not None:
                source.send({"type": "ack", "seq": session.seq, "action": aid})
            self._broadcast(session)
            return session.seq

    async def _commit(self, session: Session, seat: int, aid: int, clock_left: int | None) -> None:
        """Commit then apply ``aid`` (already checked legal); the caller holds the lock."""
        match = session.match
        idx = session.row.n_actions
        before = match.snapshot()  # the outcome is written with the action, before the action is applied
        match.apply(aid, player=seat)
        over, final = match.is_terminal, match.winner
        match.restore(before)
        status, winner, reason = ("over", final, "match") if over else ("active", None, None)
        match_id = session.id

        def write(conn: Any) -> None:
            Storage.append_action(conn, match_id, idx, aid, seat, status=status, winner=winner, reason=reason,
                                  clock_left_ms=clock_left)
            if over:
                for hook in self.finish_hooks:
                    hook(conn, session, winner)

        try:
            await self.writer.write(write)
        except StorageError as exc:
            log.error("match %s: action %d not stored: %s", match_id, idx, exc)
            self._evict_now(session)  # the database is the truth: reload it on next use
            raise ProtocolError("storage", "the action could not be saved; nothing was done") from None
        match.apply(aid, player=seat)
        session.new_turns = session.turnlog.follow(match)
        session.row.actions.append(aid)
        session.row.action_clocks.append((seat, clock_left))
        session.row.n_actions = idx + 1
        session.row.status, session.row.winner, session.row.reason = status, winner, reason
        if clock_left is not None:
            session.row.seats[seat].clock_left_ms = clock_left
        session.row.updated_at = time.time()
        self._after_change(session)

    def _after_change(self, session: Session) -> None:
        """After the match moved on: restart the decision timer, the clock and the bots."""
        session.turn_started = time.monotonic()
        self._schedule_clock(session)
        self._kick_bots(session)

    # ------------------------------------------------------------------ sending

    def _broadcast(self, session: Session) -> None:
        """Send every connection its own view of the new state (events it already has left out)."""
        meta = session.meta()
        cache: dict[tuple[int, int], tuple[str, int]] = {}  # (view, events already sent) -> text, events now
        for conn in list(session.conns):
            if conn.closed:
                continue
            key = (conn.view, conn.events_sent)
            got = cache.get(key)
            if got is None:
                obs = session.match.observation(conn.view, conn.events_sent)  # describes the new events only
                start = conn.events_sent
                if start and not obs["events"] and start > self._event_count(session, conn.view):
                    obs, start = session.view(conn.view), 0  # (its count is stale: send them all again)
                got = cache[key] = (dumps({"type": "state", "seq": session.seq, "match": meta,
                                           "observation": obs, "events_from": start,
                                           **session.table(conn.view)}),
                                    start + len(obs["events"]))
            conn.send(got[0])
            conn.events_sent = got[1]
        session.new_turns = []

    @staticmethod
    def _event_count(session: Session, view: int) -> int:
        """How many events ``view`` sees in the whole log."""
        return sum(1 for e in session.match.events if e[1] < 0 or e[1] == view)

    def _send_meta(self, session: Session) -> None:
        text = dumps({"type": "meta", "match": session.meta()})
        for conn in list(session.conns):
            conn.send(text)

    async def welcome(self, session: Session, conn: Connection) -> None:
        """Register a new connection and send it its current view.

        Seats and spectators are counted apart: a seat always gets in (beyond
        ``max_connections_per_seat`` its oldest connection is closed), a spectator only while the match
        has fewer than ``max_spectators_per_match`` and its address fewer than
        ``max_spectators_per_address`` (over the whole server)."""
        async with session.lock:
            if session.broken:
                raise ProtocolError("storage", "the match is being reloaded; reconnect")
            if conn.view < 0:
                watching = sum(1 for c in session.conns if c.view < 0 and not c.closed)
                if watching >= self.config.max_spectators_per_match:
                    raise ProtocolError("busy", "this match has as many spectators as it can take; try again "
                                                "later")
                if self.spectators.get(conn.address, 0) >= self.config.max_spectators_per_address:
                    raise ProtocolError("busy", "too many spectator connections from your address")
            else:
                mine = sorted((c for c in session.conns if c.view == conn.view and not c.closed),
                              key=lambda c: c.opened)
                for old in mine[:max(0, len(mine) - self.config.max_connections_per_seat + 1)]:
                    session.conns.discard(old)
                    old.send({"type": "error", "code": "replaced",
                              "message": "this seat connected again elsewhere; this older connection is closed"})
                    old.close(CLOSE_REPLACED, "replaced by a newer connection of this seat")
            if session.evict_task is not None:
                session.evict_task.cancel()
                session.evict_task = None
            if conn.view >= 0:
                task = session.abandon.pop(conn.view, None)
                if task is not None:
                    task.cancel()
                seat = session.row.seats[conn.view]
                if seat.replaced and session.active:  # back again: take the seat back from the stand-in
                    await self._set_seat(session, conn.view, None, False)
            session.conns.add(conn)
            if conn.view < 0:
                self.spectators[conn.address] = self.spectators.get(conn.address, 0) + 1
                conn.counted = True
            if not session.clock_started and all(s.bot is not None or session.connected(s.seat)
                                                 for s in session.row.seats):
                session.clock_started = True
                session.turn_started = time.monotonic()
                self._schedule_clock(session)
            obs = session.view(conn.view)
            conn.events_sent = len(obs["events"])
            conn.send({"type": "welcome", "seat": conn.view, "match": session.meta(), "cards": session.catalog,
                       "colors": session.colors, "seq": session.seq, "observation": obs,
                       **session.table(conn.view, welcome=True)})
            self._send_meta_others(session, conn)

    def _send_meta_others(self, session: Session, conn: Connection) -> None:
        text = dumps({"type": "meta", "match": session.meta()})
        for other in list(session.conns):
            if other is not conn:
                other.send(text)

    def leave(self, session: Session, conn: Connection) -> None:
        session.conns.discard(conn)
        conn.close()
        if conn.counted:
            conn.counted = False
            left = self.spectators.get(conn.address, 0) - 1
            if left > 0:
                self.spectators[conn.address] = left
            else:
                self.spectators.pop(conn.address, None)
        if self.closing:
            return
        view = conn.view
        if view >= 0 and not session.connected(view):
            self._schedule_abandon(session, view)
        self._send_meta(session)
        self._schedule_evict(session)

    # ------------------------------------------------------------------ bots

    def _kick_bots(self, session: Session) -> None:
        if not session.active or self.closing:
            return
        seat = session.match.current_player
        if seat < 0 or not session.is_bot(seat):
            return
        if session.bot_task is None or session.bot_task.done():
            session.bot_task = asyncio.get_running_loop().create_task(self._run_bots(session))

    async def _run_bots(self, session: Session) -> None:
        """Play the decisions of bot seats, one after the other, until a person is to decide.

        A bot thinks on a copy of the match, in a worker thread and without the lock (so that views and
        connections are served meanwhile); its action is committed only if the match has not moved on."""
        failures = 0
        while not self.closing:
            if self.config.bot_delay > 0:
                await asyncio.sleep(self.config.bot_delay)
            seat = session.match.current_player
            if session.broken or not session.active or seat < 0 or not session.is_bot(seat):
                return
            seq = session.seq
            name = session.bot_name(seat)
            legal = session.match.legal_actions()
            try:
                aid = await self.bots.decide(session.match, seat, name,
                                             (session.row.bot_seed + 7919 * seat + seq) % 2**62)
                if aid not in legal:
                    raise ValueError(f"bot {name} chose {aid!r}, not a legal action")
            except Exception as exc:
                log.error("match %s: bot %s failed or took too long (%s); playing a random legal action",
                          session.id, name, exc or type(exc).__name__)
                aid = random.Random(session.row.bot_seed + seq).choice(legal)
            async with session.lock:
                if (session.broken or session.seq != seq or not session.active
                        or session.match.current_player != seat or not session.is_bot(seat)):
                    continue  # the match moved on (a player took the seat back...): look again
                try:
                    await self._commit(session, seat, aid, None)
                except ProtocolError:
                    failures += 1
                    if failures >= 3:
                        return
                    continue
                failures = 0
                self._broadcast(session)

    async def _set_seat(self, session: Session, seat: int, bot: str | None, replaced: bool) -> None:
        match_id = session.id

        def write(conn: Any) -> None:
            Storage.set_seat(conn, match_id, seat, bot, replaced)

        try:
            await self.writer.write(write)
        except StorageError:
            raise ProtocolError("storage", "the seat could not be saved; try again") from None
        session.row.seats[seat].bot = bot
        session.row.seats[seat].replaced = replaced
        session.turn_started = time.monotonic()
        self._schedule_clock(session)
        self._kick_bots(session)
        self._send_meta(session)

    def _schedule_abandon(self, session: Session, seat: int) -> None:
        after = self.config.replace_after
        if (not after or session.row.mode != "friend" or not session.active
                or session.row.seats[seat].bot is not None or seat in session.abandon):
            return

        async def replace() -> None:
            await asyncio.sleep(after)
            async with session.lock:
                session.abandon.pop(seat, None)
                if session.active and not session.connected(seat) and session.row.seats[seat].bot is None:
                    name = self.config.replacement_bot or default_bot()
                    if name not in BOTS:
                        name = default_bot()
                    log.info("match %s: a bot (%s) stands in for player %d, who left", session.id, name, seat)
                    with contextlib.suppress(ProtocolError):
                        await self._set_seat(session, seat, name, True)

        session.abandon[seat] = asyncio.get_running_loop().create_task(replace())

    # ------------------------------------------------------------------ clocks

    def _schedule_clock(self, session: Session) -> None:
        if session.clock_task is not None:
            session.clock_task.cancel()
            session.clock_task = None
        if session.row.clock_ms is None or not session.active or self.closing or not session.clock_started:
            return
        seat = session.match.current_player
        if seat < 0 or session.is_bot(seat):
            return
        left = session.clock_left(seat)
        if left is None:
            return
        seq = session.seq

        async def flag_later() -> None:
            await asyncio.sleep(left / 1000 + 0.05)
            async with session.lock:
                if session.seq == seq and session.active and session.match.current_player == seat:
                    left_now = session.clock_left(seat)
                    if left_now is not None and left_now <= 0:
                        await self._flag(session, seat)

        session.clock_task = asyncio.get_running_loop().create_task(flag_later())

    async def _flag(self, session: Session, seat: int) -> None:
        """``seat`` ran out of time: the other player wins the match (held lock)."""
        winner = 1 - seat
        match_id = session.id

        def write(conn: Any) -> None:
            Storage.finish(conn, match_id, winner, "time", [(seat, 0)])
            for hook in self.finish_hooks:
                hook(conn, session, winner)

        try:
            await self.writer.write(write)
        except StorageError as exc:
            log.error("match %s: time loss not stored: %s", match_id, exc)
            return
        session.row.status, session.row.winner, session.row.reason = "over", winner, "time"
        session.row.seats[seat].clock_left_ms = 0
        log.info("match %s: player %d ran out of time", match_id, seat)
        self._broadcast(session)

    # ------------------------------------------------------------------ hints

    async def allow_hints(self, session: Session, seat: int, allow: bool) -> None:
        """``seat`` allows (or no longer allows) hints in a friend match: they are on once both allow."""
        async with session.lock:
            if session.row.mode != "friend":
                return  # on against a bot, always
            bits = session.row.hints | (1 << seat) if allow else session.row.hints & ~(1 << seat)
            if bits == session.row.hints:
                return
            match_id = session.id

            def write(conn: Any) -> None:
                Storage.set_hints(conn, match_id, bits)

            try:
                await self.writer.write(write)
            except StorageError:
                raise ProtocolError("storage", "the setting could not be saved; try again") from None
            session.row.hints = bits
            self._send_meta(session)

    async def hint(self, session: Session, seat: int) -> dict[str, Any]:
        """The strong bot's options for ``seat``'s decision, each with its estimated chance to win the
        round, worked out from that seat's view alone (:func:`converge.bots.hint.hint`), in a worker
        thread; one search at a time per server, and each (seat, decision) is searched once."""
        if not session.active:
            raise ProtocolError("over", "the match is over")
        if not session.hints_on:
            raise ProtocolError("hints_off", "hints are off in this match: both players must allow them")
        if session.match.current_player != seat:
            raise ProtocolError("not_your_turn", "a hint is for your own decision")
        seq = session.seq
        key = (seat, seq)
        options = session.hints.get(key)
        if options is None:
            pending = session.hinting.get(key)
            if pending is None:
                pending = asyncio.get_running_loop().create_future()
                session.hinting[key] = pending
                try:
                    view = session.match.view(seat)  # what the seat may know, and nothing else
                    cfg = self.config
                    async with self.hint_slot:
                        found = await asyncio.to_thread(strong_hint, view, simulations=cfg.hint_simulations,
                                                        seconds=cfg.hint_seconds or None, seed=cfg.hint_seed)
                    options = [o.to_dict() for o in found]
                    session.hints = {k: v for k, v in session.hints.items() if k[1] >= seq}
                    session.hints[key] = options
                    pending.set_result(options)
                except BaseException as exc:
                    pending.set_exception(exc)
                    pending.exception()
                    raise
                finally:
                    session.hinting.pop(key, None)
            else:
                options = await asyncio.shield(pending)
        return {"seq": seq, "options": options}

    # ------------------------------------------------------------------ rematch, replay

    async def rematch(self, session: Session, seat: int,
                      may_create: Callable[[], None] | None = None) -> tuple[Session, bool]:
        """The rematch of a finished match: same playset, seats and tokens; the loser starts (M2).
        Returns it and whether it was created now (else it existed: everyone was already told).
        ``may_create`` is called just before a new match is created (it raises if the asker may not)."""
        async with session.lock:
            if session.row.status != "over":
                raise ProtocolError("not_over", "a rematch can be asked for once the match is over")
            if session.row.rematch_id is not None:
                existing = await self.get(session.row.rematch_id)
                if existing is not None:
                    return existing, False
                session.row.rematch_id = None  # deleted by the retention policy: make a new one
            if may_create is not None:
                may_create()
            old = session.row
            loser = 1 - old.winner if old.winner in (0, 1) else 0
            seats = [SeatRow(s.seat, s.token_hash, None if s.replaced else s.bot, False, old.clock_ms)
                     for s in old.seats]
            row = MatchRow(id=new_match_id(), mode=old.mode, playset=list(old.playset),
                           seed=secrets.randbelow(2**63), start=str(loser), decks=old.decks,
                           bot_seed=secrets.randbelow(2**63), clock_ms=old.clock_ms, rematch_of=old.id,
                           seats=seats)
            new = await self._create_row(row, session.match.playset, link_from=old.id)
            old.rematch_id = new.id
            text = dumps({"type": "rematch", "match_id": new.id})
            for conn in list(session.conns):
                conn.send(text)
            self._send_meta(session)
            return new, True

    def record(self, session: Session) -> dict[str, Any]:
        """The record of a finished match (it holds the seed: never while the match is in progress)."""
        if session.row.status != "over":
            raise ProtocolError("not_over", "the record of a match is available once it is over")
        rec = session.row.record()
        rec["result"] = {"winner": session.row.winner, "reason": session.row.reason}
        return rec

    def replay_step(self, session: Session, step: int, viewer: int) -> dict[str, Any]:
        """The view of ``viewer`` after the first ``step`` actions of a finished match."""
        rec = self.record(session)
        total = len(rec["actions"])
        if not 0 <= step <= total:
            raise ProtocolError("malformed", f"step is 0 to {total}")
        match = Match.replay(rec, self.config.deck_dirs, upto=step)
        move = None
        turns: list[Scored] = []
        log = TurnLog(match)
        if step > 0:
            before = Match.replay(rec, self.config.deck_dirs, upto=step - 1)
            move = {"player": before.current_player, "action": before.action_to_string(rec["actions"][step - 1])}
            turns = [s for s in log.turns if s.index >= len(before.events)]
        return {"step": step, "total": total, "move": move, "observation": match.observation(viewer),
                "clock": self._replay_clock(session, step),
                "turns": [log.summary(s, viewer) for s in turns],
                "rounds": [log.summary(s, viewer) for s in log.rounds()]}

    @staticmethod
    def _replay_clock(session: Session, step: int) -> dict[str, Any] | None:
        """Each seat's clock after the first ``step`` actions of a finished match (its final clock at the
        end): the time left stored with each seat's last action before that point."""
        row = session.row
        if row.clock_ms is None:
            return None
        if step >= row.n_actions:
            return {"initial_ms": row.clock_ms, "left_ms": [s.clock_left_ms for s in row.seats], "running": -1}
        left: list[int | None] = [row.clock_ms, row.clock_ms]
        for seat, clock in row.action_clocks[:step]:
            if clock is not None:
                left[seat] = clock
        return {"initial_ms": row.clock_ms, "left_ms": left, "running": -1}

    # ------------------------------------------------------------------ retention

    def retention(self) -> Retention:
        cfg = self.config
        return Retention(finished_s=max(0.0, cfg.keep_finished_days) * 86400,
                         unstarted_s=max(0.0, cfg.delete_unstarted_after_hours) * 3600,
                         abandoned_s=max(0.0, cfg.delete_abandoned_after_days) * 86400)

    async def sweep(self, now: float | None = None, batch: int = 500) -> int:
        """Delete the stored matches that the retention policy says have expired, except those in use (a
        connection, a bot thinking, a stand-in pending); returns how many were deleted."""
        policy = self.retention()
        if not policy.active:
            return 0
        at = time.time() if now is None else now
        total = 0
        while not self.closing:
            keep = sorted({mid for mid, s in self.sessions.items()
                           if s.conns or s.abandon or (s.bot_task is not None and not s.bot_task.done())}
                          | set(self.loading))
            deleted: list[str] = []

            def write(conn: Any, keep: list[str] = keep, deleted: list[str] = deleted) -> None:
                deleted.extend(Storage.delete_expired(conn, at, policy, keep, batch))

            await self.writer.write(write)
            self._forget(deleted)
            total += len(deleted)
            if len(deleted) < batch:
                break
        if total:
            log.info("retention: deleted %d expired match(es)", total)
        return total

    def _forget(self, ids: list[str]) -> None:
        """Drop deleted matches from memory, and the links of live matches to them."""
        gone = set(ids)
        for mid in ids:
            session = self.sessions.get(mid)
            if session is not None:
                self._evict_now(session)
        for session in self.sessions.values():
            if session.row.rematch_id in gone:
                session.row.rematch_id = None
            if session.row.rematch_of in gone:
                session.row.rematch_of = None

    def start_retention(self) -> None:
        """Run :meth:`sweep` now and then every ``retention_every_s`` seconds, while the server runs."""
        if not self.retention().active or self.config.retention_every_s <= 0 or self.retention_task is not None:
            return

        async def run() -> None:
            while not self.closing:
                try:
                    await self.sweep()
                except StorageError as exc:  # the database is away: try again next time
                    log.error("retention clean-up failed: %s", exc)
                await asyncio.sleep(self.config.retention_every_s)

        self.retention_task = asyncio.get_running_loop().create_task(run())

    # ------------------------------------------------------------------ memory

    def _schedule_evict(self, session: Session) -> None:
        if session.conns or self.closing:
            return
        if session.evict_task is not None:
            session.evict_task.cancel()

        async def evict() -> None:
            await asyncio.sleep(self.config.idle_evict)
            busy = (session.bot_task is not None and not session.bot_task.done()) or session.abandon
            if not session.conns and not busy and self.sessions.get(session.id) is session:
                self._evict_now(session)

        session.evict_task = asyncio.get_running_loop().create_task(evict())

    def _evict_now(self, session: Session) -> None:
        session.broken = True
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]
        for task in (session.clock_task, session.evict_task, *session.abandon.values()):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        if session.bot_task is not None and session.bot_task is not asyncio.current_task():
            session.bot_task.cancel()
        text = dumps({"type": "error", "code": "storage", "message": "the match is being reloaded; reconnect"})
        for conn in list(session.conns):
            conn.send(text)
            conn.close(1012)

    async def close(self) -> None:
        """Stop every task and close every connection (the database holds everything)."""
        self.closing = True
        tasks: list[asyncio.Task[Any]] = []
        if self.retention_task is not None and not self.retention_task.done():
            self.retention_task.cancel()
            tasks.append(self.retention_task)
        for session in list(self.sessions.values()):
            for task in (session.bot_task, session.clock_task, session.evict_task, *session.abandon.values()):
                if task is not None and not task.done():
                    task.cancel()
                    tasks.append(task)
            for conn in list(session.conns):
                conn.close(1001)
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        self.bots.close()

