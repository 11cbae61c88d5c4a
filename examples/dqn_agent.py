"""A DQN trained by examples/openspiel_dqn.py, on the ladder:
``converge ladder --bots random,examples.dqn_agent:DQNAgent``.

The Q-networks are the ones ``python examples/openspiel_dqn.py --save FILE`` saved (one per seat: each
learned its own seat by self-play), read from the file that ``CONVERGE_DQN_MODEL`` names (default ``dqn.pt``
in the current folder); each process loads them once. The agent plays from its own player's view: the
observation tensor OpenSpiel's ``rl_environment`` gave it in training
(:func:`converge.adapters.encoding.view_arrays`), and it takes the legal action of the highest Q-value, as
OpenSpiel's DQN does in evaluation.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

from converge.adapters.encoding import view_arrays
from converge.engine.view import PlayerView

MODEL_ENV = "CONVERGE_DQN_MODEL"


@cache
def load_networks(path: str) -> list[Any]:
    import torch
    from open_spiel.python.pytorch import dqn

    torch.set_num_threads(1)  # (the ladder's workers have a core each)
    saved = torch.load(path, weights_only=True)
    networks = []
    for state in saved["seats"]:
        network = dqn.MLP(saved["size"], saved["hidden"], saved["actions"])
        network.load_state_dict(state)
        network.eval()
        networks.append(network)
    return networks


class DQNAgent:
    """The legal action of the highest Q-value, by the network of the agent's seat (the seed is not used)."""

    def __init__(self, seed: int = 0) -> None:
        path = os.environ.get(MODEL_ENV, "dqn.pt")
        if not os.path.exists(path):
            raise FileNotFoundError(f"no model at {path}: train one with python examples/openspiel_dqn.py "
                                    f"--save {path}, or set {MODEL_ENV}")
        self.networks = load_networks(path)

    def decide(self, view: PlayerView) -> int:
        import torch

        with torch.no_grad():
            q = self.networks[view.player](torch.from_numpy(view_arrays(view)[0])[None])[0]
        legal = view.legal_actions()
        return max(legal, key=lambda a: float(q[a]))
