"""The keyword effects and their parameters (Convert is in tests/engine/test_convert.py), and the project rulings
about effects: P1 and P5-P11.

Cards are chosen by their printed effect (``src/converge/cards/decks``). Readable moves: a card id
chooses that card (to play it, or as a target), then ``discard``/``declare``/``mine``/``theirs``,
a skillset name, or ``done``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from converge import Match
from converge.engine import DONE, MINE, THEIRS, IllegalActionError, Playset
from tests.helpers import CATALYSTS, ids, in_play, others, play, setup, zones_of

GUARD_PS = ["alchemist", "protector", "merchant"]  # ALC, PRO, MER
SEARCH_PS = ["alchemist", "searcher", "merchant"]  # ALC, SEA, MER
EXPAND_PS = ["alchemist", "mechanist", "delver"]  # ALC, MEC, DEL
STUDY_PS = ["alchemist", "archivist", "astropath"]  # ALC, ARC, AST
SPARKS = ["delver", "astropath", "healer"]  # DEL, AST, HEA
ENGINES = ["protector", "searcher", "merchant"]  # PRO, SEA, MER


def targets(m: Match) -> list[str]:
    """The legal card choices now, by id (without ``done``)."""
    return ids(m, [a for a in m.legal_actions() if a < 18])


def public_events(m: Match, kind: str) -> list[tuple[int | None, str | None]]:
    return [(e["player"], e["card"]) for e in m.public_observation()["events"] if e["kind"] == kind]


def public_moves(m: Match) -> list[tuple[int | None, str | None, str, str]]:
    """Every card an effect moved, as everybody saw it: (who, card, from zone, to zone)."""
    return [(e["player"], e["card"], e["from"], e["to"]) for e in m.public_observation()["events"]
            if e["kind"] == "move"]


# ------------------------------------------------------------------------------------ Assemble


def test_P10_assemble_reveals_the_top_card_to_both_then_its_player_chooses_the_faction() -> None:
    m = setup(hands=(["MEC4"], ["ARC1"]), deck=["ALC2", "ALC5"])  # MEC4: Assemble 1
    play(m, "MEC4", "discard")
    assert m.current_player == 0 and m.legal_actions() == [MINE, THEIRS]
    for viewer in (0, 1, -1):
        obs = m.observation(viewer)
        assert obs["decision"]["revealed"] == ["ALC2"]
        assert [e["card"] for e in obs["events"] if e["kind"] == "reveal"] == ["ALC2"]
        assert "ALC5" not in json.dumps(obs)  # the next card stays hidden
    play(m, "theirs")
    assert ids(m, m.zones.factions[1]) == ["ALC2"] and m.zones.factions[0] == []
    assert m.position()["deck"][0] == "ALC5"
    assert ids(m, m.zones.discard)[-1] == "MEC4" and m.current_player == 1


def test_assemble_count_two_places_the_top_cards_one_at_a_time() -> None:
    m = setup(hands=(["MEC1"], ["ARC1"]), deck=["ALC2", "ALC5", "ARC3"])  # MEC1: Assemble 2
    play(m, "MEC1", "discard", "mine")
    assert m.current_player == 0 and m.observation(1)["decision"]["revealed"] == ["ALC5"]
    play(m, "theirs")
    assert ids(m, m.zones.factions[0]) == ["ALC2"] and ids(m, m.zones.factions[1]) == ["ALC5"]
    assert m.position()["deck"][0] == "ARC3" and m.current_player == 1
    # With one card left in the deck, Assemble 2 places that one and stops.
    named = ["MEC1", "ARC1", "ALC2", "ALC1"]
    m = setup(hands=(["MEC1"], ["ARC1"]), deck=["ALC2"], artifact="ALC1", goals=others(None, *named))
    play(m, "MEC1", "discard", "mine")
    assert ids(m, m.zones.factions[0]) == ["ALC2"] and m.zones.deck == [] and m.current_player == 1


# -------------------------------------------------------------------------------------- Recall


def test_recall_takes_a_card_from_the_discard_pile_into_hand() -> None:
    # ARC1: Recall up to 1 card from the discard pile.
    m = setup(hands=(["ARC1"], ["ALC1"]), factions=(["MEC1"], []), discard=["ALC6", "MEC2"])
    play(m, "ARC1", "discard")
    assert targets(m) == ["ALC6", "MEC2"] and DONE in m.legal_actions()  # not MEC1: not from a faction
    play(m, "ALC6")
    assert ids(m, m.zones.hands[0]) == ["ALC6"]
    assert ids(m, m.zones.discard) == ["MEC2", "ARC1"] and m.current_player == 1
    assert public_moves(m) == [(0, "ALC6", "discard", "hand 0")]  # which card is public


def test_recall_count_and_max_rank() -> None:
    # ARC3: Recall up to 2 cards of rank 4 or lower.
    m = setup(hands=(["ARC3"], ["ALC1"]), discard=["ALC6", "MEC2", "ARC4", "ALC5"])
    play(m, "ARC3", "discard")
    assert targets(m) == ["MEC2", "ARC4"] and DONE in m.legal_actions()
    play(m, "MEC2")
    assert targets(m) == ["ARC4"] and DONE in m.legal_actions()
    play(m, "ARC4")
    assert sorted(ids(m, m.zones.hands[0])) == ["ARC4", "MEC2"] and m.current_player == 1


def test_recall_from_a_faction_by_current_rank() -> None:
    # ARC2: Recall up to 1 card of rank 3 or lower from the discard pile or a faction.
    m = setup(hands=(["ARC2"], ["ALC1"]), discard=["ALC6", "ALC2"], factions=(["MEC1"], ["MEC3", "ARC4", "ALC5"]),
              conversions={"ALC5": {"rank": 2}, "MEC1": {"rank": 4}})
    play(m, "ARC2", "discard")
    assert targets(m) == ["ALC2", "ALC5", "MEC3"]  # ALC5 is a 2 now, MEC1 a 4
    play(m, "MEC3")
    assert ids(m, m.zones.hands[0]) == ["MEC3"] and ids(m, m.zones.factions[1]) == ["ARC4", "ALC5"]


def test_P1_a_card_is_recalled_at_most_once_per_round() -> None:
    # MEC3 (in a faction) and ALC6 (discarded) were recalled earlier this round.
    m = setup(hands=(["ARC5"], ["ARC2"]), factions=(["MEC6", "ALC4"], ["MEC3"]), discard=["MEC2", "ALC6"],
              goals=["MEC4"], recalled=["MEC3", "ALC6"], holder=0)
    assert m.observation(1)["recalled"] == ["ALC6", "MEC3"]  # the mark is public
    play(m, "ARC5", "discard")  # Recall from the discard pile or a faction, rank 4 or lower
    assert targets(m) == ["ALC4", "MEC2"]
    play(m, "MEC2")
    for viewer in (0, 1, -1):
        assert m.observation(viewer)["recalled"] == ["ALC6", "MEC2", "MEC3"]
    play(m, "ARC2", "discard")  # rank 3 or lower: only marked cards, so nothing happens
    # Player 0 (the lead) had the highest Mechanist: round 1 is over, and the marks with it.
    assert m.round_no == 2
    assert m.observation(0)["recalled"] == []


@pytest.mark.parametrize("playset", [["archivist", "healer", "delver"], ["archivist", "merchant", "healer"],
                                     CATALYSTS])
def test_P1_every_round_ends(playset: list[str]) -> None:
    for seed in range(10):
        m = Match.new(playset, seed=seed)
        rng = random.Random(seed)
        for _ in range(3000):
            if m.is_terminal:
                break
            m.apply(rng.choice(m.legal_actions()))
        assert m.is_terminal


# --------------------------------------------------------------------------------------- Guard


def test_guard_protects_up_to_count_cards_of_your_faction_for_the_round() -> None:
    # PRO2: Guard up to 2 cards in your faction.
    m = setup(GUARD_PS, hands=(["PRO2", "ALC5"], ["MER2", "ALC6"]), factions=(["ALC1", "ALC2", "ALC3"], ["ALC4"]))
    play(m, "PRO2", "discard")
    assert targets(m) == ["ALC1", "ALC2", "ALC3"] and DONE in m.legal_actions()  # not the opponent's
    play(m, "ALC1")
    assert targets(m) == ["ALC2", "ALC3"]
    play(m, "ALC3")
    assert m.current_player == 1
    assert [in_play(m, c, 1)["guarded_by"] for c in ("ALC1", "ALC2", "ALC3", "ALC4")] == [0, None, 0, None]
    assert public_events(m, "guard") == [(0, "ALC1"), (0, "ALC3")]
    play(m, "ALC6", "discard")  # player 1 converts: the guarded cards are not targets
    assert targets(m) == ["ALC2", "ALC4"]
    play(m, "ALC2")
    assert m.turn_no == 2  # the guard lasts past the end of the turn
    assert [in_play(m, c)["guarded_by"] for c in ("ALC1", "ALC3")] == [0, 0]


def test_guard_stops_the_opponents_convert_but_not_the_guarders_own() -> None:
    m = setup(GUARD_PS, hands=(["ALC6"], ["ALC5"]), factions=(["ALC1", "PRO2"], ["PRO3"]), guards={"PRO2": 0},
              holder=1)
    play(m, "ALC5", "discard")  # player 1 converts
    assert targets(m) == ["ALC1", "PRO3"]
    with pytest.raises(IllegalActionError):
        m.apply("PRO2")
    play(m, "PRO3", "Merchant")
    play(m, "ALC6", "discard")  # player 0, the guarder, converts
    assert "PRO2" in targets(m)
    play(m, "PRO2")
    entry = in_play(m, "PRO2")
    assert (entry["skillset"], entry["guarded_by"]) == ("Alchemist", 0)


def test_guard_stops_the_opponents_trade_but_not_the_guarders_own() -> None:
    m = setup(GUARD_PS, hands=(["MER2", "ALC2"], ["MER1", "ALC3"]), factions=(["ALC1", "PRO2"], ["PRO3"]),
              guards={"PRO2": 0}, holder=1)
    play(m, "MER1", "discard")  # player 1: trade hand/faction or between factions
    assert targets(m) == ["ALC1", "ALC3", "PRO3"]
    play(m, "ALC1")
    assert targets(m) == ["ALC3", "PRO3"]
    with pytest.raises(IllegalActionError):
        m.apply("PRO2")
    play(m, "ALC3")
    assert ids(m, m.zones.factions[0]) == ["PRO2", "ALC3"]
    play(m, "MER2", "discard")  # player 0, the guarder, trades its own guarded card into its hand
    assert "PRO2" in targets(m)
    play(m, "PRO2", "ALC2")
    assert "PRO2" in ids(m, m.zones.hands[0]) and m.position()["guards"] == {}


def test_guard_stops_the_opponents_recall_from_a_faction_but_not_the_guarders_own() -> None:
    ps = ["archivist", "protector", "merchant"]
    m = setup(ps, hands=(["ARC5"], ["ARC2"]), factions=(["PRO2", "PRO1"], []), guards={"PRO2": 0}, holder=1)
    play(m, "ARC2", "discard")  # player 1: Recall rank 3 or lower, also from a faction
    assert targets(m) == ["PRO1"]
    play(m, "done")
    play(m, "ARC5", "discard")  # player 0, the guarder
    assert "PRO2" in targets(m)
    play(m, "PRO2")
    assert "PRO2" in ids(m, m.zones.hands[0])


def test_P7_a_guard_protects_only_in_its_guarders_faction_and_the_guarder_may_move_it() -> None:
    m = setup(GUARD_PS, hands=(["MER1"], ["ALC6"]), factions=(["PRO2"], ["ALC4"]), guards={"PRO2": 0})
    play(m, "MER1", "discard", "PRO2", "ALC4")  # the guarder swaps its guarded card away
    assert ids(m, m.zones.factions[1]) == ["PRO2"] and ids(m, m.zones.factions[0]) == ["ALC4"]
    assert in_play(m, "PRO2", 1)["guarded_by"] is None
    play(m, "ALC6", "discard")  # now the opponent may convert it
    assert targets(m) == ["ALC4", "PRO2"]
    play(m, "PRO2")
    assert in_play(m, "PRO2")["skillset"] == "Alchemist"


# -------------------------------------------------------------------------------------- Search


def test_P9_search_shows_the_top_cards_to_the_searcher_only_and_keeps_the_others_in_order() -> None:
    # SEA2: Search 3.
    m = setup(SEARCH_PS, hands=(["SEA2"], ["MER1"]), deck=["ALC1", "ALC2", "ALC3", "ALC4"])
    play(m, "SEA2", "discard")
    assert targets(m) == ["ALC1", "ALC2", "ALC3"] and DONE not in m.legal_actions()  # take one: mandatory
    assert m.observation(0)["decision"]["revealed"] == ["ALC1", "ALC2", "ALC3"]
    for viewer in (1, -1):
        assert "revealed" not in m.observation(viewer)["decision"]
    play(m, "ALC2")
    assert "ALC2" in ids(m, m.zones.hands[0])
    assert m.position()["deck"][:3] == ["ALC1", "ALC3", "ALC4"]  # the rest back on top, in order
    for viewer in (1, -1):
        text = json.dumps(m.observation(viewer))
        assert not any(card in text for card in ("ALC1", "ALC2", "ALC3", "ALC4"))
    assert public_events(m, "search") == [(0, None)]


def test_search_depth_beyond_the_deck_shows_what_there_is() -> None:
    named = ["SEA1", "MER1", "ALC1", "ALC2", "ALC6"]
    m = setup(SEARCH_PS, hands=(["SEA1"], ["MER1"]), deck=["ALC1", "ALC2"], artifact="ALC6",
              goals=others(SEARCH_PS, *named))  # SEA1: Search 4
    play(m, "SEA1", "discard")
    assert targets(m) == ["ALC1", "ALC2"]
    play(m, "ALC1")
    assert ids(m, m.zones.deck) == ["ALC2"]


# --------------------------------------------------------------------------------------- Trade


def test_trade_with_hand_exchanges_a_hand_card_and_a_faction_card() -> None:
    # MER2: you may exchange a card in your hand with a card in a faction.
    m = setup(GUARD_PS, hands=(["MER2", "ALC1"], ["MER6"]), factions=(["PRO1"], ["ALC5"]))
    play(m, "MER2", "discard")
    assert targets(m) == ["ALC1", "ALC5", "PRO1"] and DONE in m.legal_actions()
    play(m, "ALC5")
    assert targets(m) == ["ALC1"]  # not PRO1: no trade between factions on this card
    play(m, "ALC1")
    assert ids(m, m.zones.factions[1]) == ["ALC1"]
    assert ids(m, m.zones.hands[0]) == ["ALC5"]
    assert public_moves(m) == [(0, "ALC1", "hand 0", "faction 1"), (0, "ALC5", "faction 1", "hand 0")]


def test_trade_between_factions_only() -> None:
    # MER3: you may exchange a card in your faction with a card in your opponent's (not with a hand).
    m = setup(GUARD_PS, hands=(["MER3", "ALC1"], ["MER6"]), factions=(["PRO1", "PRO2"], ["ALC5"]))
    play(m, "MER3", "discard")
    assert targets(m) == ["ALC5", "PRO1", "PRO2"] and DONE in m.legal_actions()  # no hand card
    play(m, "PRO2")
    assert targets(m) == ["ALC5"]
    play(m, "ALC5")
    assert ids(m, m.zones.factions[0]) == ["PRO1", "ALC5"] and ids(m, m.zones.factions[1]) == ["PRO2"]
    assert ids(m, m.zones.hands[0]) == ["ALC1"]


def test_trade_with_both_options_and_it_may_be_declined() -> None:
    # MER1: hand with faction, or between factions.
    m = setup(GUARD_PS, hands=(["MER1", "ALC1"], ["MER6"]), factions=(["PRO1"], ["ALC5"]))
    play(m, "MER1", "discard", "ALC5")
    assert targets(m) == ["ALC1", "PRO1"]  # a hand card or a card of the other faction
    m = setup(GUARD_PS, hands=(["MER1", "ALC1"], ["MER6"]), factions=(["PRO1"], ["ALC5"]))
    before = m.position()
    play(m, "MER1", "discard", "done")
    after = m.position()
    assert after["factions"] == before["factions"] and after["hands"][0] == ["ALC1"]


def test_P11_trade_puts_the_hand_card_into_that_faction_and_the_faction_card_into_hand() -> None:
    m = setup(GUARD_PS, hands=(["MER2", "ALC1"], ["MER6"]), factions=(["PRO1"], ["PRO6", "ALC5"]),
              conversions={"ALC5": {"skillset": "Protector", "rank": 6}})
    play(m, "MER2", "discard", "ALC1")  # the hand card first ...
    assert targets(m) == ["ALC5", "PRO1", "PRO6"]  # ... then any faction card
    play(m, "ALC5")
    assert ids(m, m.zones.factions[1]) == ["PRO6", "ALC1"]  # into the faction the other card left
    assert ids(m, m.zones.hands[0]) == ["ALC5"]
    assert m.position()["conversions"] == {}  # C7: ALC5 is an Alchemist 5 again
    assert in_play(m, "ALC1")["converted"] is False


# -------------------------------------------------------------------------------------- Expand


def test_expand_adds_up_to_count_cards_from_your_hand_to_factions() -> None:
    # DEL2: Expand 2.
    m = setup(EXPAND_PS, hands=(["DEL2", "ALC1", "MEC1", "MEC2"], ["DEL6"]))
    play(m, "DEL2", "discard")
    assert targets(m) == ["ALC1", "MEC1", "MEC2"] and DONE in m.legal_actions()
    play(m, "ALC1")
    assert m.legal_actions() == [MINE, THEIRS]
    play(m, "mine", "MEC1", "theirs")
    assert m.current_player == 1
    assert ids(m, m.zones.factions[0]) == ["ALC1"] and ids(m, m.zones.factions[1]) == ["MEC1"]
    assert ids(m, m.zones.hands[0]) == ["MEC2"]
    assert public_moves(m) == [(0, "ALC1", "hand 0", "faction 0"), (0, "MEC1", "hand 0", "faction 1")]
    # DEL4: Expand 1, declined.
    m = setup(EXPAND_PS, hands=(["DEL4", "ALC1"], ["DEL6"]))
    play(m, "DEL4", "discard", "done")
    assert ids(m, m.zones.hands[0]) == ["ALC1"] and m.zones.factions == [[], []]


# --------------------------------------------------------------------------------------- Study


def test_study_resolves_a_discarded_card_of_another_skillset_as_its_own() -> None:
    # AST1: Study any rank. AST2 is an Astropath (and a Study): not a target.
    m = setup(STUDY_PS, hands=(["AST1", "ALC1"], ["ARC6"]), discard=["ALC6", "ARC1", "AST2"],
              factions=([], ["ARC4"]))
    play(m, "AST1", "discard")
    assert targets(m) == ["ALC6", "ARC1"] and DONE not in m.legal_actions()
    play(m, "ARC1")  # ARC1's Recall, as AST1's effect
    assert m.observation(1)["decision"]["studied"] == "ARC1"
    play(m, "ALC6")
    assert ids(m, m.zones.hands[0]) == ["ALC1", "ALC6"]
    assert ids(m, m.zones.discard) == ["ARC1", "AST2", "AST1"]
    assert public_events(m, "resolve") == [(0, "ARC1")]
    # AST5: Study rank 3 or lower.
    m = setup(STUDY_PS, hands=(["AST5"], ["ARC6"]), discard=["ALC6", "ARC1", "ALC3"], factions=([], ["ARC4"]))
    play(m, "AST5", "discard")
    assert targets(m) == ["ALC3", "ARC1"]


def test_P8_study_as_the_astropaths_own_effect_never_a_study_and_the_studied_card_stays() -> None:
    m = setup(STUDY_PS, hands=(["AST3"], ["ARC6"]), discard=["ALC5", "AST1", "AST6"], factions=([], ["ARC4"]))
    play(m, "AST3", "discard")  # AST3: Study rank 5 or lower
    assert targets(m) == ["ALC5"]  # AST1 and AST6 are Study effects
    play(m, "ALC5", "ARC4")  # ALC5: convert a card to a chosen skillset, rank +1
    assert [m.action_to_string(a) for a in m.legal_actions()] == ["Alchemist", "Archivist", "Astropath"]
    play(m, "Astropath")
    assert (in_play(m, "ARC4")["skillset"], in_play(m, "ARC4")["rank"]) == ("Astropath", 5)
    assert ids(m, m.zones.discard) == ["ALC5", "AST1", "AST6", "AST3"]  # ALC5 stayed where it was
    # "own" skillset means the Astropath's (C3 through Study).
    m = setup(STUDY_PS, hands=(["AST1"], ["ARC6"]), discard=["ALC6"], factions=([], ["ARC4"]))
    play(m, "AST1", "discard", "ALC6", "ARC4")
    assert in_play(m, "ARC4")["skillset"] == "Astropath"
    assert ids(m, m.zones.discard) == ["ALC6", "AST1"]


MIMIC_DECK = """
skillset = "Mimic"
keyword = "Study"
color = "yellow"
""" + "".join(f"""
[[card]]
id = "MIM{rank}"
name = "Mimic {rank}"
rank = {rank}
goal = {{ kind = "most_cards", stars = 1 }}
effect = {{ kind = "study" }}
""" for rank in range(1, 7))


def test_P8_a_study_effect_of_another_skillset_cannot_be_studied(tmp_path: Path) -> None:
    # A user deck of Study cards (the built-in Study cards are all Astropaths): MIM1 is of another skillset.
    (tmp_path / "mimic.toml").write_text(MIMIC_DECK, encoding="utf-8")
    playset = ["alchemist", "astropath", "mimic"]
    named = ["AST1", "ALC1", "MIM1", "ALC6", "ALC4", "ALC2"]
    doc = {"playset": playset, "artifact_holder": 0, "hands": [["AST1"], ["ALC1"]], "discard": ["MIM1", "ALC6"],
           "factions": [[], ["ALC4"]], "artifact": "ALC2", "deck": others_of(playset, tmp_path, *named)}
    m = Match.from_position(doc, deck_dirs=[str(tmp_path)])
    play(m, "AST1", "discard")
    assert targets(m) == ["ALC6"]  # not MIM1, although it is of another skillset
    play(m, "ALC6", "ALC4")  # ALC6: convert to its own skillset, which is now the Astropath's
    assert in_play(m, "ALC4")["skillset"] == "Astropath"


def others_of(playset: list[str], deck_dir: Path, *used: str) -> list[str]:
    ps = Playset.from_names(playset, [str(deck_dir)])
    return [c for c in ps.card_ids if c not in used]


# ---------------------------------------------------------------------------------------- Heal


def test_heal_moves_up_to_count_discarded_cards_into_factions() -> None:
    # HEA1: Heal up to 2.
    m = setup(SPARKS, hands=(["HEA1"], ["DEL1"]), discard=["DEL6", "AST3"])
    play(m, "HEA1", "discard")
    assert targets(m) == ["DEL6", "AST3"] and DONE in m.legal_actions()
    play(m, "DEL6")
    assert m.legal_actions() == [MINE, THEIRS]
    play(m, "mine", "AST3", "theirs")
    assert ids(m, m.zones.factions[0]) == ["DEL6"] and ids(m, m.zones.factions[1]) == ["AST3"]
    assert ids(m, m.zones.discard) == ["HEA1"] and m.current_player == 1
    assert public_moves(m) == [(0, "DEL6", "discard", "faction 0"), (0, "AST3", "discard", "faction 1")]


def test_heal_max_rank_and_a_single_heal_is_mandatory() -> None:
    # HEA3: Heal 1 card of rank 5 or lower.
    m = setup(SPARKS, hands=(["HEA3"], ["DEL1"]), discard=["DEL6", "DEL5"])
    play(m, "HEA3", "discard")
    assert m.legal_actions() == [m.playset.index_of["DEL5"]]
    play(m, "DEL5", "theirs")
    assert ids(m, m.zones.factions[1]) == ["DEL5"]


# ------------------------------------------------------------------------------- project rulings

OPTIONAL = [  # (playset, card, targets it needs, "done" offered?)
    (CATALYSTS, "ALC6", {"factions": (["MEC1"], [])}, False),  # Convert a card
    (CATALYSTS, "ALC3", {"factions": (["MEC1"], [])}, True),  # Convert up to 2 cards
    (CATALYSTS, "MEC4", {}, False),  # Assemble (a faction choice, never "done")
    (CATALYSTS, "ARC1", {"discard": ["MEC1"]}, True),  # Recall up to 1
    (ENGINES, "PRO4", {"factions": (["PRO1"], [])}, True),  # Guard up to 1
    (ENGINES, "SEA2", {}, False),  # Search: take 1
    (ENGINES, "MER2", {"hands": (["MER2", "PRO3"], ["PRO5"]), "factions": ([], ["PRO1"])}, True),  # you may
    (SPARKS, "DEL4", {"hands": (["DEL4", "AST1"], ["AST2"])}, True),  # Expand up to 1
    (SPARKS, "AST1", {"discard": ["DEL1"]}, False),  # Study
    (SPARKS, "HEA2", {"discard": ["DEL1"]}, False),  # Heal a card
    (SPARKS, "HEA1", {"discard": ["DEL1"]}, True),  # Heal up to 2
]


@pytest.mark.parametrize(("playset", "card", "zones", "optional"), OPTIONAL, ids=[c[1] for c in OPTIONAL])
def test_P5_up_to_and_you_may_offer_done_other_parts_are_mandatory(
        playset: list[str], card: str, zones: dict[str, Any], optional: bool) -> None:
    spare = [c for c in others(playset, card) if c[:3] != card[:3]][-1]
    m = setup(playset, hands=zones.get("hands", ([card], [spare])), factions=zones.get("factions", ([], [])),
              discard=zones.get("discard"))
    play(m, card, "discard")
    assert m.current_player == 0 and m.legal_actions()  # the effect has something to decide
    assert (DONE in m.legal_actions()) is optional


NOTHING_TO_DO = [(CATALYSTS, "ALC6"), (CATALYSTS, "MEC4"), (CATALYSTS, "ARC1"), (ENGINES, "PRO4"),
                 (ENGINES, "SEA2"), (ENGINES, "MER2"), (SPARKS, "DEL4"), (SPARKS, "AST1"), (SPARKS, "HEA2")]


@pytest.mark.parametrize(("playset", "card"), NOTHING_TO_DO, ids=[c[1] for c in NOTHING_TO_DO])
def test_P5_an_effect_with_no_legal_target_does_nothing(playset: list[str], card: str) -> None:
    # Every other card is in the goal area: empty factions, discard pile, deck and hand.
    rest = others(playset, card)
    m = setup(playset, hands=([card], [rest[0]]), artifact=rest[1], goals=rest[2:])
    before = m.position()
    play(m, card, "discard")
    assert m.current_player == 1
    after = m.position()
    assert ids(m, m.zones.discard) == [card]
    for zone in ("factions", "goals", "deck", "artifact"):
        assert after[zone] == before[zone]
    assert after["hands"] == [[], [rest[0]]]


def test_P6_the_played_card_is_in_no_pile_while_its_effect_resolves() -> None:
    m = setup(hands=(["ARC1"], ["ALC1"]), discard=["MEC2"])
    play(m, "ARC1", "discard")
    arc1 = m.playset.index_of["ARC1"]
    assert targets(m) == ["MEC2"]  # it cannot recall itself
    assert arc1 not in m.zones.discard and arc1 not in m.zones.hands[0]
    assert sorted(zones_of(m)) == list(range(18))
    assert m.observation(1)["discard"] == ["MEC2"]
    play(m, "done")
    assert ids(m, m.zones.discard) == ["MEC2", "ARC1"]  # on the discard pile once the effect is over
    # A Healer cannot heal itself.
    m = setup(SPARKS, hands=(["HEA2"], ["DEL1"]), discard=["DEL3"])
    play(m, "HEA2", "discard")
    assert targets(m) == ["DEL3"]
    # An Astropath cannot study itself (nor any Astropath).
    m = setup(SPARKS, hands=(["AST1"], ["DEL1"]), discard=["DEL3", "AST2"])
    play(m, "AST1", "discard")
    assert targets(m) == ["DEL3"]
