"""Arena: for a fixed duration, whoever is free is paired at once with a free player of near rating; a win scores
2 points, and from the third win in a row each win scores double (4) until a game is not won (lichess's arena
rules, without draws: Converge has none).

Pairing avoids an immediate rematch (the two who just played wait for someone else) unless both have waited
:data:`REMATCH_AFTER_S`: two players alone in the waiting room are not kept waiting for ever."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from converge.tournament.games import Game
from converge.tournament.swiss import Pairing

WIN_POINTS = 2
#: Wins in a row after which each win counts double.
STREAK = 2
#: Seconds two players who just met must both have waited before they may meet again at once.
REMATCH_AFTER_S = 6.0


@dataclass(frozen=True)
class Waiting:
    """A player free to play: their rating, whom they last played (if anyone), since when they wait."""

    ident: str
    rating: float
    last_opponent: str | None = None
    since: float = 0.0


def pair_waiting(waiting: Sequence[Waiting], now: float) -> list[Pairing]:
    """Pairs among the ``waiting`` players: by rating, each with the nearest free one who is not their last
    opponent (allowed again once both waited :data:`REMATCH_AFTER_S`). Who moves first: the one who waited
    longer (the earlier one, by ``since``). At most one player is left waiting, unless only last opponents
    remain."""
    order = sorted(waiting, key=lambda w: (-w.rating, w.since, w.ident))
    free = list(order)
    pairs: list[Pairing] = []
    while len(free) >= 2:
        me = free.pop(0)
        allowed = [w for w in free if _may_meet(me, w, now)]
        if not allowed:
            continue
        other = min(allowed, key=lambda w: (abs(w.rating - me.rating), w.since))
        free.remove(other)
        first, second = (me, other) if (me.since, me.ident) <= (other.since, other.ident) else (other, me)
        pairs.append(Pairing(first.ident, second.ident))
    return pairs


def _may_meet(a: Waiting, b: Waiting, now: float) -> bool:
    if a.last_opponent != b.ident and b.last_opponent != a.ident:
        return True
    return now - a.since >= REMATCH_AFTER_S and now - b.since >= REMATCH_AFTER_S


def points(who: str, games: Sequence[Game]) -> int:
    """``who``'s arena points from their finished ``games``, in the order they ended."""
    total = streak = 0
    for game in games:
        if who not in (game.first, game.second) or game.outcome == "pending" or game.bye:
            continue
        if game.points(who) >= 1.0:
            streak += 1
            total += WIN_POINTS * (2 if streak > STREAK else 1)
        else:
            streak = 0
            total += 1 if game.outcome == "drawn" else 0
    return total


def on_fire(who: str, games: Sequence[Game]) -> bool:
    """Whether ``who``'s next win counts double (they won their last :data:`STREAK` games or more)."""
    streak = 0
    for game in games:
        if who in (game.first, game.second) and game.outcome != "pending" and not game.bye:
            streak = streak + 1 if game.points(who) >= 1.0 else 0
    return streak >= STREAK
