"""The redacted view of a match for one player or a spectator (I1-I3).

This is the only door to a match's state for anyone but the engine. It holds what the viewer may
know and nothing else: never the opponent's hand, the deck order, the artifact card or the seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from converge.engine.actions import NUM_ACTIONS
from converge.engine.errors import ConvergeError, quote
from converge.engine.events import END_REASONS, to_dict
from converge.engine.narration import Narrator, action_label, decision_prompt

if TYPE_CHECKING:
    from converge.engine.state import Match

OBSERVATION_VERSION = 2


def card_catalog(match: Match) -> list[dict[str, Any]]:
    """The printed cards of the playset (public: every player knows the decks in play)."""
    return [{"id": c.id, "name": c.name, "skillset": c.skillset, "rank": c.rank, "goal": c.goal.text,
             "stars": c.goal.stars, "effect": c.effect_text, "keyword": match.playset.effect_kind[i].keyword,
             "text": c.text}
            for i, c in enumerate(match.playset.cards)]


def _in_play(match: Match, card: int) -> dict[str, Any]:
    ps, z = match.playset, match.zones
    skill, rank = z.skill[card], z.rank[card]
    printed_skill, printed_rank = ps.printed_skill[card], ps.printed_rank[card]
    return {
        "id": ps.card_ids[card],
        "skillset": ps.skillsets[skill],
        "rank": rank,
        "printed_skillset": ps.skillsets[printed_skill],
        "printed_rank": printed_rank,
        "converted": skill != printed_skill or rank != printed_rank,
        "until_end_of_turn": any(t[0] == card for t in z.temp),
        "guarded_by": z.guard[card] if z.guard[card] >= 0 else None,
    }


def _decision(match: Match, viewer: int) -> dict[str, Any] | None:
    from converge.engine import state as s

    t, e, ids = match.turn, match.effect, match.playset.card_ids
    if t.phase == s.OVER:
        return None
    mine = viewer == t.player
    out: dict[str, Any] = {"player": t.player, "kind": match.decision_kind, "prompt": decision_prompt(match)}
    if t.active >= 0 and (mine or t.phase != s.MODE):  # the chosen card is public once its mode is chosen
        out["card"] = ids[t.active]
    kind = e.kind
    if t.phase == s.EFFECT and kind is not None:
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


def event_dicts(match: Match, viewer: int, start: int = 0) -> list[dict[str, Any]]:
    """The events ``viewer`` may see, as observation dicts with their sentence (``text``), from the
    ``start``-th such event on (the narration follows the whole log, so it stays right)."""
    from converge.engine.events import Event

    ps = match.playset
    narrator = Narrator(ps, viewer)
    events = match.events
    out: list[dict[str, Any]] = []
    e: Event
    # what the viewer already read is followed without being said again
    for e in events[narrator.tracker.follow(events, viewer, start):]:
        if e[1] >= 0 and e[1] != viewer:
            continue
        item = to_dict(e, ps.card_ids, ps.skillsets)
        item["text"] = narrator.line(e)
        out.append(item)
    return out


def observe(match: Match, viewer: object, events_from: object = 0) -> dict[str, Any]:
    """Build the observation of ``viewer`` (0 or 1; -1 for a spectator). JSON-serialisable.

    ``events_from=k``: the ``events`` list starts at the viewer's ``k``-th event: for clients that already
    hold the earlier ones, so that only what is new is described.
    """
    if isinstance(viewer, bool) or not isinstance(viewer, int) or viewer not in (-1, 0, 1):
        raise ConvergeError("a viewer is player 0, player 1 or -1 (spectator)")
    if isinstance(events_from, bool) or not isinstance(events_from, int) or events_from < 0:
        raise ConvergeError(f"events_from is a number of events from 0, got {quote(events_from)}")

    ps, z, t = match.playset, match.zones, match.turn
    ids = ps.card_ids
    s0, s1 = match.scores()
    known_hand: list[str] = []
    known_deck: list[dict[str, Any]] = []
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
        "decision": _decision(match, viewer),
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
        "events": event_dicts(match, viewer, events_from),
    }
