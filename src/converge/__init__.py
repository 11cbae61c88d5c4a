"""Converge: a two-player card game of shifting goals and a contested artifact.

>>> from converge import Match
>>> m = Match.new(["protector", "searcher", "merchant"], seed=1)
>>> obs = m.observation(m.current_player)
>>> len(obs["hand"]), obs["hand_sizes"], obs["deck_size"]
(3, [3, 3], 10)
"""

from converge.engine import (
    ConvergeError,
    IllegalActionError,
    Match,
    Playset,
    PlaysetError,
    PositionError,
    RecordError,
)

__version__ = "0.1.0"
__all__ = ["ConvergeError", "IllegalActionError", "Match", "Playset", "PlaysetError", "PositionError",
           "RecordError", "__version__"]
