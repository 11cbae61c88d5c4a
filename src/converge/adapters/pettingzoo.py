"""Converge as a PettingZoo AEC environment: ``converge_v0``.

>>> from converge.adapters.pettingzoo import env
>>> e = env()
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> sorted(obs), obs["action_mask"].shape
(['action_mask', 'observation'], (26,))

Agents are ``player_0`` and ``player_1``. The agent to act is whoever the engine says decides next, so
one agent often acts several times in a row (a card, then how to play it, then its effect's choices).
Each observation is a dict: ``observation``, the tensor of :mod:`converge.adapters.encoding` of the
player's view (the current view, or with ``observation_type="info_state"`` the view and a window of its
event log; written straight from the state, with exactly what ``Match.observation(player)`` holds), and
``action_mask``, the agent's legal actions (all zero when it is not the
agent's decision). Rewards: +1 to the match winner and -1 to the loser, at the end.

``reset(seed=...)`` seeds the deals (the same seed and actions give the same match); ``render_mode``
``"ansi"`` returns the public view as text and ``"human"`` prints it (no hand is ever shown: several
people may share the screen). :func:`env` wraps :func:`raw_env` in PettingZoo's usual wrappers
(an illegal action ends the game with -1 for its agent); :func:`raw_env` raises
:class:`~converge.engine.errors.IllegalActionError` instead and changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from converge.adapters.encoding import (
    INFO_STATE_SIZE,
    OBSERVATION_SIZE,
    info_state_array,
    legal_array,
    observation_array,
    observation_string,
)
from converge.adapters.encoding import as_playset as _playset
from converge.engine.actions import NUM_ACTIONS
from converge.engine.errors import IllegalActionError
from converge.engine.playset import Playset
from converge.engine.state import Match

DEFAULT_PLAYSET = ("alchemist", "mechanist", "archivist")
AGENTS = ("player_0", "player_1")
SEAT = {agent: seat for seat, agent in enumerate(AGENTS)}
RENDER_MODES = ("human", "ansi")


class ConvergeAECEnv(AECEnv[str, dict[str, np.ndarray], int]):  # type: ignore[misc]
    """The raw AEC environment (see the module's documentation)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "converge_v0", "render_modes": list(RENDER_MODES),
                                          "is_parallelizable": False, "render_fps": 2}

    def __init__(self, playset: Playset | Sequence[str] | str = DEFAULT_PLAYSET, start: str | int = "random",
                 render_mode: str | None = None, observation_type: str = "observation",
                 deck_dirs: Sequence[str] = ()) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, "
                             f"got {render_mode!r}")
        if observation_type not in ("observation", "info_state"):
            raise ValueError(f"observation_type must be 'observation' or 'info_state', got {observation_type!r}")
        self.playset = _playset(playset, deck_dirs)
        self.start = str(start)
        Match.new(self.playset, seed=0, start=self.start)  # checks the settings now
        self.render_mode = render_mode
        self.observation_type = observation_type
        self.info_state = observation_type == "info_state"
        size = INFO_STATE_SIZE if observation_type == "info_state" else OBSERVATION_SIZE
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._np_random, self._np_random_seed = seeding.np_random(None)
        self.match = Match.new(self.playset, seed=0, start=self.start)
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the AEC API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        self.match = Match.new(self.playset, seed=int(self._np_random.integers(0, 2**62)), start=self.start)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.match.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = SEAT[agent]
        m = self.match
        tensor = info_state_array(m, p) if self.info_state else observation_array(m, p)
        return {"observation": tensor, "action_mask": legal_array(m, p)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"{agent}: an action is an integer id 0..{NUM_ACTIONS - 1}, got {action!r}")
        self.match.apply(int(action), AGENTS.index(agent))  # raises IllegalActionError, changing nothing
        self._cumulative_rewards[agent] = 0.0
        if self.match.is_terminal:
            winner = AGENTS[self.match.winner]
            for a in self.agents:
                self.rewards[a] = 1.0 if a == winner else -1.0
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = AGENTS[self.match.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = observation_string(self.match.public_observation())
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release."""


def raw_env(**kwargs: Any) -> ConvergeAECEnv:
    """The environment without wrappers: an illegal action raises ``IllegalActionError``."""
    return ConvergeAECEnv(**kwargs)


def env(**kwargs: Any) -> AECEnv[str, dict[str, np.ndarray], int]:
    """``converge_v0`` with PettingZoo's usual wrappers: an illegal action ends the game with -1 for the
    agent that played it (and 0 for the other), out-of-range actions are asserted, and the API order is
    enforced."""
    wrapped: AECEnv[str, dict[str, np.ndarray], int] = ConvergeAECEnv(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped
