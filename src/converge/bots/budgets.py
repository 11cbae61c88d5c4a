"""The budgets of the strong search, defined once: every door that judges a decision and every level of the
strong bot asks here (see :class:`~converge.bots.search.Settings` for what a budget holds).

The hint's budget is the one :func:`converge.bots.hint.hint`, the match review and ``converge calibrate``
spend. A calibration map records the budget it was fitted on (``hint_calibration.json``), and the doors spend
the map's, so that the chances a player reads are those that were measured; :data:`HINT` is what a new map is
fitted on. Its size is set by ``converge stability`` (docs/bots.md): enough for four presses of Hint with other
seeds to name the same best option nine times in ten, in well under a second on two cores. Its parts are as
few as the cores that run them: each part grows its own tree, and a tree of 37,500 simulations (8 parts) saw
too shallow to rate some cards as a search ten times longer did, where one of 150,000 (2 parts) agreed.

The levels' budgets are set by their time per decision and their strength (docs/bots.md): hard searches as the
hint does (it plays what the hint would advise; at 100,000 simulations it was no stronger than the release
before the native core), within a second and a half of CPU at the 99th percentile; expert in more parts.
"""

from __future__ import annotations

from converge.bots.search import Settings

#: The hint's, the review's and ``converge calibrate``'s search.
HINT = Settings(simulations=300_000, parts=2, engine_share=10)

#: The strong bot's levels.
MEDIUM = Settings(simulations=500)
HARD = HINT
EXPERT = Settings(simulations=400_000, parts=4, engine_share=10)
