"""Study (Astropath): resolve the discard effect of a card of another skillset in the discard pile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import EffectKind, rank_limit
from converge.engine.params import Param, ParamValue

if TYPE_CHECKING:
    from converge.engine.state import Match


class Study(EffectKind):
    def __init__(self) -> None:
        super().__init__("study", "Study", "resolve the discard effect of a card of another skillset in the "
                         "discard pile as this card's",
                         (Param("max_rank", "int", 6, 1, 6, doc="only cards of at most this rank"),))

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        limit = rank_limit(params["max_rank"])
        return (f"Study: resolve the discard effect of a card{limit} of another skillset in the discard "
                "pile as if it were this card's.")

    def targets(self, m: Match, step: int) -> list[int]:
        ps = m.playset
        own = ps.printed_skill[m.turn.active]
        max_rank = m.effect.args[0]
        return [c for c in m.zones.discard if ps.printed_skill[c] != own and ps.printed_rank[c] <= max_rank
                and not isinstance(ps.effect_kind[c], Study)]  # a study never studies a study

    def act(self, m: Match, action: int) -> None:
        m.resolve_effect_of(action)

    def prompt(self, step: int) -> str:
        return "choose a card in the discard pile to study"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        return 1 + borrowed

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return 1 + borrowed  # the resolve event, then the studied card's effect
