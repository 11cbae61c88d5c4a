"""OpenSpiel's loops and algorithms on python_converge, through the examples (small budgets)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("pyspiel")  # the rl extra

from tests.helpers import ROOT, load_example


def test_rl_environment_works_in_each_documented_form(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("openspiel_rl_environment")
    assert example.main(["--episodes", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["game string", "keywords", "game object"]
    assert all("observation of 507 floats" in line for line in lines)


def test_without_the_import_the_game_string_is_unknown_to_openspiel() -> None:
    """The cause of "Unknown game" the docs name: a fresh process that never imported the adapter."""
    code = ("from open_spiel.python import rl_environment\n"
            "rl_environment.Environment('python_converge(playset=alchemist/mechanist/archivist)')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode != 0 and "Unknown game" in out.stderr


def test_evaluate_bots_runs_openspiels_ismcts_bot(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("openspiel_evaluate_bots")
    assert example.main(["--games", "2", "--simulations", "4"]) == 0
    assert "won" in capsys.readouterr().out.splitlines()[-1]


def test_openspiels_ismcts_bot_alone_cannot_be_restarted() -> None:
    """What RestartableISMCTSBot is for: OpenSpiel's own bot fails in evaluate_bots."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

    game = pyspiel.load_game("python_converge")
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 4, random_state=rng)
    with pytest.raises(Exception, match="RestartAt"):
        evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, pyspiel.make_uniform_random_bot(1, 0)], rng)


def test_outcome_sampling_mccfr_learns_and_its_policy_plays(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("openspiel_mccfr")
    assert example.main(["--iterations", "20", "--games", "4"]) == 0
    out = capsys.readouterr().out
    assert "20 iterations" in out and "over 4 matches" in out
    assert int(out.split(" information states")[0].split()[-1]) > 20


def test_dqn_trains_or_says_what_to_install(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("openspiel_dqn")
    try:  # OpenSpiel's PyTorch DQN needs both
        import torch  # noqa: F401
        import tree  # noqa: F401  (dm-tree)
    except ImportError:  # not part of the rl extra, for their size: the example says how to get them
        assert example.main(["--episodes", "2"]) == 2
        assert example.INSTALL in capsys.readouterr().out
        return
    assert example.main(["--episodes", "4", "--games", "2"]) == 0
    assert "DQN trained on 4 matches" in capsys.readouterr().out
