"""Quick match: a queue that pairs waiting players of close ratings who want the same clock.

Each waiting player accepts opponents within a rating *window* around their own rating, which starts at
``base_range`` and widens by ``widen_per_s`` each second they wait, up to ``max_range``. Two players are
paired when each is within the other's window (the player who waited longest is served first, with the
closest rating among those who fit). Whoever has waited ``bot_after_s`` is offered a bot (once); they stay
in the queue, and may still be paired, until they accept it or leave.

The queue is a plain object driven by :meth:`QuickMatchQueue.step` with the current time, so its rules are
tested without a clock. It lives in one server process's memory: with several processes behind a load
balancer, the players of one queue must reach the same process (route ``/ws/lobby`` to one of them), or
each process pairs only its own players.

Invariants (tested): a player waits at most once (joining again replaces their entry); an entry is removed
from the queue in the same step that pairs it, so nobody is paired twice; a pair is never one player twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Waiting:
    """One player in the queue."""

    player_id: str
    rating: float
    clock_s: int | None
    since: float
    #: Whatever the caller needs to reach the player (their connection).
    conn: Any = None
    offered: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class QueueSettings:
    base_range: float = 100.0
    widen_per_s: float = 25.0
    max_range: float = 1000.0
    bot_after_s: float = 30.0


class QuickMatchQueue:
    """The waiting players, keyed by player id."""

    def __init__(self, settings: QueueSettings | None = None) -> None:
        self.settings = settings or QueueSettings()
        self.waiting: dict[str, Waiting] = {}

    def __len__(self) -> int:
        return len(self.waiting)

    def __contains__(self, player_id: object) -> bool:
        return player_id in self.waiting

    def join(self, entry: Waiting) -> Waiting:
        """Add a player; a player already waiting keeps their place (and their offer) with the new details
        (another tab or device takes over)."""
        old = self.waiting.get(entry.player_id)
        if old is not None and old.clock_s == entry.clock_s:
            entry.since, entry.offered = old.since, old.offered
        self.waiting[entry.player_id] = entry
        return entry

    def leave(self, player_id: str, conn: Any = None) -> Waiting | None:
        """Remove a player (only if still reached through ``conn``, when given); the removed entry or None."""
        entry = self.waiting.get(player_id)
        if entry is None or (conn is not None and entry.conn is not conn):
            return None
        del self.waiting[player_id]
        return entry

    def window(self, entry: Waiting, now: float) -> float:
        """The rating difference ``entry`` accepts at ``now``."""
        s = self.settings
        return min(s.max_range, s.base_range + s.widen_per_s * max(0.0, now - entry.since))

    def fits(self, a: Waiting, b: Waiting, now: float) -> bool:
        if a.player_id == b.player_id or a.clock_s != b.clock_s:
            return False
        gap = abs(a.rating - b.rating)
        return gap <= self.window(a, now) and gap <= self.window(b, now)

    def step(self, now: float) -> tuple[list[tuple[Waiting, Waiting]], list[Waiting]]:
        """Pair whoever can be paired now (removing them from the queue), and return the new bot offers
        (entries that have waited ``bot_after_s``, each offered once)."""
        pairs: list[tuple[Waiting, Waiting]] = []
        taken: set[str] = set()
        order = sorted(self.waiting.values(), key=lambda e: (e.since, e.player_id))
        for a in order:
            if a.player_id in taken:
                continue
            best: Waiting | None = None
            for b in order:
                if b.player_id in taken or b is a or not self.fits(a, b, now):
                    continue
                if best is None or abs(b.rating - a.rating) < abs(best.rating - a.rating):
                    best = b
            if best is not None:
                taken.update((a.player_id, best.player_id))
                pairs.append((a, best))
        for pid in taken:
            del self.waiting[pid]
        offers = []
        for entry in self.waiting.values():
            if not entry.offered and now - entry.since >= self.settings.bot_after_s:
                entry.offered = True
                offers.append(entry)
        return pairs, offers


__all__ = ["QueueSettings", "QuickMatchQueue", "Waiting"]
