"""What happened in a match: the event kinds, one schema per kind, and the one interpreter of public events.

The engine logs each thing that happens as a plain tuple ``(kind, visibility, player, card, a, b)``
(cheap to make and to copy); ``visibility`` is -1 for a public event, or the one player who may see
it. ``kind`` is an :class:`EventKind`; what ``player``, ``card``, ``a`` and ``b`` mean depends on the
kind and is written once, in :data:`SCHEMA` (docs/events.md is generated from it by :func:`reference`). Cards
that move are named by zones (:mod:`converge.engine.zones`), never by effect: a new effect kind tells
what it did with the events below, and every reader of the log understands it.

Readers: observations turn events into dicts with named fields (:func:`to_dict`) and back
(:func:`from_dict`); :class:`PublicTracker` follows the public zones through the events, for narration,
the simulator's statistics and anyone rebuilding a board from a log.

>>> SCHEMA[EventKind.PLAY].a.name, SCHEMA[EventKind.PLAY].b.name
('mode', 'faction')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, SupportsIndex, SupportsInt, cast

from converge.engine.actions import DECLARE, DISCARD, MINE, THEIRS
from converge.engine.schema import EventDoc
from converge.engine.sizes import MAX_ROUNDS, MAX_STARS, NUM_CARDS, RANKS
from converge.engine.zones import DECK, DISCARD_PILE, FACTION, GOAL_AREA, NUM_ZONES, ZONE_NAMES, Zones, is_hand

Event = tuple[int, int, int, int, int, int]

PUBLIC: Final = -1


class EventKind(IntEnum):
    """The kinds of event. Their numbers are stable (they appear in tensors)."""

    ROUND_START = 0
    START_DISCARD = 1
    DEALT = 2
    PLAY = 3
    PASS = 4
    RESOLVE = 5
    MOVE = 6
    CONVERT = 7
    REVERT = 8
    GUARD = 9
    REVEAL = 10
    SEARCH = 11
    SAW = 12
    TOOK = 13
    DISCARDED = 14
    SCORE = 15
    ARTIFACT = 16
    DRAW = 17
    DREW = 18
    ROUND_END = 19
    MATCH_END = 20

    @property
    def label(self) -> str:
        """The kind's name in observations, e.g. ``"round_start"``."""
        return self.name.lower()


# The kinds as plain integers for the engine's hot paths: compiled, a Final int is a constant, while an
# enum member is looked up at run time (about 15x slower in a comparison).
ROUND_START: Final = int(EventKind.ROUND_START)
START_DISCARD: Final = int(EventKind.START_DISCARD)
DEALT: Final = int(EventKind.DEALT)
PLAY: Final = int(EventKind.PLAY)
PASS: Final = int(EventKind.PASS)
RESOLVE: Final = int(EventKind.RESOLVE)
MOVE: Final = int(EventKind.MOVE)
CONVERT: Final = int(EventKind.CONVERT)
REVERT: Final = int(EventKind.REVERT)
GUARD: Final = int(EventKind.GUARD)
REVEAL: Final = int(EventKind.REVEAL)
SEARCH: Final = int(EventKind.SEARCH)
SAW: Final = int(EventKind.SAW)
TOOK: Final = int(EventKind.TOOK)
DISCARDED: Final = int(EventKind.DISCARDED)
SCORE: Final = int(EventKind.SCORE)
ARTIFACT: Final = int(EventKind.ARTIFACT)
DRAW: Final = int(EventKind.DRAW)
DREW: Final = int(EventKind.DREW)
ROUND_END: Final = int(EventKind.ROUND_END)
MATCH_END: Final = int(EventKind.MATCH_END)
NUM_EVENT_KINDS: Final = len(EventKind)

# How a round ended (ROUND_END's ``a``).
OUTSCORED: Final = 0  # T6: the lead kept the artifact and scored more
HANDS_EMPTY: Final = 1  # T8: both hands empty, the artifact holder wins
END_REASONS: Final = ("outscored", "hands_empty")

# The largest values of the events' numbers (Field.scale): a Search looks at 5 cards at most (its card
# format's bound), an effect of the built-in kinds takes at most 8 decisions (Study of an Expand 3) and
# room is left for new kinds, a player's points are at most every card's stars.
MAX_SEARCH_DEPTH: Final = 5
MAX_EFFECT_DECISIONS: Final = 16
MAX_SCORE: Final = MAX_STARS * NUM_CARDS

MODES: Final = (DISCARD, DECLARE, MINE, THEIRS)
MODE_NAMES: Final = ("discard", "declare", "mine", "theirs")


@dataclass(frozen=True)
class Field:
    """One of an event's two numbers: its name in observations, its type and its meaning.

    Types: ``int``; ``mode`` (an action id 18..21, written as its word); ``player``; ``zone`` (written
    as its name, see :data:`~converge.engine.zones.ZONE_NAMES`); ``skillset`` (an index into the
    playset, written as its name); ``reason`` (how a round ended, written as its word).
    """

    name: str
    type: str
    doc: str
    #: For a number (``int`` or ``reason``): the largest value it takes; tensors write ``value / scale``,
    #: so that every value keeps its own float in [0, 1] (the perfect-recall tensor tells them all apart).
    scale: int = 0


@dataclass(frozen=True)
class EventSpec:
    """The schema of one event kind."""

    kind: EventKind
    doc: str
    player: str  # what ``player`` means; "" when it is not used
    card: str  # what ``card`` means; "" when it is not used
    a: Field | None = None
    b: Field | None = None
    private: bool = False  # True: only ``player`` sees it (visibility == player)


SCHEMA: Final[Mapping[EventKind, EventSpec]] = {spec.kind: spec for spec in (
    EventSpec(EventKind.ROUND_START, "a round is dealt", "who holds the artifact", "",
              Field("round", "int", "the round number, from 1", MAX_ROUNDS)),
    EventSpec(EventKind.START_DISCARD, "the card dealt face up starts the discard pile", "", "that card"),
    EventSpec(EventKind.DEALT, "a card dealt into the player's hand", "the player", "the card", private=True),
    EventSpec(EventKind.PLAY, "a card played from the hand (T3)", "who played it", "the card",
              Field("mode", "mode", "discard, declare, mine or theirs"),
              Field("faction", "player", "whose faction it went into (mine/theirs), else null")),
    EventSpec(EventKind.PASS, "a player with an empty hand passes (T2)", "who passed", ""),
    EventSpec(EventKind.RESOLVE, "the discard effect of another card resolves as the played card's (Study)",
              "who plays", "the card whose effect resolves now"),
    EventSpec(EventKind.MOVE, "an effect moves a card from one zone to another, in public", "who moved it",
              "the card", Field("from", "zone", "the zone it left"), Field("to", "zone", "the zone it entered")),
    EventSpec(EventKind.CONVERT, "a card in a faction is converted (C1)", "who converted it", "the card",
              Field("skillset", "skillset", "its skillset now"), Field("rank", "int", "its rank now", RANKS[-1])),
    EventSpec(EventKind.REVERT, "a conversion until the end of the turn reverts (C6)", "", "the card",
              Field("skillset", "skillset", "its skillset now"), Field("rank", "int", "its rank now", RANKS[-1])),
    EventSpec(EventKind.GUARD, "a card is guarded until the end of the round", "who guards it", "the card"),
    EventSpec(EventKind.REVEAL, "the top card of the deck is shown to both players", "who revealed it",
              "the card"),
    EventSpec(EventKind.SEARCH, "a player looks at the top cards of the deck and takes one into their hand",
              "who searches", "", Field("depth", "int", "how many cards they look at", MAX_SEARCH_DEPTH)),
    EventSpec(EventKind.SAW, "a card the searcher sees", "the searcher", "the card",
              Field("from_top", "int", "its position from the top, 0 first", MAX_SEARCH_DEPTH - 1), private=True),
    EventSpec(EventKind.TOOK, "the searched card the searcher takes into their hand", "the searcher",
              "the card", private=True),
    EventSpec(EventKind.DISCARDED, "the played card goes to the discard pile when its effect is over",
              "who played it", "the card",
              Field("decisions", "int", "how many decisions its effect took", MAX_EFFECT_DECISIONS),
              Field("declined", "int", "1 when the player declined the rest of the effect (done)", 1)),
    EventSpec(EventKind.SCORE, "end-of-turn scores (T5)", "", "",
              Field("score0", "int", "player 0's points", MAX_SCORE),
              Field("score1", "int", "player 1's points", MAX_SCORE)),
    EventSpec(EventKind.ARTIFACT, "the artifact passes to the other player (T6)", "who holds it now", ""),
    EventSpec(EventKind.DRAW, "a player draws the top card of the deck (T7)", "who draws", ""),
    EventSpec(EventKind.DREW, "the card the player drew", "who drew it", "the card", private=True),
    EventSpec(EventKind.ROUND_END, "a round is won", "the winner", "",
              Field("reason", "reason", "outscored (T6) or hands_empty (T8)", len(END_REASONS) - 1),
              Field("round", "int", "the round", MAX_ROUNDS)),
    EventSpec(EventKind.MATCH_END, "the match is won (M1)", "the winner", ""),
)}


def _value(field: Field, value: int, skillsets: Sequence[str]) -> str | int | None:
    if field.type == "mode":
        return MODE_NAMES[MODES.index(value)] if value in MODES else None
    if field.type == "zone":
        return ZONE_NAMES[value] if 0 <= value < NUM_ZONES else None
    if field.type == "skillset":
        return skillsets[value] if 0 <= value < len(skillsets) else None
    if field.type == "reason":
        return END_REASONS[value] if 0 <= value < len(END_REASONS) else None
    if field.type == "player":
        return value if value in (0, 1) else None
    return value


def _number(field: Field, value: object, skillsets: Sequence[str]) -> int:
    if field.type == "mode":
        return MODES[MODE_NAMES.index(value)] if value in MODE_NAMES else -1
    if field.type == "zone":
        return ZONE_NAMES.index(value) if value in ZONE_NAMES else -1
    if field.type == "skillset":
        return list(skillsets).index(value) if isinstance(value, str) and value in skillsets else -1
    if field.type == "reason":
        return END_REASONS.index(value) if value in END_REASONS else -1
    if value is None:
        return -1
    # what int() converts (the usual ones first: a check against a protocol is slower)
    if isinstance(value, (int, float, str, bytes, bytearray, SupportsInt, SupportsIndex)):
        return int(value)
    raise TypeError(f"event field {field.name!r} must be a number, got {type(value).__name__}")


def to_dict(event: Event, card_ids: Sequence[str], skillsets: Sequence[str]) -> EventDoc:
    """An event as observations show it: ``kind``, ``player``, ``card`` and its named fields.

    >>> to_dict((EventKind.PLAY, -1, 0, 0, MINE, 0), ["ALC1"] * 18, ["Alchemist", "Mechanist", "Archivist"])
    {'kind': 'play', 'player': 0, 'card': 'ALC1', 'mode': 'mine', 'faction': 0}
    """
    kind, _vis, player, card, a, b = event
    spec = SCHEMA[EventKind(kind)]
    out: dict[str, object] = {"kind": spec.kind.label, "player": player if player >= 0 else None,
                           "card": card_ids[card] if card >= 0 else None}
    if spec.a is not None:
        out[spec.a.name] = _value(spec.a, a, skillsets)
    if spec.b is not None:
        out[spec.b.name] = _value(spec.b, b, skillsets)
    return cast(EventDoc, out)  # its fields are the kind's (SCHEMA), each a key of EventDoc (a test checks)


_BY_LABEL: Final = {kind.label: kind for kind in EventKind}


def from_dict(data: Mapping[str, object], index_of: Mapping[str, int], skillsets: Sequence[str],
              visibility: int = PUBLIC) -> Event:
    """The event tuple of an observation's event dict (the inverse of :func:`to_dict`).

    Raises ``ValueError`` for an unknown kind.
    """
    kind = _BY_LABEL.get(str(data.get("kind")))
    if kind is None:
        raise ValueError(f"unknown event kind {str(data.get('kind'))[:40]!r}")
    spec = SCHEMA[kind]
    player = data.get("player")
    cid = data.get("card")
    card = index_of.get(cid, -1) if isinstance(cid, str) else -1
    a = _number(spec.a, data.get(spec.a.name), skillsets) if spec.a is not None else 0
    b = _number(spec.b, data.get(spec.b.name), skillsets) if spec.b is not None else 0
    vis = player if spec.private and isinstance(player, int) else visibility
    return (int(kind), vis, player if isinstance(player, int) else -1, card, a, b)


class PublicTracker:
    """The one interpreter of public events: follows the public zones of a match through its log.

    Feed it every event in order (:meth:`step`; private events are ignored). It knows what a spectator
    knows: the goal area, both factions with conversions and guards, the discard pile, hand and deck
    sizes, the artifact holder, and which card's discard effect is resolving.

    >>> from converge import Match
    >>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    >>> t = PublicTracker(m.playset.printed_skill, m.playset.printed_rank)
    >>> for e in m.events: t.step(e)
    >>> t.zones.discard == m.zones.discard, t.hand_sizes
    (True, [3, 3])
    """

    __slots__ = ("zones", "hand_sizes", "deck_size", "holder", "round_no", "resolving", "played", "searcher")

    def __init__(self, printed_skill: tuple[int, ...], printed_rank: tuple[int, ...]) -> None:
        self.zones = Zones(printed_skill, printed_rank)
        self.hand_sizes = [0, 0]
        self.deck_size = 0
        self.holder = -1
        self.round_no = 0
        self.resolving = -1  # the card whose discard effect is resolving, -1: none
        self.played = -1  # the card being played for its discard effect
        self.searcher = -1  # who is taking one of the cards of a search (when the effect ends)

    def step(self, event: Event) -> None:
        kind, vis, player, card, a, b = event
        if vis != PUBLIC:
            return
        z = self.zones
        if kind == ROUND_START:
            self.zones = Zones(z.printed_skill, z.printed_rank)
            self.hand_sizes = [3, 3]
            self.deck_size = len(z.printed_skill) - 8
            self.holder = player
            self.round_no = a
        elif kind == START_DISCARD:
            z.discard.append(card)
        elif kind == PLAY:
            self.hand_sizes[player] -= 1
            if a == DISCARD:
                self.played = self.resolving = card
            elif a == DECLARE:
                z.goals.append(card)
            else:
                z.factions[b].append(card)
        elif kind == RESOLVE:
            self.resolving = card
        elif kind == MOVE:
            self._move(card, a, b)
        elif kind in (CONVERT, REVERT):
            z.skill[card] = a
            z.rank[card] = b
        elif kind == GUARD:
            z.guard[card] = player
        elif kind == SEARCH:
            if a > 0:  # the searcher takes one of the cards into their hand before the effect is over
                self.searcher = player
        elif kind == DISCARDED:
            if self.searcher >= 0:
                self.deck_size -= 1
                self.hand_sizes[self.searcher] += 1
                self.searcher = -1
            z.discard.append(card)
            self.played = self.resolving = -1
        elif kind == ARTIFACT:
            self.holder = player
        elif kind == DRAW:
            self.deck_size -= 1
            self.hand_sizes[player] += 1

    def follow(self, events: list[Event], viewer: int, count: int) -> int:
        """Step through ``events`` until ``count`` of those ``viewer`` sees have been followed; return the
        index in ``events`` after the last one (a fast path for readers that skip what a viewer has read)."""
        seen = 0
        i = 0
        n = len(events)
        while i < n and seen < count:
            e = events[i]
            vis = e[1]
            if vis < 0 or vis == viewer:
                self.step(e)
                seen += 1
            i += 1
        return i

    def _move(self, card: int, source: int, target: int) -> None:
        z = self.zones
        if is_hand(source):
            self.hand_sizes[source] -= 1
        elif source == DECK:
            self.deck_size -= 1
        elif card in z.cards(source):  # (a log that starts from a position does not show the zones before)
            z.cards(source).remove(card)
        if is_hand(target):
            self.hand_sizes[target] += 1
        elif target == DECK:
            self.deck_size += 1
        else:
            z.cards(target).append(card)
        z.settle(card, source, target)


def reference() -> str:
    """The event reference (docs/events.md), in Markdown, generated from :data:`SCHEMA`."""
    lines = [
        "# Events", "",
        "<!-- generated by converge.engine.events.reference(); tests/engine/test_events.py keeps it in sync -->",
        "",
        "A match logs what happens as events. Observations list the events a viewer may see, oldest first, as",
        "objects with `kind`, `player` (or null), `card` (a card id, or null), the kind's fields below, and",
        "`text`, the sentence for that viewer. Private events are shown only to the player they name.",
        "Zones are `hand 0`, `hand 1`, `faction 0`, `faction 1`, `discard`, `goals` and `deck`; modes are",
        "`discard`, `declare`, `mine` and `theirs`. In Python, `converge.engine.events.PublicTracker` follows",
        "the public zones through a log.", "",
        "| kind | who sees it | player | card | fields | what happened |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for spec in SCHEMA.values():
        fields = "; ".join(f"`{f.name}` ({f.type}): {f.doc}" for f in (spec.a, spec.b) if f is not None)
        lines.append(f"| `{spec.kind.label}` | {'its player' if spec.private else 'everyone'} | "
                     f"{spec.player or '—'} | {spec.card or '—'} | {fields or '—'} | {spec.doc} |")
    return "\n".join(lines) + "\n"


__all__ = ["DECK", "DISCARD_PILE", "END_REASONS", "FACTION", "GOAL_AREA", "SCHEMA", "Event", "EventKind",
           "EventSpec", "Field", "PublicTracker", "from_dict", "reference", "to_dict"]
