"""The strong bot: the strong search (:mod:`converge.bots.search`) at each decision, on a budget of simulations.

At a decision the bot searches its view and plays the search's best option; the search also judged the
bot's own next steps of the same play (how to play the card it chose, its targets), so when the next
decision is such a step, with nothing come to light in between, the bot plays the best of those from the same
tree instead of searching again.

The bot is seeded: the same seed and the same views give the same decisions, on any machine and with the
native core or without it (the two searches are the same, draw for draw).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from converge.bots.estimates import Estimate, Found, prefer
from converge.bots.search import SearchView, Settings, search
from converge.engine.schema import Observation

if TYPE_CHECKING:
    from converge.engine.view import PlayerView


class ISMCTSBot:
    """The strong search with ``iterations`` simulations per decision, spent in ``parts`` (see
    :class:`~converge.bots.search.Settings`; or a whole budget as ``settings``); ``threads``: how many parts
    may run at once (0: as many as there are parts; a simulation running bots on every core already passes
    1). ``greedy`` is the playout's share of greedy placements (0: uniformly random playouts)."""

    def __init__(self, seed: int = 0, iterations: int = 2000, exploration: float = 0.7, name: str = "ismcts",
                 greedy: float = 0.5, parts: int = 1, threads: int = 0, settings: Settings | None = None) -> None:
        if settings is None:
            if iterations <= 0:
                raise ValueError("the strong bot needs a positive budget of simulations")
            settings = Settings(iterations, parts, exploration, greedy)
        self.settings = settings
        self.seed = seed
        self.rng = random.Random(seed)
        self.threads = threads
        self.name = name
        self.last_iterations = 0
        self._plan: tuple[Observation, list[Estimate]] | None = None

    @property
    def iterations(self) -> int:
        return self.settings.simulations

    def reset(self) -> None:
        """Forget the plan of the play in progress (the seeded generator keeps its state)."""
        self._plan = None

    def decide(self, view: PlayerView) -> int:
        legal = view.legal_actions()
        if not legal:
            raise ValueError("the strong bot was asked to decide, but it is not its decision")
        planned = self._planned(view, legal)
        if planned is not None:
            return self._chose(view, planned.action, planned.then)
        if len(legal) == 1:
            self._plan = None
            return legal[0]
        found = self.analyse(view)
        best = found.best()
        return self._chose(view, best, next(e.then for e in found.estimates if e.action == best))

    def analyse(self, view: SearchView, depth: int = 3) -> Found:
        """Search the view's decision: what a hint is made of (see :func:`~converge.bots.search.search`)."""
        found = search(view, self.settings, self.rng.getrandbits(62), depth, self.threads)
        self.last_iterations = found.simulations
        return found

    def _planned(self, view: PlayerView, legal: list[int]) -> Estimate | None:
        """The best next step of the play in progress, judged by the search that chose its first step: when
        this view is what the bot expected after that step and the search tried every option of it."""
        plan, self._plan = self._plan, None
        if plan is None or plan[0] != view.observation() or sorted(e.action for e in plan[1]) != legal:
            return None
        return max(plan[1], key=lambda e: (e.mean, prefer(e.action), -e.action))

    def _chose(self, view: PlayerView, action: int, then: list[Estimate]) -> int:
        """Play ``action``, keeping the judgement of the next step when it is a step of the same play."""
        step = view.follow_up(action) if then else None
        self._plan = (step.observation(), then) if step is not None else None
        return action

    def __repr__(self) -> str:
        return f"ISMCTSBot({self.settings.simulations} simulations, seed={self.seed})"
