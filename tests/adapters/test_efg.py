"""Solving tiny exactly: the exported Gambit tree is python_converge's game, and OpenSpiel's CFR+ on it drives
the exploitability down (a subgame of tiny with two cards dealt, so that it takes seconds; the whole of tiny is
solved in docs/openspiel.md)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import policy as policy_lib  # noqa: E402
from open_spiel.python.algorithms import expected_game_score  # noqa: E402

import converge.adapters.openspiel  # noqa: E402,F401  (registers python_converge)
from converge.adapters import efg  # noqa: E402
from converge.adapters.efg import export_efg  # noqa: E402
from tests.helpers import load_example  # noqa: E402

GAME = "python_converge(variant=tiny,playset=mechanist/delver,start=player0)"


def _subgame(dealt: int) -> tuple[pyspiel.Game, pyspiel.State]:
    game = pyspiel.load_game(GAME)
    return game, efg.subgame(game, dealt)


def test_the_exported_tree_has_every_history_and_information_state_of_the_game() -> None:
    game, root = _subgame(3)
    _, size = export_efg(game, root)
    counts = [0, 0, 0]
    infosets: tuple[set[str], set[str]] = (set(), set())
    stack = [root]
    while stack:
        s = stack.pop()
        if s.is_terminal():
            counts[2] += 1
            continue
        if s.is_chance_node():
            counts[0] += 1
        else:
            counts[1] += 1
            infosets[s.current_player()].add(s.information_state_string())
        stack += [s.child(a) for a in s.legal_actions()]
    assert [size.chance, size.decisions, size.terminals] == counts
    assert size.infosets == (len(infosets[0]), len(infosets[1]))


def test_the_exported_game_has_the_same_value_and_actions_as_python_converge() -> None:
    game, root = _subgame(3)
    text, _ = export_efg(game, root)
    efg = pyspiel.load_efg_game(text)
    uniform = expected_game_score.policy_value(efg.new_initial_state(), [policy_lib.UniformRandomPolicy(efg)] * 2)

    def value(state: pyspiel.State) -> float:  # uniform random play in python_converge itself
        if state.is_terminal():
            return float(state.returns()[0])
        if state.is_chance_node():
            return sum(p * value(state.child(a)) for a, p in state.chance_outcomes())
        legal = state.legal_actions()
        return sum(value(state.child(a)) for a in legal) / len(legal)

    assert math.isclose(uniform[0], value(root), abs_tol=1e-9)
    first = efg.new_initial_state()
    while first.is_chance_node():
        first = first.child(first.legal_actions()[0])
    labels = {first.action_to_string(a) for a in first.legal_actions()}
    assert labels <= {str(a) for a in range(game.num_distinct_actions())}


@pytest.fixture(scope="module")
def example() -> Any:
    return load_example("openspiel_solve_tiny")


@pytest.fixture(scope="module")
def subgame(example: Any) -> pyspiel.Game:
    """tiny with its first two cards dealt: 5,000 decisions, 4,300 information states."""
    return example.tree(GAME, deal=2)[0]


def test_cfr_plus_drives_the_exploitability_of_a_tiny_subgame_below_a_hundredth(example: Any,
                                                                                subgame: pyspiel.Game) -> None:
    efg = subgame
    points = example.solve(efg, "cfr+", seconds=30.0, iterations=30)
    values = [p.exploitability for p in points]
    assert values[0] > 0.1  # the uniform start is far from an equilibrium
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(values))
    assert values[-1] < 0.01 and points[-1].iteration == 30


def test_cfr_and_mccfr_converge_more_slowly_but_converge(example: Any, subgame: pyspiel.Game) -> None:
    efg = subgame
    cfr = example.solve(efg, "cfr", seconds=30.0, iterations=20)
    mccfr = example.solve(efg, "mccfr", seconds=30.0, iterations=20)
    for points in (cfr, mccfr):
        assert points[-1].exploitability < points[0].exploitability / 4
    assert example.first_below(cfr, 1.0) is cfr[0] and example.first_below(cfr, 0.0) is None


def test_the_example_prints_what_it_solved_and_writes_the_curve(example: Any, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path
    assert example.main(["--game", GAME, "--deal", "3", "--seconds", "0.5", "--iterations", "5",
                         "--csv", str(out / "c.csv"), "--png", str(out / "c.png")]) == 0
    printed = capsys.readouterr().out
    assert "after 3 dealt" in printed and "cfr+: exploitability" in printed
    rows = (out / "c.csv").read_text().splitlines()
    assert rows[0] == "solver,iteration,seconds,exploitability" and len(rows) > 3
    assert (out / "c.png").read_bytes()[:4] == b"\x89PNG"
