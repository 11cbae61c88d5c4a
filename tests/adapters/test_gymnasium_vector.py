"""The vector entry point: Gymnasium's own vector checks, step-for-step agreement with SyncVectorEnv in
every autoreset mode, masks through autoresets, and bad input.

Gymnasium ships no checker for vector environments (``gymnasium.utils.env_checker`` is for single ones);
its own vector tests (``tests/vector`` in its repository) hold each implementation to ``SyncVectorEnv``
with ``data_equivalence``, check the spaces are ``batch_space`` of the single ones, that returned data is
not reused, seeding and the autoreset modes. These tests do the same here.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

gym = pytest.importorskip("gymnasium")  # the rl extra; numpy comes with it

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402

from converge.adapters.gymnasium import ENV_ID, FINAL_ACTION, ConvergeEnv, ConvergeVectorEnv  # noqa: E402


def _masks(obs: Any, info: dict[str, Any]) -> np.ndarray:
    return np.asarray(info["action_mask"] if isinstance(obs, np.ndarray) else obs["action_mask"])


def test_make_vec_builds_the_vector_entry_point_without_a_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        envs = gym.make_vec(ENV_ID, num_envs=16, vectorization_mode="vector_entry_point", opponent="greedy")
        default = gym.make_vec(ENV_ID, num_envs=2)  # the vector entry point is the default mode
    assert [str(w.message) for w in caught] == []
    assert isinstance(envs, ConvergeVectorEnv) and isinstance(default, ConvergeVectorEnv)
    assert envs.num_envs == 16 and envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    single = ConvergeEnv()
    assert envs.single_observation_space == single.observation_space
    assert envs.observation_space == batch_space(single.observation_space, 16)
    assert envs.action_space == batch_space(single.action_space, 16)
    assert envs.spec is not None and envs.spec.kwargs["opponent"] == "greedy"
    obs, _ = envs.reset(seed=1)
    assert obs in envs.observation_space
    envs.close()
    assert envs.closed


OPTIONS = [{}, {"flat_observation": True}, {"observation_type": "info_state", "reward": "round"},
           {"episode": "round", "player": "random", "opponent": "greedy"}]


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=[m.value for m in AutoresetMode])
@pytest.mark.parametrize("kwargs", OPTIONS, ids=["default", "flat", "info_state-round", "one-round"])
def test_the_vector_env_returns_what_sync_vector_env_returns(mode: AutoresetMode, kwargs: dict[str, Any]) -> None:
    """Seeded alike, step for step: observations, masks, rewards, terminations and infos (final
    observations included), with now and then an illegal action."""
    n = 3
    vec = ConvergeVectorEnv(n, autoreset_mode=mode, **kwargs)
    sync = SyncVectorEnv([lambda: ConvergeEnv(**kwargs) for _ in range(n)], autoreset_mode=mode)
    assert vec.observation_space == sync.observation_space and vec.action_space == sync.action_space
    a, b = vec.reset(seed=5), sync.reset(seed=5)
    assert data_equivalence(a, b, exact=True)
    obs, info = a
    mask = _masks(obs, info)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(250):
        assert mask.any(axis=1).all()
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        if rng.random() < 0.02:
            actions[0] = int(np.flatnonzero(mask[0] == 0)[0])  # an illegal action: it loses
        a, b = vec.step(actions), sync.step(actions)
        for mine, theirs in zip(a, b, strict=True):
            assert data_equivalence(mine, theirs, exact=True)
        obs, _, terminated, _, info = a
        mask = _masks(obs, info)
        ends += int(terminated.sum())
        if mode == AutoresetMode.DISABLED and terminated.any():
            a, b = vec.reset(options={"reset_mask": terminated}), sync.reset(options={"reset_mask": terminated})
            assert data_equivalence(a, b, exact=True)
            # a partial reset's info holds only the matches reset: the others keep their last mask
            mask = np.where(terminated[:, None], _masks(*a), mask)
    assert ends > 5


def test_no_mask_is_all_zero_through_autoresets() -> None:
    """16 matches, masked random play for thousands of steps: a row that is a decision masks exactly the
    legal actions; a final observation masks FINAL_ACTION alone (and the next step's action is ignored)."""
    envs = gym.make_vec(ENV_ID, num_envs=16, player="random")
    obs, _ = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    finals = 0
    previous_done = np.zeros(16, dtype=bool)
    for _ in range(600):
        mask = obs["action_mask"]
        assert mask.any(axis=1).all()
        for i, env in enumerate(envs.unwrapped.envs):
            legal = list(np.flatnonzero(mask[i]))
            if previous_done[i]:
                assert legal == [FINAL_ACTION]
                finals += 1
            else:
                assert legal == env.match.legal_actions()
        obs, _, terminated, truncated, _ = envs.step((rng.random(mask.shape) * mask).argmax(axis=1))
        previous_done = terminated | truncated
    assert finals > 50
    assert np.array_equal(envs.action_masks(), obs["action_mask"].astype(bool))


def test_returned_arrays_are_not_reused() -> None:
    envs = ConvergeVectorEnv(4)
    first, info = envs.reset(seed=0)
    kept = {k: v.copy() for k, v in first.items()}
    wins = info["round_wins"].copy()
    second, *_ = envs.step(first["action_mask"].argmax(axis=1))
    for key in kept:
        np.testing.assert_array_equal(first[key], kept[key])
        assert not np.shares_memory(first[key], second[key])
    np.testing.assert_array_equal(info["round_wins"], wins)
    second["observation"][:] = 0.5  # a caller may write into what it got
    third, *_ = envs.step(second["action_mask"].argmax(axis=1))
    assert third["observation"].max() <= 1.0 and not np.shares_memory(second["observation"], third["observation"])


def test_seeds_repeat_the_matches_and_seed_lists_seed_each_match() -> None:
    def run(seed: Any) -> list[Any]:
        envs = ConvergeVectorEnv(3, player="random")
        obs, _ = envs.reset(seed=seed)
        out = [obs]
        for _ in range(40):
            out.append(envs.step(obs["action_mask"].argmax(axis=1)))
            obs = out[-1][0]
        return out

    assert data_equivalence(run(7), run(7), exact=True)
    assert data_equivalence(run(7), run([7, 8, 9]), exact=True)  # an int seeds match i with seed + i
    assert not data_equivalence(run(7), run(8), exact=True)
    with pytest.raises(ValueError, match="3 seeds"):
        ConvergeVectorEnv(3).reset(seed=[1, 2])


def test_gymnasiums_vector_wrappers_run_on_it() -> None:
    # each wrapper on its own: Gymnasium 1.1 (the oldest the rl extra admits) fails DictInfoToList over
    # RecordEpisodeStatistics on any vector env (its episode dict has no "_r"; CartPole's too)
    from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

    stats = RecordEpisodeStatistics(gym.make_vec(ENV_ID, num_envs=4))
    obs, _ = stats.reset(seed=0)
    returns: list[float] = []
    for _ in range(300):
        obs, _, _, _, infos = stats.step(obs["action_mask"].argmax(axis=1))
        if "episode" in infos:
            returns += infos["episode"]["r"][infos["_episode"]].tolist()
    assert returns and all(r in (-1.0, 1.0) for r in returns)
    listed = DictInfoToList(gym.make_vec(ENV_ID, num_envs=4))
    obs, infos = listed.reset(seed=0)
    assert isinstance(infos, list) and len(infos) == 4 and infos[0]["player"] == 0
    for _ in range(60):
        obs, _, _, _, infos = listed.step(obs["action_mask"].argmax(axis=1))
        assert [set(i) for i in infos] == [{"player", "round_wins", "scores"}] * 4


def test_gymnasiums_vector_benchmark_runs_on_it() -> None:
    # Gymnasium 1.1, the oldest the rl extra admits, has no benchmark_vector_step (the package itself
    # works there: only this test needs the newer Gymnasium that constraints.txt pins)
    from gymnasium.utils import performance

    if not hasattr(performance, "benchmark_vector_step"):
        pytest.skip(f"Gymnasium {gym.__version__} has no gymnasium.utils.performance.benchmark_vector_step")
    assert performance.benchmark_vector_step(gym.make_vec(ENV_ID, num_envs=2), target_duration=0, seed=0) > 0


def test_render_gives_every_matchs_frame() -> None:
    frames = ConvergeVectorEnv(3, render_mode="rgb_array")
    frames.reset(seed=0)
    images = frames.render()
    assert images is not None and len(images) == 3 and all(f.shape == (480, 720, 3) for f in images)
    text = ConvergeVectorEnv(2, render_mode="ansi")
    text.reset(seed=0)
    assert all(isinstance(t, str) and "hand: " in t for t in text.render() or ())
    assert ConvergeVectorEnv(2).render() is None


def test_bad_input_gets_a_clear_error_and_changes_nothing() -> None:
    with pytest.raises(ValueError, match="num_envs must be a positive integer, got 0"):
        ConvergeVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        ConvergeVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="reward must be"):
        gym.make_vec(ENV_ID, num_envs=2, reward="points")
    envs = ConvergeVectorEnv(2)
    obs, _ = envs.reset(seed=0)
    before = [env.match.observation(0) for env in envs.envs]
    with pytest.raises(ValueError, match=r"one action per match, shape \(2,\), got shape \(3,\)"):
        envs.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.array([1, 0])})
    assert [env.match.observation(0) for env in envs.envs] == before
    disabled = ConvergeVectorEnv(1, autoreset_mode="Disabled", episode="round")
    obs, _ = disabled.reset(seed=0)
    done = False
    while not done:
        obs, _, terminated, _, _ = disabled.step(obs["action_mask"].argmax(axis=1))
        done = bool(terminated[0])
    with pytest.raises(RuntimeError, match="call reset"):
        disabled.step(np.zeros(1, dtype=np.int64))


def test_hidden_cards_move_no_batched_observation_mask_or_info() -> None:
    """Two matches that differ only in cards player 0 cannot see (the other hand, the deck order, the
    artifact) fill the vector env's rows for player 0 identically, flat or not, before and after moves."""
    from tests.helpers import setup

    for flat in (False, True):
        envs = ConvergeVectorEnv(2, flat_observation=flat, player=0)
        envs.reset(seed=0)
        a = setup(hands=(["ALC1", "MEC2"], ["ARC3", "ARC4"]), deck=["ALC6", "MEC6", "ARC6"], artifact="MEC5")
        b = setup(hands=(["ALC1", "MEC2"], ["MEC6", "MEC5"]), deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
        for episode, match in zip(envs._episodes, (a, b), strict=True):
            episode.match, episode.seat, episode.done = match, 0, False
        for move in (None, "ALC1", "mine"):
            if move is not None:
                a.apply(move)
                b.apply(move)
            assert a.observation(0) == b.observation(0) and a.observation(1) != b.observation(1)
            obs, info = envs._batch({}, [])
            rows = obs if flat else obs["observation"]
            np.testing.assert_array_equal(rows[0], rows[1])
            masks = _masks(obs, info)
            np.testing.assert_array_equal(masks[0], masks[1])
            for key in ("player", "round_wins", "scores"):
                np.testing.assert_array_equal(info[key][0], info[key][1])
