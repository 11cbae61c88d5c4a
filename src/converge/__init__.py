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

__version__ = "0.1.0"  # the one place the version is written (pyproject.toml reads it)
#: The name to install the package by (``import converge``): "converge" on PyPI is another project.
DISTRIBUTION = "converge-game"


def install_command(*extras: str) -> str:
    """The pip command that installs the package with ``extras``.

    >>> install_command("rl", "bench")
    "pip install 'converge-game[rl,bench]'"
    """
    return f"pip install '{DISTRIBUTION}[{','.join(extras)}]'" if extras else f"pip install {DISTRIBUTION}"


__all__ = ["DISTRIBUTION", "ConvergeError", "IllegalActionError", "Match", "Playset", "PlaysetError",
           "PositionError", "RecordError", "__version__", "install_command"]
