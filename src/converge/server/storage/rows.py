"""A stored match as the server holds it (:class:`MatchRow`, its seats :class:`SeatRow`), and how long
matches are kept (:class:`Retention`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, and_, or_

from converge.engine.schema import RecordDoc
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
        # (a turn-based match is never abandoned: it ends when its player to move runs out of time)
        if self.unstarted_s > 0:
            parts.append(and_(c.status == "active", c.move_s.is_(None), c.n_actions == 0,
                              c.updated_at < now - self.unstarted_s))
        if self.abandoned_s > 0:
            parts.append(and_(c.status == "active", c.move_s.is_(None), c.updated_at < now - self.abandoned_s))
        return or_(*parts)


@dataclass
class SeatRow:
    seat: int
    token_hash: str | None
    bot: str | None
    replaced: bool = False
    clock_left_ms: int | None = None
    #: The hashes of the seat's other keys (its player's other devices).
    keys: tuple[str, ...] = ()
    #: A turn-based match: the seconds of vacation left (spent when a decision takes longer than a move's time).
    vacation_left_s: float | None = None

    def hashes(self) -> tuple[str, ...]:
        """Every hash that holds this seat: its token's and its keys' (none: a bot's seat)."""
        return ((self.token_hash,) if self.token_hash is not None else ()) + self.keys


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
    #: A turn-based match: seconds each decision may take from the last move (None: real time), and the seat
    #: to move (stored so that the database can say who ran out of time).
    move_s: int | None = None
    to_move: int | None = None

    def deadline(self, seat: int) -> float | None:
        """A turn-based match in progress: the time (``time.time()``) by which ``seat``, to move, must act —
        its move's time, then its vacation left."""
        if self.move_s is None or self.status != "active" or seat < 0:
            return None
        return self.updated_at + self.move_s + (self.seats[seat].vacation_left_s or 0.0)

    def vacation_after(self, seat: int, at: float) -> float | None:
        """``seat``'s vacation left once its decision is made at ``at`` (None: not a turn-based match)."""
        left = self.seats[seat].vacation_left_s
        if self.move_s is None or left is None:
            return None
        return max(0.0, left - max(0.0, at - self.updated_at - self.move_s))

    def seat_hashes(self) -> list[tuple[str, ...]]:
        """Each seat's hashes (:meth:`SeatRow.hashes`), for :func:`~converge.server.security.tokens.seat_of`."""
        return [s.hashes() for s in self.seats]

    def record(self) -> RecordDoc:
        """The match record (the engine's save and replay format). It holds the seed: server-side only
        while the match is in progress."""
        return {"format": "converge-record", "version": 1, "playset": list(self.playset), "seed": self.seed,
                "start": self.start, "decks": self.decks, "chance": False, "actions": list(self.actions)}

    # ------------------------------------------------------------------ changes, as they are committed

    def add_action(self, seat: int, action: int, clock_left: int | None, status: str, winner: int | None,
                   at: float | None = None, to_move: int | None = None) -> None:
        """Action number :attr:`n_actions` was stored at ``at`` (now, if not given): ``seat`` took ``action``
        with ``clock_left`` ms left, and the match is now ``status`` (won by ``winner``), ``to_move`` deciding
        next; in a turn-based match, the time beyond a move's came out of ``seat``'s vacation."""
        at = time.time() if at is None else at
        self.extend_actions([action], [(seat, clock_left)])
        self.status, self.winner, self.reason = status, winner, ("match" if status == "over" else None)
        if clock_left is not None:
            self.seats[seat].clock_left_ms = clock_left
        if self.move_s is not None:
            self.seats[seat].vacation_left_s = self.vacation_after(seat, at)
            self.to_move = to_move if status == "active" else None
        self.updated_at = at

    def add_seat_key(self, seat: int, digest: str) -> None:
        """One more key to ``seat`` (its hash): its player's other device."""
        self.seats[seat].keys = (*self.seats[seat].keys, digest)

    def extend_actions(self, actions: list[int], clocks: list[tuple[int, int | None]]) -> None:
        """More stored actions, with who took each and their clock after it."""
        self.actions += actions
        self.action_clocks += clocks
        self.n_actions += len(actions)

    def take_facts(self, stored: MatchRow) -> None:
        """This match's facts as the database holds them now (``stored``: read from it; its actions are taken
        in by :meth:`extend_actions`)."""
        self.n_actions, self.status, self.winner, self.reason = (stored.n_actions, stored.status, stored.winner,
                                                                 stored.reason)
        self.hints, self.rematch_id, self.updated_at = stored.hints, stored.rematch_id, stored.updated_at
        self.to_move = stored.to_move
        for here, there in zip(self.seats, stored.seats, strict=True):
            here.bot, here.replaced, here.clock_left_ms = there.bot, there.replaced, there.clock_left_ms
            here.token_hash, here.keys, here.vacation_left_s = there.token_hash, there.keys, there.vacation_left_s

    def set_seat(self, seat: int, bot: str | None, replaced: bool) -> None:
        """``bot`` plays ``seat`` (None: its player); ``replaced``: a stand-in for a player who left."""
        self.seats[seat].bot = bot
        self.seats[seat].replaced = replaced

    def set_hints(self, allowed: int) -> None:
        """The seats that allow hints (bit p: seat p)."""
        self.hints = allowed

    def end_by(self, seat: int, reason: str) -> None:
        """``seat`` lost outside the engine (``reason``: "time", or "resign"): the other player won."""
        self.status, self.winner, self.reason = "over", 1 - seat, reason
        if reason == "time":
            self.seats[seat].clock_left_ms = 0

    def link_rematch(self, match_id: str | None) -> None:
        """This match's rematch is ``match_id`` (None: it has none, or it was deleted)."""
        self.rematch_id = match_id

    def unlink(self, gone: set[str]) -> None:
        """The matches ``gone`` were deleted: no link to them is kept."""
        if self.rematch_id in gone:
            self.rematch_id = None
        if self.rematch_of in gone:
            self.rematch_of = None
