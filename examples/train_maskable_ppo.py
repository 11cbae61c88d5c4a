"""A short training run: a small policy learns Converge against the random bot with Stable-Baselines3.

    pip install 'converge-game[rl,learn]'    # or: pip install torch==2.13.0 stable-baselines3 sb3-contrib
    python examples/train_maskable_ppo.py --timesteps 20000
    python examples/train_maskable_ppo.py --minutes 10 --save maskable_ppo.zip   # then enter it on the ladder:
    CONVERGE_PPO_MODEL=maskable_ppo.zip converge ladder --bots greedy,examples.ppo_agent:PPOAgent --per-pair 50

``sb3_contrib``'s ``MaskablePPO`` trains a two-layer MLP on the Gymnasium environment
(:class:`converge.adapters.gymnasium.ConvergeEnv`) with ``flat_observation=True`` (the tensor as a ``Box``,
which Stable-Baselines3's MLP policy takes), masking illegal actions with the environment's
``action_masks()``; it plays a random seat of each match. Everything installs from the package registries and
nothing is downloaded at run time. The script then compares the trained policy's win rate against the random
bot with a uniformly random policy's. ``--minutes`` trains for that long instead of a number of steps;
``--save`` keeps the model, which :class:`examples.ppo_agent.PPOAgent` plays on the ladder.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from converge.adapters.gymnasium import ConvergeEnv

INSTALL = "pip install torch==2.13.0 stable-baselines3==2.9.2 sb3-contrib==2.9.2"


def make_env(seed: int, opponent: str = "random") -> ConvergeEnv:
    env = ConvergeEnv(opponent=opponent, player="random", flat_observation=True)
    env.reset(seed=seed)
    return env


def win_rate(env: ConvergeEnv, choose: Any, episodes: int, seed: int) -> float:
    """The share of ``episodes`` won by ``choose(observation, mask) -> action``."""
    wins = 0
    for e in range(episodes):
        obs, _ = env.reset(seed=seed + e)
        done, reward = False, 0.0
        while not done:
            obs, r, terminated, truncated, _ = env.step(choose(obs, env.action_masks()))
            reward, done = float(r), terminated or truncated
        wins += reward > 0
    return wins / episodes


def train(timesteps: int, seed: int, opponent: str = "random", minutes: float | None = None) -> Any:
    """A ``MaskablePPO`` trained for ``timesteps`` steps (or, given ``minutes``, for that long) against
    ``opponent``. One torch thread: the same seed then gives the same model (and the ladder's other
    process keeps its core)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(1)
    env = make_env(seed, opponent)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, learning_rate=3e-4, gamma=0.99,
                        policy_kwargs={"net_arch": [64, 64]}, seed=seed, verbose=0, device="cpu")
    if minutes is None:
        model.learn(total_timesteps=timesteps)
        return model

    class Deadline(BaseCallback):  # type: ignore[misc]
        """Stops training once the time is up (SB3 stops when a callback's step answers False)."""

        def __init__(self, seconds: float) -> None:
            super().__init__()
            self.end = time.monotonic() + seconds

        def _on_step(self) -> bool:
            return time.monotonic() < self.end

    model.learn(total_timesteps=10**9, callback=Deadline(60 * minutes))
    return model


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=20_000, help="training steps (default 20000)")
    parser.add_argument("--minutes", type=float, default=None, help="train for this long instead of --timesteps")
    parser.add_argument("--episodes", type=int, default=100, help="evaluation matches (default 100)")
    parser.add_argument("--opponent", default="random", help="the opponent bot (default random)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="save the trained model here (a .zip)")
    args = parser.parse_args(argv)
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:
        print(f"this example needs Stable-Baselines3 and sb3-contrib: {INSTALL}")
        return 2

    start = time.perf_counter()
    model = train(args.timesteps, args.seed, args.opponent, args.minutes)
    print(f"trained MaskablePPO for {model.num_timesteps} steps in {time.perf_counter() - start:.1f} s")
    if args.save:
        model.save(args.save)
        print(f"saved the model to {args.save}")

    rng = np.random.default_rng(args.seed)
    evaluation = make_env(args.seed + 1, args.opponent)
    trained = win_rate(evaluation, lambda obs, mask: int(model.predict(obs, action_masks=mask,
                                                                         deterministic=True)[0]),
                       args.episodes, seed=10_000)
    uniform = win_rate(evaluation, lambda obs, mask: int(rng.choice(np.flatnonzero(mask))),
                       args.episodes, seed=10_000)
    print(f"against the {args.opponent} bot over {args.episodes} matches: trained policy wins {trained:.0%}, "
          f"a uniformly random policy {uniform:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
