"""Build hook: compile the rules engine's hot module with mypyc (set CONVERGE_PURE=1 to skip).

The compiled module is the same source, type-checked strictly; without a C compiler the package
falls back to pure Python, which is correct but about 2-3x slower.
"""

import glob
import os

from setuptools import setup


def _extensions() -> list:
    if os.environ.get("CONVERGE_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    return mypycify([
        "src/converge/engine/state.py", "src/converge/engine/turn.py", "src/converge/engine/zones.py",
        "src/converge/engine/events.py",
        "src/converge/engine/playset.py", "src/converge/engine/view.py", "src/converge/engine/actions.py",
        "src/converge/engine/tensors.py", "src/converge/engine/texts.py", "src/converge/engine/observation.py",
        "src/converge/engine/narration.py",
        "src/converge/engine/scoring.py",
        *sorted(glob.glob("src/converge/engine/effects/[a-z]*.py")),
        "src/converge/engine/goals/base.py", "src/converge/engine/goals/kinds.py",
        "src/converge/bots/greedy.py", "src/converge/bots/ismcts.py", "src/converge/simulation/replay.py",
        # the Gymnasium environments' episode loop (the vector env steps its matches in it)
        "src/converge/adapters/episodes.py", "src/converge/adapters/core.py",
    ], opt_level="3")


setup(ext_modules=_extensions())
