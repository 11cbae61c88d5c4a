"""Where the 18 cards of a round are, and what each card is now: the zones part of a match's state.

Cards are integers 0..17 (see :mod:`converge.engine.playset`). A zone is named by a small integer, used
by the engine, by effect kinds and in ``move`` events:

========  ==========================================================
zone      meaning
========  ==========================================================
0, 1      player 0's / player 1's hand (``HAND + player``)
2, 3      player 0's / player 1's faction (``FACTION + owner``)
4         the discard pile
5         the goal area
6         the draw deck (its top is the end of the list)
========  ==========================================================

The artifact is not a zone a card can move to or from.
"""

from __future__ import annotations

from typing import Final

HAND: Final = 0
FACTION: Final = 2
DISCARD_PILE: Final = 4
GOAL_AREA: Final = 5
DECK: Final = 6
NUM_ZONES: Final = 7

#: Names of the zones for documents and observations, indexed by zone.
ZONE_NAMES: Final = ("hand 0", "hand 1", "faction 0", "faction 1", "discard", "goals", "deck")

#: Knowledge bits (``Zones.known``): bit p set means player p knows where the card is.
BOTH_KNOW: Final = 3


def is_hand(zone: int) -> bool:
    return zone == 0 or zone == 1


def is_faction(zone: int) -> bool:
    return zone == 2 or zone == 3


class Zones:
    """The cards' places and current characteristics. Copies itself; shared printed tables are not copied.

    ``skill`` and ``rank`` are each card's current skillset index and rank (a conversion changes them,
    C1); ``guard`` is the player guarding a card in a faction or -1; ``recalled`` marks cards recalled
    this round; ``temp`` lists conversions that revert at the end of the turn as
    ``(card, old skillset, old rank, new skillset, new rank)`` (C6); ``known`` holds knowledge bits
    (read for cards in hidden zones only).
    """

    __slots__ = ("hands", "deck", "discard", "goals", "factions", "artifact", "skill", "rank", "guard",
                 "recalled", "temp", "known", "printed_skill", "printed_rank")

    hands: list[list[int]]
    deck: list[int]
    discard: list[int]
    goals: list[int]
    factions: list[list[int]]
    artifact: int
    skill: list[int]
    rank: list[int]
    guard: list[int]
    recalled: list[int]
    temp: list[tuple[int, int, int, int, int]]
    known: list[int]
    printed_skill: tuple[int, ...]
    printed_rank: tuple[int, ...]

    def __init__(self, printed_skill: tuple[int, ...] = (), printed_rank: tuple[int, ...] = ()) -> None:
        """Empty zones (every card's place still to be set), or a blank for :meth:`copy` to fill in."""
        if not printed_skill:
            return
        n = len(printed_skill)
        self.printed_skill = printed_skill
        self.printed_rank = printed_rank
        self.hands = [[], []]
        self.deck = []
        self.discard = []
        self.goals = []
        self.factions = [[], []]
        self.artifact = -1
        self.skill = list(printed_skill)
        self.rank = list(printed_rank)
        self.guard = [-1] * n
        self.recalled = [0] * n
        self.temp = []
        self.known = [0] * n

    def copy(self) -> Zones:
        z = Zones()
        z.printed_skill = self.printed_skill
        z.printed_rank = self.printed_rank
        z.hands = [self.hands[0][:], self.hands[1][:]]
        z.deck = self.deck[:]
        z.discard = self.discard[:]
        z.goals = self.goals[:]
        z.factions = [self.factions[0][:], self.factions[1][:]]
        z.artifact = self.artifact
        z.skill = self.skill[:]
        z.rank = self.rank[:]
        z.guard = self.guard[:]
        z.recalled = self.recalled[:]
        z.temp = self.temp[:]
        z.known = self.known[:]
        return z

    def cards(self, zone: int) -> list[int]:
        """The list of a zone (the live list: the engine's to change)."""
        if zone < FACTION:
            return self.hands[zone]
        if zone < DISCARD_PILE:
            return self.factions[zone - FACTION]
        if zone == DISCARD_PILE:
            return self.discard
        if zone == GOAL_AREA:
            return self.goals
        return self.deck

    def faction_of(self, card: int) -> int:
        """The owner of the faction holding ``card``, or -1."""
        if card in self.factions[0]:
            return 0
        if card in self.factions[1]:
            return 1
        return -1

    def movable(self, card: int, player: int) -> bool:
        """Guard: a card guarded by the opponent of ``player`` cannot be moved, removed or converted."""
        g = self.guard[card]
        return g < 0 or g == player

    def settle(self, card: int, source: int, target: int) -> None:
        """What a move from ``source`` to ``target`` does to the card's characteristics.

        A card leaving play returns to its printed skillset and rank and loses its guard and any
        pending reversion (C7); a card changing factions keeps its conversion but a guard protects
        only in its guarder's faction.
        """
        if not is_faction(source):
            return
        if is_faction(target):
            owner = target - FACTION
            if self.guard[card] >= 0 and self.guard[card] != owner:
                self.guard[card] = -1
            return
        self.skill[card] = self.printed_skill[card]
        self.rank[card] = self.printed_rank[card]
        self.guard[card] = -1
        if self.temp:
            self.temp = [t for t in self.temp if t[0] != card]

    def move(self, card: int, source: int, target: int) -> None:
        """Move ``card`` from the zone ``source`` (where it must be) to the end of ``target``."""
        self.cards(source).remove(card)
        self.cards(target).append(card)
        self.settle(card, source, target)
