"""Bots: seeded players that see only what their player may know (see :mod:`converge.bots.base`).

>>> bot = make_bot("greedy", seed=1)
>>> bot.name, sorted(BOTS)
('greedy', ['greedy', 'random'])
"""

from __future__ import annotations

from collections.abc import Callable

from converge.bots.base import Bot
from converge.bots.greedy import GreedyBot
from converge.bots.random_bot import RandomBot

#: Bot names and their constructors (each takes a seed).
BOTS: dict[str, Callable[[int], Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A new bot by name (``"random"`` or ``"greedy"``), seeded; ``ValueError`` for an unknown name."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(sorted(BOTS))})")
    return BOTS[key](seed)


__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "make_bot"]
