"""Bots: seeded players that see only what their player may know (see :mod:`converge.bots.base`).

Players pick an opponent by level; researchers by algorithm.

==========  ===============================================================  ======================
level       bot                                                              CPU per decision
==========  ===============================================================  ======================
beginner    random legal actions                                             instant
easy        greedy: the play that maximises its end-of-turn lead             well under 1 ms
medium      the strong search, 500 simulations                               about 2 ms
hard        the strong search, 300,000 simulations in 2 parts (the hint's)  about 0.3 s
expert      the strong search, 400,000 simulations in 4 parts                about 1 s
==========  ===============================================================  ======================

The strong search (:mod:`converge.bots.search`) plays out with greedy placements half of the time and solves
endgames exactly once the deck is empty; its budgets are defined in :mod:`converge.bots.budgets`. A level's
parts run on every core at once where the native core is built (a second of expert is half a second on two).

>>> bot = make_bot("greedy", seed=1)
>>> bot.name, LEVELS
('greedy', ('beginner', 'easy', 'medium', 'hard', 'expert'))
"""

from __future__ import annotations

from collections.abc import Callable

from converge.bots import budgets
from converge.bots.base import Bot
from converge.bots.greedy import GreedyBot
from converge.bots.ismcts import ISMCTSBot
from converge.bots.random_bot import RandomBot


def _level(name: str, make: Callable[[int], Bot]) -> Callable[[int], Bot]:
    def build(seed: int) -> Bot:
        bot = make(seed)
        bot.name = name
        return bot

    return build


#: The named levels, weakest first (what the terminal and web clients offer).
LEVELS: tuple[str, ...] = ("beginner", "easy", "medium", "hard", "expert")

#: Bot names and their constructors (each takes a seed): the levels and the algorithms behind them.
BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "ismcts": lambda seed: ISMCTSBot(seed, iterations=2000),
    "beginner": _level("beginner", RandomBot),
    "easy": _level("easy", GreedyBot),
    "medium": lambda seed: ISMCTSBot(seed, settings=budgets.MEDIUM, name="medium"),
    "hard": lambda seed: ISMCTSBot(seed, settings=budgets.HARD, name="hard"),
    "expert": lambda seed: ISMCTSBot(seed, settings=budgets.EXPERT, name="expert"),
}


#: ``ismcts:N``: information-set MCTS with a fixed budget of N simulations per decision and no time limit,
#: so that a simulation or a ladder at that strength repeats exactly from its seed.
BUDGET_PREFIX = "ismcts:"
MAX_BUDGET = 1_000_000


def _budget(name: str) -> int | None:
    """N of ``ismcts:N`` (a whole number from 1 to :data:`MAX_BUDGET`), None for any other name."""
    if not name.startswith(BUDGET_PREFIX):
        return None
    digits = name[len(BUDGET_PREFIX):]
    if not digits.isdigit() or len(digits) > 7 or not 1 <= int(digits) <= MAX_BUDGET:
        return None
    return int(digits)


def is_bot_name(name: str) -> bool:
    """A name :func:`make_bot` takes: a level, an algorithm, or ``ismcts:N``."""
    key = name.strip().lower()
    return key in BOTS or _budget(key) is not None


def bot_display_name(name: str) -> str:
    """How players see a bot: a level as "Hard bot", an algorithm by its own name ("ISMCTS bot").

    >>> bot_display_name("hard"), bot_display_name("ismcts")
    ('Hard bot', 'ISMCTS bot')
    """
    key = name.strip().lower()
    if _budget(key) is not None:
        return f"ISMCTS bot ({_budget(key):,} simulations)"
    word = key.capitalize() if key in LEVELS else {"ismcts": "ISMCTS"}.get(key, key.capitalize())
    return f"{word} bot"


def make_bot(name: str, seed: int = 0) -> Bot:
    """A new bot by name (a level or an algorithm), seeded; ``ValueError`` for an unknown name."""
    key = name.strip().lower() if isinstance(name, str) else name
    budget = _budget(key) if isinstance(key, str) else None
    if budget is not None:
        return ISMCTSBot(seed, iterations=budget, name=f"{BUDGET_PREFIX}{budget}")
    if key not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(sorted(BOTS))}, or ismcts:N for N simulations "
                         "per decision)")
    return BOTS[key](seed)


__all__ = ["BOTS", "LEVELS", "Bot", "GreedyBot", "ISMCTSBot", "RandomBot", "bot_display_name", "is_bot_name",
           "make_bot"]
