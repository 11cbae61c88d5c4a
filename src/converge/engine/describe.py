"""Words for decisions and events: what the current player is deciding, and what happened.

Everything here reads only what the viewer may know; nothing names a hidden card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from converge.engine.actions import DECLARE, DISCARD, DONE, MINE, SKILLSET_0, THEIRS

if TYPE_CHECKING:
    from converge.engine.state import Event, Match

_EFFECT_PROMPTS = {
    0: "choose a card in a faction to convert",
    2: "choose a card to recall into your hand",
    3: "choose a card in your faction to guard",
    4: "choose one of the revealed cards to take into your hand",
    5: "choose the first card of the trade",
    6: "choose a card from your hand to add to a faction",
    7: "choose a card in the discard pile to study",
    8: "choose a card in the discard pile to heal",
}


def decision_kind(match: Match) -> str:
    """What kind of decision is pending: ``select`` (a card to play), ``mode``, ``target`` (a card for an
    effect), ``second`` (Trade's second card), ``skillset``, ``faction``, ``chance`` or ``over``."""
    from converge.engine import state as s

    if match.phase == s.OVER:
        return "over"
    if match.phase in (s.DEAL, s.START):
        return "chance"
    if match.phase == s.SELECT:
        return "select"
    if match.phase == s.MODE:
        return "mode"
    return {s.STEP_SKILLSET: "skillset", s.STEP_FACTION: "faction", s.STEP_SECOND: "second"}.get(
        match.step, "target")


def decision_prompt(match: Match) -> str:
    """What the current player is deciding, e.g. ``"player 0: play a card from your hand"``."""
    from converge.engine import state as s

    if match.phase == s.OVER:
        return "the match is over"
    if match.phase == s.DEAL:
        return "chance: the next card of the deal"
    if match.phase == s.START:
        return "chance: who holds the artifact in round 1"
    who = f"player {match.player}"
    if match.phase == s.SELECT:
        return f"{who}: choose a card from your hand to play"
    if match.phase == s.MODE:
        return f"{who}: choose how to play the card (discard, declare, mine, theirs)"
    if match.step == s.STEP_SKILLSET:
        return f"{who}: choose the skillset to convert to"
    if match.step == s.STEP_FACTION:
        return f"{who}: choose the faction to add the card to (mine, theirs)"
    if match.step == s.STEP_SECOND:
        return f"{who}: choose the second card of the trade"
    return f"{who}: {_EFFECT_PROMPTS.get(match.eff_code, 'choose')}"


def action_label(match: Match, action: int, viewer: int) -> str:
    """A contextual label for one of the current player's legal actions, for menus."""
    from converge.engine import state as s

    ps = match.playset
    if 0 <= action < 18:
        card = ps.cards[action]
        label = f"{card.id} {card.name} ({card.skillset} {match.rank[action]})"
        if match.phase == s.SELECT:
            return f"play {label}"
        return label
    if action == DISCARD:
        return "discard it for its effect"
    if action == DECLARE:
        return "declare it as a shared goal"
    if action in (MINE, THEIRS):
        return "add it to your faction" if action == MINE else "add it to your opponent's faction"
    if action == DONE:
        return "done (decline the rest of the effect)"
    return f"convert to {ps.skillsets[action - SKILLSET_0]}"


def _name(match: Match, card: int) -> str:
    return match.playset.card_ids[card] if card >= 0 else "a card"


def describe_event(match: Match, event: Event, viewer: int) -> str:
    """One event in words, from ``viewer``'s point of view (-1: a spectator)."""
    from converge.engine.state import END_REASONS

    kind, _vis, p, card, a, b = event
    who = "you" if p == viewer else f"player {p}" if p >= 0 else ""
    name = _name(match, card)
    skills = match.playset.skillsets
    if kind == "round_start":
        return f"round {a} begins; {who} hold{'s' if who != 'you' else ''} the artifact"
    if kind == "start_discard":
        return f"{name} starts the discard pile"
    if kind == "dealt":
        return f"{who} were dealt {name}"
    if kind == "play":
        if a == DISCARD:
            return f"{who} discard{'s' if who != 'you' else ''} {name}"
        if a == DECLARE:
            return f"{who} declare{'s' if who != 'you' else ''} {name} as a goal"
        owner = "their own" if b == p else "the opponent's"
        if viewer in (0, 1):
            owner = "your" if b == viewer else "the opponent's"
        return f"{who} add{'s' if who != 'you' else ''} {name} to {owner} faction"
    if kind == "pass":
        return f"{who} pass{'es' if who != 'you' else ''} (empty hand)"
    if kind == "convert":
        return f"{who} convert{'s' if who != 'you' else ''} {name} to {skills[a]} {b}"
    if kind == "revert":
        return f"{name} reverts to {skills[a]} {b}"
    if kind in ("assemble", "expand", "heal"):
        owner = f"player {a}'s" if viewer not in (0, 1) else ("your" if a == viewer else "the opponent's")
        verb = {"assemble": "assembles", "expand": "expands with", "heal": "heals"}[kind]
        return f"{who} {verb} {name} into {owner} faction"
    if kind == "reveal":
        return f"{who} reveal{'s' if who != 'you' else ''} {name} from the top of the deck"
    if kind == "recall":
        return f"{who} recall{'s' if who != 'you' else ''} {name} from {'a faction' if a else 'the discard pile'}"
    if kind == "guard":
        return f"{who} guard{'s' if who != 'you' else ''} {name}"
    if kind == "search":
        return f"{who} search{'es' if who != 'you' else ''} the top {a} card{'s' if a != 1 else ''} of the deck"
    if kind == "saw":
        return f"you saw {name} at position {a + 1} from the top"
    if kind == "took":
        return f"you took {name} into your hand"
    if kind == "trade":
        return f"{who} trade{'s' if who != 'you' else ''} {name} from hand for {_name(match, a)}"
    if kind == "swap":
        return f"{who} swap{'s' if who != 'you' else ''} {name} and {_name(match, a)} between factions"
    if kind == "study":
        return f"{who} stud{'ies' if who != 'you' else 'y'} {name}"
    if kind == "discarded":
        return f"{name} goes to the discard pile"
    if kind == "score":
        return f"end of turn: scores {a} : {b}"
    if kind == "artifact":
        return f"the artifact passes to {who}"
    if kind == "draw":
        return f"{who} draw{'s' if who != 'you' else ''} a card"
    if kind == "drew":
        return f"you drew {name}"
    if kind == "round_end":
        return f"{who} win{'s' if who != 'you' else ''} round {b} ({END_REASONS[a].replace('_', ' ')})"
    if kind == "match_end":
        return f"{who} win{'s' if who != 'you' else ''} the match"
    return kind
