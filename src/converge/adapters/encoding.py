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

*Recent-history tensor* (:data:`INFO_STATE_SIZE` floats; PettingZoo's and Gymnasium's ``info_state``):
the observation tensor, then ``history``, the :data:`HISTORY_EVENTS` most recent events of the viewer's
event log (oldest first, zero padded), each as :data:`EVENT_FEATURES` floats: valid, kind, who (me /
them / nobody), card, and the event's two fields encoded by their type in the engine's event schema
(:data:`converge.engine.events.SCHEMA`): zones (the zone a card left and the zone it entered, relative to
the viewer), a mode, a player (me / them), a skillset, or a number (``value / scale``, the field's
largest value, so each value keeps its own float).

*Perfect-recall tensor* (:func:`recall_size` floats; OpenSpiel's information-state tensor): the
observation tensor, then every event of the viewer's log in the same rows, as many rows as the match can
show one player (:meth:`~converge.engine.playset.Playset.max_events_seen`). Two information states with
different histories never share it. :func:`layout_reference` describes both layouts (``docs/openspiel.md``
is generated from it).

The information-state *string* holds the current view and the whole log.
"""

from __future__ import annotations

import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, TypeAlias

import numpy as np
import numpy.typing as npt

from converge.engine.actions import NUM_ACTIONS
from converge.engine.errors import PlaysetError, quote
from converge.engine.playset import SETS, Playset
from converge.engine.schema import CardInPlay, Decision, EventDoc, Observation
from converge.engine.sizes import NUM_CARDS
from converge.engine.tensors import (
    C_ACTIVE,
    C_DECK_DEPTH,
    C_KNOWN_DECK,
    C_KNOWN_THEIR_HAND,
    C_MY_HAND,
    C_PENDING,
    C_REVEALED,
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
from converge.engine.variant import variant_named

if TYPE_CHECKING:
    from converge.engine.state import Match
    from converge.engine.view import PlayerView

FloatArray = npt.NDArray[np.float32]
#: An environment's observation (Gymnasium's and PettingZoo's): the tensor (``flat_observation``), or the
#: tensor and the action mask; a vector environment's are the same, batched.
EnvObservation: TypeAlias = FloatArray | dict[str, FloatArray | npt.NDArray[np.int8]]
#: What an environment's ``render()`` returns: an RGB array, the text, or None (no render mode, or "human":
#: printed).
Frame: TypeAlias = npt.NDArray[np.uint8] | str | None

__all__ = ["CARD_FEATURES", "DECISION_FEATURES", "DECISION_SLOTS", "EFFECT_SLOTS", "EVENT_FEATURES",
           "HISTORY_EVENTS", "INFO_STATE_SIZE", "MATCH_FEATURES", "OBSERVATION_SIZE", "PRIVATE_COLUMNS",
           "info_state_array", "layout_reference", "legal_array", "observation_array", "private_string",
           "recall_size", "view_arrays"]

#: The card features a player's view can show and the public view cannot (the private-only observation's
#: columns): the cards in my hand, those I know in their hand or in the deck (and how deep), and, while I
#: decide, the card I chose, the one pending and those revealed to me alone.
PRIVATE_COLUMNS: Final = (C_MY_HAND, C_KNOWN_THEIR_HAND, C_KNOWN_DECK, C_DECK_DEPTH, C_ACTIVE, C_PENDING,
                          C_REVEALED)


def recall_size(playset: Playset) -> int:
    """The length of the perfect-recall tensor of a playset's matches: the observation, then a row for
    each event a match can show one player."""
    return OBSERVATION_SIZE + playset.max_events_seen() * EVENT_FEATURES

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
    write_observation(match, -1 if public else player, player, memoryview(buf))  # (faster item writes)
    return np.frombuffer(buf, np.float32)


def info_state_array(match: Match, player: int, public: bool = False) -> FloatArray:
    """The information-state tensor (the observation, then the recent events the view holds)."""
    buf = _INFO_STATE_ZEROS[:]
    viewer = -1 if public else player
    view: memoryview[float] = memoryview(buf)  # (faster item writes)
    write_observation(match, viewer, player, view)
    write_history(match, viewer, player, view, OBSERVATION_SIZE)
    return np.frombuffer(buf, np.float32)


def view_arrays(view: PlayerView) -> tuple[FloatArray, FloatArray]:
    """The observation and information-state tensors of a view's player, from the view alone: the floats the
    Gymnasium and PettingZoo environments give that player at this moment, so that an agent trained there
    plays from a bot's ``decide(view)`` (the ladder's agents) on the same inputs.

    >>> from converge import Match
    >>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    >>> obs, info = view_arrays(m.view(m.current_player))
    >>> bool((obs == observation_array(m, m.current_player)).all()), info.shape
    (True, (2683,))
    """
    world = view.redacted()
    return observation_array(world, view.player), info_state_array(world, view.player)


def legal_array(match: Match, player: int) -> npt.NDArray[np.int8]:
    """``player``'s legal action mask (26 int8), all zero when the decision is not theirs."""
    buf = bytearray(_LEGAL_ZEROS)
    legal_for(match, player, buf)
    return np.frombuffer(buf, np.int8)


#: Where the ``legal`` part, the viewer's legal action mask, starts in the observation tensor (its last
#: 26 floats): a batch of observation tensors gives a batch of masks with one slice.
LEGAL_START = OBSERVATION_SIZE - NUM_ACTIONS


def decision_kind(decision: Decision | None) -> str:
    """What is being decided, read from the observation's ``decision`` (one of :data:`DECISION_SLOTS`)."""
    if not decision:
        return "other"
    kind = str(decision.get("kind", "other"))
    return kind if kind in DECISION_SLOTS else "other"


# ---------------------------------------------------------------------- strings

def _card_entry(entry: CardInPlay) -> str:
    text = f"{entry.get('id')}"
    if entry.get("converted"):
        text += f"[{str(entry.get('skillset', ''))[:3]}{entry.get('rank')}"
        text += "*" if entry.get("until_end_of_turn") else ""
        text += "]"
    if entry.get("guarded_by") is not None:
        text += f"(g{entry.get('guarded_by')})"
    return text


def observation_string(obs: Observation) -> str:
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


def event_token(event: EventDoc) -> str:
    """One event of the log, compactly: ``kind/player/card`` and its fields' values."""
    player = event.get("player")
    card = event.get("card")
    fields = [str(v).replace(" ", "") for k, v in event.items() if k not in ("kind", "player", "card", "text")]
    return "/".join([str(event.get("kind")), "-" if player is None else str(player), card or "-", *fields])


def info_state_string(obs: Observation) -> str:
    """The viewer's information state: the current view and the whole event log it has seen."""
    log = " ".join(event_token(e) for e in obs.get("events") or [])
    return observation_string(obs) + "\nlog: " + log


def private_string(mine: Observation, public: Observation) -> str:
    """What a player's view ``mine`` shows beyond the public view ``public`` of the same state (I2): the
    hand, the cards they know in the other hand and in the deck, and what of their decision the public
    does not see; "" when nothing (a spectator's view has no private part)."""
    if mine.get("viewer") not in (0, 1):
        return ""
    lines = ["hand: " + " ".join(mine.get("hand") or [])]
    if mine.get("known_opponent_hand"):
        lines.append("known in their hand: " + " ".join(mine.get("known_opponent_hand") or []))
    if mine.get("known_deck"):
        lines.append("known in the deck: " + " ".join(f"{d.get('id')}@{d.get('from_top')}"
                                                       for d in mine.get("known_deck") or []))
    decision, seen = mine["decision"], public["decision"]
    parts = []
    if decision is not None:
        if "card" in decision and (seen is None or "card" not in seen):
            parts.append(f"card {decision['card']}")
        if "pending" in decision and (seen is None or "pending" not in seen):
            parts.append(f"pending {decision['pending']}")
        if decision.get("revealed") and not (seen and seen.get("revealed")):
            parts.append("revealed " + " ".join(decision.get("revealed", [])))
    if parts:
        lines.append("decision: " + " | ".join(parts))
    return "\n".join(lines)


def as_playset(playset: Playset | Sequence[str] | str, deck_dirs: Sequence[str] = (),
               variant: object = "full") -> Playset:
    """A playset from a :class:`Playset`, skillset names, or one string ``"a/b/c"`` (or ``"a,b,c"``), of the
    ``variant`` named (:mod:`converge.engine.variant`); the Catalysts of Change, the environments' default
    playset, give a variant of two skillsets their first two."""
    size = variant_named(variant)
    if isinstance(playset, Playset):
        if playset.variant != size:
            raise PlaysetError(f"the playset is of the {playset.variant.name} variant, not {size.name}")
        return playset
    names = [n.strip() for n in (playset.replace(",", "/").split("/") if isinstance(playset, str) else playset)]
    names = [n for n in names if n]
    if [n.lower() for n in names] == list(SETS["catalysts"]):
        names = names[:size.skillsets]
    if len(names) != size.skillsets and not size.is_full:  # (the full game's playset says what is wrong itself)
        raise PlaysetError(f"a playset of the {size.name} variant is {size.skillsets} skillset names, "
                           f"got {quote(playset)}")
    return Playset.from_names(names, deck_dirs, size)


# ---------------------------------------------------------------------- the layouts, for the docs

# The match part, in the writer's order (converge.engine.tensors.write_observation): name, floats, meaning.
MATCH_LAYOUT: Final = (
    ("round", 3, "one-hot round 1..3"), ("turn", 1, "turn number / 30"),
    ("my round wins", 3, "one-hot 0..2"), ("their round wins", 3, "one-hot 0..2"),
    ("artifact holder", 2, "me, them"), ("lead", 2, "me, them"), ("to decide", 3, "me, them, nobody (chance)"),
    ("over", 3, "match over, I won, they won"), ("scores", 2, "mine, theirs (/ 10)"),
    ("hand sizes", 2, "mine, theirs (/ 10)"), ("deck and discard sizes", 2, "deck / 10, discard / 18"),
)


def _card_columns() -> list[str]:
    from converge.engine import tensors

    names = {v: k[2:].lower().replace("_", " ") for k, v in vars(tensors).items()
             if k.startswith("C_") and isinstance(v, int)}
    return [names.get(i, f"skill {i - tensors.C_SKILL_0}") if i != tensors.C_SKILL_0 else "skill 0"
            for i in range(CARD_FEATURES)]


def _event_columns() -> list[tuple[str, int, str]]:
    from converge.engine.events import MODE_NAMES, SCHEMA, EventKind
    from converge.engine.zones import NUM_ZONES, ZONE_NAMES

    numbers = sorted({f"`{f.name}` / {f.scale}" for spec in SCHEMA.values() for f in (spec.a, spec.b)
                      if f is not None and f.scale})
    zones = ", ".join(["my hand", "their hand", "my faction", "their faction", *ZONE_NAMES[4:NUM_ZONES]])
    return [
        ("valid", 1, "1 for an event, 0 for padding"),
        ("kind", len(EventKind), ", ".join(k.label for k in EventKind)),
        ("who", 3, "the event's player: me, them, nobody"),
        ("card", NUM_CARDS, "the card id, one-hot (none: all zero)"),
        ("from zone", NUM_ZONES, zones), ("to zone", NUM_ZONES, zones),
        ("mode", 4, ", ".join(MODE_NAMES)), ("player", 2, "a player field: me, them"),
        ("skillset", 3, "a skillset field: the playset's three"),
        ("numbers", 2, "the kind's first and second number fields: " + ", ".join(numbers)),
    ]


def layout_reference() -> str:
    """The tensors' layouts in Markdown (``docs/openspiel.md`` holds it; a test keeps it in sync)."""
    from converge.engine.playset import all_playsets

    n_cards = NUM_CARDS * CARD_FEATURES
    lines = [
        "<!-- generated by converge.adapters.encoding.layout_reference(); tests/adapters/test_openspiel.py "
        "keeps it in sync -->", "",
        f"The observation tensor has {OBSERVATION_SIZE} floats, in [0, 1], relative to the viewer (\"me\"):", "",
        "| part | offset | floats | what |", "| --- | --- | --- | --- |",
        f"| `cards` | 0 | {NUM_CARDS} x {CARD_FEATURES} | one row per card id: "
        + ", ".join(_card_columns()) + " |",
    ]
    offset = n_cards
    for name, size, what in MATCH_LAYOUT:
        lines.append(f"| `match`: {name} | {offset} | {size} | {what} |")
        offset += size
    lines.append(f"| `decision` | {offset} | {DECISION_FEATURES} | what is decided: "
                 + ", ".join(DECISION_SLOTS) + f"; then the kind of the effect resolving ({EFFECT_SLOTS} slots, "
                 "in registry order) |")
    offset += DECISION_FEATURES
    lines.append(f"| `legal` | {offset} | {NUM_ACTIONS} | my legal actions when the decision is mine |")
    lines += ["", f"An event row has {EVENT_FEATURES} floats:", "", "| part | offset | floats | what |",
              "| --- | --- | --- | --- |"]
    offset = 0
    for name, size, what in _event_columns():
        lines.append(f"| {name} | {offset} | {size} | {what} |")
        offset += size
    sizes = sorted(Playset.from_names(list(names)).max_events_seen() for names in all_playsets())
    default = Playset.from_names(["alchemist", "mechanist", "archivist"]).max_events_seen()
    lines += [
        "",
        f"The recent-history tensor (PettingZoo's and Gymnasium's `info_state`) is the observation, then the "
        f"{HISTORY_EVENTS} latest events the viewer saw, oldest first, zero padded: {INFO_STATE_SIZE} floats.",
        "",
        "The perfect-recall tensor (OpenSpiel's information-state tensor) is the observation, then every event "
        "the viewer saw, in order, one row each, zero padded to the most a match of the playset can show one "
        "player (`Playset.max_events_seen()`: per round 6 + 34 x (8 + the most events one discard effect "
        "logs), for 3 rounds, and the match's end) — "
        f"{default} rows ({OBSERVATION_SIZE + default * EVENT_FEATURES:,} floats) for the default playset, "
        f"{sizes[0]} to {sizes[-1]} over the {len(sizes)} built-in playsets.",
    ]
    return "\n".join(lines) + "\n"
