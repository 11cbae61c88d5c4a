"""Converge as a single-agent Gymnasium environment: the agent plays one seat against a chosen bot.

>>> from converge.adapters.gymnasium import ConvergeEnv
>>> env = ConvergeEnv(opponent="random")
>>> obs, info = env.reset(seed=0)
>>> sorted(obs), obs["observation"].shape, info["player"] in (0, 1)
(['action_mask', 'observation'], (507,), True)

Observations are dicts: ``observation``, the tensor of :mod:`converge.adapters.encoding` built from
``Match.observation(agent's seat)`` (``observation_type="info_state"`` adds a window of the event log),
and ``action_mask`` (int8, 1 for each legal action; also available as :meth:`ConvergeEnv.action_masks`,
the method ``sb3_contrib``'s ``MaskablePPO`` calls). The action space is the engine's 26 action ids.
After each of the agent's decisions the opponent plays until the decision is the agent's again (a seat
often decides several times in a row). The reward is +1 for winning the match and -1 for losing it.

``opponent`` is a bot name of :mod:`converge.bots` (``"random"``, ``"greedy"``), a bot object (with
``decide(view)``), or any callable ``policy(observation_dict, legal_actions) -> action`` that sees only
the opponent's observation. ``player`` is the agent's seat: 0, 1 or ``"random"`` (drawn at each reset).

An illegal action ends the episode with reward -1 and ``info["illegal_action"] = True`` (the default,
``illegal_action="lose"``), or raises :class:`~converge.engine.errors.IllegalActionError` and changes
nothing (``illegal_action="raise"``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

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
from converge.engine.schema import Observation
from converge.engine.state import Match

Policy = Callable[[Observation, list[int]], int]
DEFAULT_PLAYSET = ("alchemist", "mechanist", "archivist")
RENDER_MODES = ("human", "ansi")


class _Opponent:
    """Adapts a bot name, a bot object or an observation policy to one call: ``act(match, seat)``."""

    def __init__(self, spec: object) -> None:
        self.spec = spec
        self.bot: Any = None
        self.policy: Policy | None = None
        self.rng = random.Random(0)
        if isinstance(spec, str):
            self.name = spec
            self._make_bot(0)
        elif hasattr(spec, "decide"):
            self.name = str(getattr(spec, "name", type(spec).__name__))
            self.bot = spec
        elif callable(spec):
            self.name = getattr(spec, "__name__", "policy")
            self.policy = spec
        else:
            raise ValueError("opponent must be a bot name, a bot (with decide(view)) or a callable "
                             f"policy(observation, legal_actions), got {spec!r}")

    def _make_bot(self, seed: int) -> None:
        assert isinstance(self.spec, str)
        if self.spec.strip().lower() == "random":
            self.bot = None  # uniform over the legal actions, drawn from the env's seeded generator
            return
        from converge.bots import make_bot

        self.bot = make_bot(self.spec, seed)

    def reset(self, seed: int) -> None:
        self.rng = random.Random(seed)
        if isinstance(self.spec, str):
            self._make_bot(seed)
        elif self.bot is not None and hasattr(self.bot, "reset"):
            self.bot.reset()

    def act(self, match: Match, seat: int) -> int:
        if self.bot is not None:
            return int(self.bot.decide(match.view(seat)))
        legal = match.legal_actions()
        if self.policy is not None:
            return int(self.policy(match.observation(seat), legal))
        return legal[int(self.rng.random() * len(legal))]


class ConvergeEnv(gym.Env[dict[str, Any], np.int64]):
    """One seat of a Converge match against an opponent bot (see the module's documentation)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012 (Gymnasium declares it)

    def __init__(self, playset: Playset | Sequence[str] | str = DEFAULT_PLAYSET, opponent: object = "random",
                 player: int | str = 0, start: str | int = "random", observation_type: str = "observation",
                 illegal_action: str = "lose", render_mode: str | None = None,
                 deck_dirs: Sequence[str] = ()) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, "
                             f"got {render_mode!r}")
        if observation_type not in ("observation", "info_state"):
            raise ValueError(f"observation_type must be 'observation' or 'info_state', got {observation_type!r}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        if player not in (0, 1, "random"):
            raise ValueError(f"player must be 0, 1 or 'random', got {player!r}")
        self.playset = _playset(playset, deck_dirs)
        self.start = str(start)
        Match.new(self.playset, seed=0, start=self.start)  # checks the settings now
        self.opponent = _Opponent(opponent)
        self.player_setting = player
        self.observation_type = observation_type
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        size = INFO_STATE_SIZE if observation_type == "info_state" else OBSERVATION_SIZE
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.seat = 0
        self.match = Match.new(self.playset, seed=0, start=self.start)
        self._done = True

    # ------------------------------------------------------------------ helpers

    def _obs(self) -> dict[str, np.ndarray]:
        m, seat = self.match, self.seat
        tensor = info_state_array(m, seat) if self.observation_type == "info_state" else observation_array(m, seat)
        return {"observation": tensor, "action_mask": legal_array(m, seat)}

    def _info(self) -> dict[str, Any]:
        return {"player": self.seat, "round_wins": list(self.match.round_wins),
                "scores": list(self.match.scores())}

    def _opponent_plays(self) -> None:
        m = self.match
        while not m.is_terminal and m.current_player != self.seat:
            m.apply(self.opponent.act(m, 1 - self.seat), 1 - self.seat)

    def action_masks(self) -> np.ndarray:
        """The legal actions of the agent now, as booleans (for ``MaskablePPO``)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if not self._done and not self.match.is_terminal and self.match.current_player == self.seat:
            mask[self.match.legal_actions()] = True
        return mask

    # ------------------------------------------------------------------ the Gymnasium API

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = int(rng.integers(2)) if self.player_setting == "random" else int(self.player_setting)
        self.match = Match.new(self.playset, seed=int(rng.integers(0, 2**62)), start=self.start)
        self.opponent.reset(int(rng.integers(0, 2**62)))
        self._done = False
        self._opponent_plays()
        self._done = self.match.is_terminal
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else -1
        try:
            if a < 0:
                raise IllegalActionError(f"an action is an integer id 0..{NUM_ACTIONS - 1}, got "
                                         f"{type(action).__name__}")
            self.match.apply(a, self.seat)  # checks it: nothing changes when it is illegal
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), -1.0, True, False, info
        self._opponent_plays()
        reward = 0.0
        if self.match.is_terminal:
            self._done = True
            reward = 1.0 if self.match.winner == self.seat else -1.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self._done, False, self._info()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = observation_string(self.match.observation(self.seat))
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release."""


#: The Gymnasium id: ``gymnasium.make("converge/Converge-v0", opponent="greedy")``.
ENV_ID = "converge/Converge-v0"
if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="converge.adapters.gymnasium:ConvergeEnv")
