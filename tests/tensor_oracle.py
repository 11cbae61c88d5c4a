"""The reference encoder of the adapters' tensors: built from an observation dict alone, the way a client
would, to check the engine's direct writer (:func:`converge.adapters.encoding.observation_array` and
:func:`~converge.adapters.encoding.info_state_array`) against. A test oracle, not part of the package.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from converge.adapters.encoding import FloatArray, decision_kind
from converge.engine.actions import NUM_ACTIONS
from converge.engine.effects import effect_kinds
from converge.engine.events import MODES, SCHEMA, EventKind, from_dict
from converge.engine.playset import Playset
from converge.engine.sizes import NUM_CARDS
from converge.engine.tensors import (
    C_ACTIVE,
    C_CONVERTED,
    C_DECK_DEPTH,
    C_DISCARD,
    C_GOAL,
    C_GOAL_MINE,
    C_GOAL_THEIRS,
    C_GUARDED_BY_ME,
    C_GUARDED_BY_THEM,
    C_HIDDEN,
    C_KNOWN_DECK,
    C_KNOWN_THEIR_HAND,
    C_MY_FACTION,
    C_MY_HAND,
    C_PENDING,
    C_RANK,
    C_RECALLED,
    C_REVEALED,
    C_SKILL_0,
    C_STUDIED,
    C_THEIR_FACTION,
    C_UNTIL_END_OF_TURN,
    CARD_FEATURES,
    DECISION_FEATURES,
    DECISION_SLOTS,
    E_CARD,
    E_KIND,
    E_MODE,
    E_NUMBERS,
    E_PLAYER,
    E_SKILLSET,
    E_WHO,
    E_ZONES,
    EFFECT_SLOTS,
    EVENT_FEATURES,
    HISTORY_EVENTS,
    INFO_STATE_SIZE,
    MATCH_FEATURES,
    OBSERVATION_SIZE,
    relative_zone,
)
from converge.engine.tensors import clip as _clip
from converge.engine.zones import NUM_ZONES

_KINDS = {kind.label: kind for kind in EventKind}


class Encoder:
    """Turns observation dicts of one playset into fixed-size float32 tensors.

    >>> enc = Encoder.for_playset(["alchemist", "mechanist", "archivist"])
    >>> from converge import Match
    >>> enc.observation_tensor(Match.new(["alchemist", "mechanist", "archivist"], seed=1).observation(0)).shape
    (507,)
    """

    def __init__(self, card_ids: Sequence[str], skillsets: Sequence[str]) -> None:
        if len(card_ids) != NUM_CARDS:
            raise ValueError(f"a playset has {NUM_CARDS} cards, got {len(card_ids)}")
        self.card_ids = tuple(card_ids)
        self.skillsets = tuple(skillsets)
        self.index_of = {cid: i for i, cid in enumerate(self.card_ids)}
        self.skill_index = {name: i for i, name in enumerate(self.skillsets)}

    @classmethod
    def for_playset(cls, playset: Playset | Sequence[str], deck_dirs: Sequence[str] = ()) -> Encoder:
        ps = playset if isinstance(playset, Playset) else Playset.from_names(list(playset), deck_dirs)
        return cls(ps.card_ids, ps.skillsets)

    # ------------------------------------------------------------------ parts

    def _card(self, cid: object) -> int:
        if isinstance(cid, str):
            return self.index_of.get(cid, -1)
        return -1

    @staticmethod
    def _me(obs: Mapping[str, Any], perspective: int | None) -> int:
        if perspective is not None:
            return perspective
        viewer = obs.get("viewer", 0)
        return viewer if viewer in (0, 1) else 0

    def _cards(self, obs: Mapping[str, Any], me: int, out: FloatArray) -> None:
        them = 1 - me
        located = np.zeros(NUM_CARDS, dtype=bool)

        def put(cid: object, feature: int, value: float = 1.0) -> int:
            c = self._card(cid)
            if c >= 0:
                out[c, feature] = value
            return c

        for cid in obs.get("hand") or []:
            located[put(cid, C_MY_HAND)] = True
        for owner, faction in enumerate(obs.get("factions") or []):
            for entry in faction:
                c = put(entry.get("id"), C_MY_FACTION if owner == me else C_THEIR_FACTION)
                if c < 0:
                    continue
                located[c] = True
                skill = self.skill_index.get(entry.get("skillset", ""), -1)
                if skill >= 0:
                    out[c, C_SKILL_0 + skill] = 1.0
                out[c, C_RANK] = _clip(float(entry.get("rank", 0)) / 6.0)
                out[c, C_CONVERTED] = 1.0 if entry.get("converted") else 0.0
                out[c, C_UNTIL_END_OF_TURN] = 1.0 if entry.get("until_end_of_turn") else 0.0
                guard = entry.get("guarded_by")
                if guard == me:
                    out[c, C_GUARDED_BY_ME] = 1.0
                elif guard == them:
                    out[c, C_GUARDED_BY_THEM] = 1.0
        for cid in obs.get("goals") or []:
            c = put(cid, C_GOAL)
            if c >= 0:
                located[c] = True
        for cid in obs.get("discard") or []:
            c = put(cid, C_DISCARD)
            if c >= 0:
                located[c] = True
        for cid in obs.get("recalled") or []:
            put(cid, C_RECALLED)
        for cid in obs.get("known_opponent_hand") or []:
            put(cid, C_KNOWN_THEIR_HAND)
        for item in obs.get("known_deck") or []:
            c = put(item.get("id"), C_KNOWN_DECK)
            if c >= 0:
                out[c, C_DECK_DEPTH] = _clip((float(item.get("from_top", 0)) + 1.0) / 10.0)
        for item in obs.get("score_breakdown") or []:
            c = self._card(item.get("goal"))
            if c >= 0:
                winners = item.get("winners") or []
                out[c, C_GOAL_MINE] = 1.0 if me in winners else 0.0
                out[c, C_GOAL_THEIRS] = 1.0 if them in winners else 0.0
        decision = obs.get("decision") or {}
        active = put(decision.get("card"), C_ACTIVE)
        if active >= 0:
            located[active] = True
        put(decision.get("pending"), C_PENDING)
        put(decision.get("studied"), C_STUDIED)
        for cid in decision.get("revealed") or []:
            put(cid, C_REVEALED)
        out[~located, C_HIDDEN] = 1.0

    def _match(self, obs: Mapping[str, Any], me: int, out: FloatArray) -> None:
        them = 1 - me
        i = 0
        rnd = int(obs.get("round", 0) or 0)
        if 1 <= rnd <= 3:
            out[i + rnd - 1] = 1.0
        i += 3
        out[i] = _clip(float(obs.get("turn", 0) or 0) / 30.0)
        i += 1
        wins = obs.get("round_wins") or [0, 0]
        for p in (me, them):
            w = int(wins[p])
            if 0 <= w <= 2:
                out[i + w] = 1.0
            i += 3
        for key in ("artifact_holder", "lead"):
            v = obs.get(key)
            if v == me:
                out[i] = 1.0
            elif v == them:
                out[i + 1] = 1.0
            i += 2
        current = obs.get("current_player")
        out[i + (0 if current == me else 1 if current == them else 2)] = 1.0
        i += 3
        out[i] = 1.0 if obs.get("is_terminal") else 0.0
        i += 1
        winner = obs.get("winner")
        if winner == me:
            out[i] = 1.0
        elif winner == them:
            out[i + 1] = 1.0
        i += 2
        scores = obs.get("scores") or [0, 0]
        out[i], out[i + 1] = _clip(scores[me] / 10.0), _clip(scores[them] / 10.0)
        i += 2
        sizes = obs.get("hand_sizes") or [0, 0]
        out[i], out[i + 1] = _clip(sizes[me] / 10.0), _clip(sizes[them] / 10.0)
        i += 2
        out[i] = _clip(float(obs.get("deck_size", 0) or 0) / 10.0)
        out[i + 1] = _clip(len(obs.get("discard") or []) / float(NUM_CARDS))
        i += 2
        assert i == MATCH_FEATURES

    @staticmethod
    def _decision(obs: Mapping[str, Any], me: int, out: FloatArray, legal: FloatArray) -> None:
        decision = obs.get("decision")
        if not decision:
            return
        out[DECISION_SLOTS.index(decision_kind(decision))] = 1.0
        kind = effect_kinds().get(str(decision.get("effect", "")))
        if kind is not None:
            out[len(DECISION_SLOTS) + min(kind.index, EFFECT_SLOTS - 1)] = 1.0
        if decision.get("player") == me:
            for item in decision.get("legal_actions") or []:
                a = item.get("id")
                if isinstance(a, int) and 0 <= a < NUM_ACTIONS:
                    legal[a] = 1.0

    def _event(self, event: Mapping[str, Any], me: int, out: FloatArray) -> None:
        kind, _vis, player, card, a, b = from_dict(event, self.index_of, self.skillsets)
        spec = SCHEMA[EventKind(kind)]
        out[0] = 1.0
        out[E_KIND + kind] = 1.0
        out[E_WHO + (0 if player == me else 1 if player in (0, 1) else 2)] = 1.0
        if card >= 0:
            out[E_CARD + card] = 1.0
        for slot, (field, value) in enumerate(((spec.a, a), (spec.b, b))):
            if field is None or value < 0:
                continue
            if field.type == "zone":
                out[E_ZONES + slot * NUM_ZONES + relative_zone(value, me)] = 1.0
            elif field.type == "mode":
                out[E_MODE + MODES.index(value)] = 1.0
            elif field.type == "player":
                out[E_PLAYER + (0 if value == me else 1)] = 1.0
            elif field.type == "skillset":
                out[E_SKILLSET + value] = 1.0
            else:
                out[E_NUMBERS + slot] = _clip(value / float(max(1, field.scale)))

    # ------------------------------------------------------------------ tensors

    def observation_into(self, obs: Mapping[str, Any], out: FloatArray, perspective: int | None = None) -> None:
        """Write the observation tensor of ``obs`` into ``out`` (length :data:`OBSERVATION_SIZE`)."""
        me = self._me(obs, perspective)
        out.fill(0.0)
        n_cards = NUM_CARDS * CARD_FEATURES
        self._cards(obs, me, out[:n_cards].reshape(NUM_CARDS, CARD_FEATURES))
        self._match(obs, me, out[n_cards:n_cards + MATCH_FEATURES])
        start = n_cards + MATCH_FEATURES
        self._decision(obs, me, out[start:start + DECISION_FEATURES],
                       out[start + DECISION_FEATURES:start + DECISION_FEATURES + NUM_ACTIONS])

    def info_state_into(self, obs: Mapping[str, Any], out: FloatArray, perspective: int | None = None) -> None:
        """Write the information-state tensor of ``obs`` into ``out`` (length :data:`INFO_STATE_SIZE`)."""
        me = self._me(obs, perspective)
        self.observation_into(obs, out[:OBSERVATION_SIZE], me)
        history = out[OBSERVATION_SIZE:].reshape(HISTORY_EVENTS, EVENT_FEATURES)
        history.fill(0.0)
        events = list(obs.get("events") or [])[-HISTORY_EVENTS:]
        for row, event in zip(history, events, strict=False):
            self._event(event, me, row)

    def recall_tensor(self, obs: Mapping[str, Any], rows: int, perspective: int | None = None,
                      private: bool = False) -> FloatArray:
        """The perfect-recall information-state tensor of ``obs``: the observation, then every event of its
        log as a row, in ``rows`` rows (zero padded). ``private``: the events private to the viewer only."""
        me = self._me(obs, perspective)
        out = np.zeros(OBSERVATION_SIZE + rows * EVENT_FEATURES, dtype=np.float32)
        self.observation_into(obs, out[:OBSERVATION_SIZE], me)
        history = out[OBSERVATION_SIZE:].reshape(rows, EVENT_FEATURES)
        events = [e for e in obs.get("events") or [] if not private or SCHEMA[_KINDS[str(e["kind"])]].private]
        assert len(events) <= rows
        for row, event in zip(history, events, strict=False):
            self._event(event, me, row)
        return out

    def observation_tensor(self, obs: Mapping[str, Any], perspective: int | None = None) -> FloatArray:
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self.observation_into(obs, out, perspective)
        return out

    def info_state_tensor(self, obs: Mapping[str, Any], perspective: int | None = None) -> FloatArray:
        out = np.zeros(INFO_STATE_SIZE, dtype=np.float32)
        self.info_state_into(obs, out, perspective)
        return out

    @staticmethod
    def legal_mask(obs: Mapping[str, Any], perspective: int | None = None) -> npt.NDArray[np.int8]:
        """The viewer's legal action mask (26 int8), all zero when the decision is not theirs."""
        me = Encoder._me(obs, perspective)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        decision = obs.get("decision") or {}
        if decision.get("player") == me:
            for item in decision.get("legal_actions") or []:
                a = item.get("id")
                if isinstance(a, int) and 0 <= a < NUM_ACTIONS:
                    mask[a] = 1
        return mask
