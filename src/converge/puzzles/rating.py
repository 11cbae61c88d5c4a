"""An attempt at a puzzle as a rated game between the player and the puzzle (Glicko-2, both move).

A player's puzzle rating is their own, apart from their match rating. A puzzle starts at the rating the bots
gave it (:func:`converge.puzzles.make.starting_rating`) with a deviation of :data:`PUZZLE_RD`: sure enough
that one newcomer's attempt moves it a little, and it settles as players try it. Only a player's first
attempt at a puzzle is rated (trying again after seeing the solution proves nothing), and a streak counts the
puzzles solved in a row.
"""

from __future__ import annotations

from dataclasses import dataclass

from converge.ratings import Rating, update_pair

#: A new puzzle's rating deviation.
PUZZLE_RD = 200.0
#: A puzzle's deviation never goes below this: it keeps learning from new players.
MIN_PUZZLE_RD = 60.0


@dataclass(frozen=True)
class Rated:
    """The player's and the puzzle's ratings before and after one attempt."""

    player_before: Rating
    player_after: Rating
    puzzle_before: Rating
    puzzle_after: Rating


def rate(player: Rating, puzzle: Rating, solved: bool) -> Rated:
    """Both ratings after an attempt: the player scores 1 against the puzzle when they solved it."""
    after_player, after_puzzle = update_pair(player, puzzle, 1.0 if solved else 0.0)
    after_puzzle = Rating(after_puzzle.r, max(after_puzzle.rd, MIN_PUZZLE_RD), after_puzzle.vol)
    return Rated(player, after_player, puzzle, after_puzzle)


def new_puzzle_rating(r: float) -> Rating:
    return Rating(r, PUZZLE_RD)
