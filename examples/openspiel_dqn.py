"""OpenSpiel's DQN (its PyTorch implementation) learning ``python_converge`` through ``rl_environment``.

    python examples/openspiel_dqn.py --episodes 200
    python examples/openspiel_dqn.py --episodes 200 --save dqn.pt   # then enter it on the ladder:
    CONVERGE_DQN_MODEL=dqn.pt converge ladder --bots random,examples.dqn_agent:DQNAgent

Needs PyTorch and dm-tree beside the ``rl`` extra (which leaves them out for their size; OpenSpiel's
PyTorch DQN imports ``tree``): ``pip install torch dm-tree``; without them the example says so and exits
with 2. Two DQN agents, one per seat, learn by self-play on the 507-float observation tensor
(``ObservationType.OBSERVATION``: a DQN does not need perfect recall, and the perfect-recall list would cost
a millisecond a step), masking illegal actions as OpenSpiel's DQN does; then each plays its own seat
against a random agent, seats alternating (an OpenSpiel DQN acts only for its ``player_id``: asked
for the other seat's decision it returns no action). ``--save`` keeps both seats' Q-networks, which
:class:`examples.dqn_agent.DQNAgent` plays on the ladder.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from open_spiel.python import rl_environment
from open_spiel.python.algorithms import random_agent

import converge.adapters.openspiel  # noqa: F401  (registers python_converge)

INSTALL = "This example needs PyTorch and dm-tree: pip install torch dm-tree (beside converge-game[rl])."
#: The Q-networks' hidden layers (examples/dqn_agent.py builds the same network to load them).
HIDDEN = [64]


def evaluate(env: rl_environment.Environment, agents: Sequence[Any], games: int) -> float:
    """The trained agents' total return over ``games`` matches against a random agent: match ``n`` puts
    ``agents[n % 2]`` in its own seat (an agent acts only for its ``player_id``)."""
    total = 0.0
    for n in range(games):
        seat = n % 2
        other = random_agent.RandomAgent(player_id=1 - seat, num_actions=env.action_spec()["num_actions"])
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            if player == seat:
                action = agents[seat].step(time_step, is_evaluation=True).action
            else:
                action = other.step(time_step).action
            time_step = env.step([action])
        total += time_step.rewards[seat]
    return total


def train(episodes: int, seed: int) -> tuple[rl_environment.Environment, list[Any]]:
    """Two DQN agents, one per seat, trained by self-play for ``episodes`` matches (PyTorch and dm-tree)."""
    import torch
    from open_spiel.python.pytorch import dqn  # imports dm-tree's ``tree``

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # (the same seed gives the same agents; the ladder's other process keeps its core)
    observation = rl_environment.ObservationType.OBSERVATION
    env = rl_environment.Environment("python_converge", observation_type=observation)
    env.seed(seed)
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    agents = [dqn.DQN(player_id=p, state_representation_size=size, num_actions=actions,
                      hidden_layers_sizes=HIDDEN, replay_buffer_capacity=10_000, batch_size=32,
                      min_buffer_size_to_learn=64, learn_every=4, seed=seed + p) for p in range(2)]
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
        for agent in agents:  # each agent sees the final step, to learn from the match's return
            agent.step(time_step)
    return env, agents


def save(env: rl_environment.Environment, agents: Sequence[Any], path: str) -> None:
    """Both seats' Q-networks and their sizes, for examples/dqn_agent.py (OpenSpiel's own ``DQN.save`` writes
    a key its ``load`` does not read)."""
    import torch

    torch.save({"size": env.observation_spec()["info_state"][0], "hidden": HIDDEN,
                "actions": env.action_spec()["num_actions"],
                "seats": [agent._q_network.state_dict() for agent in agents]}, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=200, help="self-play training matches")
    parser.add_argument("--games", type=int, default=20, help="evaluation matches against random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", default=None, help="save both seats' Q-networks here (a .pt file)")
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: F401
        import tree  # noqa: F401  (dm-tree, which OpenSpiel's PyTorch DQN imports)
    except ImportError:
        print(INSTALL)
        return 2
    env, agents = train(args.episodes, args.seed)
    if args.save:
        save(env, agents, args.save)
        print(f"saved the Q-networks to {args.save}")
    total = evaluate(env, agents, args.games)
    print(f"DQN trained on {args.episodes} matches scored {total:+.0f} over {args.games} against random")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
