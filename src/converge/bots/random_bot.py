"""The beginner: a uniformly random legal action."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from converge.engine.view import PlayerView


class RandomBot:
    """Chooses uniformly among the legal actions of its decision (the list its view holds)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "random"
        self.seed = seed
        self.rng = random.Random(seed)

    def decide(self, view: PlayerView) -> int:
        legal = view.legal_actions()
        if not legal:
            raise ValueError("the random bot was asked to decide, but there is no legal action")
        return legal[self.rng.randrange(len(legal))]

    def reset(self) -> None:
        """Nothing to forget: the random bot has no memory."""

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed})"
