"""Guard (Protector): cards in your faction cannot be moved, removed or converted by the opponent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import EffectKind
from converge.engine.events import GUARD
from converge.engine.params import Param, ParamValue

if TYPE_CHECKING:
    from converge.engine.state import Match


class Guard(EffectKind):
    def __init__(self) -> None:
        super().__init__("guard", "Guard",
                         "cards in your faction cannot be moved, removed or converted by the opponent this round",
                         (Param("count", "int", 1, 1, 3, doc="how many cards, up to"),), commutes=True)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        count = int(params["count"])
        cards = "1 card" if count == 1 else f"{count} cards"
        return (f"Guard: choose up to {cards} in your faction; your opponent cannot move, remove or convert "
                "them this round.")

    def picks(self, args: tuple[int, ...]) -> int:
        return args[0]

    def optional(self, args: tuple[int, ...]) -> bool:
        return True

    def targets(self, m: Match, step: int) -> list[int]:
        z, p = m.zones, m.turn.player
        return [c for c in z.factions[p] if z.guard[c] != p]

    def act(self, m: Match, action: int) -> None:
        p = m.turn.player
        m.zones.guard[action] = p
        m.log_event(GUARD, -1, p, action)
        m.effect.remaining -= 1
        m.continue_effect()

    def prompt(self, step: int) -> str:
        return "choose a card in your faction to guard"

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return args[0]  # a guard event for each card

    def score_neutral(self, args: tuple[int, ...]) -> bool:
        return True
