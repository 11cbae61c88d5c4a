"""Variants: the same rules on a smaller game, for research (a game small enough to solve exactly).

A :class:`Variant` says how big a match is: how many skillsets make a playset, which ranks of each skillset's
deck are in play, how many cards each hand is dealt and how many round wins end the match. The rules do not
change: a round is still dealt as hands, artifact, first discard and draw deck (M3, with the variant's
numbers), turns, scoring and effects are the same, and every card keeps its printed goal and effect (so a goal
such as "4 cards with different ranks" is out of reach in ``tiny``, whose ranks are 1 to 3: that is the small
game, not a rule).

:data:`FULL` is the game of the rulebook and the default everywhere. Every variant is the full game cut down —
no size above the full game's — so every bound the full game sets (the action ids, the tensors' shapes, the
schemas' limits, the sizes in :mod:`converge.engine.sizes`) holds for it too. Card ids stay dense: a
variant's cards are ``0 .. num_cards - 1``, skillset by skillset in the playset's order.

>>> TINY.num_cards, TINY.draw_deck, TINY.max_rounds
(6, 2, 1)
>>> FULL.num_cards, FULL.draw_deck, FULL.max_rounds, FULL.max_plays_per_round
(18, 10, 3, 34)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from converge.engine.errors import PlaysetError, quote
from converge.engine.sizes import (
    HAND_SIZE,
    MAX_PLAYS_PER_ROUND,
    MAX_ROUNDS,
    RANKS,
    ROUNDS_TO_WIN,
    SKILLSETS_PER_PLAYSET,
)


@dataclass(frozen=True)
class Variant:
    """The sizes of a match (see the module's text). Build the named ones with :func:`variant_named`."""

    name: str
    #: How many skillsets make a playset.
    skillsets: int
    #: The ranks of each skillset's deck in play, in increasing order (the deck's other cards are left out).
    ranks: tuple[int, ...]
    #: Cards dealt to each hand at the start of a round.
    hand_size: int
    #: Round wins that end the match.
    rounds_to_win: int

    def __post_init__(self) -> None:
        if not 2 <= self.skillsets <= SKILLSETS_PER_PLAYSET:
            raise PlaysetError(f"a variant has 2 to {SKILLSETS_PER_PLAYSET} skillsets, got {self.skillsets}")
        if not self.ranks or list(self.ranks) != sorted(set(self.ranks)) or not set(self.ranks) <= set(RANKS):
            raise PlaysetError(f"a variant's ranks are different ranks from {RANKS[0]} to {RANKS[-1]} in "
                               f"increasing order, got {self.ranks}")
        if not 1 <= self.hand_size <= HAND_SIZE or self.num_cards < 2 * self.hand_size + 2:
            raise PlaysetError(f"a variant deals 1 to {HAND_SIZE} cards a hand and needs two hands, the "
                               f"artifact and a first discard: {self.hand_size} a hand is too many for "
                               f"{self.num_cards} cards")
        if not 1 <= self.rounds_to_win <= ROUNDS_TO_WIN:
            raise PlaysetError(f"a variant's match is won with 1 to {ROUNDS_TO_WIN} rounds, "
                               f"got {self.rounds_to_win}")

    @property
    def deck_size(self) -> int:
        """Cards of each skillset in play."""
        return len(self.ranks)

    @property
    def num_cards(self) -> int:
        """The cards of a match (card ids ``0 .. num_cards - 1``)."""
        return self.skillsets * len(self.ranks)

    @property
    def draw_deck(self) -> int:
        """The draw deck's cards after the deal (M3)."""
        return self.num_cards - 2 * self.hand_size - 2

    @property
    def max_rounds(self) -> int:
        """The most rounds a match lasts (M1)."""
        return 2 * self.rounds_to_win - 1

    @property
    def max_plays_per_round(self) -> int:
        """An upper bound on plays in a round: every play takes a card from a hand, and cards enter hands at
        most ``2 * hand_size`` (the deal) + ``draw_deck`` (drawn or taken by Search) + ``num_cards`` (each card
        is recalled at most once a round) times, which is ``2 * num_cards - 2``."""
        return 2 * self.num_cards - 2

    @property
    def is_full(self) -> bool:
        return self == FULL


#: The game of the rulebook: three skillsets of six cards, hands of three, first to two round wins.
FULL: Final = Variant("full", SKILLSETS_PER_PLAYSET, RANKS, HAND_SIZE, ROUNDS_TO_WIN)
#: Three skillsets of ranks 1 to 4 (12 cards), hands of two, one round.
SMALL: Final = Variant("small", 3, (1, 2, 3, 4), 2, 1)
#: Two skillsets of ranks 1 to 3 (6 cards), hands of one, one round: small enough for exact solving.
TINY: Final = Variant("tiny", 2, (1, 2, 3), 1, 1)

VARIANTS: Final = {v.name: v for v in (TINY, SMALL, FULL)}

assert FULL.max_rounds == MAX_ROUNDS and FULL.max_plays_per_round == MAX_PLAYS_PER_ROUND


def variant_named(name: object) -> Variant:
    """The variant called ``name`` (``tiny``, ``small`` or ``full``, any case); a :class:`Variant` is returned
    as it is.

    >>> variant_named("Tiny") is TINY
    True
    """
    if isinstance(name, Variant):
        return name
    key = name.strip().lower() if isinstance(name, str) else None
    if key not in VARIANTS:
        raise PlaysetError(f"unknown variant {quote(name)} (known: {', '.join(VARIANTS)})")
    return VARIANTS[key]
