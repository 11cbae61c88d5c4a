"""The redacted view of a match for one player or a spectator (I1-I3).

This is the only door to a match's state for anyone but the engine. It holds what the viewer may
know and nothing else: never the opponent's hand, the deck order, the artifact card or the seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from converge.engine.actions import NUM_ACTIONS
from converge.engine.effects import effect_kind
from converge.engine.errors import ConvergeError, quote
from converge.engine.events import END_REASONS, Event, to_dict
from converge.engine.narration import Narrator, action_label, decision_prompt
from converge.engine.schema import CardInPlay, Decision, EventDoc, KnownDeckCard, Observation, PrintedCard
from converge.engine.turn import EFFECT, MODE, OVER

if TYPE_CHECKING:
    from converge.cards.model import CardSpec
    from converge.engine.playset import Playset
    from converge.engine.state import Match

OBSERVATION_VERSION = 2


def card_catalog(match: Match) -> list[PrintedCard]:
    """The printed cards of the playset (public: every player knows the decks in play)."""
    return [printed_card(c) for c in match.playset.cards]


def printed_card(card: CardSpec) -> PrintedCard:
    """A card as printed: its id, name, skillset, rank, goal with its stars, and effect with its keyword."""
    return {"id": card.id, "name": card.name, "skillset": card.skillset, "rank": card.rank, "goal": card.goal.text,
            "stars": card.goal.stars, "effect": card.effect_text, "keyword": effect_kind(card.effect.kind).keyword,
            "text": card.text}


def _in_play(match: Match, card: int) -> CardInPlay:
    z = match.zones
    return in_play(match.playset, card, z.skill[card], z.rank[card], any(t[0] == card for t in z.temp),
                   z.guard[card])


def in_play(ps: Playset, card: int, skill: int, rank: int, until_end_of_turn: bool = False,
            guard: int = -1) -> CardInPlay:
    """How an observation shows a card in a faction: its current skillset (index ``skill``) and ``rank``,
    and whether they are a conversion's, one that lasts until the end of the turn, and who guards it."""
    printed_skill, printed_rank = ps.printed_skill[card], ps.printed_rank[card]
    return {
        "id": ps.card_ids[card],
        "skillset": ps.skillsets[skill],
        "rank": rank,
        "printed_skillset": ps.skillsets[printed_skill],
        "printed_rank": printed_rank,
        "converted": skill != printed_skill or rank != printed_rank,
        "until_end_of_turn": until_end_of_turn,
        "guarded_by": guard if guard >= 0 else None,
    }


def decision(match: Match, viewer: int) -> Decision | None:
    """The ``decision`` part of ``observe(match, viewer)`` alone (None once the match is over): for
    clients that look ahead at a choice and need nothing else of the view."""
    t, e, ids = match.turn, match.effect, match.playset.card_ids
    if t.phase == OVER:
        return None
    mine = viewer == t.player
    out: Decision = {"player": t.player, "kind": match.decision_kind, "prompt": decision_prompt(match)}
    if t.active >= 0 and (mine or t.phase != MODE):  # the chosen card is public once its mode is chosen
        out["card"] = ids[t.active]
    kind = e.kind
    if t.phase == EFFECT and kind is not None:
        out["effect"] = kind.name
        if e.card != t.active:
            out["studied"] = ids[e.card]
        if mine or kind.public_choice(e.step):
            if e.revealed:
                out["revealed"] = [ids[c] for c in e.revealed]
            if e.pending >= 0:
                out["pending"] = ids[e.pending]
    if mine:
        out["legal_actions"] = [{"id": a, "action": match.action_to_string(a),
                                 "label": action_label(match, a, viewer)} for a in match.legal_actions()]
    return out


#: The decisions a choice may open with nothing in between — how to play a chosen card, the faction of a card
#: to place, the skillset to convert to — so that a client may hold the first choice and send both at once.
STAGED_KINDS = ("mode", "faction", "skillset")


def follow_up(world: Match, action: int, seat: int) -> Decision | None:
    """The decision ``action`` opens when it only leads to another choice of ``seat``, with nothing in
    between (no event at all; the card chosen may be pending; nothing else comes to light); None otherwise.
    Worked out on ``world``: the seat's own view with the hidden cards dealt again (``match.redacted(seat)``
    or a sampled world), so it cannot say anything hidden; ``world`` is left as it was."""
    ids = world.playset.card_ids
    events = len(world.events)
    after = world.clone(history=False)
    after.apply(action)
    if after.current_player != seat or len(after.events) != events or after.decision_kind not in STAGED_KINDS:
        return None
    found = decision(after, seat)
    chosen = ids[action] if 0 <= action < len(ids) else None
    if found is None or "revealed" in found or found.get("pending") not in (None, chosen):
        return None
    return found


def event_dicts(match: Match, viewer: int, start: int = 0) -> list[EventDoc]:
    """The events ``viewer`` may see, as observation dicts with their sentence (``text``), from the
    ``start``-th such event on (the narration follows the whole log, so it stays right)."""
    narrator = Narrator(match.playset, viewer)
    events = match.events
    # what the viewer already read is followed without being said again
    return _describe(narrator, events[narrator.tracker.follow(events, viewer, start):])


def _describe(narrator: Narrator, events: list[Event]) -> list[EventDoc]:
    """``events`` as the narrator's viewer sees them (others' private events left out), each with its
    sentence; the narrator follows them."""
    ps, viewer = narrator.playset, narrator.viewer
    out: list[EventDoc] = []
    for e in events:
        if e[1] >= 0 and e[1] != viewer:
            continue
        item = to_dict(e, ps.card_ids, ps.skillsets)
        item["text"] = narrator.line(e)
        out.append(item)
    return out


def observe(match: Match, viewer: object, events_from: object = 0, events: bool = True) -> Observation:
    """Build the observation of ``viewer`` (0 or 1; -1 for a spectator). JSON-serialisable.

    ``events_from=k``: the ``events`` list starts at the viewer's ``k``-th event: for clients that already
    hold the earlier ones, so that only what is new is described. ``events=False``: no events at all (the
    current view alone, without following the log: for clients that keep the log themselves).
    """
    if isinstance(viewer, bool) or not isinstance(viewer, int) or viewer not in (-1, 0, 1):
        raise ConvergeError("a viewer is player 0, player 1 or -1 (spectator)")
    if isinstance(events_from, bool) or not isinstance(events_from, int) or events_from < 0:
        raise ConvergeError(f"events_from is a number of events from 0, got {quote(events_from)}")

    return _state(match, viewer, event_dicts(match, viewer, events_from) if events else [])


def _state(match: Match, viewer: int, events: list[EventDoc]) -> Observation:
    """The observation, with ``events`` as its events."""
    ps, z, t = match.playset, match.zones, match.turn
    ids = ps.card_ids
    s0, s1 = match.scores()
    known_hand: list[str] = []
    known_deck: list[KnownDeckCard] = []
    if viewer >= 0:
        bit = 1 << viewer
        # the card they chose to play (before its mode) still counts: which one it is stays hidden (I3)
        known_hand = [ids[c] for c in sorted(match._opponent_pool(viewer)) if z.known[c] & bit]
        known_deck = [{"id": ids[c], "from_top": depth} for depth, c in enumerate(reversed(z.deck))
                      if z.known[c] & bit]
    return {
        "version": OBSERVATION_VERSION,
        "viewer": viewer,
        "playset": list(ps.skillsets),
        "num_actions": NUM_ACTIONS,
        "round": t.round_no,
        "turn": t.turn_no,
        "round_wins": list(t.round_wins),
        "round_results": [{"winner": w, "reason": END_REASONS[r]} for w, r in t.round_results],
        "artifact_holder": t.holder,
        "lead": t.lead,
        "current_player": match.current_player,
        "is_terminal": match.is_terminal,
        "winner": t.winner if match.is_terminal else None,
        "decision": decision(match, viewer),
        "hand": [ids[c] for c in sorted(z.hands[viewer])] if viewer >= 0 else None,
        "hand_sizes": [len(z.hands[0]), len(z.hands[1])],
        "deck_size": len(z.deck),
        "discard": [ids[c] for c in z.discard],
        "goals": [ids[c] for c in z.goals],
        "factions": [[_in_play(match, c) for c in f] for f in z.factions],
        "recalled": [ids[c] for c in range(len(ids)) if z.recalled[c]],
        "known_opponent_hand": known_hand,
        "known_deck": known_deck,
        "scores": [s0, s1],
        "score_breakdown": match.score_breakdown(viewer),
        "events": events,
    }


class Observer:
    """One viewer's view of a live match, kept up to date: each :meth:`observe` describes only the events
    logged since the previous one, without reading the log from its start again (what a server sending
    each connection its new view after every action, or a terminal redrawing, wants).

    :meth:`observe` returns the observation and the number of the viewer's events before its ``events``:
    the same pair as ``observe(match, viewer, events_from=k)`` gives for the ``k`` already read. If the log
    was rewound meanwhile (:meth:`~converge.engine.state.Match.restore` to an earlier point), it starts
    again from the first event (the count is 0).

    >>> from converge import Match
    >>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
    >>> watch = Observer(m, 0)
    >>> first, start = watch.observe()
    >>> start, len(first["events"]) == watch.seen
    (0, True)
    >>> m.apply(m.legal_actions()[0])
    >>> new, start = watch.observe()
    >>> start == len(first["events"]), new["events"] == m.observation(0, start)["events"]
    (True, True)
    """

    def __init__(self, match: Match, viewer: int) -> None:
        if isinstance(viewer, bool) or not isinstance(viewer, int) or viewer not in (-1, 0, 1):
            raise ConvergeError("a viewer is player 0, player 1 or -1 (spectator)")
        self.match = match
        self.viewer = viewer
        self._reset()

    def _reset(self) -> None:
        #: How many of the viewer's events were described so far.
        self.seen = 0
        self._narrator = Narrator(self.match.playset, self.viewer)
        self._read = 0  # events of the log read so far (the viewer's and the others)
        # the last event read: the log still continues what was read if it is still there (compared by
        # value: a restored log holds equal events, not the same objects)
        self._last: object = None

    def observe(self) -> tuple[Observation, int]:
        """The observation with the events new since the last call, and how many of the viewer's events
        come before them."""
        match, viewer = self.match, self.viewer
        events = match.events
        read = self._read
        if read > len(events) or (read and events[read - 1] != self._last):
            self._reset()  # rewound: read it all again
            read = 0
        start = self.seen
        new = _describe(self._narrator, events[read:])
        if len(events) > read:
            self._read = len(events)
            self._last = events[-1]
        self.seen = start + len(new)
        return _state(match, viewer, new), start
