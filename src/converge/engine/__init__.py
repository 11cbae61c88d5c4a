"""The Converge rules engine: :class:`Match`, its actions, errors, views, events and the kinds of goal and
effect (the extension points for new card mechanics)."""

from converge.engine.actions import DECLARE, DISCARD, DONE, MINE, NUM_ACTIONS, THEIRS
from converge.engine.effects import EffectKind, effect_kind, effect_kinds, register_effect
from converge.engine.errors import (
    ConvergeError,
    IllegalActionError,
    PlaysetError,
    PositionError,
    RecordError,
    UnknownKindError,
)
from converge.engine.events import EventKind
from converge.engine.goals import GoalKind, goal_kind, goal_kinds, register_goal
from converge.engine.playset import SETS, Playset, all_playsets
from converge.engine.state import Match
from converge.engine.view import PlayerView

__all__ = [
    "DECLARE", "DISCARD", "DONE", "MINE", "NUM_ACTIONS", "SETS", "THEIRS", "ConvergeError", "EffectKind",
    "EventKind", "GoalKind", "IllegalActionError", "Match", "PlayerView", "Playset", "PlaysetError",
    "PositionError", "RecordError", "UnknownKindError", "all_playsets", "effect_kind", "effect_kinds",
    "goal_kind", "goal_kinds", "register_effect", "register_goal",
]
