"""What a search or an exact endgame makes of a decision: an :class:`Estimate` per option, and the whole
:class:`Found`, with the choice of the best option and the paired comparison of two (what "about equal" in a
hint rests on)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from converge.engine.actions import DECLARE, DISCARD

#: An outcome of a sweep for an option that was not in it (out of the running by then).
ABSENT = 2


class Estimate:
    """What a search made of one action: its simulations, the rounds they won for the player who chose it,
    and the estimates of that player's own next decisions (most simulated first). Solved exactly (an endgame:
    :mod:`converge.bots.endgame`), ``visits`` counts the worlds, ``wins`` those won, and ``sure`` is 1 when the
    action wins in every case, -1 when it loses in every case."""

    __slots__ = ("action", "sure", "then", "visits", "wins")

    def __init__(self, action: int, visits: int, wins: float, then: list[Estimate], sure: int = 0) -> None:
        self.action = action
        self.visits = visits
        self.wins = wins
        self.then = then
        self.sure = sure

    @property
    def mean(self) -> float:
        return self.wins / self.visits if self.visits else 0.0

    def value(self) -> float:
        """The action's worth when the player plays on as well as the search judged: the best of its next steps
        of the same play where it has them (a card is worth its best placement), else its mean."""
        return max(t.value() for t in self.then) if self.then else self.mean

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Estimate) and (self.action, self.visits, self.wins, self.then, self.sure) == (
            other.action, other.visits, other.wins, other.then, other.sure)

    def __repr__(self) -> str:
        sure = f", sure={self.sure}" if self.sure else ""
        return f"Estimate({self.action}, {self.visits}, {self.wins}, {self.then!r}{sure})"


@dataclass
class Found:
    """What a search found at its root: an estimate per legal action (most simulated first), each action's
    outcome in each sweep (0 lost, 1 won, :data:`ABSENT`), the actions still in the running at the end, and
    how many simulations were played; for an endgame solved exactly, how many ``worlds`` it was solved in
    (0: searched)."""

    estimates: list[Estimate]
    outcomes: dict[int, bytes]
    finalists: list[int]
    simulations: int
    worlds: int = 0

    @property
    def exact(self) -> bool:
        return self.worlds > 0

    def best(self) -> int:
        """The finalist with the best value (ties: a sure win first, then cards kept in play, then the lowest
        id). Searched, an action is worth its mean, the figure its finalists were chosen by; solved exactly, its
        :meth:`~Estimate.value`."""
        by_action = {e.action: e for e in self.estimates}

        def key(a: int) -> tuple[float, int, int, int]:
            e = by_action[a]
            return (e.value() if self.exact else e.mean), e.sure, prefer(a), -a

        return max(self.finalists, key=key)


def prefer(action: int) -> int:
    """Tie-break between equally good actions: keep cards in play over discarding them."""
    return 0 if action == DISCARD else 1 if action == DECLARE else 2


def paired_difference(a: bytes, b: bytes) -> tuple[int, float, float]:
    """Over the sweeps both options were in: how many, the mean of (a's outcome - b's), and its standard error."""
    n = total = squares = 0
    for x, y in zip(a, b, strict=True):
        if x != ABSENT and y != ABSENT:
            d = x - y
            n += 1
            total += d
            squares += d * d
    if not n:
        return 0, 0.0, math.inf
    mean = total / n
    var = max(0.0, squares / n - mean * mean)
    return n, mean, math.sqrt(var / n) if n > 1 else math.inf
