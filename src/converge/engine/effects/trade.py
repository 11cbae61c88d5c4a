"""Trade (Merchant): exchange a card in your hand with a card in a faction, or two cards between factions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import SECOND, TARGET, EffectKind
from converge.engine.params import Param, ParamValue
from converge.engine.zones import FACTION, HAND

if TYPE_CHECKING:
    from converge.engine.state import Match

# args: (with a hand card, between factions)


class Trade(EffectKind):
    def __init__(self) -> None:
        super().__init__("trade", "Trade",
                         "exchange a card in your hand with a card in a faction, or two cards between factions", (
                             Param("with_hand", "bool", True,
                                   doc="may exchange a card in your hand with one in a faction"),
                             Param("between_factions", "bool", False,
                                   doc="may exchange two cards between factions"),
                         ), commutes=True)

    def check(self, params: Mapping[str, ParamValue]) -> str:
        if not params.get("with_hand") and not params.get("between_factions"):
            return "a trade must allow with_hand or between_factions"
        return ""

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        options = []
        if params["with_hand"]:
            options.append("a card in your hand with a card in a faction")
        if params["between_factions"]:
            options.append("a card in your faction with a card in your opponent's")
        return f"Trade: you may exchange {', or '.join(options)}."

    def optional(self, args: tuple[int, ...]) -> bool:
        return True

    def targets(self, m: Match, step: int) -> list[int]:
        z, p = m.zones, m.turn.player
        with_hand, between = m.effect.args
        hand = z.hands[p]
        movable = [[c for c in f if z.movable(c, p)] for f in z.factions]
        if step == SECOND:
            first = m.effect.pending
            if first in hand:
                return movable[0] + movable[1]
            f = 0 if first in z.factions[0] else 1
            return (hand[:] if with_hand else []) + (movable[1 - f] if between else [])
        out: list[int] = []
        if with_hand and hand and (movable[0] or movable[1]):
            out += hand
        for f in (0, 1):
            if (with_hand and hand) or (between and movable[1 - f]):
                out += movable[f]
        return out

    def act(self, m: Match, action: int) -> None:
        z, e, p = m.zones, m.effect, m.turn.player
        if e.step == TARGET:
            e.pending = action
            e.step = SECOND
            return
        first, second = e.pending, action
        hand = z.hands[p]
        if second in hand:
            first, second = second, first
        if first in hand:  # a hand card and a faction card change places
            f = FACTION + z.faction_of(second)
            m.move_card(first, HAND + p, f)
            m.move_card(second, f, HAND + p)
        else:  # two cards change factions
            fa, fb = FACTION + z.faction_of(first), FACTION + z.faction_of(second)
            m.move_card(first, fa, fb)
            m.move_card(second, fb, fa)
        e.pending = -1
        e.step = TARGET
        e.remaining = 0
        m.continue_effect()

    def prompt(self, step: int) -> str:
        if step == SECOND:
            return "choose the second card of the trade"
        return "choose the first card of the trade"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2  # the two moves of the exchange
