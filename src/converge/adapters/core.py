"""The agent's side of a match against an opponent: the episode logic of the Gymnasium environments.

:class:`Episode` is one agent's episode (its seat, the match, the opponent, the options of
:mod:`converge.adapters.episodes`); :class:`~converge.adapters.gymnasium.ConvergeEnv` wraps one and
:class:`~converge.adapters.gymnasium.ConvergeVectorEnv` steps many through :func:`advance_all` and
:func:`write_all`, so that both follow one definition. The module imports no framework and is compiled
with the engine (mypyc), which lets the vector environment step its matches without a Python call per
match; it reads the match only through its public API, and writes the tensors of
:mod:`converge.adapters.encoding` (the layout documented there) with the engine's writer, as that module
does.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from converge.adapters.episodes import episode_over, step_rewards
from converge.engine.actions import NUM_ACTIONS
from converge.engine.errors import IllegalActionError
from converge.engine.playset import Playset
from converge.engine.state import Match
from converge.engine.tensors import legal_for, write_observation

#: The one action a final observation's mask holds (never applied: see :mod:`converge.adapters.gymnasium`).
FINAL_ACTION = 0


class Opponent:
    """A bot name, a bot object or an observation policy, as one call: ``play(match, seat)``."""

    def __init__(self, spec: object) -> None:
        self.spec = spec
        # the caller's bot or policy, duck-typed: a bot's decide() or a policy may return a NumPy integer, which
        # a declared int would make the compiled code refuse
        self.bot: Any = None
        self.policy: Any = None
        self.name = ""
        self.rng = random.Random(0)
        self.draw: Callable[[], float] = self.rng.random  # bound once: one lookup less per decision
        if isinstance(spec, str):
            self.name = spec
            self._make_bot(0)
        elif hasattr(spec, "decide"):
            self.name = str(getattr(spec, "name", type(spec).__name__))
            self.bot = spec
        elif callable(spec):
            self.name = str(getattr(spec, "__name__", "policy"))
            self.policy = spec
        else:
            raise ValueError("opponent must be a bot name, a bot (with decide(view)) or a callable "
                             f"policy(observation, legal_actions), got {spec!r}")

    def _make_bot(self, seed: int) -> None:
        spec = str(self.spec)
        if spec.strip().lower() == "random":
            self.bot = None  # uniform over the legal actions, drawn from the episode's seeded generator
            return
        from converge.bots import make_bot

        self.bot = make_bot(spec, seed)

    def reset(self, seed: int, reseed: bool = True) -> None:
        """Ready for a new match: a bot named by the spec is made afresh from ``seed``; the random
        opponent's generator is seeded from it when ``reseed``, else goes on (seeding one costs more
        than a whole decision: the environments reseed it only when they are seeded)."""
        if reseed:
            self.rng = random.Random(seed)
            self.draw = self.rng.random
        if isinstance(self.spec, str):
            self._make_bot(seed)
        elif self.bot is not None and hasattr(self.bot, "reset"):
            self.bot.reset()

    def play(self, match: Match, seat: int) -> None:
        """``seat``'s decision now: the bot's or the policy's (checked, as any action is), or a uniform
        pick from ``legal_actions()`` (pushed: it needs no second check)."""
        if self.bot is not None:
            match.apply(int(self.bot.decide(match.view(seat))), seat)
            return
        legal = match.legal_actions()
        if self.policy is not None:
            match.apply(int(self.policy(match.observation(seat), legal)), seat)
            return
        match.push(legal[int(self.draw() * len(legal))])


class Episode:
    """One seat of a match against an :class:`Opponent`, until the episode is over (``done``)."""

    def __init__(self, playset: Playset, start: str, opponent: Opponent, reward: str, episode: str,
                 lose_on_illegal: bool) -> None:
        self.playset = playset
        self.start = start
        self.opponent = opponent
        self.reward = reward
        self.episode = episode
        self.lose_on_illegal = lose_on_illegal
        # a per-round reward is what the round wins gained since before the agent's decision
        self.per_round = reward == "round" or episode == "round"
        self.wins_before: list[int] = [0, 0]
        self.match = Match.new(playset, seed=0, start=start)  # checks the settings now
        self.seat = 0
        self.done = True

    def begin(self, seat: int, match_seed: int, opponent_seed: int, reseed: bool = True, first: int = -1) -> None:
        """A new episode: a fresh match, and the opponent's moves until the agent's first decision
        (``reseed``: see :meth:`Opponent.reset`). ``first`` (0 or 1), when given, is the round-1 artifact
        holder in place of the ``start`` setting (for a random start drawn by the caller)."""
        self.seat = seat
        self.match = Match.new(self.playset, seed=match_seed, start=self.start if first < 0 else first)
        self.opponent.reset(opponent_seed, reseed)
        self.done = False
        self.opponent_plays()
        self.done = episode_over(self.match, self.episode)

    def opponent_plays(self) -> None:
        m, seat, other, opponent = self.match, self.seat, 1 - self.seat, self.opponent
        while m.current_player != seat and not episode_over(m, self.episode):
            opponent.play(m, other)

    def advance(self, action: object) -> tuple[float, bool]:
        """The agent's decision and the opponent's replies: (the agent's reward, whether the action was
        illegal). An illegal action raises :class:`IllegalActionError` and changes nothing unless
        ``lose_on_illegal``, when it ends the episode with -1."""
        if self.done:
            raise RuntimeError("the episode is over: call reset()")
        m = self.match
        if self.per_round:
            self.wins_before = m.round_wins
        try:
            if not isinstance(action, int) or isinstance(action, bool):
                raise IllegalActionError(f"an action is an integer id 0..{NUM_ACTIONS - 1}, got "
                                         f"{type(action).__name__}")
            m.apply(action, self.seat)  # checks it: nothing changes when it is illegal
        except IllegalActionError:
            if not self.lose_on_illegal:
                raise
            self.done = True
            return -1.0, True
        self.opponent_plays()
        self.done = episode_over(m, self.episode)
        if self.done or self.per_round:
            return step_rewards(m, self.wins_before, self.reward, self.episode)[self.seat], False
        return 0.0, False


def advance_all(episodes: list[Episode], actions: list[object], skip: list[bool], rewards: list[float],
                terminated: list[bool], illegal: list[int]) -> None:
    """Each episode not skipped takes its action: its reward goes to ``rewards``, whether that ended it
    to ``terminated``, and the indices of those whose action was illegal (and lost) to ``illegal``."""
    for i in range(len(episodes)):
        if skip[i]:
            continue
        e = episodes[i]
        reward, bad = e.advance(actions[i])
        rewards[i] = reward
        terminated[i] = e.done
        if bad:
            illegal.append(i)


def write_all(episodes: list[Episode], tensors: memoryview[float] | None, masks: memoryview[int] | None, size: int,
              numbers: list[int], done: list[bool]) -> None:
    """Each episode's observation tensor into row ``i`` of ``tensors`` (a flat writable float32 buffer
    of rows of ``size`` zeros), whether it is over into ``done``, and into ``numbers``, from ``5 * i`` on:
    its seat, round wins and scores (players 0's and 1's). With ``tensors=None`` (no observation tensors
    to write), each episode's mask goes into ``masks`` (rows of 26 int8 zeros; :data:`FINAL_ACTION`
    alone once the episode is over); else the caller takes the masks from the tensors' ``legal`` parts."""
    for i in range(len(episodes)):
        e = episodes[i]
        m, seat = e.match, e.seat
        if tensors is not None:
            s0, s1 = write_observation(m, seat, seat, tensors[i * size:(i + 1) * size])
        else:
            assert masks is not None  # (given whenever tensors is not)
            s0, s1 = m.scores()
            if e.done:
                masks[i * NUM_ACTIONS + FINAL_ACTION] = 1
            else:
                legal_for(m, seat, masks[i * NUM_ACTIONS:(i + 1) * NUM_ACTIONS])
        w = m.round_wins
        done[i] = e.done
        k = 5 * i
        numbers[k], numbers[k + 1], numbers[k + 2], numbers[k + 3], numbers[k + 4] = seat, w[0], w[1], s0, s1
