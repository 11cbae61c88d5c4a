"""One live match in a server process: the engine's match rebuilt from its record, its stored facts, its
open connections and the tasks that act for it. The hub (:mod:`converge.server.play.hub`) changes it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from converge.bots import BOTS
from converge.engine.observation import Observer, card_catalog
from converge.engine.state import Match
from converge.server.play.coordination import Note
from converge.server.play.table import Scored, TurnLog, follow_ups
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.transport.connections import Connection

PREFERRED_DEFAULT_BOTS = ("medium", "greedy")

#: CSS-friendly colour names for the deck colours of the built-in decks (rich's names).
COLOR_NAMES = {"orange3": "orange", "gold3": "gold"}


def default_bot() -> str:
    """The bot offered first: the middle level when it exists."""
    for name in PREFERRED_DEFAULT_BOTS:
        if name in BOTS:
            return name
    return next(iter(BOTS))


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
        #: This process owns the match: it plays its bots, runs its clock and replaces leavers
        #: (:mod:`converge.server.play.coordination`; always true with one process).
        self.owned = False
        #: Seats with a connection on another server process.
        self.remote: set[int] = set()
        #: The match changes ratings when it ends (set by the hub once the match is stored).
        self.rated = False
        #: The progress (seq, status) at which the database was last seen ahead of this copy, if it was.
        self.behind: tuple[int, str] | None = None
        #: What other processes announced, not yet taken in, and the task taking it in.
        self.inbox: list[Note] = []
        self.inbox_task: asyncio.Task[None] | None = None
        #: Each view's observer (the events described so far), for sending only what is new.
        self.observers: dict[int, Observer] = {}

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
        """Whether ``view`` has a connection open, on this server process or another."""
        return view in self.remote or self.connected_here(view)

    def connected_here(self, view: int) -> bool:
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

    def observer(self, viewer: int) -> Observer:
        """The view's observer of this match (made on first use)."""
        got = self.observers.get(viewer)
        if got is None:
            got = self.observers[viewer] = Observer(self.match, viewer)
        return got

    def bot_name(self, seat: int) -> str:
        """The bot level playing ``seat`` (the seat's own, or the default stand-in)."""
        return self.row.seats[seat].bot or default_bot()

    @property
    def hints_on(self) -> bool:
        """Hints are off in a rated match (a hint would play for you); otherwise on against a bot, and in a
        friend match once both players allow them."""
        return not self.rated and (self.row.mode == "bot" or self.row.hints & 3 == 3)

    def welcome(self, viewer: int) -> dict[str, Any]:
        """The first message of a connection of ``viewer``: the match, its cards and the whole view."""
        return {"type": "welcome", "seat": viewer, "match": self.meta(), "cards": self.catalog,
                "colors": self.colors, "seq": self.seq, "observation": self.view(viewer),
                **self.table(viewer, welcome=True)}

    def state(self, viewer: int, observation: dict[str, Any], events_from: int,
              meta: dict[str, Any] | None = None) -> dict[str, Any]:
        """The message of ``viewer``'s new state: ``observation`` holds its events from ``events_from`` on
        (``meta``: this match's :meth:`meta`, when the caller has it already)."""
        return {"type": "state", "seq": self.seq, "match": self.meta() if meta is None else meta,
                "observation": observation, "events_from": events_from, **self.table(viewer)}

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
