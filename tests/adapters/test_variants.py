"""The smaller variants in every framework: the checks the full game passes — OpenSpiel's API test and
random_sim_test, resampling and its ISMCTS bot, PettingZoo's api_test and seed_test, Gymnasium's
check_env — pass on ``tiny`` (and ``small``) too, with the same spaces."""

from __future__ import annotations

import random
import unittest
import warnings
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")  # the rl extra; numpy comes with it
pytest.importorskip("pettingzoo")
gym = pytest.importorskip("gymnasium")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from converge.adapters import converge_v0  # noqa: E402
from converge.adapters import openspiel as cvos  # noqa: E402  (registers python_converge)
from converge.adapters.encoding import OBSERVATION_SIZE  # noqa: E402
from converge.adapters.gymnasium import ENV_ID, ConvergeEnv  # noqa: E402
from converge.engine.errors import PlaysetError  # noqa: E402
from converge.engine.variant import TINY  # noqa: E402
from tests.adapters.test_pettingzoo import _checked  # noqa: E402

TINY_GAME = "python_converge(variant=tiny)"


def _load(text: str) -> cvos.ConvergeGame:
    game: cvos.ConvergeGame = pyspiel.load_game(text)
    return game


def test_the_game_string_takes_the_variant_and_says_it() -> None:
    game = _load(TINY_GAME)
    assert str(game) == "python_converge(playset=alchemist/mechanist,start=random,variant=tiny)"
    assert game.playset.variant is TINY and game.max_chance_outcomes() == 6
    assert game.num_distinct_actions() == 26 and game.observation_tensor_size() == OBSERVATION_SIZE
    assert str(_load(str(game))) == str(game)
    assert str(_load("python_converge")) == "python_converge(playset=alchemist/mechanist/archivist,start=random)"
    with pytest.raises(PlaysetError, match="unknown variant 'huge'"):
        _load("python_converge(variant=huge)")
    with pytest.raises(PlaysetError, match="two skillset names joined by '/' in the tiny variant"):
        _load("python_converge(variant=tiny,playset=alchemist/mechanist/healer)")


@pytest.mark.parametrize("game_string", [
    TINY_GAME, "python_converge(variant=tiny,playset=delver/healer,start=player0)",
    "python_converge(variant=small)"])
def test_openspiels_api_test_passes_whole_on_a_variant(game_string: str) -> None:
    api = pytest.importorskip("open_spiel.integration_tests.api_test")
    case = type("EnforceAPIPartialTree_variant_Test", (api.EnforceAPIOnPartialTreeBase,),
                {"game_name": "python_converge", "game": _load(game_string)})
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TestResult()
    suite.run(result)
    problems = [f"{test.id()}:\n{trace}" for test, trace in result.errors + result.failures]
    assert not problems, "\n\n".join(problems)
    assert result.testsRun == suite.countTestCases() > 0 and not result.skipped


@pytest.mark.parametrize(("game_string", "sims"), [
    (TINY_GAME, 30), ("python_converge(variant=small,start=player1)", 8)])
def test_openspiel_random_sim_test_passes_on_a_variant(game_string: str, sims: int) -> None:
    pyspiel.random_sim_test(_load(game_string), num_sims=sims, serialize=True, verbose=False)


def test_a_tiny_state_resamples_to_the_same_information_and_plays_on() -> None:
    game = _load(TINY_GAME)
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        state = game.new_initial_state()
        steps = rng.randrange(7, 20)
        while not state.is_terminal() and len(state.history()) < steps:
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        for p in (0, 1):
            other = state.resample_from_infostate(p, rng.random)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            while not other.is_terminal():
                other.apply_action(rng.choice(other.legal_actions()))
            checked += 1
    assert checked > 40


def test_openspiels_ismcts_bot_plays_a_tiny_match() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = _load(TINY_GAME)
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 20, random_state=rs)
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node() or state.current_player() == 1:
            state.apply_action(rng.choice(state.legal_actions()))
        else:
            state.apply_action(int(bot.step(state)))
    assert sorted(state.returns()) == [-1.0, 1.0]


@pytest.mark.parametrize("kwargs", [{"variant": "tiny"}, {"variant": "tiny", "observation_type": "info_state"},
                                    {"variant": "small", "playset": "delver/astropath/healer"}])
def test_pettingzoo_api_test_passes_on_a_variant(kwargs: dict[str, Any]) -> None:
    _checked(api_test, converge_v0.env(**kwargs), num_cycles=400)
    _checked(api_test, converge_v0.raw_env(**kwargs), num_cycles=400)


def test_pettingzoo_seed_test_passes_on_tiny() -> None:
    seed_test(lambda: converge_v0.env(variant="tiny"), num_cycles=400)


@pytest.mark.parametrize("kwargs", [
    {"variant": "tiny"}, {"variant": "tiny", "opponent": "greedy", "player": 1},
    {"variant": "tiny", "observation_type": "info_state", "playset": "healer/delver"}])
def test_gymnasium_env_checker_passes_on_tiny(kwargs: dict[str, Any]) -> None:
    for render in ({"render_mode": "ansi"}, {}):
        env = gym.make(ENV_ID, **render, **kwargs).unwrapped
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=False)
        assert [str(w.message) for w in caught] == []


def test_a_tiny_episode_is_one_round_and_the_playset_must_fit_the_variant() -> None:
    env = ConvergeEnv(variant="tiny", opponent="random")
    env.reset(seed=3)
    assert env.core.match.playset.variant is TINY and len(env.core.match.playset.cards) == 6
    with pytest.raises(PlaysetError, match="tiny variant is 2 skillset names"):
        ConvergeEnv(variant="tiny", playset="alchemist/healer/delver")
