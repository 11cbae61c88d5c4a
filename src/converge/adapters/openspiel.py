"""Converge as an OpenSpiel game: ``python_converge``.

Importing this module registers the game::

    import pyspiel
    import converge.adapters.openspiel  # noqa: F401  (registers python_converge)

    game = pyspiel.load_game("python_converge(playset=alchemist/mechanist/archivist,start=random)")

Parameters: ``playset``, three skillset names joined by ``/`` (default the Catalysts of Change);
``start``, who holds the artifact in round 1 (M2): ``random`` (a chance node), ``player0`` or ``player1``
(the player who most recently lost a game); and ``decks``, folders of user deck files (joined by
``os.pathsep``) whose skillsets the playset may name; ``variant``, the size of the game
(:mod:`converge.engine.variant`): ``full`` (the default), ``small`` or ``tiny`` — the same rules with fewer
skillsets and cards, smaller hands and one round, for solving exactly (``tiny`` has two skillsets, and its
default playset is the Catalysts' first two, ``alchemist/mechanist``)::

    game = pyspiel.load_game("python_converge(variant=tiny,start=player0)")

Every random event is an explicit chance node (the engine's chance mode): the round-1 artifact holder
when ``start`` is random, then each card of every round's deal order. Actions are the engine's 26
action ids (a smaller variant uses fewer of them); chance outcomes are card ids 0..17, or fewer (or the
player 0/1 for the artifact holder). Returns are
+1 for the match winner and -1 for the loser.

Observation and information-state strings and tensors come from an observer that reads only what
``Match.observation(player)`` shows (see :mod:`converge.adapters.encoding`): the information state is
perfect recall — the player's view with every event of its log, in order (the tensor has a row for each
event a match of the playset can show one player) — and the observation is the current view only. The
observer offers every observation type OpenSpiel defines but all players' private information (I3):
public and private, public only (a spectator's view, oriented to the player), private only (what the
player's view shows beyond the public one), or neither; perfect recall or not.

The fast path is OpenSpiel's observer API: ``make_observation(game, IIGObservationType(...))`` and
``set_from(state, player)`` write into one numpy buffer, the event rows incrementally (a state one step on
from the one written last costs its new rows). ``state.information_state_tensor()`` turns the whole
perfect-recall tensor (tens of thousands of floats) into a Python list at each call: about a millisecond.

States serialise as their history (OpenSpiel's Python-game format) and ``resample_from_infostate`` draws
a whole history the player cannot tell from the real one (see :mod:`converge.adapters.resample`), so
OpenSpiel's Python ``ISMCTSBot`` plays the game.
"""

from __future__ import annotations

import array
import os
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NotRequired, TypedDict

import numpy as np
import numpy.typing as npt
import pyspiel

from converge.adapters.encoding import (
    CARD_FEATURES,
    DECISION_FEATURES,
    EVENT_FEATURES,
    MATCH_FEATURES,
    OBSERVATION_SIZE,
    PRIVATE_COLUMNS,
    observation_string,
    private_string,
)
from converge.adapters.resample import resample_history
from converge.engine.actions import NUM_ACTIONS
from converge.engine.errors import PlaysetError, quote
from converge.engine.playset import Playset
from converge.engine.schema import Observation
from converge.engine.sizes import NUM_CARDS
from converge.engine.state import Match
from converge.engine.tensors import RecallRows, write_observation
from converge.engine.texts import event_text, view_text
from converge.engine.variant import FULL, Variant, variant_named

SHORT_NAME = "python_converge"
DEFAULT_PLAYSET = "alchemist/mechanist/archivist"
DEFAULT_START = "random"
DEFAULT_VARIANT = FULL.name

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
    parameter_specification={"playset": DEFAULT_PLAYSET, "start": DEFAULT_START, "decks": "",
                             "variant": DEFAULT_VARIANT},
)

_PLAYSETS: dict[tuple[tuple[str, ...], tuple[str, ...], Variant], Playset] = {}


def parse_playset(value: object, deck_dirs: Sequence[str] = (), variant: Variant = FULL) -> Playset:
    """A playset from ``"a/b/c"`` (also accepts ``,``, ``+`` or spaces between the names, or a list),
    with the built-in decks and those in ``deck_dirs``; of ``variant``'s size (which says how many names)."""
    n = variant.skillsets
    count = "three" if n == 3 else "two"
    if isinstance(value, str):
        names = [n for n in value.replace(",", "/").replace("+", "/").replace(" ", "/").split("/") if n]
    elif isinstance(value, (list, tuple)):
        names = [str(n) for n in value]
    else:
        raise PlaysetError(f"playset must be {count} skillset names joined by '/', got {quote(value)}")
    if value == DEFAULT_PLAYSET:  # the default of every variant: as many of the Catalysts as it has skillsets
        names = names[:n]
    if len(names) != n:
        size = "" if variant.is_full else f" in the {variant.name} variant"
        raise PlaysetError(f"playset must be {count} skillset names joined by '/'{size}, got {quote(value)}")
    key = (tuple(n.strip().lower() for n in names), tuple(deck_dirs), variant)
    if key not in _PLAYSETS:
        _PLAYSETS[key] = Playset.from_names(list(key[0]), key[1], variant)
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
    return ps.variant.max_rounds * ps.variant.max_plays_per_round * per_play


class ConvergeGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game ``python_converge``."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - {"playset", "start", "decks", "variant"})
        if unknown:
            raise ValueError(f"unknown parameter(s) for {SHORT_NAME}: {', '.join(unknown)}")
        variant = variant_named(params.get("variant", DEFAULT_VARIANT))
        self.playset = parse_playset(params.get("playset", DEFAULT_PLAYSET), parse_decks(params.get("decks", "")),
                                     variant)
        self.start = parse_start(params.get("start", DEFAULT_START))
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=variant.num_cards,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(self.playset),
        )
        #: Rows of the perfect-recall history: the most events a match of this playset shows one player.
        self.history_rows = self.playset.max_events_seen()
        params = {"playset": "/".join(self.playset.names()), "start": start_parameter(self.start)}
        if self.playset.deck_dirs:
            params["decks"] = os.pathsep.join(self.playset.deck_dirs)
        if not variant.is_full:  # (the full game's string is what it always was)
            params["variant"] = variant.name
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> ConvergeState:
        return ConvergeState(self)

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | Mapping[str, Any] | None = None,
                         params: Mapping[str, Any] | None = None) -> ConvergeObserver:
        if isinstance(iig_obs_type, Mapping):  # OpenSpiel calls make_py_observer(params) for the default
            iig_obs_type, params = None, iig_obs_type
        return ConvergeObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _CoreState(TypedDict):
    """A :class:`_Core` as pickled: the playset's names and deck folders, the start, the history, and the
    variant (absent: the full game)."""

    playset: list[str]
    decks: list[str]
    start: str
    moves: list[tuple[int, int]]
    variant: NotRequired[str]


class _Core:
    """The Python side of a state: the match and its history as ``(player, action)`` pairs.

    Copied with :meth:`Match.clone` (OpenSpiel deep-copies a state's attributes to clone it) and pickled
    as its history (OpenSpiel pickles them to serialise it), replayed on load. It caches the strings of
    the current state (``texts``, cleared at each step) and each viewer's event log as text (``logs``:
    how many events of the match were read, and the text; kept across steps and copies, since the log
    only grows, so a string costs the tokens of the new events).
    """

    __slots__ = ("playset", "start", "match", "moves", "views", "texts", "logs")

    def __init__(self, playset: Playset, start: str, match: Match | None = None,
                 moves: list[tuple[int, int]] | None = None,
                 logs: dict[tuple[int, bool], tuple[int, str]] | None = None) -> None:
        self.playset = playset
        self.start = start
        self.match = match if match is not None else Match.new(playset, seed=0, start=start, chance=True)
        self.moves: list[tuple[int, int]] = moves if moves is not None else []
        self.views: dict[tuple[int, bool], Observation] = {}
        self.texts: dict[tuple[int, int], str] = {}
        self.logs: dict[tuple[int, bool], tuple[int, str]] = logs if logs is not None else {}

    def observation(self, viewer: int) -> Observation:
        """``viewer``'s whole observation, events included (cached until the next step)."""
        view = self.views.get((viewer, True))
        if view is None:
            view = self.views[viewer, True] = self.match.observation(viewer)
        return view

    def view(self, viewer: int) -> Observation:
        """``viewer``'s observation without its events (cheaper: the strings keep the log themselves)."""
        view = self.views.get((viewer, False))
        if view is None:
            view = self.views[viewer, False] = self.match.observation(viewer, events=False)
        return view

    def log(self, viewer: int, private: bool) -> str:
        """The tokens of the events ``viewer`` sees (``private``: only those private to them), in order."""
        key = (viewer, private)
        read, text = self.logs.get(key, (0, ""))
        events = self.match.events
        if read < len(events):
            ids, skillsets = self.playset.card_ids, self.playset.skillsets
            tokens = [event_text(e, ids, skillsets) for e in events[read:]
                      if (e[1] == viewer if private else e[1] < 0 or e[1] == viewer)]
            if tokens:
                text = text + " " + " ".join(tokens) if text else " ".join(tokens)
            self.logs[key] = (len(events), text)
        return text

    def apply(self, action: int) -> None:
        player = self.match.current_player
        self.match.apply(action)
        self.moves.append((player, action))
        self.views.clear()
        self.texts.clear()

    def __deepcopy__(self, memo: dict[int, object]) -> _Core:
        return _Core(self.playset, self.start, self.match.clone(), self.moves[:], dict(self.logs))

    def __getstate__(self) -> _CoreState:
        out: _CoreState = {"playset": self.playset.names(), "decks": list(self.playset.deck_dirs),
                           "start": self.start, "moves": self.moves}
        if not self.playset.variant.is_full:
            out["variant"] = self.playset.variant.name
        return out

    def __setstate__(self, data: _CoreState) -> None:
        self.playset = parse_playset(data["playset"], tuple(data.get("decks", ())),
                                     variant_named(data.get("variant", DEFAULT_VARIANT)))
        self.start = data["start"]
        self.match = Match.new(self.playset, seed=0, start=self.start, chance=True)
        self.moves = []
        self.views = {}
        self.texts = {}
        self.logs = {}
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
        parts = [observation_string(core.view(-1))]
        for p in (0, 1):
            parts.append(f"hand {p}: " + " ".join(core.view(p)["hand"] or []))
        parts.append("history: " + " ".join(str(a) for _, a in core.moves))
        return "\n".join(parts)


_OBSERVATION_ZEROS = memoryview(array.array("f", bytes(4 * OBSERVATION_SIZE)))


class ConvergeObserver:
    """OpenSpiel observer: tensors and strings of what one player may know, for each observation type.

    ``public_info`` and ``private_info`` SINGLE_PLAYER: the player's view (``observation(player)``);
    public only: the public (spectator) view, oriented to the player; private only: what the player's
    view shows beyond the public one (the :data:`~converge.adapters.encoding.PRIVATE_COLUMNS` of each
    card; the hand and what the player alone knows, as text); neither: an empty tensor and string.
    ``perfect_recall`` adds the events of that view, in order: a ``history`` piece of one row per event
    the match can show one player (private only: the player's private events). ALL_PLAYERS is refused:
    no view holds both hands (I3).

    :meth:`set_from` writes into :attr:`tensor` in place: the view afresh, the history from where it left
    off when the state continues the one read last for that player (its log holds the same events up to
    there), otherwise from the start (:class:`~converge.engine.tensors.RecallRows`). So :attr:`tensor` must
    hold what it wrote: copy it to keep it or change it (as OpenSpiel's observer documentation asks).
    """

    def __init__(self, game: ConvergeGame, iig_obs_type: pyspiel.IIGObservationType,
                 params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {dict(params)}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("python_converge offers no observer of all players' private information: "
                             "no view holds both hands (I3)")
        self.public = bool(iig_obs_type.public_info)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        n_cards = NUM_CARDS * CARD_FEATURES
        pieces: list[tuple[str, int, tuple[int, ...]]] = []
        if self.public:
            pieces += [("cards", n_cards, (NUM_CARDS, CARD_FEATURES)),
                       ("match", MATCH_FEATURES, (MATCH_FEATURES,)),
                       ("decision", DECISION_FEATURES, (DECISION_FEATURES,)),
                       ("legal", NUM_ACTIONS, (NUM_ACTIONS,))]
        elif self.private:
            pieces.append(("private_cards", NUM_CARDS * len(PRIVATE_COLUMNS), (NUM_CARDS, len(PRIVATE_COLUMNS))))
        self.view_size = sum(size for _, size, _ in pieces)
        #: Rows of the history piece (0: none).
        self.rows = game.history_rows if self.perfect_recall and (self.public or self.private) else 0
        size = self.view_size + self.rows * EVENT_FEATURES
        # an array.array the engine's compiled writers fill, seen by numpy without a copy; they write
        # through a memoryview (its item assignment costs half the array's)
        self._buffer = array.array("f", bytes(4 * size))
        self._view: memoryview[float] = memoryview(self._buffer)
        if self.rows:
            pieces.append(("history", self.rows * EVENT_FEATURES, (self.rows, EVENT_FEATURES)))
        self.tensor = np.frombuffer(self._buffer, np.float32) if size else np.zeros(0, np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        offset = 0
        for name, n, shape in pieces:
            self.dict[name] = self.tensor[offset:offset + n].reshape(shape)
            offset += n
        # each player's history rows, kept from the state read last for them (only new events are written)
        self._history = (RecallRows(self._view[self.view_size:], self.rows, not self.public)
                         if self.rows else None)

    def set_from(self, state: ConvergeState, player: int) -> None:
        if player not in (0, 1):
            raise ValueError(f"a player is 0 or 1, got {player}")
        m = state.core.match
        if self.public:
            view = self._view
            view[0:OBSERVATION_SIZE] = _OBSERVATION_ZEROS
            write_observation(m, player if self.private else -1, player, view)
        elif self.private:
            self._private_cards(m, player)
        if self._history is not None:
            self._history.update(m, player, player if self.private else -1)

    def _private_cards(self, m: Match, player: int) -> None:
        """The private columns of each card: shown in the player's view and not in the public one."""
        mine = np.zeros(OBSERVATION_SIZE, np.float32)
        public = np.zeros(OBSERVATION_SIZE, np.float32)
        write_observation(m, player, player, mine)
        write_observation(m, -1, player, public)
        n_cards = NUM_CARDS * CARD_FEATURES
        cols = list(PRIVATE_COLUMNS)
        a = mine[:n_cards].reshape(NUM_CARDS, CARD_FEATURES)[:, cols]
        b = public[:n_cards].reshape(NUM_CARDS, CARD_FEATURES)[:, cols]
        self.dict["private_cards"][:] = np.where(a != b, a, 0.0)

    def string_from(self, state: ConvergeState, player: int) -> str:
        if player not in (0, 1):
            raise ValueError(f"a player is 0 or 1, got {player}")
        core = state.core
        key = (self._kind(), player)
        text = core.texts.get(key)
        if text is None:
            text = core.texts[key] = self._string(core, player)
        return text

    def _kind(self) -> int:
        return 4 * int(self.public) + 2 * int(self.private) + int(self.perfect_recall)

    def _string(self, core: _Core, player: int) -> str:
        if self.public and self.private:
            text = view_text(core.match, player)
        elif self.public:
            text = f"public view for player {player}\n" + view_text(core.match, -1)
        elif self.private:
            text = private_string(core.view(player), core.view(-1))
        else:
            return ""
        if self.perfect_recall:
            text += "\nlog: " + core.log(player if self.private else -1, not self.public)
        return text


pyspiel.register_game(_GAME_TYPE, ConvergeGame)
