"""Goal kinds (T5): what they are (:mod:`.base`) and the built-ins (:mod:`.kinds`), registered here.

>>> goal_kind("most_cards").single_winner, goal_kind("rank_total").single_winner
(True, False)
"""

from converge.engine.goals.base import (
    CANNOT_WIN,
    FactionStats,
    GoalKind,
    builtin_goal_kinds,
    goal_kind,
    goal_kinds,
    goal_winners,
    register_builtin_goals,
    register_goal,
    unregister_goal,
)
from converge.engine.goals.kinds import builtin

if not goal_kinds():
    register_builtin_goals(builtin())

__all__ = ["CANNOT_WIN", "FactionStats", "GoalKind", "builtin_goal_kinds", "goal_kind", "goal_kinds",
           "goal_winners", "register_goal", "unregister_goal"]
