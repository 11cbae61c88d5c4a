"""Recall (Archivist): take a card from the discard pile (or a faction) into your hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import EffectKind, rank_limit
from converge.engine.params import Param, ParamValue
from converge.engine.zones import DISCARD_PILE, FACTION, HAND

if TYPE_CHECKING:
    from converge.engine.state import Match

# args: (count, max rank, from a faction too)


class Recall(EffectKind):
    def __init__(self) -> None:
        super().__init__("recall", "Recall", "take a card from the discard pile into your hand", (
            Param("count", "int", 1, 1, 2, doc="how many cards, up to"),
            Param("max_rank", "int", 6, 1, 6, doc="only cards of at most this rank"),
            Param("from_faction", "bool", False, doc="may also take a card from a faction"),
        ), commutes=True, hand_change=1)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        count = int(params["count"])
        where = "the discard pile or a faction" if params["from_faction"] else "the discard pile"
        limit = rank_limit(params["max_rank"])
        cards = "1 card" if count == 1 else f"{count} cards"
        return f"Recall: take up to {cards}{limit} from {where} into your hand."

    def picks(self, args: tuple[int, ...]) -> int:
        return args[0]

    def optional(self, args: tuple[int, ...]) -> bool:
        return True

    def targets(self, m: Match, step: int) -> list[int]:
        z, p = m.zones, m.turn.player
        max_rank, printed = m.effect.args[1], z.printed_rank
        out = [c for c in z.discard if printed[c] <= max_rank and not z.recalled[c]]
        if m.effect.args[2]:
            out += [c for f in z.factions for c in f
                    if z.rank[c] <= max_rank and not z.recalled[c] and z.movable(c, p)]
        return out

    def act(self, m: Match, action: int) -> None:
        z = m.zones
        owner = z.faction_of(action)
        m.move_card(action, DISCARD_PILE if owner < 0 else FACTION + owner, HAND + m.turn.player)
        z.recalled[action] = 1
        m.effect.remaining -= 1
        m.continue_effect()

    def prompt(self, step: int) -> str:
        return "choose a card to recall into your hand"

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return args[0]  # a move for each card

    def score_neutral(self, args: tuple[int, ...]) -> bool:
        return not args[2]  # the discard pile scores nothing; a faction card would
