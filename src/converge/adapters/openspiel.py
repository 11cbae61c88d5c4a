"""Converge as an OpenSpiel game: ``python_converge``.

Importing this module registers the game::

    import pyspiel
    import converge.adapters.openspiel  # noqa: F401  (registers python_converge)

    game = pyspiel.load_game("python_converge(playset=alchemist/mechanist/archivist,start=random)")

Parameters: ``playset``, three skillset names joined by ``/`` (default the Catalysts of Change);
``start``, who holds the artifact in round 1 (M2): ``random`` (a chance node), ``player0`` or ``player1``
(the player who most recently lost a game); and ``decks``, folders of user deck files (joined by
``os.pathsep``) whose skillsets the playset may name.

Every random event is an explicit chance node (the engine's chance mode): the round-1 artifact holder
when ``start`` is random, then each card of every round's deal order. Actions are the engine's 26
action ids; chance outcomes are card ids 0..17 (or the player 0/1 for the artifact holder). Returns are
+1 for the match winner and -1 for the loser.

Observation and information-state strings and tensors come from an observer that reads only
``Match.observation(player)`` (see :mod:`converge.adapters.encoding`): the information state is the
player's view with its whole event log, the observation is the current view only. States serialise as
their history (OpenSpiel's Python-game format) and ``resample_from_infostate`` draws a whole history the
player cannot tell from the real one (see :mod:`converge.adapters.resample`), so OpenSpiel's Python
``ISMCTSBot`` plays the game.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from converge.adapters.encoding import (
    CARD_FEATURES,
    DECISION_FEATURES,
    EVENT_FEATURES,
    HISTORY_EVENTS,
    INFO_STATE_SIZE,
    MATCH_FEATURES,
    OBSERVATION_SIZE,
    info_state_array,
    info_state_string,
    observation_array,
    observation_string,
)
from converge.adapters.resample import resample_history
from converge.engine.actions import NUM_ACTIONS
from converge.engine.errors import PlaysetError, quote
from converge.engine.playset import Playset
from converge.engine.schema import Observation
from converge.engine.sizes import MAX_ROUNDS, NUM_CARDS
from converge.engine.state import Match

SHORT_NAME = "python_converge"
DEFAULT_PLAYSET = "alchemist/mechanist/archivist"
DEFAULT_START = "random"

# Upper bound on plays in a round: every play takes a card from a hand, and cards enter hands at most
# 3 + 3 (the deal) + 10 (the deck, drawn or taken by Search) + 18 (each card is recalled at most once
# a round) times; a Trade puts one card in a hand for each it takes out.
MAX_PLAYS_PER_ROUND = 34

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Converge",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"playset": DEFAULT_PLAYSET, "start": DEFAULT_START, "decks": ""},
)

_PLAYSETS: dict[tuple[tuple[str, ...], tuple[str, ...]], Playset] = {}


def parse_playset(value: object, deck_dirs: Sequence[str] = ()) -> Playset:
    """A playset from ``"a/b/c"`` (also accepts ``,``, ``+`` or spaces between the names, or a list),
    with the built-in decks and those in ``deck_dirs``."""
    if isinstance(value, str):
        names = [n for n in value.replace(",", "/").replace("+", "/").replace(" ", "/").split("/") if n]
    elif isinstance(value, (list, tuple)):
        names = [str(n) for n in value]
    else:
        raise PlaysetError(f"playset must be three skillset names joined by '/', got {quote(value)}")
    if len(names) != 3:
        raise PlaysetError(f"playset must be three skillset names joined by '/', got {quote(value)}")
    key = (tuple(n.strip().lower() for n in names), tuple(deck_dirs))
    if key not in _PLAYSETS:
        _PLAYSETS[key] = Playset.from_names(list(key[0]), key[1])
    return _PLAYSETS[key]


def parse_decks(value: object) -> tuple[str, ...]:
    """Deck folders from the ``decks`` game parameter (joined by ``os.pathsep``; empty: none)."""
    return tuple(d for d in str(value).split(os.pathsep) if d)


_STARTS = {"random": "random", "0": "0", "1": "1", "p0": "0", "p1": "1", "player0": "0", "player1": "1"}


def parse_start(value: object) -> str:
    """The engine's start setting ("random", "0" or "1") from a game parameter: ``random``, ``player0``
    or ``player1`` (OpenSpiel reads a bare ``0`` in a game string as a number, not text)."""
    text = str(value).strip().lower().replace("_", "").replace(" ", "")
    if text not in _STARTS:
        raise PlaysetError(f"start must be random, player0 or player1, got {quote(value)}")
    return _STARTS[text]


def start_parameter(start: str) -> str:
    return "random" if start == "random" else f"player{start}"


def max_game_length(ps: Playset) -> int:
    """An upper bound on the number of player decisions in a match (chance outcomes not counted)."""
    per_play = 2 + ps.max_effect_decisions()
    return MAX_ROUNDS * MAX_PLAYS_PER_ROUND * per_play


class ConvergeGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game ``python_converge``."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - {"playset", "start", "decks"})
        if unknown:
            raise ValueError(f"unknown parameter(s) for {SHORT_NAME}: {', '.join(unknown)}")
        self.playset = parse_playset(params.get("playset", DEFAULT_PLAYSET), parse_decks(params.get("decks", "")))
        self.start = parse_start(params.get("start", DEFAULT_START))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(self.playset),
        )
        params = {"playset": "/".join(self.playset.names()), "start": start_parameter(self.start)}
        if self.playset.deck_dirs:
            params["decks"] = os.pathsep.join(self.playset.deck_dirs)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> ConvergeState:
        return ConvergeState(self)

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | Mapping[str, Any] | None = None,
                         params: Mapping[str, Any] | None = None) -> ConvergeObserver:
        if isinstance(iig_obs_type, Mapping):  # OpenSpiel calls make_py_observer(params) for the default
            iig_obs_type, params = None, iig_obs_type
        return ConvergeObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Core:
    """The Python side of a state: the match and its history as ``(player, action)`` pairs.

    Copied with :meth:`Match.clone` (OpenSpiel deep-copies a state's attributes to clone it) and pickled
    as its history (OpenSpiel pickles them to serialise it), replayed on load.
    """

    __slots__ = ("playset", "start", "match", "moves", "views", "texts")

    def __init__(self, playset: Playset, start: str, match: Match | None = None,
                 moves: list[tuple[int, int]] | None = None) -> None:
        self.playset = playset
        self.start = start
        self.match = match if match is not None else Match.new(playset, seed=0, start=start, chance=True)
        self.moves: list[tuple[int, int]] = moves if moves is not None else []
        self.views: dict[int, Observation] = {}
        self.texts: dict[tuple[bool, bool, int], str] = {}

    def observation(self, viewer: int) -> Observation:
        view = self.views.get(viewer)
        if view is None:
            view = self.views[viewer] = self.match.observation(viewer)
        return view

    def apply(self, action: int) -> None:
        player = self.match.current_player
        self.match.apply(action)
        self.moves.append((player, action))
        self.views.clear()
        self.texts.clear()

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        return _Core(self.playset, self.start, self.match.clone(), self.moves[:])

    def __getstate__(self) -> dict[str, Any]:
        return {"playset": self.playset.names(), "decks": list(self.playset.deck_dirs), "start": self.start,
                "moves": self.moves}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.playset = parse_playset(data["playset"], tuple(data.get("decks", ())))
        self.start = data["start"]
        self.match = Match.new(self.playset, seed=0, start=self.start, chance=True)
        self.moves = []
        self.views = {}
        self.texts = {}
        for _, action in data["moves"]:
            self.apply(action)


class ConvergeState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_converge``: a chance-mode :class:`~converge.engine.state.Match`."""

    def __init__(self, game: ConvergeGame) -> None:
        super().__init__(game)
        self.core = _Core(game.playset, game.start)

    # ------------------------------------------------------------------ the OpenSpiel state API

    def current_player(self) -> int:
        m = self.core.match
        if m.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        if m.is_chance_node:
            return int(pyspiel.PlayerId.CHANCE)
        return m.current_player

    def _legal_actions(self, player: int) -> list[int]:
        m = self.core.match
        if m.is_terminal or m.is_chance_node or player != m.current_player:
            return []
        return m.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.core.match.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.core.start == "random" and not self.core.moves:
                return f"artifact starts with player {action}"
            return f"deal {self.core.playset.card_ids[action]}"
        return self.core.match.action_to_string(int(action))

    def is_terminal(self) -> bool:
        return self.core.match.is_terminal

    def returns(self) -> list[float]:
        m = self.core.match
        if not m.is_terminal:
            return [0.0, 0.0]
        return [1.0, -1.0] if m.winner == 0 else [-1.0, 1.0]

    def observation_dict(self, player: int) -> Observation:
        """``Match.observation(player)`` (-1: a spectator) of this state; do not modify it."""
        return self.core.observation(player)

    @property
    def match(self) -> Match:
        """The underlying match (the whole state, hidden cards included: not for players)."""
        return self.core.match

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> ConvergeState:
        """A state drawn uniformly among those with ``player_id``'s information state (its observation),
        with a whole history (see :mod:`converge.adapters.resample`)."""
        core = self.core
        rand = probability_sampler if callable(probability_sampler) else random.Random().random
        moves, _ = resample_history(core.playset, core.start, core.moves, int(player_id),
                                    core.observation(int(player_id)), lambda: float(rand()))
        state: ConvergeState = self.get_game().new_initial_state()
        for _, action in moves:
            state.apply_action(action)
        return state

    def __str__(self) -> str:
        """Both players' views (the whole state, for debugging; not a player's information)."""
        core = self.core
        parts = [observation_string(core.observation(-1))]
        for p in (0, 1):
            parts.append(f"hand {p}: " + " ".join(core.observation(p)["hand"] or []))
        parts.append("history: " + " ".join(str(a) for _, a in core.moves))
        return "\n".join(parts)


class ConvergeObserver:
    """OpenSpiel observer: tensors and strings from ``Match.observation`` only.

    ``perfect_recall`` gives the information state (view and event log); otherwise the current view.
    ``private_info`` SINGLE_PLAYER reads ``observation(player)``; NONE reads the public (spectator)
    observation, oriented to ``player``. ALL_PLAYERS is not offered: no view holds both hands.
    """

    def __init__(self, game: ConvergeGame, iig_obs_type: pyspiel.IIGObservationType,
                 params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {dict(params)}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("python_converge offers no observer of all players' private information")
        if not iig_obs_type.public_info:
            raise ValueError("python_converge offers no observer without public information")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        size = INFO_STATE_SIZE if self.perfect_recall else OBSERVATION_SIZE
        self.tensor = np.zeros(size, np.float32)
        n_cards = NUM_CARDS * CARD_FEATURES
        i = n_cards + MATCH_FEATURES
        pieces: list[tuple[str, int, int, tuple[int, ...]]] = [
            ("cards", 0, n_cards, (NUM_CARDS, CARD_FEATURES)),
            ("match", n_cards, i, (MATCH_FEATURES,)),
            ("decision", i, i + DECISION_FEATURES, (DECISION_FEATURES,)),
            ("legal", i + DECISION_FEATURES, OBSERVATION_SIZE, (NUM_ACTIONS,)),
        ]
        if self.perfect_recall:
            pieces.append(("history", OBSERVATION_SIZE, INFO_STATE_SIZE, (HISTORY_EVENTS, EVENT_FEATURES)))
        self.dict = {name: self.tensor[a:b].reshape(shape) for name, a, b, shape in pieces}

    def _view(self, state: ConvergeState, player: int) -> Observation:
        if player not in (0, 1):
            raise ValueError(f"a player is 0 or 1, got {player}")
        return state.observation_dict(player if self.private else -1)

    def set_from(self, state: ConvergeState, player: int) -> None:
        if player not in (0, 1):
            raise ValueError(f"a player is 0 or 1, got {player}")
        write = info_state_array if self.perfect_recall else observation_array
        self.tensor[:] = write(state.core.match, player, not self.private)

    def string_from(self, state: ConvergeState, player: int) -> str:
        key = (self.perfect_recall, self.private, player)
        text = state.core.texts.get(key)
        if text is None:
            obs = self._view(state, player)
            text = info_state_string(obs) if self.perfect_recall else observation_string(obs)
            if not self.private:
                text = f"public view for player {player}\n{text}"
            state.core.texts[key] = text
        return text


pyspiel.register_game(_GAME_TYPE, ConvergeGame)
