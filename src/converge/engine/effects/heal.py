"""Heal (Healer): move a card from the discard pile into a faction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import FACTION, EffectKind, pick_then_place, rank_limit
from converge.engine.params import Param, ParamValue
from converge.engine.zones import DISCARD_PILE

if TYPE_CHECKING:
    from converge.engine.state import Match

# args: (count, max rank)


class Heal(EffectKind):
    def __init__(self) -> None:
        super().__init__("heal", "Heal", "move a card from the discard pile into a faction", (
            Param("count", "int", 1, 1, 2, doc="how many cards"),
            Param("max_rank", "int", 6, 1, 6, doc="only cards of at most this rank"),
        ), commutes=True)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        count = int(params["count"])
        limit = rank_limit(params["max_rank"])
        what = "a card" if count == 1 else f"up to {count} cards"
        return f"Heal: move {what}{limit} from the discard pile into a faction of your choice."

    def picks(self, args: tuple[int, ...]) -> int:
        return args[0]

    def optional(self, args: tuple[int, ...]) -> bool:
        return args[0] > 1  # "up to N"

    def targets(self, m: Match, step: int) -> list[int]:
        z = m.zones
        max_rank = m.effect.args[1]
        return [c for c in z.discard if z.printed_rank[c] <= max_rank]

    def act(self, m: Match, action: int) -> None:
        pick_then_place(m, action, DISCARD_PILE)

    def prompt(self, step: int) -> str:
        if step == FACTION:
            return "choose the faction to heal the card into (mine, theirs)"
        return "choose a card in the discard pile to heal"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2 * args[0] + 1

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return args[0]  # a move for each card
