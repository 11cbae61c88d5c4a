"""examples/getting_started.ipynb runs from top to bottom, as a reader runs it (a plain runner: its code cells
in order, in one fresh interpreter, in an empty folder)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

NOTEBOOK = ROOT / "examples" / "getting_started.ipynb"


def code_of(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in cells)  # kept without outputs
    return "\n\n".join("".join(c["source"]) for c in cells)


def test_the_notebook_runs_and_its_agent_learns(tmp_path: Path) -> None:
    """Every framework loads the game, the agent trains, the learning curve is drawn, and the trained agent
    beats the random bot clearly more often than a uniform policy does (the run is seeded: the same figures
    every time)."""
    pytest.importorskip("pyspiel")
    pytest.importorskip("matplotlib")
    done = subprocess.run([sys.executable, "-c", code_of(NOTEBOOK)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "learning_curve.png").read_bytes().startswith(b"\x89PNG")
    m = re.search(r"against random: trained (\d+)/400 .*; uniform (\d+)/400", done.stdout)
    assert m is not None, done.stdout
    trained, uniform = int(m[1]), int(m[2])
    assert trained >= 280 and trained - uniform >= 60, done.stdout
