"""A stored match as the server holds it (:class:`MatchRow`, its seats :class:`SeatRow`), and how long
matches are kept (:class:`Retention`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, and_, or_

from converge.server.storage.schema import matches_table


@dataclass(frozen=True)
class Retention:
    """How long matches are kept, in seconds since their last change; 0: forever."""

    #: a finished match (its record serves replays)
    finished_s: float = 0.0
    #: a match in which no move was ever played
    unstarted_s: float = 0.0
    #: a match in progress (abandoned)
    abandoned_s: float = 0.0

    @property
    def active(self) -> bool:
        return self.finished_s > 0 or self.unstarted_s > 0 or self.abandoned_s > 0

    def expired(self, now: float) -> ColumnElement[bool]:
        """The matches this policy says are to be deleted at time ``now`` (the policy must be active)."""
        c = matches_table.c
        parts: list[ColumnElement[bool]] = []
        if self.finished_s > 0:
            parts.append(and_(c.status == "over", c.updated_at < now - self.finished_s))
        if self.unstarted_s > 0:
            parts.append(and_(c.status == "active", c.n_actions == 0, c.updated_at < now - self.unstarted_s))
        if self.abandoned_s > 0:
            parts.append(and_(c.status == "active", c.updated_at < now - self.abandoned_s))
        return or_(*parts)


@dataclass
class SeatRow:
    seat: int
    token_hash: str | None
    bot: str | None
    replaced: bool = False
    clock_left_ms: int | None = None


@dataclass
class MatchRow:
    """A stored match: its record fields, metadata, seats and actions."""

    id: str
    mode: str
    playset: list[str]
    seed: int
    start: str
    decks: str
    bot_seed: int
    status: str = "active"
    n_actions: int = 0
    winner: int | None = None
    reason: str | None = None
    clock_ms: int | None = None
    rematch_of: str | None = None
    rematch_id: str | None = None
    created_at: float = 0.0
    updated_at: float = 0.0
    seats: list[SeatRow] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    #: Who took each action, and their clock after it (None: no clock, a bot, or stored before version 2).
    action_clocks: list[tuple[int, int | None]] = field(default_factory=list)
    #: Seats that allow hints (bit p: seat p), in a friend match.
    hints: int = 0

    def record(self) -> dict[str, Any]:
        """The match record (the engine's save and replay format). It holds the seed: server-side only
        while the match is in progress."""
        return {"format": "converge-record", "version": 1, "playset": list(self.playset), "seed": self.seed,
                "start": self.start, "decks": self.decks, "chance": False, "actions": list(self.actions)}
