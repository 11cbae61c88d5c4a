"""The single-agent Gymnasium environment: Gymnasium's env checker, opponents, rewards and hidden cards."""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import Any

import pytest

gym = pytest.importorskip("gymnasium")  # the rl extra; numpy comes with it

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from converge import Match  # noqa: E402
from converge.adapters.encoding import OBSERVATION_SIZE  # noqa: E402
from converge.adapters.gymnasium import ENV_ID, ConvergeEnv  # noqa: E402
from converge.engine.errors import IllegalActionError  # noqa: E402
from tests.helpers import load_example, setup  # noqa: E402
from tests.tensor_oracle import Encoder  # noqa: E402


def _check(env: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=False)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("kwargs", [
    {},
    {"opponent": "greedy", "player": "random"},
    {"observation_type": "info_state", "player": 1, "playset": "protector/searcher/merchant"},
    {"opponent": lambda obs, legal: legal[-1]},
])
def test_gymnasium_env_checker_passes(kwargs: dict[str, Any]) -> None:
    _check(gym.make(ENV_ID, render_mode="ansi", **kwargs).unwrapped)
    _check(gym.make(ENV_ID, **kwargs).unwrapped)


def _play(env: ConvergeEnv, seed: int, pick: int = 0) -> tuple[list[int], float]:
    obs, _info = env.reset(seed=seed)
    actions, reward, done = [], 0.0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        assert list(legal) == list(np.flatnonzero(env.action_masks()))
        a = int(legal[pick % len(legal)])
        actions.append(a)
        obs, reward, done, truncated, _info = env.step(a)
        assert not truncated
    return actions, reward


def test_episodes_end_with_plus_or_minus_one_and_repeat_from_a_seed() -> None:
    env = ConvergeEnv(opponent="greedy", player="random")
    rewards = set()
    for seed in range(6):
        first = _play(env, seed)
        assert first == _play(env, seed)  # same seed, same episode (deals, seat and opponent)
        rewards.add(first[1])
    assert rewards <= {-1.0, 1.0}


def test_the_opponent_can_be_a_bot_name_a_bot_or_a_policy_that_sees_its_own_observation() -> None:
    from converge.bots import make_bot

    seen: list[int] = []

    def policy(observation: dict[str, Any], legal: list[int]) -> int:
        seen.append(observation["viewer"])
        assert [a["id"] for a in observation["decision"]["legal_actions"]] == legal
        return legal[0]

    for opponent in ("random", "greedy", make_bot("greedy", 3), policy):
        env = ConvergeEnv(opponent=opponent, player=0)
        _, reward = _play(env, seed=11)
        assert reward in (-1.0, 1.0)
    assert seen and set(seen) == {1}
    with pytest.raises(ValueError, match="unknown bot"):
        ConvergeEnv(opponent="grandmaster")
    with pytest.raises(ValueError, match="opponent"):
        ConvergeEnv(opponent=42)


def test_the_agent_observes_its_own_seat() -> None:
    env = ConvergeEnv(player=1)
    obs, info = env.reset(seed=5)
    assert info["player"] == 1 and env.match.current_player == 1
    enc = Encoder(env.playset.card_ids, env.playset.skillsets)
    np.testing.assert_array_equal(obs["observation"], enc.observation_tensor(env.match.observation(1), 1))
    assert obs["observation"].shape == (OBSERVATION_SIZE,)


def test_an_illegal_action_loses_or_raises() -> None:
    env = ConvergeEnv()
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = ConvergeEnv(illegal_action="raise")
    strict.reset(seed=1)
    before = strict.match.observation(0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)
    assert strict.match.observation(0) == before


def test_render_modes() -> None:
    env = ConvergeEnv(render_mode="ansi", player=0)
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and "hand: " in text  # the agent's own view
    assert not any(c in text for c in env.match.observation(1)["hand"])
    with pytest.raises(ValueError, match="render_mode must be one of 'human', 'ansi', 'rgb_array', got 'video'"):
        ConvergeEnv(render_mode="video")


def test_changing_hidden_cards_changes_no_tensor() -> None:
    """The encoder reads only the observation: hidden cards moved around, same tensors, bit for bit."""
    a = setup(hands=(["ALC1", "MEC2"], ["ARC3", "ARC4"]), deck=["ALC6", "MEC6", "ARC6"], artifact="MEC5")
    b = setup(hands=(["ALC1", "MEC2"], ["MEC6", "MEC5"]), deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
    enc = Encoder.for_playset(["alchemist", "mechanist", "archivist"])
    for move in (None, "ALC1", "mine"):
        if move is not None:
            a.apply(move)
            b.apply(move)
        oa, ob = a.observation(0), b.observation(0)
        assert oa == ob and a.observation(1) != b.observation(1)
        for p in (0, None):
            np.testing.assert_array_equal(enc.observation_tensor(oa, p), enc.observation_tensor(ob, p))
            np.testing.assert_array_equal(enc.info_state_tensor(oa, p), enc.info_state_tensor(ob, p))
        assert enc.legal_mask(oa).tolist() == enc.legal_mask(ob).tolist()


def test_tensors_stay_in_bounds_over_whole_matches() -> None:
    enc = Encoder.for_playset(["delver", "astropath", "healer"])
    rng = np.random.default_rng(0)
    for seed in range(4):
        m = Match.new(["delver", "astropath", "healer"], seed=seed)
        while not m.is_terminal:
            for p in (0, 1):
                t = enc.info_state_tensor(m.observation(p), p)
                assert np.isfinite(t).all() and t.min() >= 0.0 and t.max() <= 1.0
            legal = m.legal_actions()
            m.apply(legal[int(rng.integers(len(legal)))])


def test_the_training_example_trains_or_says_what_to_install(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("train_maskable_ppo")
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:  # not part of the rl extra (it brings PyTorch): the example says how to get it
        assert example.main(["--timesteps", "256"]) == 2
        assert example.INSTALL in capsys.readouterr().out
        return
    assert example.main(["--timesteps", "256", "--episodes", "4"]) == 0
    assert "trained policy wins" in capsys.readouterr().out



def test_every_decision_has_a_known_kind() -> None:
    """The encoder names each decision from the engine's prompt; a new wording must not go unnoticed."""
    from converge.adapters.encoding import decision_kind

    rng = np.random.default_rng(1)
    kinds: set[str] = set()
    for names in (["alchemist", "mechanist", "archivist"], ["protector", "searcher", "merchant"],
                  ["delver", "astropath", "healer"]):
        for seed in range(6):
            m = Match.new(names, seed=seed)
            while not m.is_terminal:
                for p in (0, 1):
                    kind = decision_kind(m.observation(p)["decision"])
                    assert kind != "other", m.observation(p)["decision"]
                    kinds.add(kind)
                legal = m.legal_actions()
                m.apply(legal[int(rng.integers(len(legal)))])
    assert kinds == {"select", "mode", "target", "skillset", "faction", "second"}


@pytest.mark.parametrize("name", ["converge.adapters.gymnasium", "converge.adapters.encoding"])
def test_docstring_examples(name: str) -> None:
    import doctest

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


# ---------------------------------------------------------------------- the final observation's mask


def test_a_final_observation_masks_only_the_placeholder_action() -> None:
    """When an episode ends no decision is left; the mask still offers one action (FINAL_ACTION), so a
    masked sampler never meets an all-zero row, and only there does the mask differ from the legal moves."""
    from converge.adapters.gymnasium import FINAL_ACTION

    env = ConvergeEnv(player="random")
    rng = np.random.default_rng(3)
    finals = 0
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = obs["action_mask"]
            assert list(np.flatnonzero(mask)) == env.match.legal_actions()  # a real decision: the legal moves
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.match.is_terminal
        assert list(np.flatnonzero(obs["action_mask"])) == [FINAL_ACTION]
        assert list(np.flatnonzero(env.action_masks())) == [FINAL_ACTION]
        assert not obs["observation"][-26:].any()  # the tensor's own legal part stays the engine's: none
        finals += 1
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[-1])
    obs, reward, done, _, info = env.step(illegal)  # lost by an illegal action: over, with moves left
    assert (reward, done, info["illegal_action"]) == (-1.0, True, True) and env.match.legal_actions()
    assert list(np.flatnonzero(obs["action_mask"])) == [FINAL_ACTION]
    assert finals == 8


def test_sync_vector_env_masks_are_never_all_zero() -> None:
    """The issue's measurement: SyncVectorEnv x2, masked sampling through autoresets, 6,000 steps."""
    envs = gym.vector.SyncVectorEnv([lambda: ConvergeEnv(player="random") for _ in range(2)])
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    empty = ends = 0
    for _ in range(3000):
        mask = obs["action_mask"]
        empty += int((~mask.any(axis=1)).sum())
        obs, _, terminated, _, _ = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))
        ends += int(terminated.sum())
    assert ends > 100 and empty == 0


# ---------------------------------------------------------------------- options


def test_bad_options_get_a_clear_error() -> None:
    for kwargs, message in (({"reward": "turn"}, "reward must be 'match' or 'round', got 'turn'"),
                            ({"episode": 2}, "episode must be 'match' or 'round', got 2"),
                            ({"flat_observation": "yes"}, "flat_observation must be True or False"),
                            ({"observation_type": "full"}, "observation_type must be"),
                            ({"illegal_action": "ignore"}, "illegal_action must be"),
                            ({"player": True}, "player must be 0, 1 or 'random'")):
        with pytest.raises(ValueError, match=message):
            ConvergeEnv(**kwargs)


def _episode(env: ConvergeEnv, seed: int) -> tuple[list[float], list[int]]:
    obs, info = env.reset(seed=seed)
    rewards: list[float] = []
    done = False
    rng = np.random.default_rng(seed)
    while not done:
        mask = obs["action_mask"]
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(float(reward))
    return rewards, list(info["round_wins"])


def test_per_round_rewards_pay_each_round_to_its_winner() -> None:
    env = ConvergeEnv(reward="round", player="random", opponent="greedy")
    for seed in range(6):
        rewards, wins = _episode(env, seed)
        me = env.seat
        assert sorted(r for r in rewards if r) == sorted([1.0] * wins[me] + [-1.0] * wins[1 - me])
        assert sum(rewards) == wins[me] - wins[1 - me] and max(wins) == 2


def test_one_round_episodes_end_with_the_first_round() -> None:
    for reward in ("match", "round"):
        env = ConvergeEnv(episode="round", reward=reward, player="random")
        for seed in range(6):
            rewards, wins = _episode(env, seed)
            assert sorted(wins) == [0, 1] and env.match.round_no == 2 and not env.match.is_terminal
            assert rewards[:-1] == [0.0] * (len(rewards) - 1)
            assert rewards[-1] == (1.0 if wins[env.seat] else -1.0)
    _check(gym.make(ENV_ID, episode="round", reward="round").unwrapped)


def test_the_flat_observation_is_the_tensor_with_the_mask_in_info() -> None:
    env = ConvergeEnv(flat_observation=True, player=1)
    obs, info = env.reset(seed=4)
    assert isinstance(env.observation_space, gym.spaces.Box) and obs in env.observation_space
    enc = Encoder(env.playset.card_ids, env.playset.skillsets)
    np.testing.assert_array_equal(obs, enc.observation_tensor(env.match.observation(1), 1))
    assert list(np.flatnonzero(info["action_mask"])) == env.match.legal_actions()
    _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (26,)
    _check(gym.make(ENV_ID, flat_observation=True, observation_type="info_state",
                    render_mode="rgb_array").unwrapped)


# ---------------------------------------------------------------------- rgb_array


def test_rgb_array_renders_the_agents_table_for_videos() -> None:
    env = ConvergeEnv(render_mode="rgb_array", opponent="greedy")
    env.reset(seed=2)
    first = env.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8 and first.shape == (480, 720, 3)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert not np.array_equal(first, env.render())  # the table moved on
    from gymnasium.wrappers import RenderCollection

    frames = RenderCollection(ConvergeEnv(render_mode="rgb_array"))
    frames.reset(seed=1)
    frames.step(int(np.flatnonzero(frames.unwrapped.action_masks())[0]))
    assert len(frames.render()) == 2


def test_an_image_shows_nothing_of_the_hidden_cards() -> None:
    """Two matches that differ only in cards player 0 cannot see draw the same picture for player 0, and
    the same public picture, pixel for pixel; what player 0 may see (its hand) changes the picture."""
    from converge.adapters.image import TableRenderer

    a = setup(hands=(["ALC1", "MEC2"], ["ARC3", "ARC4"]), deck=["ALC6", "MEC6", "ARC6"], artifact="MEC5")
    b = setup(hands=(["ALC1", "MEC2"], ["MEC6", "MEC5"]), deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
    c = setup(hands=(["ALC1", "MEC6"], ["MEC2", "MEC5"]), deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
    draw = TableRenderer(a.playset).render
    for move in (None, "ALC1", "mine"):
        if move is not None:
            a.apply(move)
            b.apply(move)
            c.apply(move)
        assert a.observation(0) == b.observation(0)
        np.testing.assert_array_equal(draw(a.observation(0)), draw(b.observation(0)))
        np.testing.assert_array_equal(draw(a.public_observation()), draw(c.public_observation()))
    assert not np.array_equal(draw(b.observation(0)), draw(c.observation(0)))  # its own hand is its to see


def test_a_random_start_gives_either_seat_the_artifact_and_repeats_from_the_seed() -> None:
    env = ConvergeEnv(start="random")
    holders = []
    for seed in range(16):
        env.reset(seed=seed)
        holders.append(env.match.round_first_holders[0])
        env.reset(seed=seed)
        assert env.match.round_first_holders[0] == holders[-1]
    assert set(holders) == {0, 1}
    for start in (0, 1):
        fixed = ConvergeEnv(start=start)
        assert {(fixed.reset(seed=s), fixed.match.round_first_holders[0])[1] for s in range(6)} == {start}
