"""The game's fixed numbers (M1, M3): the cards of a deck and of a match, hands and rounds.

Defined here once, for the engine and every client; compiled code inlines them (they are literals). A smaller
variant of the game (:mod:`converge.engine.variant`) has smaller numbers; these are the full game's, and bounds
for every variant.

>>> NUM_CARDS == SKILLSETS_PER_PLAYSET * DECK_SIZE, RANKS
(True, (1, 2, 3, 4, 5, 6))
"""

from __future__ import annotations

from typing import Final

#: A skillset deck has one card of each rank.
RANKS: Final = (1, 2, 3, 4, 5, 6)
DECK_SIZE: Final = 6
#: A match is played with three skillset decks, its playset.
SKILLSETS_PER_PLAYSET: Final = 3
#: The cards of a match: three decks of six (card ids 0..17).
NUM_CARDS: Final = 18
#: Cards dealt to each player at the start of a round.
HAND_SIZE: Final = 3
#: A match ends when a player has won two rounds, so it lasts at most three.
ROUNDS_TO_WIN: Final = 2
MAX_ROUNDS: Final = 3
#: The stars a goal is worth, at most (so a player scores at most 3 x 18 points).
MAX_STARS: Final = 3
#: An upper bound on plays in a round: every play takes a card from a hand, and cards enter hands at most
#: 3 + 3 (the deal) + 10 (the deck, drawn or taken by Search) + 18 (each card is recalled at most once a
#: round) times; a Trade puts one card in a hand for each it takes out.
MAX_PLAYS_PER_ROUND: Final = 34
