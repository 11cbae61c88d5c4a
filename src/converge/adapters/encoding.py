"""Fixed-size tensors of a player's view, shared by the OpenSpiel, PettingZoo and Gymnasium adapters.

Two ways to the same tensors: :class:`Encoder` builds them from an observation dict (the reference: it
reads only :meth:`converge.engine.state.Match.observation`, the one door to the state, I1-I3, and the
playset's public card ids and skillset names), and :func:`observation_array` / :func:`info_state_array`
write them straight from a match, through the engine's :mod:`converge.engine.tensors` (compiled; no JSON
built or parsed: what the adapters use). A test checks both agree on many random states, from both seats
and a spectator; two states with the same observation for a player give that player the same tensors,
whatever the hidden cards.

The tensors are relative to the viewer: "me" is the viewer, "them" is the other player.

*Observation tensor* (:data:`OBSERVATION_SIZE` floats, all in [0, 1]), in named parts:

``cards`` (18 x :data:`CARD_FEATURES`)
    one row per card id (playset order): where the card is as far as the viewer knows (my hand, my
    faction, their faction, goals, discard, hidden), whether it is the card being played, the pending
    choice, revealed to me, studied, known to be in their hand or at a depth of the deck, recalled,
    guarded by me or them, its current skillset and rank in a faction, conversions, and whether each
    player fulfils it as a goal.
``match`` (:data:`MATCH_FEATURES`)
    round, turn, round wins, artifact holder, lead, whose decision, terminal and winner, scores, hand,
    deck and discard sizes.
``decision`` (:data:`DECISION_FEATURES`)
    what is being decided (choose a card, a mode, a target, a skillset, a faction, a second card) and
    the kind of the discard effect being resolved (one of :data:`EFFECT_SLOTS` slots, by the kind's place
    in the registry; kinds beyond the last slot share it).
``legal`` (26)
    the legal action mask when the decision is the viewer's (all zero otherwise).

*Information-state tensor* (:data:`INFO_STATE_SIZE` floats): the observation tensor, then ``history``,
the :data:`HISTORY_EVENTS` most recent events of the viewer's event log (oldest first, zero padded),
each as :data:`EVENT_FEATURES` floats: kind, who (me / them / nobody), card, and the event's two fields
encoded by their type in the engine's event schema (:data:`converge.engine.events.SCHEMA`): zones (the
zone a card left and the zone it entered, relative to the viewer), a mode, a player (me / them), a
skillset, or a number. The information-state *string* holds the whole log; the tensor keeps a fixed
window of it.
"""

from __future__ import annotations

import array
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

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
    clip,
    legal_for,
    relative_zone,
    write_history,
    write_observation,
)
from converge.engine.zones import NUM_ZONES

if TYPE_CHECKING:
    from converge.engine.state import Match

FloatArray = npt.NDArray[np.float32]

__all__ = ["CARD_FEATURES", "DECISION_FEATURES", "DECISION_SLOTS", "EFFECT_SLOTS", "EVENT_FEATURES",
           "HISTORY_EVENTS", "INFO_STATE_SIZE", "MATCH_FEATURES", "OBSERVATION_SIZE", "Encoder",
           "info_state_array", "legal_array", "observation_array"]

_OBSERVATION_ZEROS = array.array("f", bytes(4 * OBSERVATION_SIZE))
_INFO_STATE_ZEROS = array.array("f", bytes(4 * INFO_STATE_SIZE))
_LEGAL_ZEROS = bytes(NUM_ACTIONS)


def observation_array(match: Match, player: int, public: bool = False) -> FloatArray:
    """The observation tensor of ``player`` (``public=True``: of the spectator's view, oriented to
    ``player``), written from the state: a new float32 array."""
    buf = _OBSERVATION_ZEROS[:]
    write_observation(match, -1 if public else player, player, buf)
    return np.frombuffer(buf, np.float32)


def info_state_array(match: Match, player: int, public: bool = False) -> FloatArray:
    """The information-state tensor (the observation, then the recent events the view holds)."""
    buf = _INFO_STATE_ZEROS[:]
    viewer = -1 if public else player
    write_observation(match, viewer, player, buf)
    write_history(match, viewer, player, buf, OBSERVATION_SIZE)
    return np.frombuffer(buf, np.float32)


def legal_array(match: Match, player: int) -> npt.NDArray[np.int8]:
    """``player``'s legal action mask (26 int8), all zero when the decision is not theirs."""
    buf = bytearray(_LEGAL_ZEROS)
    legal_for(match, player, buf)
    return np.frombuffer(buf, np.int8)


_clip = clip


def decision_kind(decision: Mapping[str, Any] | None) -> str:
    """What is being decided, read from the observation's ``decision`` (one of :data:`DECISION_SLOTS`)."""
    if not decision:
        return "other"
    kind = str(decision.get("kind", "other"))
    return kind if kind in DECISION_SLOTS else "other"


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
                out[E_NUMBERS + slot] = _clip(value / 10.0)

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


# ---------------------------------------------------------------------- strings

def _card_entry(entry: Mapping[str, Any]) -> str:
    text = f"{entry.get('id')}"
    if entry.get("converted"):
        text += f"[{str(entry.get('skillset', ''))[:3]}{entry.get('rank')}"
        text += "*" if entry.get("until_end_of_turn") else ""
        text += "]"
    if entry.get("guarded_by") is not None:
        text += f"(g{entry.get('guarded_by')})"
    return text


def observation_string(obs: Mapping[str, Any]) -> str:
    """The viewer's current view in a few lines (no event log): a deterministic function of ``obs``."""
    viewer = obs.get("viewer")
    who = f"player {viewer}" if viewer in (0, 1) else "spectator"
    lines = [
        f"{who} | round {obs.get('round')} turn {obs.get('turn')} | wins {obs.get('round_wins')} | "
        f"artifact {obs.get('artifact_holder')} lead {obs.get('lead')} | to play {obs.get('current_player')}"
        + (f" | over, winner {obs.get('winner')}" if obs.get("is_terminal") else ""),
        f"scores {obs.get('scores')} | hand sizes {obs.get('hand_sizes')} | deck {obs.get('deck_size')}",
    ]
    if obs.get("hand") is not None:
        lines.append("hand: " + " ".join(obs.get("hand") or []))
    for p, faction in enumerate(obs.get("factions") or []):
        lines.append(f"faction {p}: " + " ".join(_card_entry(e) for e in faction))
    lines.append("goals: " + " ".join(obs.get("goals") or []))
    lines.append("discard: " + " ".join(obs.get("discard") or []))
    if obs.get("recalled"):
        lines.append("recalled: " + " ".join(obs.get("recalled") or []))
    if obs.get("known_opponent_hand"):
        lines.append("known in their hand: " + " ".join(obs.get("known_opponent_hand") or []))
    if obs.get("known_deck"):
        lines.append("known in the deck: " + " ".join(f"{d.get('id')}@{d.get('from_top')}"
                                                       for d in obs.get("known_deck") or []))
    decision = obs.get("decision")
    if decision:
        parts = [str(decision.get("prompt", ""))]
        for key in ("card", "effect", "studied", "pending"):
            if key in decision:
                parts.append(f"{key} {decision[key]}")
        if decision.get("revealed"):
            parts.append("revealed " + " ".join(decision["revealed"]))
        if "legal_actions" in decision:
            parts.append("legal " + " ".join(str(a.get("action")) for a in decision["legal_actions"]))
        lines.append("decision: " + " | ".join(parts))
    return "\n".join(lines)


def event_token(event: Mapping[str, Any]) -> str:
    """One event of the log, compactly: ``kind/player/card`` and its fields' values."""
    player = event.get("player")
    card = event.get("card")
    fields = [str(v).replace(" ", "") for k, v in event.items() if k not in ("kind", "player", "card", "text")]
    return "/".join([str(event.get("kind")), "-" if player is None else str(player), card or "-", *fields])


def info_state_string(obs: Mapping[str, Any]) -> str:
    """The viewer's information state: the current view and the whole event log it has seen."""
    log = " ".join(event_token(e) for e in obs.get("events") or [])
    return observation_string(obs) + "\nlog: " + log


def as_playset(playset: Playset | Sequence[str] | str, deck_dirs: Sequence[str] = ()) -> Playset:
    """A playset from a :class:`Playset`, skillset names, or one string ``"a/b/c"`` (or ``"a,b,c"``)."""
    if isinstance(playset, Playset):
        return playset
    names = playset.replace(",", "/").split("/") if isinstance(playset, str) else list(playset)
    return Playset.from_names([n.strip() for n in names if n.strip()], deck_dirs)
