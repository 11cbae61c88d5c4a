"""A puzzle's themes: what its solution does, found from the line itself (never written by hand).

A theme is a short key (``take``, ``declare``, ``effect:convert``...) with its words for players in
:data:`THEMES` (an effect's theme is named by its keyword, so a new effect kind has its theme at once). The
playset's skillsets are a puzzle's too, kept beside its themes (:attr:`~converge.puzzles.model.Puzzle.skillsets`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from converge.engine.actions import DECLARE, DISCARD, MINE, THEIRS
from converge.engine.effects.base import effect_kinds
from converge.engine.events import HANDS_EMPTY, ROUND_END

if TYPE_CHECKING:
    from converge.engine.state import Match

#: Every theme's words for players, by key.
THEMES: dict[str, str] = {
    "take": "Take the artifact",
    "keep": "Keep the artifact",
    "outscore": "Outscore as the lead",
    "hands_empty": "Hold the artifact when the hands run out",
    "declare": "Declare a goal",
    "superlative": "Score a single-winner goal alone",
    "own_faction": "Add to your faction",
    "their_faction": "Add to your opponent's faction",
    "discard": "Discard for the effect",
    "last_card": "Empty your hand",
    "long": "A line of more than one play",
}


def theme_name(key: str) -> str:
    """A theme's words for players: :data:`THEMES`, or an effect's keyword (``effect:convert``: "Convert")."""
    if key.startswith("effect:"):
        kind = effect_kinds().get(key[len("effect:"):])
        return kind.keyword if kind is not None else key[len("effect:"):].capitalize()
    return THEMES.get(key, key)


def themes(start: Match, line: list[int], plays: int) -> list[str]:
    """The themes of the line from ``start`` (the mover to play): its first play's card and placement (and the
    effect of a discarded card), whether the mover takes or keeps the artifact, how the round ends."""
    mover, round_index = start.current_player, start.rounds_finished
    out: list[str] = ["keep" if start.holder == mover else "take"]
    match = start.clone()
    ps = match.playset
    card = line[0]
    mode = line[1] if len(line) > 1 else -1
    match.apply(card)
    if len(line) > 1 and match.current_player == mover:
        match.apply(mode)
    if mode == DISCARD:
        out += ["discard", f"effect:{ps.effect_kind[card].name}"]
    elif mode == DECLARE:
        out.append("declare")
        if ps.goal_kind[card].single_winner:
            out.append("superlative")
    elif mode == MINE:
        out.append("own_faction")
    elif mode == THEIRS:
        out.append("their_faction")
    for action in line[2:]:
        if match.is_terminal or match.rounds_finished > round_index:
            break
        match.apply(action)
    if len(start.observation(mover, events=False)["hand"] or ()) == 1:
        out.append("last_card")
    ended = [e for e in match.events if e[0] == ROUND_END]
    if ended and ended[-1][4] == HANDS_EMPTY:
        out.append("hands_empty")
    elif ended and mover == start.holder:
        out.append("outscore")
    if plays > 1:
        out.append("long")
    return out
