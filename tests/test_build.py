"""The shipped engine is the compiled one (the speed docs/benchmarks.md reports), built from the same source."""

from __future__ import annotations

import os

import pytest

import converge.engine.state as state


@pytest.mark.skipif(os.environ.get("CONVERGE_PURE") == "1", reason="pure-Python run: src on PYTHONPATH")
def test_engine_hot_module_is_compiled_by_mypyc() -> None:
    assert state.__file__ is not None
    assert state.__file__.endswith(".so"), f"engine not compiled: {state.__file__}"


def test_pure_run_uses_the_source_module() -> None:
    if os.environ.get("CONVERGE_PURE") != "1":
        pytest.skip("compiled run")
    assert state.__file__ is not None and state.__file__.endswith("state.py")
