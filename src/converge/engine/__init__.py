"""The Converge rules engine: :class:`Match`, its actions, errors and the playset tables."""

from converge.engine.actions import DECLARE, DISCARD, DONE, MINE, NUM_ACTIONS, THEIRS
from converge.engine.errors import (
    ConvergeError,
    IllegalActionError,
    PlaysetError,
    PositionError,
    RecordError,
)
from converge.engine.playset import SETS, Playset, all_playsets
from converge.engine.state import Match

__all__ = [
    "DECLARE", "DISCARD", "DONE", "MINE", "NUM_ACTIONS", "SETS", "THEIRS", "ConvergeError",
    "IllegalActionError", "Match", "Playset", "PlaysetError", "PositionError", "RecordError", "all_playsets",
]
