"""What a tournament's rules read: its entrants and the games of its rounds (a played match, a bye, a forfeit)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

#: How a game ended: the first player won, the second won, neither (a drawn game: Converge's rules never draw,
#: but the pairing rules' published examples, from chess, do), or not yet.
Outcome = Literal["first", "second", "drawn", "pending"]

#: Points for a win, a drawn game and a loss (the pairing rules and the tie-breaks count in these).
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True)
class Entrant:
    """A player of the tournament: ``ident`` names them, ``rating`` seeds them (higher first; equal ratings
    keep the order they joined in, ``joined``)."""

    ident: str
    rating: float
    joined: int = 0


@dataclass(frozen=True)
class Game:
    """One pairing of a round. ``second`` is None for a bye (``first`` scores :attr:`bye_points` without
    playing). ``forfeit``: the loser never came; it counts as a win for pairing and standings, but not as a
    game played (no colour given, and the pair may meet again)."""

    round: int
    first: str
    second: str | None
    outcome: Outcome = "pending"
    forfeit: bool = False
    bye_points: float = WIN

    @property
    def bye(self) -> bool:
        return self.second is None

    @property
    def played(self) -> bool:
        """A game the two sat down to and finished (not a bye, not a forfeit)."""
        return self.second is not None and not self.forfeit and self.outcome != "pending"

    def points(self, who: str) -> float:
        """What ``who`` scored in this game (0 while it is pending)."""
        if self.second is None:
            return self.bye_points if who == self.first else 0.0
        if self.outcome == "pending":
            return 0.0
        if self.outcome == "drawn":
            return DRAW
        won = self.first if self.outcome == "first" else self.second
        return WIN if who == won else LOSS

    def opponent(self, who: str) -> str | None:
        return self.second if who == self.first else self.first if who == self.second else None


def seeded(entrants: Iterable[Entrant]) -> list[Entrant]:
    """The entrants in seeding order: rating, highest first; then who joined first."""
    return sorted(entrants, key=lambda e: (-e.rating, e.joined, e.ident))


def scores(entrants: Iterable[Entrant], games: Sequence[Game]) -> dict[str, float]:
    """Each entrant's points from the games so far."""
    total = {e.ident: 0.0 for e in entrants}
    for game in games:
        for who in (game.first, game.second):
            if who is not None and who in total:
                total[who] += game.points(who)
    return total
