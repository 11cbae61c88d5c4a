"""The PettingZoo AEC environment converge_v0: PettingZoo's own API and seed tests, and what it shows."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo")  # the rl extra; numpy comes with it

import numpy as np
from pettingzoo.test import api_test, seed_test

from converge.adapters import converge_v0
from converge.adapters.encoding import INFO_STATE_SIZE, OBSERVATION_SIZE
from converge.engine.errors import IllegalActionError
from tests.helpers import load_example
from tests.tensor_oracle import Encoder

# PettingZoo's checker warns about every dict observation {"observation", "action_mask"}, the layout of
# its own classic games; these two warnings are about that layout only.
DICT_OBSERVATION_WARNINGS = ("Observation is not a NumPy array",
                             "Observation space for each agent probably should be")


def _checked(fn: object, *args: object, **kwargs: object) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args, **kwargs)  # type: ignore[operator]
    other = [str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)]
    assert other == []


@pytest.mark.parametrize("kwargs", [{}, {"observation_type": "info_state", "start": 1},
                                    {"playset": "protector/searcher/merchant", "render_mode": "ansi"}])
def test_pettingzoo_api_test_passes(kwargs: dict[str, object]) -> None:
    _checked(api_test, converge_v0.env(**kwargs), num_cycles=400)
    _checked(api_test, converge_v0.raw_env(**kwargs), num_cycles=400)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(converge_v0.env, num_cycles=400)
    seed_test(lambda: converge_v0.env(playset=["delver", "astropath", "healer"]), num_cycles=400)


def test_a_random_rollout_ends_with_plus_and_minus_one() -> None:
    env = converge_v0.env()
    env.reset(seed=7)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        env.step(action)
    assert sorted(totals.values()) == [-1.0, 1.0]


def test_observations_come_from_the_agents_observation_only() -> None:
    for kind, size in (("observation", OBSERVATION_SIZE), ("info_state", INFO_STATE_SIZE)):
        env = converge_v0.raw_env(observation_type=kind)
        env.reset(seed=3)
        enc = Encoder(env.playset.card_ids, env.playset.skillsets)
        for _ in range(30):
            for p, agent in enumerate(env.possible_agents):
                obs = env.observe(agent)
                view = env.match.observation(p)
                want = enc.info_state_tensor(view, p) if kind == "info_state" else enc.observation_tensor(view, p)
                assert obs["observation"].shape == (size,)
                np.testing.assert_array_equal(obs["observation"], want)
                mask = obs["action_mask"]
                if agent == env.agent_selection:
                    assert list(np.flatnonzero(mask)) == env.match.legal_actions()
                else:
                    assert not mask.any()
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))


def test_render_shows_the_public_view_only() -> None:
    env = converge_v0.raw_env(render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "round 1" in text
    for p in (0, 1):
        assert not any(card in text for card in env.match.observation(p)["hand"])


def test_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = converge_v0.raw_env(render_mode="human")
    env.reset(seed=1)
    assert "round 1" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        converge_v0.raw_env(render_mode="video")


def test_an_illegal_action_raises_in_the_raw_env_and_loses_in_the_wrapped_one() -> None:
    raw = converge_v0.raw_env()
    raw.reset(seed=2)
    before = raw.match.observation(0)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        raw.step(illegal)
    assert raw.match.observation(0) == before  # nothing changed
    env = converge_v0.env()
    env.reset(seed=2)
    agent = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns that the illegal move ended the game
        env.step(illegal)
    assert env.terminations[agent] and env.rewards[agent] == -1


def test_the_random_rollout_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("pettingzoo_random_rollout")
    assert example.main(["--seed", "3", "--render"]) == 0
    out = capsys.readouterr().out
    assert "decisions; rewards: player_0" in out



def test_docstring_examples() -> None:
    import doctest

    from converge.adapters import pettingzoo as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


# ---------------------------------------------------------------------- options


def _rollout(env: object, seed: int) -> tuple[dict[str, float], object]:
    env.reset(seed=seed)  # type: ignore[attr-defined]
    totals: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():  # type: ignore[attr-defined]
        obs, reward, terminated, truncated, info = env.last()  # type: ignore[attr-defined]
        totals[agent] += reward
        mask = info["action_mask"] if "action_mask" in info else obs["action_mask"]
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))  # type: ignore[attr-defined]
    return totals, env


def test_per_round_rewards_and_one_round_episodes() -> None:
    for seed in range(4):
        raw = converge_v0.raw_env(reward="round")
        totals, _ = _rollout(raw, seed)
        wins = raw.match.round_wins
        assert totals == {"player_0": wins[0] - wins[1], "player_1": wins[1] - wins[0]} and max(wins) == 2
        short = converge_v0.raw_env(episode="round")
        totals, _ = _rollout(short, seed)
        assert sorted(short.match.round_wins) == [0, 1] and not short.match.is_terminal
        assert sorted(totals.values()) == [-1.0, 1.0]
        assert not short.observe("player_0")["action_mask"].any()  # round 2 is dealt, not the episode's
    _checked(api_test, converge_v0.env(episode="round", reward="round"), num_cycles=400)
    for kwargs in ({"reward": "turns"}, {"episode": "game"}, {"flat_observation": 1}):
        with pytest.raises(ValueError, match=next(iter(kwargs))):
            converge_v0.raw_env(**kwargs)


def test_the_flat_observation_is_a_box_with_the_mask_in_info() -> None:
    env = converge_v0.raw_env(flat_observation=True, observation_type="info_state")
    env.reset(seed=5)
    enc = Encoder(env.playset.card_ids, env.playset.skillsets)
    for _ in range(20):
        for p, agent in enumerate(env.possible_agents):
            obs = env.observe(agent)
            assert obs.shape == (INFO_STATE_SIZE,) and obs in env.observation_space(agent)
            np.testing.assert_array_equal(obs, enc.info_state_tensor(env.match.observation(p), p))
            mask = env.infos[agent]["action_mask"]
            deciding = agent == env.agent_selection
            assert list(np.flatnonzero(mask)) == (env.match.legal_actions() if deciding else [])
        env.step(int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0]))
    with warnings.catch_warnings(record=True) as caught:  # a Box: no dict-observation warnings either
        warnings.simplefilter("always")
        api_test(converge_v0.env(flat_observation=True), num_cycles=400)
        seed_test(lambda: converge_v0.env(flat_observation=True), num_cycles=400)
    assert [str(w.message) for w in caught] == []
    totals, _ = _rollout(converge_v0.env(flat_observation=True), 2)
    assert sorted(totals.values()) == [-1.0, 1.0]


def test_supersuits_observation_wrappers_take_the_flat_observation() -> None:
    ss = pytest.importorskip("supersuit")  # the test extra has it
    wrappers = {"flatten_v0": ss.flatten_v0, "frame_stack_v1": lambda e: ss.frame_stack_v1(e, 4),
                "normalize_obs_v0": ss.normalize_obs_v0, "dtype_v0": lambda e: ss.dtype_v0(e, np.float16)}
    shapes = {}
    for name, wrap in wrappers.items():
        wrapped = wrap(converge_v0.env(flat_observation=True))
        _checked(api_test, wrapped, num_cycles=200)
        totals, _ = _rollout(wrapped, 1)
        assert sorted(totals.values()) == [-1.0, 1.0], name
        shapes[name] = (wrapped.observation_space("player_0").shape, wrapped.observation_space("player_0").dtype)
    assert shapes["frame_stack_v1"][0] == (4 * OBSERVATION_SIZE,) and shapes["dtype_v0"][1] == np.float16
    with pytest.raises(AttributeError):  # the dict observation is what SuperSuit cannot take
        ss.dtype_v0(converge_v0.env(), np.float16)


def test_rgb_array_draws_the_public_table() -> None:
    from converge.adapters.image import TableRenderer

    env = converge_v0.raw_env(render_mode="rgb_array")
    env.reset(seed=3)
    frame = env.render()
    assert frame.shape == (480, 720, 3) and frame.dtype == np.uint8
    np.testing.assert_array_equal(frame, TableRenderer(env.playset).render(env.match.public_observation()))


def test_hidden_cards_move_no_flat_observation_or_mask() -> None:
    from tests.helpers import setup

    a = setup(hands=(["ALC1", "MEC2"], ["ARC3", "ARC4"]), deck=["ALC6", "MEC6", "ARC6"], artifact="MEC5")
    b = setup(hands=(["ALC1", "MEC2"], ["MEC6", "MEC5"]), deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
    views = []
    for match in (a, b):
        env = converge_v0.raw_env(flat_observation=True)
        env.reset(seed=0)
        env.match = match
        env._update_masks()
        views.append((env.observe("player_0"), env.infos["player_0"]["action_mask"]))
    assert a.observation(0) == b.observation(0) and a.observation(1) != b.observation(1)
    np.testing.assert_array_equal(views[0][0], views[1][0])
    np.testing.assert_array_equal(views[0][1], views[1][1])
