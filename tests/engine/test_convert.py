"""The Alchemist's Convert (C1-C8, P2, P3): each parameter, and a converted card's whole life.

Alchemist cards (``alchemist.toml``): ALC1 convert a card to a chosen skillset; ALC2 to Alchemist
and rank +1; ALC3 up to 2 cards to Alchemist until the end of the turn; ALC4 keep the skillset,
rank -2; ALC5 chosen skillset and rank +1; ALC6 to Alchemist.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from converge import Match
from converge.engine import DONE, IllegalActionError
from converge.engine.actions import SKILLSET_0
from tests.helpers import ids, in_play, play, setup

SKILLSET_ACTIONS = [SKILLSET_0, SKILLSET_0 + 1, SKILLSET_0 + 2]


def looks(m: Match, card: str, viewer: int = -1) -> tuple[str, int]:
    entry = in_play(m, card, viewer)
    return entry["skillset"], entry["rank"]


def score_events(m: Match) -> list[list[int]]:
    return [[e["score0"], e["score1"]] for e in m.public_observation()["events"] if e["kind"] == "score"]


# ------------------------------------------------------------------------------ the parameters


def test_convert_skillset_own_converts_to_the_converting_cards_skillset() -> None:
    m = setup(hands=(["ALC6"], ["ARC1"]), factions=([], ["MEC3"]))
    play(m, "ALC6", "discard")
    assert m.legal_actions() == [m.playset.index_of["MEC3"]]  # count 1: mandatory, no "done"
    play(m, "MEC3")
    assert looks(m, "MEC3") == ("Alchemist", 3)


def test_convert_skillset_choose_offers_the_playsets_skillsets() -> None:
    m = setup(["alchemist", "delver", "healer"], hands=(["ALC1"], ["HEA1"]), factions=(["DEL3"], []))
    play(m, "ALC1", "discard", "DEL3")
    assert m.legal_actions() == SKILLSET_ACTIONS
    assert [m.action_to_string(a) for a in SKILLSET_ACTIONS] == ["Alchemist", "Delver", "Healer"]
    play(m, "Healer")
    assert looks(m, "DEL3") == ("Healer", 3)


def test_convert_skillset_keep_with_rank_delta_changes_only_the_rank() -> None:
    m = setup(hands=(["ALC4"], ["ARC1"]), factions=(["MEC5"], []))
    play(m, "ALC4", "discard", "MEC5")
    assert looks(m, "MEC5") == ("Mechanist", 3)


def test_convert_rank_delta_raises_the_rank() -> None:
    m = setup(hands=(["ALC2"], ["ARC1"]), factions=([], ["ARC3"]))
    play(m, "ALC2", "discard", "ARC3")
    assert looks(m, "ARC3") == ("Alchemist", 4)
    m = setup(hands=(["ALC5"], ["ARC1"]), factions=([], ["ARC3"]))
    play(m, "ALC5", "discard", "ARC3", "Mechanist")
    assert looks(m, "ARC3") == ("Mechanist", 4)


def test_convert_count_two_is_up_to_two_different_cards() -> None:
    m = setup(hands=(["ALC3"], ["ARC1"]), factions=(["MEC1"], ["ARC2", "MEC5"]))
    play(m, "ALC3", "discard")
    assert ids(m, [a for a in m.legal_actions() if a != DONE]) == ["MEC1", "MEC5", "ARC2"]
    assert DONE in m.legal_actions()
    play(m, "ARC2")
    assert "ARC2" not in ids(m, [a for a in m.legal_actions() if a != DONE])  # not the same card twice
    assert DONE in m.legal_actions()
    play(m, "MEC5")
    assert m.current_player == 1  # two cards: the effect is over
    assert looks(m, "ARC2")[0] == looks(m, "MEC5")[0] == "Alchemist"
    assert looks(m, "MEC1") == ("Mechanist", 1)
    # ... or stop after one.
    m = setup(hands=(["ALC3"], ["ARC1"]), factions=(["MEC1"], ["ARC2", "MEC5"]))
    play(m, "ALC3", "discard", "MEC1", "done")
    assert m.current_player == 1
    assert [looks(m, c)[0] for c in ("MEC1", "ARC2", "MEC5")] == ["Alchemist", "Archivist", "Mechanist"]


# -------------------------------------------------------------------------------- the rulings


def test_C1_convert_changes_skillset_and_rank_instantly() -> None:
    # ARC2 in the goal area: Most Archivist.
    m = setup(hands=(["ALC5"], ["ARC1"]), factions=([], ["MEC3"]), goals=["ARC2"])
    assert m.scores() == (0, 0)
    play(m, "ALC5", "discard", "MEC3", "Archivist")
    # Still player 1's play of the same turn: the change is already there, and already counts.
    assert m.current_player == 1 and m.turn_no == 1
    assert looks(m, "MEC3") == ("Archivist", 4)
    assert m.scores() == (0, 1)


def test_C2_only_a_card_in_a_faction_can_be_converted() -> None:
    m = setup(hands=(["ALC6", "ALC1"], ["ARC1"]), factions=(["MEC1"], ["ARC2"]), goals=["MEC4"],
              discard=["MEC2"], deck=["MEC3"], artifact="ARC6")
    play(m, "ALC6", "discard")
    assert ids(m, m.legal_actions()) == ["MEC1", "ARC2"]
    for elsewhere in ("ALC1", "ARC1", "MEC4", "MEC2", "MEC3", "ARC6"):  # hands, goal, discard, deck, artifact
        with pytest.raises(IllegalActionError):
            m.apply(elsewhere)
    play(m, "MEC1")
    assert looks(m, "MEC1") == ("Alchemist", 1)


def test_C3_by_default_the_target_takes_the_skillset_of_the_converting_card() -> None:
    m = setup(hands=(["ALC6"], ["ARC1"]), factions=(["ARC5"], ["MEC3"]))
    play(m, "ALC6", "discard", "ARC5")
    assert looks(m, "ARC5") == ("Alchemist", 5)
    # Through Study the converting card is the Astropath (P8).
    m = setup(["alchemist", "archivist", "astropath"], hands=(["AST1"], ["ARC1"]), factions=([], ["ARC4"]),
              discard=["ALC6"])
    play(m, "AST1", "discard", "ALC6", "ARC4")
    assert looks(m, "ARC4") == ("Astropath", 4)


def test_C4_a_chosen_skillset_is_one_of_the_playsets() -> None:
    m = setup(["alchemist", "delver", "healer"], hands=(["ALC1"], ["HEA1"]), factions=([], ["DEL3"]))
    play(m, "ALC1", "discard", "DEL3")
    assert m.legal_actions() == SKILLSET_ACTIONS
    for outside in ("Mechanist", "any", "wild", "multi", "done"):
        with pytest.raises(IllegalActionError):
            m.apply(outside)
    assert m.current_player == 0 and looks(m, "DEL3") == ("Delver", 3)  # nothing changed
    play(m, "Alchemist")
    assert looks(m, "DEL3") == ("Alchemist", 3)


def test_C5_a_converted_card_keeps_what_the_effect_does_not_name() -> None:
    m = setup(hands=(["ALC1"], ["ARC1"]), factions=(["ARC4", "MEC3", "ALC2"], []), guards={"MEC3": 0})
    play(m, "ALC1", "discard", "MEC3", "Archivist")
    assert ids(m, m.zones.factions[0]) == ["ARC4", "MEC3", "ALC2"]  # same faction, same place
    entry = in_play(m, "MEC3")
    assert (entry["skillset"], entry["rank"], entry["guarded_by"]) == ("Archivist", 3, 0)
    card = m.playset.cards[m.playset.index_of["MEC3"]]
    assert (card.goal.kind, card.effect.kind) == ("one_skillset", "assemble")
    # Keep: the skillset stays while the rank changes.
    m = setup(hands=(["ALC4"], ["ARC1"]), factions=([], ["ARC4"]),
              conversions={"ARC4": {"skillset": "Mechanist", "rank": 4}})
    play(m, "ALC4", "discard", "ARC4")
    assert looks(m, "ARC4") == ("Mechanist", 2)


def test_C6_a_conversion_is_permanent_unless_it_names_a_duration() -> None:
    m = setup(hands=(["ALC6", "MEC1"], ["ARC1", "ARC2"]), factions=([], ["MEC3"]), holder=0)
    play(m, "ALC6", "discard", "MEC3", "ARC1", "mine")
    assert m.turn_no == 2
    play(m, "MEC1", "mine", "ARC2", "mine")
    assert m.turn_no == 3 and looks(m, "MEC3") == ("Alchemist", 3)  # still, two turns later
    # "until the end of the turn": reverts at the end of the turn.
    m = setup(hands=(["ALC3", "MEC1"], ["ARC1", "ARC2"]), factions=([], ["MEC3"]), holder=0)
    play(m, "ALC3", "discard", "MEC3")
    assert in_play(m, "MEC3")["until_end_of_turn"] is True
    play(m, "ARC1", "mine")
    assert m.turn_no == 2 and looks(m, "MEC3") == ("Mechanist", 3)
    assert in_play(m, "MEC3")["until_end_of_turn"] is False


def test_C6_a_later_permanent_conversion_outlives_an_earlier_temporary_one() -> None:
    # ALC3 makes MEC3 an Alchemist until the end of the turn; then ALC6 makes it one for good.
    m = setup(hands=(["ALC3"], ["ALC6"]), factions=([], ["MEC3"]), holder=0)
    play(m, "ALC3", "discard", "MEC3", "ALC6", "discard", "MEC3")
    assert m.turn_no == 2
    assert looks(m, "MEC3") == ("Alchemist", 3)
    # ALC2 (to Alchemist, rank +1) after ALC3: both parts stay.
    m = setup(hands=(["ALC3"], ["ALC2"]), factions=([], ["MEC3"]), holder=0)
    play(m, "ALC3", "discard", "MEC3", "ALC2", "discard", "MEC3")
    assert looks(m, "MEC3") == ("Alchemist", 4)
    # ALC4 (keep the skillset, rank -2) after ALC3: the temporary skillset ends, the rank stays.
    m = setup(hands=(["ALC3"], ["ALC4"]), factions=([], ["MEC3"]), holder=0)
    play(m, "ALC3", "discard", "MEC3", "ALC4", "discard", "MEC3")
    assert looks(m, "MEC3") == ("Mechanist", 1)


def test_C7_a_card_leaving_play_returns_to_its_printed_characteristics() -> None:
    # ARC5 may recall a card of rank 4 or lower from a faction. MEC3 was converted to Archivist 4.
    m = setup(hands=(["ARC5", "ALC1"], ["ARC1", "ARC2"]), factions=(["MEC3"], []), holder=0,
              conversions={"MEC3": {"skillset": "Archivist", "rank": 4}})
    assert looks(m, "MEC3") == ("Archivist", 4)
    play(m, "ARC5", "discard", "MEC3")
    assert "MEC3" in ids(m, m.zones.hands[0])
    assert m.position()["conversions"] == {}
    play(m, "ARC1", "mine")  # end of turn 1
    play(m, "MEC3", "mine")  # back in play: with its printed values
    entry = in_play(m, "MEC3")
    assert (entry["skillset"], entry["rank"], entry["converted"]) == ("Mechanist", 3, False)
    assert m.scores() == (0, 0)


def test_C8_conversions_are_public_with_current_and_printed_values() -> None:
    m = setup(hands=(["ALC5"], ["ARC1"]), factions=([], ["MEC3"]))
    play(m, "ALC5", "discard", "MEC3", "Archivist")
    for viewer in (0, 1, -1):
        entry = in_play(m, "MEC3", viewer)
        assert entry == {"id": "MEC3", "skillset": "Archivist", "rank": 4, "printed_skillset": "Mechanist",
                         "printed_rank": 3, "converted": True, "until_end_of_turn": False, "guarded_by": None}
        converts = [e for e in m.observation(viewer)["events"] if e["kind"] == "convert"]
        assert [(e["player"], e["card"]) for e in converts] == [(0, "MEC3")]
        assert "Archivist 4" in converts[0]["text"]


# --------------------------------------------------------------------------- project rulings


def test_P2_until_end_of_turn_reverts_after_that_turns_scoring() -> None:
    # MEC4 Highest Mechanist. Player 1 leads; player 0 makes player 1's MEC6 an Alchemist for the turn.
    m = setup(hands=(["ALC3"], ["ARC1"]), factions=(["MEC5"], ["MEC6"]), goals=["MEC4"], holder=1)
    assert m.scores() == (0, 1)
    play(m, "ARC1", "mine", "ALC3", "discard", "MEC6", "done")
    # The turn was scored with MEC6 converted (1 : 0, the artifact passes)...
    assert score_events(m) == [[1, 0]]
    assert m.holder == 0 and m.round_no == 1
    # ... and then MEC6 reverted.
    assert looks(m, "MEC6") == ("Mechanist", 6)
    assert m.scores() == (0, 1)
    kinds = [e["kind"] for e in m.public_observation()["events"]]
    assert kinds.index("score") < kinds.index("revert")


@pytest.mark.parametrize(("card", "target", "extra", "expected"), [
    ("ALC4", "ARC1", {}, ("Archivist", 1)),  # 1 - 2 stays 1
    ("ALC4", "ARC2", {}, ("Archivist", 1)),  # 2 - 2 would be 0
    ("ALC2", "MEC6", {}, ("Alchemist", 6)),  # 6 + 1 stays 6
    ("ALC5", "ARC5", {"conversions": {"ARC5": {"rank": 6}}}, ("Mechanist", 6)),
])
def test_P3_a_converted_rank_stays_within_1_to_6(card: str, target: str, extra: dict[str, Any],
                                                  expected: tuple[str, int]) -> None:
    m = setup(hands=([card], ["ALC1"]), factions=([target], []), **extra)
    play(m, card, "discard", target)
    if m.current_player == 0:
        play(m, "Mechanist")
    assert looks(m, target) == expected


# ---------------------------------------------------------------------------- a card's whole life


def test_a_converted_cards_whole_life() -> None:
    """MEC3 is converted in a faction, scored converted, shown converted, recalled to a hand
    (reverting) and played again with its printed values."""
    # ARC2 in the goal area: Most Archivist. Player 0 holds the artifact.
    m = setup(hands=(["ALC1", "ARC5", "ALC2"], ["ARC1", "ARC4", "ARC6"]), factions=([], ["MEC3"]),
              goals=["ARC2"], holder=0)
    play(m, "ALC1", "discard", "MEC3", "Archivist")  # converted in player 1's faction
    assert in_play(m, "MEC3", 1)["converted"] and m.scores() == (0, 1)
    play(m, "ARC1", "declare")  # fewest cards: player 0 (no cards) scores it
    # Scored converted: player 1 wins Most Archivist with it, player 0 Fewest cards: 1 : 1.
    assert score_events(m) == [[1, 1]]
    assert m.holder == 0 and m.turn_no == 2
    assert looks(m, "MEC3", 0) == ("Archivist", 3)  # permanent: still converted next turn
    play(m, "ARC5", "discard", "MEC3")  # recalled from player 1's faction into player 0's hand
    assert "MEC3" in ids(m, m.zones.hands[0])
    obs = m.observation(0)
    assert all(c["id"] != "MEC3" for f in obs["factions"] for c in f)
    assert "MEC3" in obs["recalled"]
    play(m, "ARC4", "mine")
    play(m, "MEC3", "mine")  # back in play, now in player 0's faction
    entry = in_play(m, "MEC3", 1)
    assert (entry["skillset"], entry["rank"], entry["converted"]) == ("Mechanist", 3, False)
    assert json.dumps(m.public_observation()).count('"converted": true') == 0


def test_a_temporary_conversions_whole_life() -> None:
    """ALC3 converts two cards until the end of the turn: shown as temporary, scored converted,
    reverted after scoring, with a public revert event for each."""
    # ALC5 in the goal area: one card of each skillset (2 stars).
    m = setup(hands=(["ALC3"], ["ARC1"]), factions=(["MEC1", "ARC2"], ["MEC5", "MEC2", "ARC6"]),
              goals=["ALC5"], holder=0)
    assert m.scores() == (0, 0)
    play(m, "ALC3", "discard", "MEC1", "MEC5")
    assert m.current_player == 1
    for card in ("MEC1", "MEC5"):
        entry = in_play(m, card, 1)
        assert (entry["skillset"], entry["converted"], entry["until_end_of_turn"]) == ("Alchemist", True, True)
    assert m.scores() == (0, 2)  # player 1 now has an Alchemist, a Mechanist and an Archivist
    play(m, "ARC1", "mine")
    # Scored converted: 0 : 2, the artifact passes to player 1 ...
    assert score_events(m) == [[0, 2]]
    assert m.holder == 1 and m.turn_no == 2
    # ... then both cards reverted.
    assert looks(m, "MEC1") == ("Mechanist", 1) and looks(m, "MEC5") == ("Mechanist", 5)
    assert not in_play(m, "MEC5")["until_end_of_turn"]
    reverts = [e["card"] for e in m.public_observation()["events"] if e["kind"] == "revert"]
    assert sorted(reverts) == ["MEC1", "MEC5"]
    assert m.scores() == (0, 0)
