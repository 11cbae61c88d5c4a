"""The learned agents of examples/ on the ladder: a saved MaskablePPO (examples/ppo_agent.py) and a saved DQN
(examples/dqn_agent.py) play from a bot's view the action their trained network picks from the tensor the
environment gave it in training. They need the ``learn`` extra (PyTorch): skipped without it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from converge import Match
from converge.adapters.encoding import legal_array, observation_array
from converge.bots.external import load_agent
from converge.simulation.ladder import run_ladder
from tests.helpers import CATALYSTS, ROOT, load_example


def positions() -> list[Match]:
    """Matches stopped at a few decisions of either player (a random game, seeded)."""
    import random

    rng = random.Random(3)
    match = Match.new(CATALYSTS, seed=3, log_events=False)
    found = []
    while not match.is_terminal and len(found) < 12:
        if rng.random() < 0.3:
            found.append(match.clone())
        legal = match.legal_actions()
        match.apply(legal[rng.randrange(len(legal))], match.current_player)
    return found


def test_a_saved_maskable_ppo_plays_its_policys_choice_on_the_ladder(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sb3_contrib")
    model_path = tmp_path / "ppo.zip"
    example = load_example("train_maskable_ppo")
    model = example.train(256, seed=0)
    model.save(model_path)
    monkeypatch.chdir(ROOT)  # (examples.ppo_agent imports from the checkout)
    monkeypatch.setenv("CONVERGE_PPO_MODEL", str(model_path))
    agent = load_agent("examples.ppo_agent:PPOAgent", 1)
    for match in positions():
        seat = match.current_player
        mask = legal_array(match, seat).astype(bool)
        expected, _ = model.predict(observation_array(match, seat), action_masks=mask, deterministic=True)
        assert agent.decide(match.view(seat)) == int(expected)
    result = run_ladder(["random", "examples.ppo_agent:PPOAgent"], 2, seed=1, workers=1)
    assert result.pairings[0].matches == 2


def test_a_saved_dqn_plays_the_legal_action_of_its_seats_highest_q_value(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tree")  # (dm-tree: OpenSpiel's PyTorch DQN imports it)
    torch = pytest.importorskip("torch")
    model_path = tmp_path / "dqn.pt"
    example = load_example("openspiel_dqn")
    env, agents = example.train(3, seed=0)
    example.save(env, agents, str(model_path))
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CONVERGE_DQN_MODEL", str(model_path))
    agent = load_agent("examples.dqn_agent:DQNAgent", 1)
    for match in positions():
        seat = match.current_player
        with torch.no_grad():
            q = agents[seat]._q_network(torch.from_numpy(observation_array(match, seat))[None])[0].numpy()
        legal = match.legal_actions()
        assert agent.decide(match.view(seat)) == legal[int(np.argmax(q[legal]))]
    assert run_ladder(["random", "examples.dqn_agent:DQNAgent"], 2, seed=1, workers=1).pairings[0].matches == 2


def test_a_learned_agent_without_its_model_says_how_to_make_one(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CONVERGE_PPO_MODEL", str(tmp_path / "none.zip"))
    with pytest.raises(ValueError, match=r"no model at .*none\.zip: train one with python "
                                         r"examples/train_maskable_ppo.py"):
        load_agent("examples.ppo_agent:PPOAgent")


def test_the_training_example_stops_when_its_minutes_are_up_and_saves_the_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sb3_contrib")
    example = load_example("train_maskable_ppo")
    model_path = tmp_path / "ppo.zip"
    assert example.main(["--minutes", "0.02", "--episodes", "2", "--save", str(model_path)]) == 0
    out = capsys.readouterr().out
    steps = int(out.split("trained MaskablePPO for ")[1].split()[0])
    assert 0 < steps < 10**9 and model_path.stat().st_size > 0
    assert f"saved the model to {model_path}" in out
