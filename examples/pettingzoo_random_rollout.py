"""A random rollout of the PettingZoo environment ``converge_v0``: each agent picks a legal action at random.

    python examples/pettingzoo_random_rollout.py --seed 1 --render

Needs the ``rl`` extra (``pip install 'converge-game[rl]'``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from converge.adapters import converge_v0


def rollout(seed: int, render: bool = False, playset: str = "alchemist/mechanist/archivist") -> dict[str, float]:
    """Play one match with uniformly random legal actions; return each agent's total reward."""
    env = converge_v0.env(playset=playset, render_mode="ansi" if render else None)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _info = env.last()
        totals[agent] += float(reward)
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            steps += 1
        env.step(action)
        if render and action is not None and steps % 20 == 0:
            print(env.render(), end="\n\n")
    env.close()
    print(f"{steps} decisions; rewards: " + ", ".join(f"{a} {r:+.0f}" for a, r in totals.items()))
    return totals


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render", action="store_true", help="print the public view every 20 decisions")
    parser.add_argument("--playset", default="alchemist/mechanist/archivist", help="three skillsets, a/b/c")
    args = parser.parse_args(argv)
    rollout(args.seed, args.render, args.playset)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
