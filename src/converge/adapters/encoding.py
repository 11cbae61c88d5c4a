"""Fixed-size tensors of a player's view, shared by the OpenSpiel, PettingZoo and Gymnasium adapters.

:func:`observation_array` and :func:`info_state_array` write them straight from a match, through the
engine's :mod:`converge.engine.tensors` (compiled; no JSON built or parsed). The tests hold them to a
reference encoder that reads only :meth:`converge.engine.state.Match.observation`, the one door to the
state (I1-I3), and the playset's public card ids and skillset names (``tests/tensor_oracle.py``): both agree
on many random states, from both seats and a spectator; two states with the same observation for a
player give that player the same tensors, whatever the hidden cards.

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
from converge.engine.playset import Playset
from converge.engine.tensors import (
    CARD_FEATURES,
    DECISION_FEATURES,
    DECISION_SLOTS,
    EFFECT_SLOTS,
    EVENT_FEATURES,
    HISTORY_EVENTS,
    INFO_STATE_SIZE,
    MATCH_FEATURES,
    OBSERVATION_SIZE,
    legal_for,
    write_history,
    write_observation,
)

if TYPE_CHECKING:
    from converge.engine.state import Match

FloatArray = npt.NDArray[np.float32]

__all__ = ["CARD_FEATURES", "DECISION_FEATURES", "DECISION_SLOTS", "EFFECT_SLOTS", "EVENT_FEATURES",
           "HISTORY_EVENTS", "INFO_STATE_SIZE", "MATCH_FEATURES", "OBSERVATION_SIZE",
           "info_state_array", "legal_array", "observation_array"]

_OBSERVATION_ZEROS = array.array("f", bytes(4 * OBSERVATION_SIZE))
_INFO_STATE_ZEROS = array.array("f", bytes(4 * INFO_STATE_SIZE))
_LEGAL_ZEROS = bytes(NUM_ACTIONS)


def observation_array(match: Match, player: int, public: bool = False) -> FloatArray:
    """The observation tensor of ``player`` (``public=True``: of the spectator's view, oriented to
    ``player``), written from the state: a new float32 array.

    >>> from converge import Match
    >>> observation_array(Match.new(["alchemist", "mechanist", "archivist"], seed=1), 0).shape
    (507,)
    """
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


#: Where the ``legal`` part, the viewer's legal action mask, starts in the observation tensor (its last
#: 26 floats): a batch of observation tensors gives a batch of masks with one slice.
LEGAL_START = OBSERVATION_SIZE - NUM_ACTIONS


def decision_kind(decision: Mapping[str, Any] | None) -> str:
    """What is being decided, read from the observation's ``decision`` (one of :data:`DECISION_SLOTS`)."""
    if not decision:
        return "other"
    kind = str(decision.get("kind", "other"))
    return kind if kind in DECISION_SLOTS else "other"


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
