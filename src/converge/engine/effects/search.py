"""Search (Searcher): look at the top N cards of the deck, take one into your hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from converge.engine.effects.base import EffectKind
from converge.engine.events import MAX_SEARCH_DEPTH, SAW, SEARCH, TOOK
from converge.engine.params import Param, ParamValue

if TYPE_CHECKING:
    from converge.engine.state import Match


class Search(EffectKind):
    def __init__(self) -> None:
        super().__init__("search", "Search", "look at cards from the top of the deck and take one into your hand",
                         (Param("depth", "int", None, 1, MAX_SEARCH_DEPTH, doc="how many top cards to look at"),),
                         reveals=True, hand_change=1)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        d = int(params["depth"])
        if d == 1:
            return "Search 1: take the top card of the deck into your hand."
        return (f"Search {d}: look at the top {d} cards of the deck, take 1 into your hand and put the rest "
                "back in order.")

    def begin(self, m: Match) -> None:
        z, e, p = m.zones, m.effect, m.turn.player
        depth = min(e.args[0], len(z.deck))
        e.revealed = z.deck[len(z.deck) - depth:][::-1]  # top first
        m.log_event(SEARCH, -1, p, -1, depth)
        for i, c in enumerate(e.revealed):
            z.known[c] = 1 << p  # only the searcher: the opponent no longer knows which one is taken
            m.log_event(SAW, p, p, c, i)

    def targets(self, m: Match, step: int) -> list[int]:
        return m.effect.revealed[:]

    def act(self, m: Match, action: int) -> None:
        z, p = m.zones, m.turn.player
        z.deck.remove(action)
        z.hands[p].append(action)
        m.log_event(TOOK, p, p, action)
        m.effect.remaining = 0
        m.continue_effect()

    def prompt(self, step: int) -> str:
        return "choose one of the revealed cards to take into your hand"

    def max_decisions(self, args: tuple[int, ...], borrowed: int) -> int:
        return 1

    def max_events(self, args: tuple[int, ...], borrowed: int) -> int:
        return 2 + args[0]  # search, a card seen for each of the top cards, the one taken

    def score_neutral(self, args: tuple[int, ...]) -> bool:
        return True
