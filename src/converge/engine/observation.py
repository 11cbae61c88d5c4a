"""The redacted view of a match for one player or a spectator (I1-I3).

This is the only door to a match's state for anyone but the engine. It holds what the viewer may
know and nothing else: never the opponent's hand, the deck order, the artifact card or the seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from converge.engine.actions import NUM_ACTIONS
from converge.engine.describe import action_label, decision_kind, decision_prompt, describe_event

if TYPE_CHECKING:
    from converge.engine.state import Match

OBSERVATION_VERSION = 1


def card_catalog(match: Match) -> list[dict[str, Any]]:
    """The printed cards of the playset (public: every player knows the decks in play)."""
    return [{"id": c.id, "name": c.name, "skillset": c.skillset, "rank": c.rank, "goal": c.goal.text,
             "stars": c.goal.stars, "effect": c.effect_text, "text": c.text}
            for c in match.playset.cards]


def _in_play(match: Match, card: int) -> dict[str, Any]:
    ps = match.playset
    skill, rank = match.skill[card], match.rank[card]
    printed_skill, printed_rank = ps.printed_skill[card], ps.printed_rank[card]
    return {
        "id": ps.card_ids[card],
        "skillset": ps.skillsets[skill],
        "rank": rank,
        "printed_skillset": ps.skillsets[printed_skill],
        "printed_rank": printed_rank,
        "converted": skill != printed_skill or rank != printed_rank,
        "until_end_of_turn": any(t[0] == card for t in match.temp),
        "guarded_by": match.guard[card] if match.guard[card] >= 0 else None,
    }


def _decision(match: Match, viewer: int) -> dict[str, Any] | None:
    from converge.engine import state as s

    if match.phase == s.OVER:
        return None
    mine = viewer == match.player
    out: dict[str, Any] = {"player": match.player, "kind": decision_kind(match), "prompt": decision_prompt(match)}
    active_public = match.phase != s.MODE  # the chosen card is public once its mode is chosen
    if match.active >= 0 and (mine or active_public):
        out["card"] = match.playset.card_ids[match.active]
    if match.phase == s.EFFECT:
        out["effect"] = match.playset.cards[match.eff].effect.kind
        if match.eff != match.active:
            out["studied"] = match.playset.card_ids[match.eff]
        if match.step == s.STEP_FACTION and match.eff_code == 1:  # Assemble's revealed card is public
            out["revealed"] = [match.playset.card_ids[match.pending]]
        elif mine and match.revealed:
            out["revealed"] = [match.playset.card_ids[c] for c in match.revealed]
        if mine and match.pending >= 0:
            out["pending"] = match.playset.card_ids[match.pending]
    if mine:
        legal = match.legal_actions()
        out["legal_actions"] = [{"id": a, "action": match.action_to_string(a),
                                 "label": action_label(match, a, viewer)} for a in legal]
    return out


def observe(match: Match, viewer: object) -> dict[str, Any]:
    """Build the observation of ``viewer`` (0 or 1; -1 for a spectator). JSON-serialisable."""
    if isinstance(viewer, bool) or viewer not in (-1, 0, 1) or not isinstance(viewer, int):
        raise ValueError(f"a viewer is player 0, player 1 or -1 (spectator), got {viewer!r}")
    ps = match.playset
    ids = ps.card_ids
    s0, s1 = match.scores()
    events = [{"kind": e[0], "player": e[2] if e[2] >= 0 else None,
               "card": ids[e[3]] if e[3] >= 0 else None, "args": [e[4], e[5]],
               "text": describe_event(match, e, viewer)}
              for e in match.events if e[1] < 0 or e[1] == viewer]
    obs: dict[str, Any] = {
        "version": OBSERVATION_VERSION,
        "viewer": viewer,
        "playset": list(ps.skillsets),
        "num_actions": NUM_ACTIONS,
        "round": match.round_no,
        "turn": match.turn_no,
        "round_wins": list(match.round_wins),
        "round_results": [{"winner": w, "reason": ("outscored", "hands_empty")[r]}
                          for w, r in match.round_results],
        "artifact_holder": match.holder,
        "lead": match.lead,
        "current_player": match.current_player,
        "is_terminal": match.is_terminal,
        "winner": match.winner if match.is_terminal else None,
        "decision": _decision(match, viewer),
        "hand": [ids[c] for c in sorted(match.hands[viewer])] if viewer >= 0 else None,
        "hand_sizes": [len(match.hands[0]), len(match.hands[1])],
        "deck_size": len(match.deck),
        "discard": [ids[c] for c in match.discard],
        "goals": [ids[c] for c in match.goals],
        "factions": [[_in_play(match, c) for c in f] for f in match.factions],
        "recalled": [ids[c] for c in range(len(ids)) if match.recalled[c]],
        "known_opponent_hand": ([ids[c] for c in sorted(match.hands[1 - viewer]) if match.known[c] >> viewer & 1]
                                if viewer >= 0 else []),
        "known_deck": ([{"id": ids[c], "from_top": depth}
                        for depth, c in enumerate(reversed(match.deck)) if match.known[c] >> viewer & 1]
                       if viewer >= 0 else []),
        "scores": [s0, s1],
        "score_breakdown": match.score_breakdown(viewer),
        "events": events,
    }
    return obs
