"""Agents from outside the package, for the ladder: ``converge ladder --bots greedy,examples.agents:RandomAgent``.

An agent is a class with ``decide(view) -> action id`` (made with the match's seed when it takes one). The
view is its own player's: what that player may know, and ``view.legal_actions()``. Replace the body of
``decide`` with your policy: a network trained on the Gymnasium or PettingZoo environments reads the same
tensors from ``converge.adapters.encoding.view_arrays(view)``.
"""

from __future__ import annotations

import random

from converge.engine.view import PlayerView


class RandomAgent:
    """Plays a uniformly random legal action (the floor any agent should beat)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: PlayerView) -> int:
        legal = view.legal_actions()
        return legal[self.rng.randrange(len(legal))]
