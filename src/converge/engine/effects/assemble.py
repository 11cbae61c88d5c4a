"""Assemble (Mechanist): reveal the top card of the deck and add it to a faction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import FACTION, EffectKind
from converge.engine.events import REVEAL
from converge.engine.params import Param, ParamValue
from converge.engine.zones import BOTH_KNOW, DECK
from converge.engine.zones import FACTION as FACTION_ZONE

if TYPE_CHECKING:
    from converge.engine.state import Match


class Assemble(EffectKind):
    def __init__(self) -> None:
        super().__init__("assemble", "Assemble", "reveal the top card of the deck and add it to a faction",
                         (Param("count", "int", 1, 1, 2, doc="how many top cards of the deck"),), reveals=True)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        count = int(params["count"])
        what = "the top card" if count == 1 else f"the top {count} cards, one at a time,"
        return f"Assemble: reveal {what} of the deck and add it to a faction of your choice."

    def picks(self, args: tuple[int, ...]) -> int:
        return args[0]

    def next_decision(self, m: Match) -> bool:
        z, e = m.zones, m.effect
        if not z.deck:
            return False
        e.pending = card = z.deck[-1]
        e.revealed = [card]
        z.known[card] = BOTH_KNOW  # shown to both players
        m.log_event(REVEAL, -1, m.turn.player, card)
        e.step = FACTION
        return True

    def act(self, m: Match, action: int) -> None:
        e = m.effect
        m.move_card(e.pending, DECK, FACTION_ZONE + m.owner_of(action))
        e.pending = -1
        e.revealed = []
        e.remaining -= 1
        m.continue_effect()

    def prompt(self, step: int) -> str:
        return "choose the faction to add the revealed card to (mine, theirs)"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        return args[0]

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2 * args[0]  # a reveal and a move for each card

    def public_choice(self, step: int) -> bool:
        return True
