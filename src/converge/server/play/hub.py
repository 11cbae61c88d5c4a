"""The hub: every live match of this server process, and the operations on them (create, load, act, bots,
clocks, stand-ins, hints, rematches, replays, retention).

Everything that changes a match runs under its session's lock, in this order: check the action against
the live match, commit it to the database, apply it, then send each connection its own view. Nothing is
applied or acknowledged before it is committed; a failed commit changes nothing.

What goes out is only ever ``observation(seat)`` for a seat's connections and ``observation(-1)`` for
spectators (with the events the connection already has left out), plus public metadata.

The other jobs live apart: :mod:`~converge.server.transport.connections` (WebSockets and their send queues),
:mod:`~converge.server.play.session` (one live match), :mod:`~converge.server.play.coordination` (the other
server processes on the same PostgreSQL), :mod:`~converge.server.storage.match_store` (the database) and
:mod:`~converge.server.play.botpool` (bot and hint searches in worker processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from converge.bots import BOTS
from converge.cards.loader import DeckError, load_catalog
from converge.engine.errors import ConvergeError
from converge.engine.playset import SETS, Playset, all_playsets, catalog_order
from converge.engine.state import Match
from converge.server.config import ServerConfig
from converge.server.play.botpool import BotPool
from converge.server.play.coordination import LocalCoordinator, Note, coordinator_for
from converge.server.play.session import COLOR_NAMES, Session, default_bot
from converge.server.play.table import Scored, TurnLog
from converge.server.protocol.errors import CLOSE_GOING_AWAY, CLOSE_RELOADED, CLOSE_REPLACED, ProtocolError
from converge.server.security.limits import KeyedRateLimit, OpenCount
from converge.server.security.tokens import hash_token, new_match_id, new_token
from converge.server.storage import lobby_store
from converge.server.storage.database import Refused, StorageError
from converge.server.storage.match_store import Storage
from converge.server.storage.rows import MatchRow, Retention, SeatRow
from converge.server.storage.writer import Writer
from converge.server.transport.connections import Connection, dumps

log = logging.getLogger("converge.server")


@dataclass
class Created:
    session: Session
    seat: int
    token: str
    invite_token: str | None


class BudgetExceeded(ProtocolError):
    """Some of the addresses that would pay for a new match have none left this hour (``refused``)."""

    def __init__(self, message: str, refused: list[str]) -> None:
        super().__init__("rate_limited", message)
        self.refused = refused


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
        self.spectators = OpenCount(config.max_spectators_per_address)
        self.retention_task: asyncio.Task[None] | None = None
        self.closing = False
        #: Where bots think: worker processes, so that their search never holds up anyone's action.
        self.bots = BotPool(config.bot_workers, config.deck_dirs, config.bot_queue)
        #: Hints search one at a time (each takes a CPU for a while).
        self.hint_slot = asyncio.Semaphore(1)
        #: Called inside the transaction that finishes a match, as ``hook(conn, session, winner)`` (the
        #: lobby's ratings: :mod:`converge.server.lobby.service`); an exception fails that transaction.
        self.finish_hooks: list[Callable[[Any, Session, int | None], None]] = []
        #: The other server processes on the same database, if any.
        self.coord: LocalCoordinator = coordinator_for(storage.engine.url.render_as_string(hide_password=False),
                                                       storage.engine.dialect.name, config.coordination_interval)
        self.background: set[asyncio.Task[Any]] = set()
        #: The matches each client address may still store this hour (``matches_per_hour``), whatever the door:
        #: a match created, a rematch, a private table, a table opened or joined, a quick match, a bot offer.
        per_hour = config.matches_per_hour
        self.match_budget = (KeyedRateLimit(per_hour / 3600, per_hour, max_keys=100_000) if per_hour > 0 else None)

    async def start(self) -> None:
        """Start coordinating with the other processes (if any), the bot workers and the retention clean-up."""
        await self.coord.start(self._on_change, self._coordinate)
        self.bots.start()
        self.start_retention()

    def _spawn(self, coro: Any) -> None:
        """Run a coordination chore (presence, release) beside the caller; a failure is logged, not raised
        (the next coordination round repairs what it left undone)."""

        async def chore() -> None:
            try:
                await coro
            except Exception as exc:
                if not self.closing:
                    log.warning("coordination chore failed: %s", exc)

        task = asyncio.get_running_loop().create_task(chore())
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def _write(self, match_id: str | None, fn: Callable[[Any], None], payload: str | None = None,
                     driver: bool = False) -> None:
        """Commit ``fn``; when it changed a match, other server processes are told in the same transaction
        (``payload``: what to tell them, by default that the match changed). ``driver``: ``fn`` runs only
        driver statements (see :meth:`Writer.write`)."""
        if match_id is None or not self.coord.multi:
            await self.writer.write(fn, driver)
            return
        payload = payload or self.coord.payload(match_id)

        def write(conn: Any) -> None:
            fn(conn)
            Storage.announce(conn, payload)

        await self.writer.write(write, driver)

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

    def status(self) -> dict[str, Any]:
        """This process's load, for operators: nothing about any match."""
        live = list(self.sessions.values())
        return {"matches_held": len(live), "matches_owned": sum(1 for s in live if s.owned),
                "connections": sum(len(s.conns) for s in live), "coordinated": self.coord.multi,
                "database": self.storage.durability, "bots": self.bots.stats()}

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

    def _over_budget(self, refused: list[str]) -> BudgetExceeded:
        return BudgetExceeded(f"at most {self.config.matches_per_hour} matches an hour may be created from one "
                              "address; try again later", refused)

    def check_budget(self, payer: str) -> None:
        """Refuse (:class:`BudgetExceeded`) an address that may store no more match now; nothing is charged."""
        if self.match_budget is not None and not self.match_budget.available(payer):
            raise self._over_budget([payer])

    def charge(self, payers: Sequence[str]) -> None:
        """Take one match from the hourly budget of each address of ``payers`` (one named twice pays twice),
        all or none: :class:`BudgetExceeded` names those that have none left, and then nothing is taken."""
        if self.match_budget is not None:
            refused = self.match_budget.take(payers)
            if refused:
                raise self._over_budget(refused)

    def give_back(self, payers: Sequence[str]) -> None:
        """Undo :meth:`charge`: what was paid for was not stored."""
        if self.match_budget is not None:
            self.match_budget.give_back(payers)

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
                     clock_s: object = None, *, payer: str) -> Created:
        """A new match against a bot or a friend; returns the creator's seat and token (and the invite's).
        ``payer``: the creator's client address (:meth:`charge`), charged once the settings are checked."""
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
        session = await self._create_row(row, ps, payers=[payer])
        return Created(session, seat_no, token, invite)

    async def _create_row(self, row: MatchRow, ps: Playset, *, payers: Sequence[str], link_from: str | None = None,
                          also: Callable[[Any], None] | None = None) -> Session:
        """Store a new match (and ``also(conn)`` in the same transaction), then make it live. Every new match
        comes here, and ``payers`` (the client addresses of the players it is stored for) pay for it first
        (:meth:`charge`). A :class:`~converge.server.storage.database.Refused` from ``also`` is raised as it is:
        nothing was stored, and the caller says why."""
        self.charge(payers)
        match = Match.new(ps, row.seed, row.start)
        row.created_at = row.updated_at = time.time()

        def write(conn: Any) -> None:
            Storage.create_match(conn, row)
            if link_from is not None:
                Storage.link_rematch(conn, link_from, row.id)
            if also is not None:
                also(conn)

        try:
            await self._write(link_from, write)
        except Refused:
            self.give_back(payers)
            raise
        except StorageError as exc:
            self.give_back(payers)
            log.error("could not store a new match: %s", exc)
            raise ProtocolError("storage", "the match could not be saved; try again") from None
        session = Session(row, match)
        session.owned = await self._claim(row.id)
        session.rated = also is not None and await self._rated(row.id)
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
                if self.coord.multi:  # what another process stored while we were reading is read now
                    self._on_change(Note(match_id))
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
        session.owned = await self._claim(match_id)
        session.rated = await self._rated(match_id)
        session.remote = (await self.coord.present_elsewhere([match_id])).get(match_id, set())
        self._after_change(session)
        session.turn_started = self._since(row.updated_at)  # the decision began when the last action came
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
            ack = {"seq": session.seq, "action": aid}
            if source is not None and source.acks:
                source.send({"type": "ack", **ack})
            self._broadcast(session, (source, ack) if source is not None and not source.acks else None)
            return session.seq

    async def _commit(self, session: Session, seat: int, aid: int, clock_left: int | None) -> None:
        """Commit then apply ``aid`` (already checked legal); the caller holds the lock."""
        match = session.match
        idx = session.row.n_actions
        trial = match.clone(history=False, events=False)  # the outcome is written with the action, before
        trial.apply(aid, player=seat)                      # the action is applied to the live match
        over, final = trial.is_terminal, trial.winner
        status, winner, reason = ("over", final, "match") if over else ("active", None, None)
        match_id = session.id

        def write(conn: Any) -> None:
            Storage.append_action(conn, match_id, idx, aid, seat, status=status, winner=winner, reason=reason,
                                  clock_left_ms=clock_left)
            if over:
                for hook in self.finish_hooks:
                    hook(conn, session, winner)

        payload = (self.coord.action_payload(match_id, idx, aid, seat, clock_left, status, winner)
                   if self.coord.multi else None)
        try:
            # (the last action runs the finish hooks, which need SQLAlchemy: not a driver write)
            await self._write(match_id, write, payload, driver=not over)
        except StorageError as exc:
            if self.coord.multi and await self._caught_up(session, idx):
                raise ProtocolError("stale", "another move was made first; nothing was done") from None
            log.error("match %s: action %d not stored: %s", match_id, idx, exc)
            self._evict_now(session)  # the database is the truth: reload it on next use
            raise ProtocolError("storage", "the action could not be saved; nothing was done") from None
        self._apply_committed(session, seat, aid, clock_left, status, winner)

    def _apply_committed(self, session: Session, seat: int, aid: int, clock_left: int | None, status: str,
                         winner: int | None) -> None:
        """Apply a committed action to the live match (by this process, or announced by another)."""
        match = session.match
        match.apply(aid, player=seat)
        session.new_turns += session.turnlog.follow(match)
        row = session.row
        row.actions.append(aid)
        row.action_clocks.append((seat, clock_left))
        row.n_actions += 1
        row.status, row.winner, row.reason = status, winner, ("match" if status == "over" else None)
        if clock_left is not None:
            row.seats[seat].clock_left_ms = clock_left
        row.updated_at = time.time()
        session.clock_started = True
        self._after_change(session)

    def _after_change(self, session: Session) -> None:
        """After the match moved on: restart the decision timer, the clock and the bots."""
        session.turn_started = time.monotonic()
        self._schedule_clock(session)
        self._kick_bots(session)

    # ------------------------------------------------------------------ sending

    def _broadcast(self, session: Session, ack: tuple[Connection, dict[str, int]] | None = None) -> None:
        """Send every connection its own view of the new state (events it already has left out); ``ack``:
        the connection whose action this was, which takes its acknowledgement in its state message."""
        meta = session.meta()
        fresh: dict[int, tuple[int, dict[str, Any], int]] = {}  # view -> (events it had, observation, start)
        # (view, events already sent) -> the message and the events sent with it; its text once written
        cache: dict[tuple[int, int], tuple[dict[str, Any], int]] = {}
        texts: dict[tuple[int, int], str] = {}
        for conn in list(session.conns):
            if conn.closed:
                continue
            key = (conn.view, conn.events_sent)
            got = cache.get(key)
            if got is None:
                if conn.view not in fresh:
                    observer = session.observer(conn.view)
                    had = observer.seen
                    fresh[conn.view] = (had, *observer.observe())  # describes the new events only
                had, obs, start = fresh[conn.view]
                if conn.events_sent != had:  # (a connection that is not where the others are)
                    obs = session.match.observation(conn.view, conn.events_sent)
                    start = conn.events_sent
                    if start and not obs["events"] and start > session.observer(conn.view).seen:
                        obs, start = session.view(conn.view), 0  # (its count is stale: send them all again)
                got = cache[key] = (session.state(conn.view, obs, start, meta), start + len(obs["events"]))
            if ack is not None and conn is ack[0]:
                conn.send({**got[0], "ack": ack[1]})
            else:
                text = texts.get(key)
                if text is None:
                    text = texts[key] = dumps(got[0])
                conn.send(text)
            conn.events_sent = got[1]
        session.new_turns = []

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
                if self.spectators.over(conn.address):
                    raise ProtocolError("busy", "too many spectator connections from your address")
            else:
                mine = sorted((c for c in session.conns if c.view == conn.view and not c.closed),
                              key=lambda c: c.opened)
                for old in mine[:max(0, len(mine) - self.config.max_connections_per_seat + 1)]:
                    session.conns.discard(old)
                    old.send(ProtocolError("replaced", "this seat connected again elsewhere; this older "
                                                       "connection is closed").to_message())
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
                self.spectators.add(conn.address)
                conn.counted = True
            if conn.view >= 0 and self.coord.multi:
                await self.coord.present(session.id, conn.view, True)
                self._spawn(self.coord.say_present(session.id))
            self._start_clock_when_all_came(session)
            welcome = session.welcome(conn.view)
            conn.events_sent = len(welcome["observation"]["events"])
            conn.send(welcome)
            self._send_meta_others(session, conn)

    def _start_clock_when_all_came(self, session: Session) -> None:
        if not session.clock_started and all(s.bot is not None or session.connected(s.seat)
                                             for s in session.row.seats):
            session.clock_started = True
            session.turn_started = time.monotonic()
            self._schedule_clock(session)

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
            self.spectators.discard(conn.address)
        if self.closing:
            return
        view = conn.view
        if view >= 0 and not session.connected_here(view) and self.coord.multi:
            self._spawn(self._gone_here(session, view))
        if view >= 0 and not session.connected(view):
            self._schedule_abandon(session, view)
        self._send_meta(session)
        self._schedule_evict(session)

    async def _gone_here(self, session: Session, seat: int) -> None:
        """The last connection of ``seat`` on this process closed: say so to the others."""
        async with session.lock:
            if session.connected_here(seat) or session.broken:
                return
            with contextlib.suppress(Exception):
                await self.coord.present(session.id, seat, False)
                await self.coord.say_present(session.id)

    # ------------------------------------------------------------------ other server processes

    async def _rated(self, match_id: str) -> bool:
        try:
            return await asyncio.to_thread(lobby_store.is_rated, self.storage.engine, match_id)
        except Exception as exc:  # the database is away: treat it as rated (no hints) rather than fail
            log.warning("match %s: cannot tell whether it is rated: %s", match_id, exc)
            return True

    async def _claim(self, match_id: str) -> bool:
        try:
            return await self.coord.claim(match_id)
        except Exception as exc:  # the database is away: another process (or a later round) takes it
            log.warning("match %s: cannot take it over now: %s", match_id, exc)
            return False

    @staticmethod
    def _since(wall: float) -> float:
        """The monotonic time of the wall-clock time ``wall`` (a stored action's time), not in the future."""
        return time.monotonic() - max(0.0, time.time() - wall)

    def _on_change(self, note: Note) -> None:
        """Another process changed a match (or who is connected to it): take it in if we hold the match."""
        session = self.sessions.get(note.match_id)
        if session is None or session.broken or self.closing:
            return
        session.inbox.append(note)
        if session.inbox_task is None or session.inbox_task.done():
            session.inbox_task = asyncio.get_running_loop().create_task(self._take_in(session))

    async def _take_in(self, session: Session) -> None:
        """Apply what other processes announced, in order: an announced action that comes next is applied
        as it is; anything else (a gap, another change) is read from the database."""
        while session.inbox and not session.broken and not self.closing:
            async with session.lock:
                notes, session.inbox = session.inbox, []
                try:
                    await self._take_notes(session, notes)
                except Exception as exc:
                    if not self.closing:
                        log.error("match %s: cannot catch up with the database: %s", session.id, exc)
                        self._evict_now(session)
                    return

    async def _take_notes(self, session: Session, notes: list[Note]) -> None:
        read = presence = applied = False
        for note in notes:
            presence |= note.presence
            if note.action is None:
                read |= not note.presence
                continue
            idx, aid, seat, clock, status, winner = note.action
            if read or idx < session.seq:
                continue  # (already here, or the read below brings it)
            match = session.match
            if (idx > session.seq or not session.active or match.current_player != seat
                    or aid not in match.legal_actions()):
                read = True
                continue
            self._apply_committed(session, seat, aid, clock, status, winner)
            applied = True
        if applied:
            self._broadcast(session)
        if read or presence:
            await self._caught_up(session, session.seq, presence)

    async def refresh(self, session: Session, presence: bool = False) -> None:
        """Read what other processes did to the match, apply it and tell this process's connections."""
        self._on_change(Note(session.id))
        if presence:
            self._on_change(Note(session.id, presence=True))
        if session.inbox_task is not None:
            await asyncio.shield(session.inbox_task)

    async def _caught_up(self, session: Session, seq: int, presence: bool = False) -> bool:
        """Apply what the database holds beyond this process's copy (the caller holds the lock); returns
        whether the match is now past action ``seq`` or over."""
        row = await asyncio.to_thread(self.storage.load, session.id, session.seq)
        if row is None:
            self._evict_now(session)
            return True
        mine = session.row
        moved = row.n_actions > mine.n_actions
        match = session.match
        for aid, (seat, clock) in zip(row.actions, row.action_clocks, strict=True):
            if aid not in match.legal_actions():
                raise StorageError(f"stored action {aid} is not legal here")
            match.apply(aid, player=seat)
            session.new_turns += session.turnlog.follow(match)
            mine.actions.append(aid)
            mine.action_clocks.append((seat, clock))
        ended = mine.status != row.status
        seats_changed = [(s.bot, s.replaced) for s in mine.seats] != [(s.bot, s.replaced) for s in row.seats]
        rematch = row.rematch_id if row.rematch_id != mine.rematch_id else None
        changed = moved or ended or seats_changed or rematch is not None or mine.hints != row.hints
        mine.n_actions, mine.status, mine.winner, mine.reason = row.n_actions, row.status, row.winner, row.reason
        mine.hints, mine.rematch_id, mine.updated_at = row.hints, row.rematch_id, row.updated_at
        for here, there in zip(mine.seats, row.seats, strict=True):
            here.bot, here.replaced, here.clock_left_ms = there.bot, there.replaced, there.clock_left_ms
        if presence and self.coord.multi:
            remote = (await self.coord.present_elsewhere([session.id])).get(session.id, set())
            changed |= self._set_remote(session, remote)
        if moved:
            session.clock_started = True
            session.turn_started = self._since(row.updated_at)
        if moved or ended:
            self._schedule_clock(session)
            self._kick_bots(session)
            self._broadcast(session)
        elif changed:
            self._schedule_clock(session)
            self._kick_bots(session)
            self._send_meta(session)
        if rematch is not None:
            text = dumps({"type": "rematch", "match_id": rematch})
            for conn in list(session.conns):
                conn.send(text)
        return row.n_actions > seq or row.status != "active"

    def _set_remote(self, session: Session, remote: set[int]) -> bool:
        """Note which seats are connected elsewhere; the owner starts clocks and schedules stand-ins."""
        if remote == session.remote:
            return False
        session.remote = remote
        for seat in remote:
            task = session.abandon.pop(seat, None)
            if task is not None:
                task.cancel()
        self._start_clock_when_all_came(session)
        if session.row.n_actions > 0:
            for seat in (0, 1):
                if not session.connected(seat):
                    self._schedule_abandon(session, seat)
        return True

    async def _coordinate(self) -> None:
        """Each round (:attr:`ServerConfig.coordination_interval`): take over the matches we hold that
        nobody owns (their owner died), and learn who is connected elsewhere."""
        coord = self.coord
        if coord.lost.is_set():  # the lock connection was lost: we own nothing, and may have missed news
            coord.lost.clear()
            for session in list(self.sessions.values()):
                session.owned = False
                for seat in (0, 1):
                    if session.connected_here(seat):
                        await coord.present(session.id, seat, True)
                self._on_change(Note(session.id))
                self._on_change(Note(session.id, presence=True))
        live = [s for s in self.sessions.values() if s.active and not s.broken]
        orphans = [s for s in live if not s.owned]
        if orphans:
            gained = await coord.claim_many([s.id for s in orphans])
            for session in orphans:
                if session.id in gained:
                    session.owned = True
                    log.info("match %s: taken over by this process", session.id)
                    await self.refresh(session, presence=True)
                    async with session.lock:
                        self._schedule_clock(session)
                        self._kick_bots(session)
                        for seat in (0, 1):
                            if session.row.n_actions > 0 and not session.connected(seat):
                                self._schedule_abandon(session, seat)
        remote = await coord.present_elsewhere([s.id for s in live])
        for session in live:
            if self._set_remote(session, remote.get(session.id, set())):
                self._send_meta(session)
        # A safety net under the notifications: a match whose stored progress was ahead of ours for two
        # rounds running (one round: its announcement may be on its way) is read again.
        stored = await asyncio.to_thread(self.storage.progress, [s.id for s in live])
        for session in live:
            mine = (session.seq, session.row.status)
            if stored.get(session.id, mine) == mine:
                session.behind = None
            elif session.behind == mine:
                self._on_change(Note(session.id))
            else:
                session.behind = mine

    # ------------------------------------------------------------------ bots

    def _kick_bots(self, session: Session) -> None:
        if not session.active or self.closing or not session.owned:
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
            if (session.broken or not session.active or seat < 0 or not session.is_bot(seat)
                    or not session.owned):
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
            await self._write(match_id, write)
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
        if (not after or session.row.mode != "friend" or not session.active or not session.owned
                or session.row.seats[seat].bot is not None or seat in session.abandon or session.connected(seat)):
            return

        async def replace() -> None:
            await asyncio.sleep(after)
            async with session.lock:
                session.abandon.pop(seat, None)
                if self.coord.multi:  # connected to another process meanwhile?
                    with contextlib.suppress(Exception):
                        session.remote = (await self.coord.present_elsewhere([session.id])).get(session.id, set())
                if (session.active and session.owned and not session.connected(seat)
                        and session.row.seats[seat].bot is None):
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
        if (session.row.clock_ms is None or not session.active or self.closing or not session.clock_started
                or not session.owned):
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
        idx = session.seq

        def write(conn: Any) -> None:
            Storage.finish(conn, match_id, winner, "time", idx, [(seat, 0)])
            for hook in self.finish_hooks:
                hook(conn, session, winner)

        try:
            await self._write(match_id, write)
        except StorageError as exc:
            if self.coord.multi and await self._caught_up(session, idx):
                return  # the match moved on (or ended) meanwhile, on another process
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
                await self._write(match_id, write)
            except StorageError:
                raise ProtocolError("storage", "the setting could not be saved; try again") from None
            session.row.hints = bits
            self._send_meta(session)

    async def hint(self, session: Session, seat: int) -> dict[str, Any]:
        """The strong bot's options for ``seat``'s decision, each with its estimated chance to win the
        round, worked out from that seat's view alone (:func:`converge.bots.hint.hint`) by the bot workers;
        one search at a time per server, and each (seat, decision) is searched once."""
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
                    cfg = self.config
                    async with self.hint_slot:  # searched on the seat's view alone, off the event loop
                        options = await self.bots.hint(session.match, seat, cfg.hint_simulations,
                                                       cfg.hint_seconds or None, cfg.hint_seed)
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

    async def rematch(self, session: Session, seat: int, payer: str) -> tuple[Session, bool]:
        """The rematch of a finished match: same playset, seats and tokens; the loser starts (M2).
        Returns it and whether it was created now (else it existed: everyone was already told).
        ``payer``: the asker's client address, which pays for it if it is created now."""
        async with session.lock:
            if session.row.status != "over":
                raise ProtocolError("not_over", "a rematch can be asked for once the match is over")
            if session.row.rematch_id is not None:
                existing = await self.get(session.row.rematch_id)
                if existing is not None:
                    return existing, False
                session.row.rematch_id = None  # deleted by the retention policy: make a new one
            old = session.row
            loser = 1 - old.winner if old.winner in (0, 1) else 0
            seats = [SeatRow(s.seat, s.token_hash, None if s.replaced else s.bot, False, old.clock_ms)
                     for s in old.seats]
            row = MatchRow(id=new_match_id(), mode=old.mode, playset=list(old.playset),
                           seed=secrets.randbelow(2**63), start=str(loser), decks=old.decks,
                           bot_seed=secrets.randbelow(2**63), clock_ms=old.clock_ms, rematch_of=old.id,
                           seats=seats)
            try:
                new = await self._create_row(row, session.match.playset, payers=[payer], link_from=old.id)
            except ProtocolError:
                # Asked on two processes at once: the other one's rematch was stored first.
                if self.coord.multi:
                    await self._caught_up(session, session.seq)
                    existing = await self.get(old.rematch_id) if old.rematch_id is not None else None
                    if existing is not None:
                        return existing, False
                raise
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
        if self.coord.multi and not self.closing:
            self._spawn(self.coord.release(session.id))
        for task in (session.clock_task, session.evict_task, *session.abandon.values()):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        if session.bot_task is not None and session.bot_task is not asyncio.current_task():
            session.bot_task.cancel()
        text = dumps(ProtocolError("storage", "the match is being reloaded; reconnect").to_message())
        for conn in list(session.conns):
            conn.send(text)
            conn.close(CLOSE_RELOADED)

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
                conn.close(CLOSE_GOING_AWAY)
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.coord.close()
        self.bots.close()

