"""The rules of a match, a turn and information (RULES.md: M1-M3, T1-T8, I1-I3, P12-P15).

Each test is named after the rule or ruling it checks. States are built through the position
format (``tests.helpers.setup``); card ids are chosen for their printed goal or effect (see the
deck files in ``src/converge/cards/decks``).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from converge import Match
from converge.engine import DECLARE, DISCARD, DONE, MINE, THEIRS, IllegalActionError
from tests.helpers import CATALYSTS, ROOT, ids, others, play, setup

ENGINES = ["protector", "searcher", "merchant"]


def score_events(match: Match) -> list[list[int]]:
    """The end-of-turn scores announced so far, as every player sees them."""
    return [[e["score0"], e["score1"]] for e in match.public_observation()["events"] if e["kind"] == "score"]


def events(match: Match, viewer: int, kind: str) -> list[dict[str, Any]]:
    return [e for e in match.observation(viewer)["events"] if e["kind"] == kind]


def outscore_now(round_no: int, wins: list[int], holder: int = 0) -> Match:
    """A position where the holder (the lead) outscores the other player at the end of this turn.

    The goal area holds MEC4 "Highest Mechanist"; only the holder's faction has a Mechanist. Both
    players then add an Archivist to their own faction, which does not change that goal.
    """
    factions: tuple[list[str], list[str]] = (["MEC6"], []) if holder == 0 else ([], ["MEC6"])
    return setup(hands=(["ARC1"], ["ARC2"]), factions=factions, goals=["MEC4"], holder=holder,
                 round=round_no, round_wins=wins)


def play_turn(match: Match, lead_card: str, other_card: str) -> Match:
    return play(match, lead_card, "mine", other_card, "mine")


# ---------------------------------------------------------------------------------------- match


def test_M1_first_to_two_round_wins_wins_match() -> None:
    # Winning a first round does not end the match: the next round is dealt.
    m = play_turn(outscore_now(1, [0, 0]), "ARC1", "ARC2")
    assert m.round_wins == [1, 0]
    assert not m.is_terminal and m.winner == -1
    assert m.round_no == 2

    # A second round win ends it.
    m = play_turn(outscore_now(2, [1, 0]), "ARC1", "ARC2")
    assert m.round_wins == [2, 0]
    assert m.is_terminal and m.winner == 0
    assert m.current_player == -1 and m.legal_actions() == []
    assert m.observation(1)["winner"] == 0
    with pytest.raises(IllegalActionError):
        m.apply(0)

    # At 1-1 the third round decides the match.
    m = play_turn(outscore_now(3, [1, 1]), "ARC1", "ARC2")
    assert m.round_wins == [2, 1] and m.winner == 0 and m.is_terminal


def test_M1_every_match_ends_after_two_or_three_rounds() -> None:
    for seed in range(25):
        m = Match.new(CATALYSTS, seed=seed)
        m.random_playout(random.Random(seed))
        assert m.is_terminal
        assert sorted(m.round_wins) in ([0, 2], [1, 2])
        assert m.round_wins[m.winner] == 2
        assert len(m.round_results) == sum(m.round_wins) <= 3
        assert m.round_no == len(m.round_results)


def test_M2_round_two_starts_with_loser_of_round_one() -> None:
    m = play_turn(outscore_now(1, [0, 0], holder=0), "ARC1", "ARC2")
    assert m.round_results[-1][0] == 0
    assert m.round_no == 2
    assert m.holder == 1 and m.lead == 1 and m.current_player == 1
    assert m.observation(0)["artifact_holder"] == 1

    # ... and round three with the loser of round two.
    m = play_turn(outscore_now(2, [1, 0], holder=1), "ARC2", "ARC1")
    assert m.round_wins == [1, 1] and m.round_no == 3
    assert m.holder == 0 and m.current_player == 0


def test_M2_round_one_holder_is_a_setting_or_drawn_from_the_seed() -> None:
    for start in (0, 1):
        for seed in range(5):
            m = Match.new(CATALYSTS, seed=seed, start=start)
            assert m.holder == start and m.current_player == start
    drawn = [Match.new(CATALYSTS, seed=seed).holder for seed in range(40)]
    assert set(drawn) == {0, 1}  # the default draws it
    assert drawn == [Match.new(CATALYSTS, seed=seed).holder for seed in range(40)]  # ... from the seed
    with pytest.raises(ValueError):
        Match.new(CATALYSTS, seed=1, start=2)


def _check_deal(m: Match) -> None:
    assert len(m.zones.hands[0]) == 3 and len(m.zones.hands[1]) == 3
    assert len(m.zones.discard) == 1
    assert len(m.zones.deck) == 10
    assert m.zones.goals == [] and m.zones.factions == [[], []]
    everything = [*m.zones.hands[0], *m.zones.hands[1], m.zones.artifact, *m.zones.discard, *m.zones.deck]
    assert sorted(everything) == list(range(18))
    for viewer in (0, 1, -1):
        obs = m.observation(viewer)
        assert obs["deck_size"] == 10 and obs["hand_sizes"] == [3, 3]
        assert obs["discard"] == ids(m, m.zones.discard)  # the first discard is face up
        # The artifact is face down (the events of earlier rounds may name the same card).
        start = max(i for i, e in enumerate(obs["events"]) if e["kind"] == "round_start")
        obs["events"] = obs["events"][start:]
        assert m.playset.card_ids[m.zones.artifact] not in json.dumps(obs)


def test_M3_setup_deals_3_3_1_1_10() -> None:
    for seed in range(6):
        m = Match.new(CATALYSTS, seed=seed)
        _check_deal(m)
        rng = random.Random(seed)
        while m.round_no == 1:
            m.apply(rng.choice(m.legal_actions()))
        _check_deal(m)  # every round is dealt afresh from all 18 cards


# ----------------------------------------------------------------------------------------- turn


def test_T1_the_artifact_holder_leads_then_the_other_player_plays() -> None:
    m = setup(hands=(["ALC1", "MEC1"], ["ARC1", "ARC2"]), goals=["MEC4"], holder=1)
    assert m.lead == 1 and m.current_player == 1
    assert ids(m, m.legal_actions()) == ["ARC1", "ARC2"]
    with pytest.raises(IllegalActionError):
        m.apply("ALC1", player=0)
    play(m, "ARC1", "mine")
    assert m.current_player == 0  # the other player plays second
    assert ids(m, m.legal_actions()) == ["ALC1", "MEC1"]
    play(m, "MEC1", "mine")  # the second player now has the only Mechanist: 0 : 1 ...
    assert score_events(m) == [[1, 0]]
    # ... so the artifact passed to player 0, who leads the next turn.
    assert m.holder == 0 and m.lead == 0 and m.current_player == 0 and m.turn_no == 2


def test_T2_a_player_with_an_empty_hand_passes() -> None:
    m = setup(hands=(["ALC1"], []), holder=0)
    play(m, "ALC1", "mine")
    # Player 1 had nothing to play: the turn ended and both drew.
    assert [e["player"] for e in events(m, 0, "pass")] == [1]
    assert m.turn_no == 2 and m.current_player == 0
    assert m.observation(0)["hand_sizes"] == [1, 1]


@pytest.mark.parametrize("mode", ["discard", "declare", "mine", "theirs"])
def test_T3_a_card_is_discarded_declared_or_added_to_either_faction(mode: str) -> None:
    m = setup(hands=(["ALC6"], ["ARC1"]), holder=0)
    play(m, "ALC6")
    assert m.legal_actions() == [DISCARD, DECLARE, MINE, THEIRS]
    play(m, mode)
    card = m.playset.index_of["ALC6"]
    z = m.zones
    where = {"discard": z.discard, "declare": z.goals, "mine": z.factions[0], "theirs": z.factions[1]}
    for zone, cards in where.items():
        assert (card in cards) == (zone == mode)
    assert card not in m.zones.hands[0]
    assert m.current_player == 1


def test_T4_a_card_may_be_discarded_when_its_effect_can_do_nothing() -> None:
    # ALC6 converts a card in a faction; both factions are empty.
    m = setup(hands=(["ALC6"], ["ARC1"]), holder=0, discard=["MEC2"])
    play(m, "ALC6", "discard")
    assert ids(m, m.zones.discard) == ["MEC2", "ALC6"]
    assert m.current_player == 1
    # ARC1 may take "up to 1" card back; the optional part may be declined.
    play(m, "ARC1", "discard")
    assert DONE in m.legal_actions()
    play(m, "done")
    assert ids(m, m.zones.discard) == ["MEC2", "ALC6", "ARC1"]
    hand = m.zones.hands[1]
    assert len(hand) == 1 and hand[0] not in m.zones.discard  # only the card drawn at the end


def test_T5_scoring_is_computed_afresh_each_goal_to_each_player_fulfilling_it() -> None:
    # MEC4 Highest Mechanist (1 star, single winner), ARC3 3 cards with different ranks (1 star).
    m = setup(hands=(["ALC5"], ["MEC6"]), goals=["MEC4", "ARC3"], holder=0,
              factions=(["MEC3", "ALC1", "ARC2"], ["MEC2", "ALC4", "ARC5"]))
    assert m.scores() == (2, 1)
    play(m, "ALC5", "declare")  # One card of each skillset, 2 stars: both fulfil it
    assert m.scores() == (4, 3)
    breakdown = {b["goal"]: b["winners"] for b in m.score_breakdown(0)}
    assert breakdown == {"MEC4": [0], "ARC3": [0, 1], "ALC5": [0, 1]}
    play(m, "MEC6", "mine")  # now player 1 has the highest Mechanist
    assert score_events(m) == [[3, 4]]
    assert m.holder == 1  # T6: the other player scored more


def test_T5_no_card_of_a_skillset_cannot_win_highest_or_lowest_but_fewest_counts_zero() -> None:
    # MEC4 Highest Mechanist, MEC2 Lowest Mechanist, ALC3 Fewest Alchemist: 1 star each.
    m = setup(hands=(["ARC1"], []), goals=["MEC4", "MEC2", "ALC3"], factions=(["ARC6"], ["MEC1", "ALC2"]))
    winners = {b["goal"]: b["winners"] for b in m.score_breakdown(0)}
    assert winners == {"MEC4": [1], "MEC2": [1], "ALC3": [0]}
    assert m.scores() == (1, 2)
    # Nobody has a Mechanist: nobody wins Highest or Lowest Mechanist.
    m = setup(hands=(["ARC1"], []), goals=["MEC4", "MEC2"], factions=(["ARC6"], ["ALC2"]))
    assert m.scores() == (0, 0)


@pytest.mark.parametrize(("factions", "round_winner", "holder_after"), [
    ((["MEC6"], []), 0, None),  # the lead scores more: the lead wins the round
    (([], ["MEC6"]), None, 1),  # the other player scores more: the artifact passes
    (([], []), None, 0),  # equal: the artifact stays
], ids=["lead_more_wins_round", "other_more_takes_artifact", "equal_stays"])
def test_T6_lead_wins_with_more_other_takes_artifact_with_more_tie_stays(
        factions: tuple[list[str], list[str]], round_winner: int | None, holder_after: int | None) -> None:
    m = setup(hands=(["ARC1"], ["ARC2"]), factions=factions, goals=["MEC4"], holder=0)
    play_turn(m, "ARC1", "ARC2")
    if round_winner is not None:
        assert m.round_wins == [1, 0] and m.round_no == 2
        assert m.observation(0)["round_results"] == [{"winner": 0, "reason": "outscored"}]
    else:
        assert m.round_wins == [0, 0] and m.round_no == 1 and m.turn_no == 2
        assert m.holder == holder_after and m.lead == holder_after


def test_T7_each_player_draws_one_card_lead_first() -> None:
    m = setup(hands=(["ARC1"], ["ARC2"]), holder=1, deck=["MEC1", "MEC2"])  # deck: top first
    deck_before = len(m.zones.deck)
    play_turn(m, "ARC2", "ARC1")
    assert ids(m, m.zones.hands[1]) == ["MEC1"]  # the lead drew the top card
    assert ids(m, m.zones.hands[0]) == ["MEC2"]
    assert len(m.zones.deck) == deck_before - 2
    assert [e["player"] for e in events(m, 0, "draw")] == [1, 0]


def test_T7_only_while_the_deck_has_cards_and_play_goes_on_after() -> None:
    named = ["ARC1", "ARC2", "MEC1", "MEC2", "ALC1"]
    m = setup(hands=(["ARC1"], ["ARC2", "MEC2"]), holder=1, deck=["MEC1"], artifact="ALC1",
              discard=others(None, *named))
    play_turn(m, "ARC2", "ARC1")
    assert ids(m, m.zones.hands[1]) == ["MEC2", "MEC1"] and m.zones.hands[0] == []  # one card: the lead's
    assert m.zones.deck == []
    assert m.round_no == 1 and m.turn_no == 2 and m.current_player == 1  # play goes on
    play(m, "MEC1", "mine")  # player 0 passes (T2)
    assert m.round_no == 1 and m.turn_no == 3 and m.current_player == 1


@pytest.mark.parametrize(("factions", "winner"), [
    (([], []), 1),  # a tie: the holder keeps the artifact and wins
    ((["MEC6"], []), 0),  # the other player takes the artifact on the last turn, then wins
], ids=["holder_keeps", "artifact_passed_last_turn"])
def test_T8_both_hands_empty_after_the_draw_step_artifact_holder_wins(
        factions: tuple[list[str], list[str]], winner: int) -> None:
    named = ["ARC1", "ARC2", "MEC4", "ALC1", *factions[0]]
    m = setup(hands=(["ARC1"], ["ARC2"]), factions=factions, goals=["MEC4"], holder=1, artifact="ALC1",
              discard=others(None, *named))
    assert m.zones.deck == []
    play_turn(m, "ARC2", "ARC1")
    assert m.round_wins[winner] == 1 and sum(m.round_wins) == 1
    assert m.observation(0)["round_results"] == [{"winner": winner, "reason": "hands_empty"}]


# -------------------------------------------------------------------- the rulebooks' examples


def rulebook_example(deck_empty: bool) -> Match:
    """The rulebooks' scoring example. Player 1 (index 0) has the highest Mechanist and three
    consecutive ranks; player 2 (index 1, the holder) has the most different skillsets and three
    consecutive ranks. Player 2 declares the last goal; player 1 discards a Recall that takes nothing."""
    factions = (["MEC5", "MEC6", "ARC4"], ["ALC1", "ARC2", "MEC3"])
    named = ["MEC4", "ARC5", "ALC4", "ARC1", "ALC2", *factions[0], *factions[1]]
    extra: dict[str, Any] = {}
    if deck_empty:
        extra = {"artifact": "ALC2", "discard": others(None, *named)}
    return setup(hands=(["ARC1"], ["ALC4"]), factions=factions, goals=["MEC4", "ARC5"], holder=1, **extra)


def test_rulebook_example_3_3_tie_leaves_the_artifact_where_it_is() -> None:
    m = rulebook_example(deck_empty=False)
    play(m, "ALC4", "declare")  # 3 cards with consecutive ranks, 2 stars
    why = {b["goal"]: (b["winners"], b["why"]) for b in m.score_breakdown(0)}
    assert why == {"MEC4": ([0], "you 6 vs them 3"), "ARC5": ([1], "you 2 vs them 3"),
                   "ALC4": ([0, 1], "you 3 vs them 3")}
    play(m, "ARC1", "discard")  # the discard pile is empty: nothing to recall
    assert score_events(m) == [[3, 3]]
    assert m.holder == 1 and m.round_no == 1 and m.round_results == []
    assert m.turn_no == 2 and m.lead == 1 and m.current_player == 1  # a new turn begins


def test_rulebook_example_all_16_cards_played_artifact_holder_wins() -> None:
    m = rulebook_example(deck_empty=True)
    play(m, "ALC4", "declare", "ARC1", "discard", "done")  # player 0 declines the Recall
    assert score_events(m) == [[3, 3]]
    # 18 cards - the artifact - the first discard = 16 cards, all played: the holder wins.
    assert m.round_wins == [0, 1]
    assert m.observation(0)["round_results"] == [{"winner": 1, "reason": "hands_empty"}]


# ---------------------------------------------------------------------------------- information

_PUBLIC = ("goals", "factions", "discard", "deck_size", "hand_sizes", "artifact_holder", "scores",
           "round_wins", "round_results", "recalled", "round", "turn", "lead")


def test_I1_public_information_is_the_same_for_every_viewer() -> None:
    m = setup(hands=(["ALC2", "MEC1"], ["ARC3", "ARC2"]), goals=["MEC4"], discard=["ARC6"], holder=0,
              factions=(["MEC5"], ["ALC6"]), conversions={"ALC6": {"skillset": "Mechanist", "rank": 6}},
              recalled=["ARC6"], round=2, round_wins=[0, 1])
    play(m, "ALC2", "theirs")
    views = [m.observation(0), m.observation(1), m.public_observation()]
    for key in _PUBLIC:
        assert views[0][key] == views[1][key] == views[2][key], key
    for view in views:
        assert [b["winners"] for b in view["score_breakdown"]] == [[1]]
    obs = views[1]
    assert obs["goals"] == ["MEC4"] and obs["discard"] == ["ARC6"]
    assert [[c["id"] for c in f] for f in obs["factions"]] == [["MEC5"], ["ALC6", "ALC2"]]
    alc6 = obs["factions"][1][0]
    assert (alc6["skillset"], alc6["rank"], alc6["converted"]) == ("Mechanist", 6, True)
    assert obs["deck_size"] == len(m.zones.deck) and obs["hand_sizes"] == [1, 2]
    assert obs["artifact_holder"] == 0 and obs["round_wins"] == [0, 1] and obs["recalled"] == ["ARC6"]
    assert obs["scores"] == [0, 1]  # the converted ALC6 is the highest Mechanist
    # Every public move: player 1 sees which card player 0 played, and how.
    plays = [(e["player"], e["card"], e["mode"], e["faction"]) for e in obs["events"] if e["kind"] == "play"]
    assert plays == [(0, "ALC2", "theirs", 1)]


def _hidden(m: Match, viewer: int) -> list[str]:
    """Card ids that ``viewer`` must not see: the other hand, the deck and the artifact."""
    z = m.zones
    secret = [*z.deck, z.artifact] + (z.hands[1 - viewer] if viewer in (0, 1) else [*z.hands[0], *z.hands[1]])
    return ids(m, secret)


def test_I2_hands_deck_order_artifact_and_seed_are_private() -> None:
    m = setup(hands=(["ALC2", "MEC1", "ARC3"], ["ARC2", "ALC5"]), holder=0, seed=918273645)
    play(m, "ALC2", "mine", "ARC2", "mine")  # both draw at the end of the turn
    for viewer in (0, 1, -1):
        obs = m.observation(viewer)
        text = json.dumps(obs)
        if viewer >= 0:
            assert obs["hand"] == ids(m, sorted(m.zones.hands[viewer]))
        else:
            assert obs["hand"] is None
        for card in _hidden(m, viewer):
            assert card not in text, (viewer, card)
        assert "918273645" not in text and "seed" not in obs
        assert "deck" not in obs  # only its size
    # What a player drew is theirs alone.
    drew = events(m, 0, "drew")
    assert [e["card"] for e in drew] == ids(m, [m.zones.hands[0][-1]])
    assert events(m, 1, "drew") and all(e["card"] != drew[0]["card"] for e in events(m, 1, "drew"))


def test_I2_a_card_shown_to_one_player_only_stays_private() -> None:
    # SEA2: look at the top 3 cards of the deck, take 1.
    m = setup(ENGINES, hands=(["SEA2"], ["MER1"]), deck=["PRO1", "PRO2", "PRO3"], holder=0)
    play(m, "SEA2", "discard")
    assert m.observation(0)["decision"]["revealed"] == ["PRO1", "PRO2", "PRO3"]
    for viewer in (1, -1):
        text = json.dumps(m.observation(viewer))
        assert not any(card in text for card in ("PRO1", "PRO2", "PRO3"))
    play(m, "PRO2")
    for viewer in (1, -1):
        text = json.dumps(m.observation(viewer))
        assert not any(card in text for card in ("PRO1", "PRO2", "PRO3"))
    assert [e["card"] for e in events(m, 0, "took")] == ["PRO2"]


def test_I3_errors_prompts_and_texts_reveal_nothing_private() -> None:
    m = setup(hands=(["ALC2", "MEC1"], ["ARC2", "ALC5"]), holder=0, artifact="ARC6", deck=["MEC6"])
    hidden_from_1 = _hidden(m, 1)  # player 0's hand, the deck and the artifact
    assert {"ALC2", "MEC1", "ARC6", "MEC6"} <= set(hidden_from_1)
    public_texts = [m.decision_prompt(), repr(m), json.dumps(m.public_observation())]
    texts_for_1 = [json.dumps(m.observation(1))]
    # Player 1 acting out of turn learns nothing from the error, whatever it names.
    for action in ("ALC2", "ARC6", "MEC6", "mine", 0):
        with pytest.raises(IllegalActionError) as info:
            m.apply(action, player=1)
        texts_for_1.append(str(info.value).replace(action, "") if isinstance(action, str) else str(info.value))
    for bad in ("XYZ9", "play two cards", "draw"):
        with pytest.raises(IllegalActionError) as info:
            m.apply(bad)
        public_texts.append(str(info.value))
    for text in public_texts:
        for card in _hidden(m, -1):
            assert card not in text, (card, text)
    for text in texts_for_1:
        for card in hidden_from_1:
            assert card not in text, (card, text)
    # Player 1's own illegal choice: the error is the same whichever hidden zone the card is in,
    # and lists only player 1's own legal cards.
    play(m, "ALC2", "mine")
    messages = []
    for card in ("MEC1", "ARC6", "MEC6"):  # player 0's hand, the artifact, the deck
        with pytest.raises(IllegalActionError) as info:
            m.apply(card, player=1)
        messages.append(str(info.value).replace(card, "<card>"))
    assert messages[0] == messages[1] == messages[2]
    assert "ARC2" in messages[0] and "ALC5" in messages[0]


# ----------------------------------------------------------------------------- project rulings


def test_P12_the_chosen_card_stays_private_until_its_mode_is_chosen() -> None:
    m = setup(hands=(["ALC6", "MEC1"], ["ARC1"]), factions=([], ["MEC3"]), holder=0)
    play(m, "ALC6")
    assert m.observation(0)["decision"]["card"] == "ALC6"
    for viewer in (1, -1):
        obs = m.observation(viewer)
        assert "card" not in obs["decision"]
        assert "ALC6" not in json.dumps(obs)
    assert m.legal_actions() == [DISCARD, DECLARE, MINE, THEIRS]
    play(m, "discard")  # the convert now waits for its target: the card is public
    for viewer in (1, -1):
        obs = m.observation(viewer)
        assert obs["decision"]["card"] == "ALC6"
        assert [e["card"] for e in obs["events"] if e["kind"] == "play"] == ["ALC6"]


def _deal(m: Match) -> tuple[Any, ...]:
    return (m.zones.hands[0][:], m.zones.hands[1][:], m.zones.artifact, m.zones.discard[:], m.zones.deck[:])


def test_P13_each_round_is_dealt_from_the_match_seed() -> None:
    deals = {}
    for seed in range(4):
        a, b = Match.new(CATALYSTS, seed=seed), Match.new(CATALYSTS, seed=seed)
        assert _deal(a) == _deal(b)
        deals[seed] = _deal(a)
        # Two different plays of round 1: round 2 is dealt the same, from the seed alone.
        for m, rng in ((a, random.Random(1)), (b, random.Random(2))):
            while m.round_no == 1:
                m.apply(rng.choice(m.legal_actions()))
        assert a.history != b.history
        assert _deal(a) == _deal(b)
        assert _deal(a) != deals[seed]  # dealt afresh, not the same order again
    assert len({repr(d) for d in deals.values()}) == len(deals)


def test_P14_passing_is_automatic_and_not_an_action() -> None:
    named = ["ALC1", "ARC1", "ARC2", "ALC2"]
    m = setup(hands=(["ALC1"], ["ARC1", "ARC2"]), holder=0, artifact="ALC2", discard=others(None, *named))
    play_turn(m, "ALC1", "ARC1")
    # Turn 2: the lead (player 0) has no card; player 1 is asked straight away.
    assert m.turn_no == 2 and m.lead == 0 and m.current_player == 1
    assert [e["player"] for e in events(m, 1, "pass")] == [0]
    assert ids(m, m.legal_actions()) == ["ARC2"]
    assert len(m.history) == 4  # four decisions, no "pass" among them
    play(m, "ARC2", "mine")
    assert m.round_wins == [1, 0]  # T8: both hands empty, the holder wins


def test_P15_the_lead_of_the_ended_turn_draws_first() -> None:
    # Player 1 leads; player 0 outscores and takes the artifact; one card is left to draw.
    named = ["ARC1", "ARC2", "MEC4", "MEC6", "MEC1", "ALC1"]
    m = setup(hands=(["ARC1"], ["ARC2"]), factions=(["MEC6"], []), goals=["MEC4"], holder=1, deck=["MEC1"],
              artifact="ALC1", discard=others(None, *named))
    play_turn(m, "ARC2", "ARC1")
    assert m.holder == 0
    assert ids(m, m.zones.hands[1]) == ["MEC1"] and m.zones.hands[0] == []
    assert [e["player"] for e in events(m, 0, "draw")] == [1]


# ------------------------------------------------------------------------------------ RULES.md

RULINGS = ([f"M{i}" for i in range(1, 4)] + [f"T{i}" for i in range(1, 9)] + [f"I{i}" for i in range(1, 4)]
           + [f"C{i}" for i in range(1, 9)] + [f"P{i}" for i in range(1, 16)])


def test_rules_md_numbers_every_ruling_and_points_to_tests_that_exist() -> None:
    root = ROOT
    text = (root / "RULES.md").read_text(encoding="utf-8")
    pointers = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)
    assert pointers
    for path, name in pointers:
        source = (root / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, flags=re.M), f"{path}::{name} does not exist"
    for ruling in RULINGS:
        entry = re.search(rf"^- \*\*{ruling}\.\*\* (.*?)(?=^- \*\*|^#|\Z)", text, flags=re.M | re.S)
        assert entry, f"RULES.md does not state ruling {ruling}"
        first = re.search(r"Test: `tests/[\w/]+\.py::(\w+)`", entry.group(1))
        assert first and first.group(1).startswith(f"test_{ruling}_"), f"ruling {ruling} has no test of its own"
