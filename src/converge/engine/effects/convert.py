"""Convert (Alchemist): change the skillset and/or rank of a card in a faction (C1-C8)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from converge.engine.actions import SKILLSET_0
from converge.engine.effects.base import SKILLSET, TARGET, EffectKind
from converge.engine.events import CONVERT
from converge.engine.params import Param, ParamValue

if TYPE_CHECKING:
    from converge.engine.state import Match

# args: (count, skillset mode, rank delta, until the end of the turn)
OWN: Final = 0  # C3: the skillset of the card with the convert ability
CHOOSE: Final = 1  # C4: one of the playset's skillsets, chosen by the player
KEEP: Final = 2  # the skillset is unchanged (a rank-only conversion)


class Convert(EffectKind):
    def __init__(self) -> None:
        super().__init__("convert", "Convert", "change the skillset and/or rank of a card in a faction", (
            Param("count", "int", 1, 1, 2, doc="how many cards (more than one: up to that many)"),
            Param("skillset", "choice", "own", choices=("own", "choose", "keep"),
                  doc="own: this card's skillset (C3); choose: one of the playset's (C4); keep: unchanged"),
            Param("rank_delta", "int", 0, -2, 2, doc="added to the rank, which stays within 1..6"),
            Param("duration", "choice", "permanent", choices=("permanent", "turn"),
                  doc="turn: reverts at the end of this turn, after scoring (C6)"),
        ), commutes=True)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        count = int(params["count"])
        what = "a card" if count == 1 else f"up to {count} cards"
        delta = int(params["rank_delta"])
        until = " until the end of the turn" if params["duration"] == "turn" else ""
        change = f"{'raise' if delta > 0 else 'lower'} its rank by {abs(delta)}"
        if params["skillset"] == "keep":
            if not delta:
                return f"Convert: {what} in a faction keeps its skillset and rank (no change)."
            return f"Convert: {change.replace('its rank', f'the rank of {what} in a faction')}{until}."
        own = params["skillset"] == "own"
        parts = [f"to {own_skillset}" if own else "to a skillset of your choice in this playset"]
        if delta:
            parts.append(change)
        return f"Convert: convert {what} in a faction {' and '.join(parts)}{until}."

    def picks(self, args: tuple[int, ...]) -> int:
        return args[0]

    def optional(self, args: tuple[int, ...]) -> bool:
        return args[0] > 1  # "up to N"

    def targets(self, m: Match, step: int) -> list[int]:
        z, p, picked = m.zones, m.turn.player, m.effect.picked
        return [c for f in z.factions for c in f if z.movable(c, p) and c not in picked]

    def act(self, m: Match, action: int) -> None:
        e = m.effect
        if e.step == SKILLSET:
            _convert(m, e.pending, action - SKILLSET_0)
            return
        mode = e.args[1]
        if mode == CHOOSE:
            e.pending = action
            e.step = SKILLSET
            return
        new_skill = m.playset.printed_skill[m.turn.active] if mode == OWN else m.zones.skill[action]
        _convert(m, action, new_skill)

    def prompt(self, step: int) -> str:
        if step == SKILLSET:
            return "choose the skillset to convert to"
        return "choose a card in a faction to convert"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2 * args[0] + 1

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2 * args[0]  # a convert event for each card, and its revert when it lasts the turn


def _convert(m: Match, card: int, new_skill: int) -> None:
    z, e = m.zones, m.effect
    delta, temporary = e.args[2], e.args[3]
    old_skill, old_rank = z.skill[card], z.rank[card]
    new_rank = min(6, max(1, old_rank + delta))
    z.skill[card] = new_skill
    z.rank[card] = new_rank
    if temporary:
        z.temp.append((card, old_skill, old_rank, new_skill, new_rank))
    elif z.temp:  # C6: a later permanent conversion is not undone when a temporary one ends
        keep = e.args[1] == KEEP
        rebased = [t if t[0] != card else
                   (card, t[1] if keep else new_skill, min(6, max(1, t[2] + delta)),
                    t[3] if keep else new_skill, new_rank) for t in z.temp]
        z.temp = [t for t in rebased if t[1] != t[3] or t[2] != t[4]]
    m.log_event(CONVERT, -1, m.turn.player, card, new_skill, new_rank)
    e.picked.append(card)
    e.pending = -1
    e.step = TARGET
    e.remaining -= 1
    m.continue_effect()
