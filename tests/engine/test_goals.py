"""One test per goal kind (T5, P4): who scores it, ties, the zero cases and the "why" text.

Goals are built-in cards chosen for their printed goal (``src/converge/cards/decks``); the
factions are set up through the position format and the score read from the engine.
"""

from __future__ import annotations

from typing import Any

from converge import Match
from converge.engine.goals import goal_kinds
from tests.helpers import CATALYSTS, others, setup

GOAL_CARDS = {  # goal kind -> (playset, a card with that goal)
    "highest_skillset": (CATALYSTS, "MEC4"),  # Highest Mechanist, 1 star
    "lowest_skillset": (CATALYSTS, "MEC2"),  # Lowest Mechanist, 1 star
    "most_skillset": (CATALYSTS, "ARC2"),  # Most Archivist, 1 star
    "fewest_skillset": (CATALYSTS, "ALC3"),  # Fewest Alchemist, 1 star
    "most_skillsets": (CATALYSTS, "ARC5"),  # Most different skillsets, 1 star
    "highest_rank_total": (["alchemist", "mechanist", "protector"], "PRO1"),  # 1 star
    "lowest_rank_total": (CATALYSTS, "ARC4"),  # 1 star
    "most_cards": (CATALYSTS, "MEC1"),  # 1 star
    "fewest_cards": (CATALYSTS, "ARC1"),  # 1 star
    "consecutive_ranks": (CATALYSTS, "ALC4"),  # 3 cards with consecutive ranks, 2 stars
    "different_ranks": (CATALYSTS, "ARC3"),  # 3 cards with different ranks, 1 star
    "same_rank": (CATALYSTS, "MEC5"),  # 2 cards of the same rank, 1 star
    "one_skillset": (CATALYSTS, "MEC3"),  # 3 cards of one skillset, 2 stars
    "each_skillset": (CATALYSTS, "ALC5"),  # one card of each skillset, 2 stars
    "rank_total": (CATALYSTS, "ALC6"),  # rank total of 18 or more, 3 stars
}


def scored(kind: str, f0: list[str], f1: list[str], **extra: Any) -> Match:
    """A position with the goal of ``kind`` alone in the goal area and the given factions."""
    playset, goal = GOAL_CARDS[kind]
    spare = others(playset, goal, *f0, *f1)[0]  # something for player 0 to play
    return setup(playset, hands=([spare], []), goals=[goal], factions=(f0, f1), **extra)


def outcome(m: Match, viewer: int = 0) -> tuple[tuple[int, int], list[int], str]:
    """(scores, winners of the only goal, why from ``viewer``'s point of view)."""
    (item,) = m.score_breakdown(viewer)
    return m.scores(), item["winners"], item["why"]


def conv(card: str, skillset: str, rank: int) -> dict[str, Any]:
    return {"conversions": {card: {"skillset": skillset, "rank": rank}}}


def test_goal_cards_match_their_kind() -> None:
    assert set(GOAL_CARDS) == set(goal_kinds())
    for kind, (playset, card) in GOAL_CARDS.items():
        m = setup(playset, hands=([card], []))
        spec = m.playset.cards[m.playset.index_of[card]]
        assert spec.goal.kind == kind, card


# ------------------------------------------------------------------- single-winner goals (T5)


def test_goal_highest_skillset() -> None:
    m = scored("highest_skillset", ["MEC6", "ARC1"], ["MEC5", "MEC1"])
    assert outcome(m) == ((1, 0), [0], "you 6 vs them 5")
    assert outcome(m, 1) == ((1, 0), [0], "you 5 vs them 6")
    assert m.score_breakdown(-1)[0]["why"] == "P0 6 vs P1 5"
    # A tie for the highest: nobody scores. ALC6 is a Mechanist 6 by conversion.
    m = scored("highest_skillset", ["MEC6"], ["ALC6"], **conv("ALC6", "Mechanist", 6))
    assert outcome(m) == ((0, 0), [], "you 6 vs them 6 (no single winner)")
    # T5: no Mechanist, no claim on "Highest Mechanist": a lone Mechanist 1 wins it.
    m = scored("highest_skillset", ["ARC6", "ALC6"], ["MEC1"])
    assert outcome(m) == ((0, 1), [1], "you none vs them 1")
    m = scored("highest_skillset", ["ARC6"], ["ALC1"])
    assert outcome(m) == ((0, 0), [], "you none vs them none (no single winner)")


def test_goal_lowest_skillset() -> None:
    m = scored("lowest_skillset", ["MEC1", "MEC6"], ["MEC3"])
    assert outcome(m) == ((1, 0), [0], "you 1 vs them 3")
    m = scored("lowest_skillset", ["MEC1"], ["ALC1"], **conv("ALC1", "Mechanist", 1))
    assert outcome(m) == ((0, 0), [], "you 1 vs them 1 (no single winner)")
    # T5: no Mechanist is not "the lowest Mechanist".
    m = scored("lowest_skillset", ["ALC1"], ["MEC6"])
    assert outcome(m) == ((0, 1), [1], "you none vs them 6")
    m = scored("lowest_skillset", [], [])
    assert outcome(m) == ((0, 0), [], "you none vs them none (no single winner)")


def test_goal_most_skillset() -> None:
    m = scored("most_skillset", ["ARC1", "ARC3"], ["ARC4", "MEC1"])
    assert outcome(m) == ((1, 0), [0], "you 2 vs them 1")
    m = scored("most_skillset", ["ARC1", "MEC1"], ["ARC4"])
    assert outcome(m) == ((0, 0), [], "you 1 vs them 1 (no single winner)")
    m = scored("most_skillset", ["MEC1"], ["ARC1"])
    assert outcome(m) == ((0, 1), [1], "you 0 vs them 1")
    m = scored("most_skillset", ["MEC1"], [])
    assert outcome(m) == ((0, 0), [], "you 0 vs them 0 (no single winner)")
    # A converted card counts as its current skillset.
    m = scored("most_skillset", ["ARC1", "MEC1"], ["ARC4"], **conv("MEC1", "Archivist", 1))
    assert outcome(m) == ((1, 0), [0], "you 2 vs them 1")


def test_goal_fewest_skillset() -> None:
    # T5: "fewest X" counts zero, even for an empty faction.
    m = scored("fewest_skillset", [], ["ALC1"])
    assert outcome(m) == ((1, 0), [0], "you 0 vs them 1")
    m = scored("fewest_skillset", ["ALC1", "ALC2"], ["ALC4", "MEC1"])
    assert outcome(m) == ((0, 1), [1], "you 2 vs them 1")
    m = scored("fewest_skillset", ["MEC1"], ["ARC1"])
    assert outcome(m) == ((0, 0), [], "you 0 vs them 0 (no single winner)")


def test_goal_most_skillsets() -> None:
    m = scored("most_skillsets", ["ALC1", "MEC1", "ARC1"], ["ALC2", "ALC4"])
    assert outcome(m) == ((1, 0), [0], "you 3 vs them 1")
    m = scored("most_skillsets", ["ALC1", "MEC1"], ["ARC1", "MEC2"])
    assert outcome(m) == ((0, 0), [], "you 2 vs them 2 (no single winner)")
    m = scored("most_skillsets", ["ALC1", "MEC1", "ARC1"], ["ARC2", "MEC2"], **conv("ARC1", "Alchemist", 1))
    assert outcome(m) == ((0, 0), [], "you 2 vs them 2 (no single winner)")
    m = scored("most_skillsets", [], ["MEC2"])
    assert outcome(m) == ((0, 1), [1], "you 0 vs them 1")


def test_goal_highest_rank_total() -> None:
    m = scored("highest_rank_total", ["MEC6", "ALC1"], ["MEC5", "ALC3"])
    assert outcome(m) == ((0, 1), [1], "you 7 vs them 8")
    m = scored("highest_rank_total", ["MEC6"], ["MEC5", "ALC1"])
    assert outcome(m) == ((0, 0), [], "you 6 vs them 6 (no single winner)")
    m = scored("highest_rank_total", ["MEC6"], ["MEC5", "ALC1"], **conv("ALC1", "Alchemist", 2))
    assert outcome(m) == ((0, 1), [1], "you 6 vs them 7")
    m = scored("highest_rank_total", [], ["ALC1"])
    assert outcome(m) == ((0, 1), [1], "you 0 vs them 1")


def test_goal_lowest_rank_total() -> None:
    m = scored("lowest_rank_total", ["ALC1", "ALC2"], ["MEC6"])
    assert outcome(m) == ((1, 0), [0], "you 3 vs them 6")
    m = scored("lowest_rank_total", ["ALC3"], ["ALC1", "ALC2"])
    assert outcome(m) == ((0, 0), [], "you 3 vs them 3 (no single winner)")


def test_goal_most_cards() -> None:
    m = scored("most_cards", ["ALC1", "ALC2"], ["ARC1"])
    assert outcome(m) == ((1, 0), [0], "you 2 vs them 1")
    m = scored("most_cards", ["ALC2"], ["ARC1"])
    assert outcome(m) == ((0, 0), [], "you 1 vs them 1 (no single winner)")
    m = scored("most_cards", [], [])
    assert outcome(m) == ((0, 0), [], "you 0 vs them 0 (no single winner)")


def test_goal_fewest_cards() -> None:
    m = scored("fewest_cards", ["ALC1", "ALC2"], ["MEC1"])
    assert outcome(m) == ((0, 1), [1], "you 2 vs them 1")
    m = scored("fewest_cards", ["ALC1"], ["MEC1"])
    assert outcome(m) == ((0, 0), [], "you 1 vs them 1 (no single winner)")
    m = scored("fewest_cards", [], [])
    assert outcome(m) == ((0, 0), [], "you 0 vs them 0 (no single winner)")


def test_P4_empty_faction_cannot_win_lowest_rank_total_but_counts_zero_for_fewest_cards() -> None:
    m = scored("lowest_rank_total", [], ["MEC6"])
    assert outcome(m) == ((0, 1), [1], "you no cards vs them 6")
    m = scored("lowest_rank_total", [], [])
    assert outcome(m) == ((0, 0), [], "you no cards vs them no cards (no single winner)")
    m = scored("fewest_cards", [], ["MEC6"])
    assert outcome(m) == ((1, 0), [0], "you 0 vs them 1")


# ------------------------------------------------------------- threshold goals: both may score


def test_goal_consecutive_ranks() -> None:
    m = scored("consecutive_ranks", ["MEC1", "ARC2", "ALC3"], ["MEC4", "ARC6", "ARC5"])
    assert outcome(m) == ((2, 2), [0, 1], "you 3 vs them 3")
    m = scored("consecutive_ranks", ["ALC1", "ALC2", "MEC5", "MEC1"], ["MEC3", "MEC4", "ARC5", "ARC6"])
    assert outcome(m) == ((0, 2), [1], "you 2 vs them 4")
    # A conversion fills the gap: MEC5 becomes rank 3.
    m = scored("consecutive_ranks", ["ALC1", "ALC2", "MEC5"], [], **conv("MEC5", "Mechanist", 3))
    assert outcome(m) == ((2, 0), [0], "you 3 vs them 0")


def test_goal_different_ranks() -> None:
    m = scored("different_ranks", ["ALC1", "MEC1", "ARC2"], ["ALC4", "MEC5", "ARC6"])
    assert outcome(m) == ((0, 1), [1], "you 2 vs them 3")
    m = scored("different_ranks", ["ALC1", "MEC2", "ARC4", "MEC6"], ["ALC2", "MEC5", "ARC6"])
    assert outcome(m) == ((1, 1), [0, 1], "you 4 vs them 3")


def test_goal_same_rank() -> None:
    m = scored("same_rank", ["ALC1", "ARC1"], ["ALC2", "ARC3"])
    assert outcome(m) == ((1, 0), [0], "you 2 vs them 1")
    m = scored("same_rank", ["ALC1", "ARC1"], ["ALC2", "ARC2"])
    assert outcome(m) == ((1, 1), [0, 1], "you 2 vs them 2")
    m = scored("same_rank", ["ALC1"], ["ALC2", "ARC3"], **conv("ARC3", "Archivist", 2))
    assert outcome(m) == ((0, 1), [1], "you 1 vs them 2")


def test_goal_one_skillset() -> None:
    m = scored("one_skillset", ["ALC1", "ALC2", "ALC4"], ["ARC1", "ARC2", "MEC6"])
    assert outcome(m) == ((2, 0), [0], "you 3 vs them 2")
    m = scored("one_skillset", [], ["ARC1", "ARC2", "MEC6"], **conv("MEC6", "Archivist", 6))
    assert outcome(m) == ((0, 2), [1], "you 0 vs them 3")


def test_goal_each_skillset() -> None:
    m = scored("each_skillset", ["ALC1", "MEC1", "ARC1"], ["ALC2", "MEC2", "MEC6"])
    assert outcome(m) == ((2, 0), [0], "you 3 vs them 2")
    m = scored("each_skillset", ["ALC1", "MEC1", "ARC1"], ["ALC2", "MEC2", "MEC6"], **conv("MEC6", "Archivist", 6))
    assert outcome(m) == ((2, 2), [0, 1], "you 3 vs them 3")


def test_goal_rank_total() -> None:
    m = scored("rank_total", ["MEC6", "ARC6", "ARC5", "ARC1"], ["MEC5", "ARC4", "MEC4", "ALC3"])
    assert outcome(m) == ((3, 0), [0], "you 18 vs them 16")  # at least 18: 18 is enough
    m = scored("rank_total", ["MEC6", "ARC6", "ARC5", "ARC1"], ["MEC5", "ARC4", "MEC4", "ALC3"],
               **conv("ALC3", "Alchemist", 5))
    assert outcome(m) == ((3, 3), [0, 1], "you 18 vs them 18")
