"""OpenSpiel's ``rl_environment.Environment`` on ``python_converge``: the forms that work, random agents.

    python examples/openspiel_rl_environment.py --episodes 20

``python_converge`` is a Python game: it exists in OpenSpiel's registry once ``converge.adapters.openspiel``
is imported. ``rl_environment.Environment("python_converge(...)")`` in a process that never imported it —
OpenSpiel's own command-line examples (``python -m open_spiel.python.examples...``), or a worker process
started afresh — fails with "Unknown game". The working forms, all after that import:

* ``Environment("python_converge(playset=alchemist/mechanist/archivist)")``: a game string;
* ``Environment("python_converge", playset="alchemist/mechanist/archivist")``: the parameters as keywords;
* ``Environment(pyspiel.load_game(...))``: a game object (what a worker should be handed, or it imports).

By default the environment gives each agent the information-state tensor, which for ``python_converge``
is perfect recall (tens of thousands of floats, a Python list at every step: about a millisecond each);
``observation_type=ObservationType.OBSERVATION`` gives the 507-float observation tensor instead, which is
what a DQN or policy-gradient agent wants.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import random_agent

import converge.adapters.openspiel  # noqa: F401  (registers python_converge; before any Environment)

PLAYSET = "alchemist/mechanist/archivist"


def environments() -> dict[str, rl_environment.Environment]:
    """The three working forms, each with the 507-float observation tensor."""
    obs = rl_environment.ObservationType.OBSERVATION
    return {
        "game string": rl_environment.Environment(f"python_converge(playset={PLAYSET})", observation_type=obs),
        "keywords": rl_environment.Environment("python_converge", playset=PLAYSET, observation_type=obs),
        "game object": rl_environment.Environment(pyspiel.load_game(f"python_converge(playset={PLAYSET})"),
                                                  observation_type=obs),
    }


def play(env: rl_environment.Environment, episodes: int, seed: int) -> tuple[int, list[float]]:
    """Random agents play ``episodes`` matches; returns the steps taken and player 0's total return."""
    agents = [random_agent.RandomAgent(player_id=p, num_actions=env.action_spec()["num_actions"])
              for p in range(env.num_players)]
    env.seed(seed)
    steps, totals = 0, [0.0, 0.0]
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            time_step = env.step([output.action])
            steps += 1
        for p in range(env.num_players):
            totals[p] += time_step.rewards[p]
    return steps, totals


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for name, env in environments().items():
        size = env.observation_spec()["info_state"][0]
        begin = time.perf_counter()
        steps, totals = play(env, args.episodes, args.seed)
        rate = steps / (time.perf_counter() - begin)
        print(f"{name}: {args.episodes} matches, {steps} steps ({rate:,.0f} steps/s), observation of "
              f"{size} floats, returns {totals[0]:+.0f} / {totals[1]:+.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
