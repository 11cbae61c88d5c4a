"""One live match in a server process: the engine's match rebuilt from its record, its stored facts, its
connections, its clock and the tasks that act for it. The session is the one writer of all of it: the units of
:mod:`converge.server.play` call its methods, and read its parts (:class:`Presence`, :class:`MatchClock`,
:class:`SessionTasks`, :class:`HintCache`, :class:`Seating`, the row and the match) but never call what
changes them nor write them (``tests/test_architecture.py`` checks both). What its connections are sent is
built by its ``views`` (:mod:`converge.server.play.match.views`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from converge.bots import bot_display_name
from converge.bots.hint import HintAnswer
from converge.cards.palette import COLOR_NAMES
from converge.engine.observation import card_catalog
from converge.engine.state import Match
from converge.server.play.match.single_flight import SingleFlight
from converge.server.play.match.turnlog import Scored, TurnLog
from converge.server.play.match.views import SessionViews
from converge.server.protocol.messages import (
    SeatInfo,
)
from converge.server.storage.database import StorageError
from converge.server.storage.lobby_store import SeatPlayer
from converge.server.storage.rows import MatchRow
from converge.server.transport.connections import Connection


class Presence:
    """A match's connections in this process, and the seats that have one on another server process."""

    def __init__(self) -> None:
        #: The open (and just closed) connections here; changed by :meth:`add` and :meth:`discard` only.
        self.conns: set[Connection] = set()
        #: Seats with a connection on another server process.
        self.remote: frozenset[int] = frozenset()

    def add(self, conn: Connection) -> None:
        self.conns.add(conn)

    def discard(self, conn: Connection) -> None:
        self.conns.discard(conn)

    def connected(self, view: int) -> bool:
        """Whether ``view`` has a connection open, on this server process or another."""
        return view in self.remote or self.connected_here(view)

    def connected_here(self, view: int) -> bool:
        return any(c.view == view and not c.closed for c in self.conns)

    def of_view(self, view: int) -> list[Connection]:
        """The open connections of ``view`` here, oldest first."""
        return sorted((c for c in self.conns if c.view == view and not c.closed), key=lambda c: c.opened)

    def spectators(self) -> int:
        return sum(1 for c in self.conns if c.view < 0 and not c.closed)

    def set_remote(self, seats: set[int] | frozenset[int]) -> bool:
        """Note which seats are connected elsewhere; whether that changed."""
        if seats == self.remote:
            return False
        self.remote = frozenset(seats)
        return True


class MatchClock:
    """Whether a match's clock runs yet (once every player has come, or the match has begun), and since when
    the present decision has been running (monotonic seconds)."""

    __slots__ = ("started", "turn_started")

    def __init__(self, started: bool) -> None:
        self.started = started
        self.turn_started = time.monotonic()

    def start(self, at: float | None = None) -> None:
        """The clock runs (the players have come, or a move was made), the present decision since now (or the
        monotonic time ``at``)."""
        self.started = True
        self.restart(at)

    def restart(self, at: float | None = None) -> None:
        """A decision began now (or at the monotonic time ``at``)."""
        self.turn_started = time.monotonic() if at is None else at


#: The names of a session's tasks (:class:`SessionTasks`): each unit keeps its own.
CLOCK, BOTS, EVICT, INBOX, NO_SHOW = "clock", "bots", "evict", "inbox", "no-show"


def stand_in(seat: int) -> str:
    """The task that puts a bot in ``seat`` when its player has been away long enough."""
    return f"stand-in {seat}"


class SessionTasks:
    """The tasks that act for one match, by name: its clock's time loss, its bots, its eviction from memory,
    the stand-ins for players who left, taking in other processes' news."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def start(self, name: str, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` as the task ``name`` (the one it replaces is cancelled)."""
        self.cancel(name)
        task = self._tasks[name] = asyncio.get_running_loop().create_task(coro)
        return task

    def get(self, name: str) -> asyncio.Task[None] | None:
        return self._tasks.get(name)

    def running(self, name: str) -> bool:
        task = self._tasks.get(name)
        return task is not None and not task.done()

    def pending(self, name: str) -> bool:
        """Whether the task ``name`` is there (started and not yet taken out, done or not)."""
        return name in self._tasks

    def take(self, name: str) -> asyncio.Task[None] | None:
        """The task ``name``, no longer kept (not cancelled)."""
        return self._tasks.pop(name, None)

    def cancel(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        if task is not None:
            task.cancel()

    def cancel_all(self, but: tuple[str, ...] = ()) -> list[asyncio.Task[None]]:
        """Cancel every task (but those named ``but``, and the one running this, which ends by itself);
        returns those cancelled that had not finished."""
        current = asyncio.current_task()
        cancelled = [t for name, t in self._tasks.items()
                     if name not in but and t is not current and not t.done()]
        for task in cancelled:
            task.cancel()
        self._tasks = {name: t for name, t in self._tasks.items() if name in but}
        return cancelled


class HintCache:
    """The hints worked out for (seat, seq), and those being worked out: each is searched once."""

    def __init__(self) -> None:
        self._done: dict[tuple[int, int], HintAnswer] = {}
        self._searching: SingleFlight[tuple[int, int], HintAnswer] = SingleFlight()

    async def once(self, key: tuple[int, int], search: Callable[[], Awaitable[HintAnswer]]) -> HintAnswer:
        """The hint for ``key``: the one kept, the one being worked out (waited for), or ``search()``'s now,
        kept in place of the hints of earlier decisions."""
        options = self._done.get(key)
        if options is not None:
            return options

        async def search_and_keep() -> HintAnswer:
            found = await search()
            self._done = {k: v for k, v in self._done.items() if k[1] >= key[1]}
            self._done[key] = found
            return found

        return await self._searching.run(key, search_and_keep)

    def clear(self) -> None:
        """Forget the hints worked out (the next asks search again)."""
        self._done.clear()


class Seating:
    """Who plays a match's seats as the table shows them: the players recorded by the lobby (names, ratings,
    the rating changes once the match is rated), the bots by level with their fixed ratings; whether the
    match is rated. Read when the match is loaded, a seat is linked to a player, and the match is rated."""

    def __init__(self) -> None:
        self.rated = False
        #: A tournament's match: its players forfeit it by not coming
        #: (:mod:`~converge.server.play.owner.no_shows`), and no bot stands in for one who left.
        self.event = False
        self._players: dict[int, SeatPlayer] = {}
        self._bot_ratings: dict[str, float] = {}

    def known(self, rated: bool, players: dict[int, SeatPlayer],
              bot_ratings: dict[str, float] | None = None) -> None:
        """What was read of the seats' players (and the bots' fixed ratings, by level)."""
        self.rated = rated
        self.event = any(p.kind == "event" for p in players.values())
        self._players = dict(players)
        if bot_ratings is not None:
            self._bot_ratings = dict(bot_ratings)

    def info(self, seat: int, bot: str | None, replaced: bool, connected: bool) -> SeatInfo:
        """A seat as everyone sees it: who plays it, by name and rating (a bot by its level: "Hard bot")."""
        player = self._players.get(seat)
        info: SeatInfo = {"seat": seat, "kind": "bot" if bot is not None and not replaced else "human",
                          "bot": bot, "replaced": replaced, "connected": connected, "name": None,
                          "rating": None, "provisional": False, "rating_change": None}
        if player is not None:
            info["name"], info["rating"] = player.name, player.rating
            info["provisional"], info["rating_change"] = player.provisional, player.change
        elif bot is not None and not replaced:  # (a stand-in keeps the seat's player, anonymous here)
            fixed = self._bot_ratings.get(bot)
            info["name"], info["rating"] = bot_display_name(bot), None if fixed is None else round(fixed)
        return info


@dataclass(frozen=True)
class Caught:
    """What a session took in from the database (:meth:`Session.catch_up`)."""

    moved: bool  #: actions were added
    ended: bool  #: the status changed
    changed: bool  #: anything players see changed (moves, the end, seats, hints, the rematch)
    rematch: str | None  #: a rematch that appeared
    revoked: bool = False  #: a token or key that held a seat no longer does (its player signed out everywhere)


class Session:
    """One live match."""

    def __init__(self, row: MatchRow, match: Match) -> None:
        self.row = row
        self.id = row.id
        self.match = match
        self.lock = asyncio.Lock()
        self.presence = Presence()
        self.clock = MatchClock(row.n_actions > 0)
        self.tasks = SessionTasks()
        self.hints = HintCache()
        self.catalog = card_catalog(match)
        self.colors = {d.skillset: COLOR_NAMES.get(d.color, d.color) for d in match.playset.decks}
        #: The ends of turn so far (for the table's summaries), and those the last actions brought.
        self.turnlog = TurnLog(match)
        self._new_turns: list[Scored] = []
        self._owned = False
        self._broken = False
        #: Who plays the seats, by name and rating, and whether the match is rated.
        self.seating = Seating()
        #: What its connections are sent, each viewer's own.
        self.views = SessionViews(self)

    # ------------------------------------------------------------------ facts

    @property
    def active(self) -> bool:
        return self.row.status == "active" and not self._broken

    @property
    def seq(self) -> int:
        return self.row.n_actions

    @property
    def owned(self) -> bool:
        """This process owns the match: it plays its bots, runs its clock and replaces leavers
        (:mod:`converge.server.play.cluster.coordination`; always true with one process)."""
        return self._owned

    @property
    def rated(self) -> bool:
        """The match changes ratings when it ends."""
        return self.seating.rated

    @property
    def broken(self) -> bool:
        """Dropped from memory (evicted, or the database is away): its connections are told to reconnect."""
        return self._broken

    def is_bot(self, seat: int) -> bool:
        return self.row.seats[seat].bot is not None

    @property
    def hints_off(self) -> str | None:
        """Why hints are off, as players read it, or None when they are on: off in a rated match (a hint would
        play for you); otherwise on against a bot, and in a friend match once both players allow them."""
        if self.rated:
            return "hints are off in a rated match: a hint would play for you"
        if self.row.mode == "bot" or self.row.hints & 3 == 3:
            return None
        return "hints are off in this match until both players allow them"

    @property
    def hints_on(self) -> bool:
        return self.hints_off is None

    def clock_left(self, seat: int, now: float | None = None) -> int | None:
        """The time left to ``seat`` in ms (running down while it is their decision), or None."""
        left = self.row.seats[seat].clock_left_ms
        if left is None or self.row.clock_ms is None:
            return None
        if self.active and self.clock.started and self.match.current_player == seat and not self.is_bot(seat):
            elapsed = ((now if now is not None else time.monotonic()) - self.clock.turn_started) * 1000
            return max(0, int(left - elapsed))
        return left

    # ------------------------------------------------------------------ changes
    # The only code that changes a session: its row, match, tasks, clock, connections, seating and hints
    # (tests/test_architecture.py checks that no other unit calls their changing methods or writes them).

    def start_task(self, name: str, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coro`` as the session's task ``name`` (see :class:`SessionTasks`)."""
        return self.tasks.start(name, coro)

    def take_task(self, name: str) -> asyncio.Task[None] | None:
        """The task ``name``, no longer the session's (the caller lets it finish)."""
        return self.tasks.take(name)

    def cancel_task(self, name: str) -> None:
        self.tasks.cancel(name)

    def cancel_tasks(self, but: tuple[str, ...] = ()) -> list[asyncio.Task[None]]:
        """Cancel every task but those named ``but``; the tasks cancelled (to be awaited)."""
        return self.tasks.cancel_all(but=but)

    def start_clock(self, at: float | None = None) -> None:
        """The match's clock runs (from ``at``, monotonic; now by default), if it did not yet."""
        self.clock.start(at)

    def restart_clock(self, at: float | None = None) -> None:
        """The decision to move began at ``at`` (monotonic; now by default)."""
        self.clock.restart(at)

    def join(self, conn: Connection) -> None:
        """A connection of this process watches or plays the match."""
        self.presence.add(conn)

    def leave(self, conn: Connection) -> None:
        self.presence.discard(conn)

    def set_remote(self, seats: set[int] | frozenset[int]) -> bool:
        """The seats connected to other processes; whether that changed."""
        return self.presence.set_remote(seats)

    def know_seating(self, rated: bool, players: dict[int, SeatPlayer],
                     bot_ratings: dict[str, float] | None = None) -> None:
        """What was read of the seats' players (see :class:`Seating`)."""
        self.seating.known(rated, players, bot_ratings)

    async def hint(self, key: tuple[int, int], search: Callable[[], Awaitable[HintAnswer]]) -> HintAnswer:
        """The hint of decision ``key`` (seat, seq), worked out once (see :class:`HintCache`)."""
        return await self.hints.once(key, search)

    def set_seat(self, seat: int, bot: str | None, replaced: bool) -> None:
        """``seat`` is played by ``bot`` (None: its player), ``replaced``: a stand-in for a player who left."""
        self.row.set_seat(seat, bot, replaced)

    def set_hints(self, allowed: int) -> None:
        """The seats that allow hints (bit p: seat p)."""
        self.row.set_hints(allowed)

    def end_by(self, seat: int, reason: str) -> None:
        """``seat`` lost outside the engine (``reason``: "time", or "resign")."""
        self.row.end_by(seat, reason)

    def link_rematch(self, match_id: str | None) -> None:
        """This match's rematch is ``match_id`` (None: it has none, or it was deleted)."""
        self.row.link_rematch(match_id)

    def unlink(self, gone: set[str]) -> None:
        """The matches ``gone`` were deleted: no link to them is kept."""
        self.row.unlink(gone)

    def add_seat_key(self, seat: int, digest: str) -> None:
        """A device key (its digest) now also holds ``seat``."""
        self.row.add_seat_key(seat, digest)

    def claimed(self, owned: bool) -> None:
        """Whether this process owns the match now."""
        self._owned = owned

    def break_off(self) -> None:
        """The session is dropped from memory: nothing more is done for it."""
        self._broken = True

    def apply(self, seat: int, aid: int, clock_left: int | None, status: str, winner: int | None,
              at: float | None = None) -> None:
        """Apply a committed action (by this process, or announced by another), stored at ``at``."""
        self.match.apply(aid, player=seat)
        self._new_turns += self.turnlog.follow(self.match)
        self.row.add_action(seat, aid, clock_left, status, winner, at, self.match.current_player)
        self.clock.start()

    def catch_up(self, stored: MatchRow) -> Caught:
        """Take in what the database holds beyond this copy: ``stored`` holds the actions from this copy's
        :attr:`seq` on (each checked legal as it is applied: a StorageError if one is not)."""
        mine = self.row
        moved = stored.n_actions > mine.n_actions
        for aid, (seat, clock) in zip(stored.actions, stored.action_clocks, strict=True):
            if aid not in self.match.legal_actions():
                raise StorageError(f"stored action {aid} is not legal here")
            self.match.apply(aid, player=seat)
            self._new_turns += self.turnlog.follow(self.match)
            mine.extend_actions([aid], [(seat, clock)])
        ended = mine.status != stored.status
        seats_changed = [(s.bot, s.replaced) for s in mine.seats] != [(s.bot, s.replaced) for s in stored.seats]
        rematch = stored.rematch_id if stored.rematch_id != mine.rematch_id else None
        changed = moved or ended or seats_changed or rematch is not None or mine.hints != stored.hints
        revoked = any(not set(here.hashes()) <= set(there.hashes())
                      for here, there in zip(mine.seats, stored.seats, strict=True))
        mine.take_facts(stored)
        return Caught(moved, ended, changed, rematch, revoked)

    @property
    def new_turns(self) -> list[Scored]:
        """The ends of turn the last actions brought, not sent yet."""
        return self._new_turns

    def turns_sent(self) -> None:
        """The ends of turn the last actions brought have been sent to every connection."""
        self._new_turns = []
