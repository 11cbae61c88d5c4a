"""Bot against bot: single matches and seeded series with win rates and confidence intervals."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from converge.bots import Bot, make_bot
from converge.cards.loader import load_catalog
from converge.engine.playset import Playset, all_playsets
from converge.engine.state import Match

#: Called after each action with the match and the seat that acted (for printing as a match goes).
OnAction = Callable[[Match, int], None]


def play_match(playset: Playset | Sequence[str], seed: int, bots: Sequence[Bot], start: str | int = "random",
               log_events: bool = False, on_action: OnAction | None = None,
               deck_dirs: Iterable[str] = ()) -> Match:
    """Play one match to its end: ``bots[p]`` decides for player ``p``. Returns the finished match.

    Each bot is :meth:`~converge.bots.base.Bot.reset` first. Bots get their seat's view and must return
    a legal action; an illegal one raises :class:`~converge.engine.errors.IllegalActionError`.
    """
    match = Match.new(playset, seed, start, deck_dirs, log_events=log_events)
    for bot in bots:
        bot.reset()
    while not match.is_terminal:
        seat = match.current_player
        match.apply(bots[seat].decide(match.view(seat)), seat)
        if on_action is not None:
            on_action(match, seat)
    return match


def wilson_interval(wins: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); ``(0, 1)`` when ``n`` is 0.

    >>> lo, hi = wilson_interval(60, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.502, 0.691)
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if wins <= 0 else max(0.0, centre - half)
    hi = 1.0 if wins >= n else min(1.0, centre + half)
    return lo, hi


@dataclass
class SeriesResult:
    """The outcome of a series of matches between two bots (bot 1 and bot 2, whatever their seats)."""

    bots: tuple[str, str]
    seed: int
    matches: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    rounds_won: list[int] = field(default_factory=lambda: [0, 0])
    rounds: int = 0
    wins_as_player0: list[int] = field(default_factory=lambda: [0, 0])
    playsets: dict[str, list[int]] = field(default_factory=dict)  # "a/b/c" -> [bot 1 wins, matches]

    @property
    def average_rounds(self) -> float:
        return self.rounds / self.matches if self.matches else 0.0

    @property
    def win_rate(self) -> float:
        """Bot 1's match win rate."""
        return self.wins[0] / self.matches if self.matches else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of bot 1's match win rate."""
        return wilson_interval(self.wins[0], self.matches)

    def to_dict(self) -> dict[str, object]:
        lo, hi = self.interval
        return {
            "bots": list(self.bots), "seed": self.seed, "matches": self.matches, "wins": list(self.wins),
            "rounds_won": list(self.rounds_won), "average_rounds": round(self.average_rounds, 4),
            "bot1_win_rate": round(self.win_rate, 4), "bot1_win_rate_ci95": [round(lo, 4), round(hi, 4)],
            "wins_as_player0": list(self.wins_as_player0), "playsets": dict(self.playsets),
        }


def series_plan(n: int, seed: int, playset: Sequence[str] | None = None,
                deck_dirs: Iterable[str] = ()) -> list[tuple[tuple[str, ...], int]]:
    """The ``(playset names, match seed)`` of each match of a series, all drawn from ``seed``.

    With ``playset`` every match uses it; otherwise each match draws one of every legal playset of
    the catalogue.
    """
    rng = random.Random(f"converge-series:{seed}")
    choices = [tuple(playset)] if playset else all_playsets(load_catalog(deck_dirs))
    return [(choices[rng.randrange(len(choices))], rng.randrange(2**62)) for _ in range(n)]


def run_series(bot1: str, bot2: str, n: int, seed: int = 0, playset: Sequence[str] | None = None,
               deck_dirs: Iterable[str] = (),
               on_match: Callable[[int, Match], None] | None = None) -> SeriesResult:
    """Play ``n`` matches, bot 1 being player 0 in the even-numbered ones (0, 2, ...).

    Everything is drawn from ``seed``: the playsets (unless given), the deals and the bots' seeds.
    """
    dirs = list(deck_dirs)
    bots = (make_bot(bot1, seed * 2 + 1), make_bot(bot2, seed * 2 + 2))
    result = SeriesResult((bots[0].name, bots[1].name), seed)
    cache: dict[tuple[str, ...], Playset] = {}
    for i, (names, match_seed) in enumerate(series_plan(n, seed, playset, dirs)):
        ps = cache.get(names)
        if ps is None:
            ps = cache[names] = Playset.from_names(names, dirs)
        first = i % 2  # which bot is player 0
        seats = (bots[first], bots[1 - first])
        match = play_match(ps, match_seed, seats)
        winner_bot = first if match.winner == 0 else 1 - first
        result.matches += 1
        result.wins[winner_bot] += 1
        if match.winner == 0:
            result.wins_as_player0[winner_bot] += 1
        for w in match.round_winners:
            result.rounds_won[first if w == 0 else 1 - first] += 1
        result.rounds += match.rounds_finished
        key = "/".join(ps.names())
        tally = result.playsets.setdefault(key, [0, 0])
        tally[0] += winner_bot == 0
        tally[1] += 1
        if on_match is not None:
            on_match(i, match)
    return result
