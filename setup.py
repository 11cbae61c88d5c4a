"""Build hook: compile the rules engine's hot modules with mypyc (set CONVERGE_PURE=1 to skip), and the
native core (converge._native, plain C: a second implementation of a round's rules, with the search, proved
equal to the engine by tests/engine/test_native.py).

The mypyc-compiled modules are the same source, type-checked strictly. The native core is built whenever a C
compiler is there (also with CONVERGE_PURE=1: it takes seconds, not minutes); without one the package falls
back to pure Python and the Python search, which is correct but much slower.
"""

import glob
import os

from setuptools import setup


def _native() -> list:
    from setuptools import Extension

    sources = sorted(glob.glob("src/converge/native/*.c"))
    # -ffp-contract=off: no fused multiply-add, so the search's arithmetic is Python's, to the last bit, on
    # every machine (the tests compare the two searches draw for draw); -flto and hidden symbols let the
    # compiler inline the rules into the search across files.
    return [Extension("converge._native", sources, depends=sorted(glob.glob("src/converge/native/*.h")),
                      extra_compile_args=["-O3", "-ffp-contract=off", "-std=c11", "-fvisibility=hidden", "-flto"],
                      extra_link_args=["-O3", "-flto"], optional=True)]


def _extensions() -> list:
    if os.environ.get("CONVERGE_PURE") == "1":
        return _native()
    try:
        from mypyc.build import mypycify
    except ImportError:
        return _native()
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
    ], opt_level="3") + _native()


setup(ext_modules=_extensions())
