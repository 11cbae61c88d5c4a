"""Expand (Delver): add up to N cards from your hand to factions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import FACTION, EffectKind, pick_then_place
from converge.engine.params import Param, ParamValue
from converge.engine.zones import HAND

if TYPE_CHECKING:
    from converge.engine.state import Match


class Expand(EffectKind):
    def __init__(self) -> None:
        super().__init__("expand", "Expand", "add cards from your hand to factions",
                         (Param("count", "int", 1, 1, 3, doc="how many cards, up to"),),
                         commutes=True, hand_change=-1)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        count = int(params["count"])
        cards = "1 card" if count == 1 else f"{count} cards"
        return f"Expand: add up to {cards} from your hand to factions."

    def picks(self, args: tuple[int, ...]) -> int:
        return args[0]

    def optional(self, args: tuple[int, ...]) -> bool:
        return True

    def targets(self, m: Match, step: int) -> list[int]:
        return m.zones.hands[m.turn.player][:]

    def act(self, m: Match, action: int) -> None:
        pick_then_place(m, action, HAND + m.turn.player)

    def prompt(self, step: int) -> str:
        if step == FACTION:
            return "choose the faction to add the card to (mine, theirs)"
        return "choose a card from your hand to add to a faction"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2 * args[0] + 1

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return args[0]  # a move for each card
