"""A trained ``MaskablePPO`` on the ladder: ``converge ladder --bots greedy,examples.ppo_agent:PPOAgent``.

The model is the one ``python examples/train_maskable_ppo.py --save FILE`` saved, read from the file that
``CONVERGE_PPO_MODEL`` names (default ``maskable_ppo.zip`` in the current folder); each process loads it
once. The agent plays from its own player's view: the observation tensor the Gymnasium environment gave the
policy in training (:func:`converge.adapters.encoding.view_arrays`) and the mask of ``view.legal_actions()``,
choosing the policy's most likely legal action.
"""

from __future__ import annotations

import os
from functools import cache
from typing import Any

import numpy as np

from converge.adapters.encoding import view_arrays
from converge.engine.actions import NUM_ACTIONS
from converge.engine.view import PlayerView

MODEL_ENV = "CONVERGE_PPO_MODEL"


@cache
def load_model(path: str) -> Any:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)  # (the ladder's workers have a core each)
    return MaskablePPO.load(path, device="cpu")


class PPOAgent:
    """The saved policy's most likely legal action (deterministic: the seed is not used)."""

    def __init__(self, seed: int = 0) -> None:
        path = os.environ.get(MODEL_ENV, "maskable_ppo.zip")
        if not os.path.exists(path):
            raise FileNotFoundError(f"no model at {path}: train one with python examples/train_maskable_ppo.py "
                                    f"--save {path}, or set {MODEL_ENV}")
        self.model = load_model(path)

    def decide(self, view: PlayerView) -> int:
        observation = view_arrays(view)[0]
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[view.legal_actions()] = True
        action, _ = self.model.predict(observation, action_masks=mask, deterministic=True)
        return int(action)
