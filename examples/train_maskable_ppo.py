"""A short training run: a small policy learns Converge against the random bot with Stable-Baselines3.

    pip install 'converge-game[rl]' torch==2.13.0 stable-baselines3==2.9.2 sb3-contrib==2.9.2
    python examples/train_maskable_ppo.py --timesteps 20000

``sb3_contrib``'s ``MaskablePPO`` trains a two-layer MLP on the Gymnasium environment
(:class:`converge.adapters.gymnasium.ConvergeEnv`) with ``flat_observation=True`` (the tensor as a ``Box``,
which Stable-Baselines3's MLP policy takes), masking illegal actions with the environment's
``action_masks()``. Everything installs from the package registries and nothing is downloaded at run
time. The script then compares the trained policy's win rate against the random bot with a uniformly
random policy's.
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=20_000, help="training steps (default 20000)")
    parser.add_argument("--episodes", type=int, default=100, help="evaluation matches (default 100)")
    parser.add_argument("--opponent", default="random", help="the opponent bot (default random)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        print(f"this example needs Stable-Baselines3 and sb3-contrib: {INSTALL}")
        return 2

    env = make_env(args.seed, args.opponent)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, learning_rate=3e-4, gamma=0.99,
                        policy_kwargs={"net_arch": [64, 64]}, seed=args.seed, verbose=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    print(f"trained MaskablePPO for {args.timesteps} steps in {time.perf_counter() - start:.1f} s")

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
