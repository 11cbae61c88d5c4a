"""Converge as a single-agent Gymnasium environment: the agent plays one seat against a chosen bot.

>>> from converge.adapters.gymnasium import ConvergeEnv
>>> env = ConvergeEnv(opponent="random")
>>> obs, info = env.reset(seed=0)
>>> sorted(obs), obs["observation"].shape, info["player"] in (0, 1)
(['action_mask', 'observation'], (507,), True)

Observations are dicts: ``observation``, the tensor of :mod:`converge.adapters.encoding` built from
``Match.observation(agent's seat)`` (``observation_type="info_state"`` adds a window of the event log),
and ``action_mask`` (int8, 1 for each legal action; also available as :meth:`ConvergeEnv.action_masks`,
the method ``sb3_contrib``'s ``MaskablePPO`` calls). ``flat_observation=True`` makes the observation the
tensor alone (a ``Box``) and puts the mask in ``info["action_mask"]``. The action space is the engine's
26 action ids. After each of the agent's decisions the opponent plays until the decision is the agent's
again (a seat often decides several times in a row). The reward and what an episode is are options of
:mod:`converge.adapters.episodes`: by default +1 for winning the match and -1 for losing it
(``reward="round"``: ±1 for each round; ``episode="round"``: one round per episode). ``variant="tiny"``
(or ``"small"``) plays the same rules on a smaller game (:mod:`converge.engine.variant`), with the same spaces.

*The final observation's mask.* When an episode ends (terminated, or an illegal action lost it) no
decision is left, yet a vector environment asks for an action for every match at every step: with
Gymnasium's default next-step autoreset, the step after the end resets that match and ignores its
action. So that masked sampling always has an action to pick, the mask of a final observation holds
exactly one action, :data:`FINAL_ACTION` (0), which is never applied; every other observation's mask is
the agent's legal actions, never empty (the tensor's own ``legal`` part stays the engine's: all zero).

``opponent`` is a bot name of :mod:`converge.bots` (``"random"``, ``"greedy"``), a bot object (with
``decide(view)``), or any callable ``policy(observation_dict, legal_actions) -> action`` that sees only
the opponent's observation. ``player`` is the agent's seat: 0, 1 or ``"random"`` (drawn at each reset).

An illegal action ends the episode with reward -1 and ``info["illegal_action"] = True`` (the default,
``illegal_action="lose"``), or raises :class:`~converge.engine.errors.IllegalActionError` and changes
nothing (``illegal_action="raise"``).

``render_mode``: ``"ansi"`` returns the agent's view as text, ``"human"`` prints it, ``"rgb_array"``
returns an image of the table as the agent sees it (:mod:`converge.adapters.image`; needs Pillow, part of
the ``rl`` extra), for videos.

:class:`ConvergeVectorEnv` steps ``num_envs`` matches in one process with batched arrays:
``gymnasium.make_vec("converge/Converge-v0", num_envs=16, vectorization_mode="vector_entry_point")``.
Every space is listed in ``docs/spaces.md`` (generated from this code by :mod:`converge.adapters.spaces`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from converge.adapters.core import FINAL_ACTION, Episode, Opponent, advance_all, write_all
from converge.adapters.encoding import (
    INFO_STATE_SIZE,
    LEGAL_START,
    OBSERVATION_SIZE,
    EnvObservation,
    Frame,
    info_state_array,
    legal_array,
    observation_array,
    observation_string,
)
from converge.adapters.encoding import as_playset as _playset
from converge.adapters.episodes import EPISODES, REWARDS, check_choice
from converge.engine.actions import NUM_ACTIONS
from converge.engine.playset import Playset
from converge.engine.schema import Observation
from converge.engine.state import Match

if TYPE_CHECKING:
    from converge.adapters.image import TableRenderer

Policy = Callable[[Observation, list[int]], int]


class EnvOptions(TypedDict, total=False):
    """The options of :class:`ConvergeEnv`, which :class:`ConvergeVectorEnv` passes on to each of its."""

    playset: Playset | Sequence[str] | str
    opponent: object
    player: int | str
    start: str | int
    observation_type: str
    illegal_action: str
    render_mode: str | None
    deck_dirs: Sequence[str]
    reward: str
    episode: str
    flat_observation: bool
    variant: str


DEFAULT_PLAYSET = ("alchemist", "mechanist", "archivist")
RENDER_MODES = ("human", "ansi", "rgb_array")
OBSERVATION_TYPES = ("observation", "info_state")
ILLEGAL_ACTIONS = ("lose", "raise")
__all__ = ["ENV_ID", "FINAL_ACTION", "ConvergeEnv", "ConvergeVectorEnv"]
_FINAL_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_FINAL_MASK[FINAL_ACTION] = 1


class ConvergeEnv(gym.Env[Any, np.int64]):  # (Any: Gymnasium types a Dict space's elements as spaces)
    """One seat of a Converge match against an opponent bot (see the module's documentation)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012 (Gymnasium declares it)

    def __init__(self, playset: Playset | Sequence[str] | str = DEFAULT_PLAYSET, opponent: object = "random",
                 player: int | str = 0, start: str | int = "random", observation_type: str = "observation",
                 illegal_action: str = "lose", render_mode: str | None = None,
                 deck_dirs: Sequence[str] = (), reward: str = "match", episode: str = "match",
                 flat_observation: bool = False, variant: str = "full") -> None:
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        check_choice("observation_type", observation_type, OBSERVATION_TYPES)
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTIONS)
        check_choice("reward", reward, REWARDS)
        check_choice("episode", episode, EPISODES)
        if not isinstance(flat_observation, bool):
            raise ValueError(f"flat_observation must be True or False, got {flat_observation!r}")
        if player not in (0, 1, "random") or isinstance(player, bool):
            raise ValueError(f"player must be 0, 1 or 'random', got {player!r}")
        self.playset = _playset(playset, deck_dirs, variant)
        self.start = str(start)
        self.opponent = Opponent(opponent)
        self.core = Episode(self.playset, self.start, self.opponent, reward, episode, illegal_action == "lose")
        self.player_setting = player
        self.observation_type = observation_type
        self.illegal_action = illegal_action
        self.reward_setting = reward
        self.episode = episode
        self.render_mode = render_mode
        self.flat_observation = flat_observation
        size = INFO_STATE_SIZE if observation_type == "info_state" else OBSERVATION_SIZE
        tensor_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        mask_space = spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)
        self.observation_space: spaces.Space[Any] = (
            tensor_space if flat_observation
            else spaces.Dict({"observation": tensor_space, "action_mask": mask_space}))
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._renderer: TableRenderer | None = None
        self._seeded = False

    @property
    def match(self) -> Match:
        """The match being played."""
        return self.core.match

    @property
    def seat(self) -> int:
        """The agent's seat in it (0 or 1)."""
        return self.core.seat

    # ------------------------------------------------------------------ helpers (the vector env's too)

    def _tensor(self) -> npt.NDArray[np.float32]:
        if self.observation_type == "info_state":
            return info_state_array(self.match, self.seat)
        return observation_array(self.match, self.seat)

    def _mask(self) -> npt.NDArray[np.int8]:
        return _FINAL_MASK.copy() if self.core.done else legal_array(self.match, self.seat)

    def _obs(self) -> EnvObservation:
        if self.flat_observation:
            return self._tensor()
        return {"observation": self._tensor(), "action_mask": self._mask()}

    def _info(self) -> dict[str, Any]:
        m = self.match
        info: dict[str, Any] = {"player": self.seat, "round_wins": np.array(m.round_wins, np.int64),
                                "scores": np.array(m.scores(), np.int64)}
        if self.flat_observation:
            info["action_mask"] = self._mask()
        return info

    def _begin(self, reseed: bool = False) -> None:
        """A new episode from the env's generator (reset, and a vector env's autoreset); ``reseed``
        seeds the random opponent's generator from it too (at a seeded or first reset)."""
        # three raw 64-bit draws of the env's seeded generator (integers(size=3) costs eight times as much)
        match_bits, opponent_seed, coins = self.np_random.bit_generator.random_raw(3).tolist()
        match_seed = match_bits >> 2  # a match seed is below 2**63
        seat = coins & 1 if self.player_setting == "random" else int(self.player_setting)
        # a random round-1 holder (M2) from the env's seeded generator too: a match drawing it itself seeds a
        # generator from a string, which cost a third of a new episode
        first = (coins >> 1) & 1 if self.start == "random" else -1
        self.core.begin(seat, match_seed, opponent_seed, reseed or not self._seeded, first)
        self._seeded = True
        if self.render_mode == "human":
            self.render()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the agent now, as booleans (for ``MaskablePPO``); once the episode is
        over, :data:`FINAL_ACTION` alone."""
        return self._mask().astype(bool)

    # ------------------------------------------------------------------ the Gymnasium API

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[EnvObservation, dict[str, Any]]:
        super().reset(seed=seed)
        self._begin(reseed=seed is not None)
        return self._obs(), self._info()

    def step(self, action: object) -> tuple[EnvObservation, float, bool, bool, dict[str, Any]]:
        if isinstance(action, np.integer):
            action = int(action)
        reward, illegal = self.core.advance(action)
        if self.render_mode == "human":
            self.render()
        info = self._info()
        if illegal:
            info["illegal_action"] = True
        return self._obs(), reward, self.core.done, False, info

    def render(self) -> Frame:
        if self.render_mode is None:
            return None
        obs = self.match.observation(self.seat)
        if self.render_mode == "rgb_array":
            if self._renderer is None:
                from converge.adapters.image import TableRenderer

                self._renderer = TableRenderer(self.playset)
            return self._renderer.render(obs)
        text = observation_string(obs)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release."""


class ConvergeVectorEnv(VectorEnv[EnvObservation, npt.NDArray[np.int64], npt.NDArray[np.generic]]):
    """``num_envs`` matches of :class:`ConvergeEnv` in one process, stepped in one loop into batched
    NumPy arrays (observations, masks, rewards and infos), with no per-match arrays, copies or info
    merging on the way.

    It takes :class:`ConvergeEnv`'s options, and ``autoreset_mode`` (Gymnasium's
    :class:`~gymnasium.vector.AutoresetMode`, default next-step): seeded alike, it returns what
    ``SyncVectorEnv`` of the same ``ConvergeEnv`` returns, step for step (a test checks it in every mode).
    After a match ends, its row's mask is :data:`FINAL_ACTION` alone (next-step: until the step that
    resets it, whose action is ignored; same-step: in ``info["final_obs"]``). ``render()`` returns a
    tuple of each match's frame.
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2,  # noqa: RUF012 (Gymnasium declares it)
                "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int = 1, *, autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
                 max_episode_steps: int | None = None, **kwargs: Unpack[EnvOptions]) -> None:
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            modes = ", ".join(repr(m.value) for m in AutoresetMode)
            raise ValueError(f"autoreset_mode must be an AutoresetMode or one of {modes}, "
                             f"got {autoreset_mode!r}") from None
        del max_episode_steps  # make_vec passes the spec's (none: a match always ends)
        first = ConvergeEnv(**kwargs)
        kwargs["playset"] = first.playset  # loaded and checked once
        self.envs = [first, *(ConvergeEnv(**kwargs) for _ in range(num_envs - 1))]
        self.num_envs = num_envs
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.observation_space = batch_space(first.observation_space, num_envs)
        self.single_action_space = first.action_space
        self.action_space = batch_space(first.action_space, num_envs)
        self._flat = first.flat_observation
        self._info_state = first.observation_type == "info_state"
        self._size = INFO_STATE_SIZE if self._info_state else OBSERVATION_SIZE
        self._restart = [False] * num_envs
        self._every = np.ones(num_envs, dtype=np.bool_)
        self._every.flags.writeable = False
        self._episodes = [env.core for env in self.envs]

    # ------------------------------------------------------------------ batches

    def _batch(self, infos: dict[str, Any], illegal: list[int]) -> tuple[EnvObservation, dict[str, Any]]:
        """The observations of every match, and the infos of :meth:`ConvergeEnv._info` batched as
        ``SyncVectorEnv`` batches them (``_key`` marks which matches have ``key``)."""
        n, size, envs = self.num_envs, self._size, self.envs
        done, numbers = [False] * n, [0] * (5 * n)
        if self._info_state:
            tensors = np.zeros((n, size), dtype=np.float32)
            masks = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
            write_all(self._episodes, None, masks.reshape(-1).data, size, numbers, done)
            for i in range(n):
                tensors[i] = info_state_array(envs[i].match, envs[i].seat)
        else:  # the masks are the tensors' legal parts, but a final observation's
            # fresh zeros each step, written through one float memoryview (its item writes are the cheapest
            # a compiled loop can make into a Python buffer), which NumPy then wraps without a copy
            buffer = bytearray(4 * n * size)
            write_all(self._episodes, memoryview(buffer).cast("f"), None, size, numbers, done)
            tensors = np.frombuffer(buffer, dtype=np.float32).reshape(n, size)
            masks = tensors[:, LEGAL_START:].astype(np.int8)
            if True in done:
                masks[np.array(done, dtype=np.bool_)] = _FINAL_MASK
        every = self._every  # every match has every key: one read-only mask for all the ``_key``s
        per_match = np.array(numbers, dtype=np.int64).reshape(n, 5)
        infos.update({"player": per_match[:, 0], "_player": every,
                      "round_wins": per_match[:, 1:3], "_round_wins": every,
                      "scores": per_match[:, 3:], "_scores": every})
        if self._flat:
            infos["action_mask"], infos["_action_mask"] = masks, every
        if illegal:
            flags = np.zeros(n, dtype=np.bool_)
            flags[illegal] = True
            infos["illegal_action"], infos["_illegal_action"] = flags, flags.copy()
        obs: EnvObservation = tensors if self._flat else {"observation": tensors, "action_mask": masks}
        return obs, infos

    # ------------------------------------------------------------------ the Gymnasium vector API

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[EnvObservation, dict[str, Any]]:
        n = self.num_envs
        seeds: list[int | None] = (
            [None] * n if seed is None else [seed + i for i in range(n)] if isinstance(seed, int) else list(seed))
        if len(seeds) != n:
            raise ValueError(f"seed must be None, an int or {n} seeds (one per match), got {len(seeds)}")
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(n, dtype=np.bool_)
        elif not isinstance(mask, np.ndarray) or mask.shape != (n,) or mask.dtype != np.bool_ or not mask.any():
            raise ValueError(f"options['reset_mask'] must be a bool NumPy array of shape ({n},) with at least "
                             f"one True, got {mask!r}")
        for i in np.flatnonzero(mask):
            self.envs[i].reset(seed=seeds[i], options=options)
        self._restart = [r and not m for r, m in zip(self._restart, mask.tolist(), strict=True)]
        obs, infos = self._batch({}, [])
        if not mask.all():  # like SyncVectorEnv: infos of the matches reset only (the others' rows zero)
            for key in [k for k in infos if not k.startswith("_")]:
                infos[key] = np.where(mask.reshape(-1, *[1] * (infos[key].ndim - 1)), infos[key], 0)
                infos[f"_{key}"] = mask
        return obs, infos

    def step(self, actions: npt.ArrayLike) -> tuple[EnvObservation, npt.NDArray[np.float64],
                                                   npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        n, envs = self.num_envs, self.envs
        acts = np.asarray(actions)
        if acts.shape != (n,):
            raise ValueError(f"actions must hold one action per match, shape ({n},), got shape {acts.shape}")
        # Python ints (floats stay floats, which are illegal): what ConvergeEnv.step passes on
        chosen = acts.tolist()
        restart = self._restart
        if True in restart:
            for i in range(n):
                if restart[i]:
                    envs[i]._begin()  # its action is ignored: the final observation's mask said FINAL_ACTION
        rewards: list[float] = [0.0] * n
        ended: list[bool] = [False] * n
        illegal: list[int] = []
        advance_all(self._episodes, chosen, restart, rewards, ended, illegal)
        infos: dict[str, Any] = {}
        terminated = np.array(ended, dtype=np.bool_)
        if self.render_mode == "human":
            for i in range(n):
                if not restart[i]:
                    envs[i].render()
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            for i in [j for j in range(n) if ended[j]]:
                env = envs[i]
                final_info = env._info()
                if i in illegal:
                    final_info["illegal_action"] = True
                    illegal.remove(i)
                self._add_info(infos, {"final_obs": env._obs(), "final_info": final_info}, i)
                env._begin()
        # next-step autoreset: the matches that ended now begin again at the next step
        self._restart = ended if self.autoreset_mode == AutoresetMode.NEXT_STEP else [False] * n
        obs, infos = self._batch(infos, illegal)
        return obs, np.array(rewards, dtype=np.float64), terminated, np.zeros(n, dtype=np.bool_), infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Every match's mask, as booleans (``num_envs`` x 26)."""
        return np.stack([env.action_masks() for env in self.envs])

    def render(self) -> tuple[Any, ...] | None:  # (Frames: Gymnasium's RenderFrame has no None)
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: object) -> None:
        """Nothing to release."""


#: The Gymnasium id: ``gymnasium.make("converge/Converge-v0", opponent="greedy")``, and
#: ``gymnasium.make_vec("converge/Converge-v0", num_envs=16)`` (the vector entry point by default).
ENV_ID = "converge/Converge-v0"
if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="converge.adapters.gymnasium:ConvergeEnv",
                 vector_entry_point="converge.adapters.gymnasium:ConvergeVectorEnv")
