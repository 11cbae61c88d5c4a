"""Variants: the same rules on a smaller game (converge.engine.variant). The full game stays the default and
unchanged; ``tiny`` deals two skillsets of ranks 1 to 3, one card a hand, and is over after one round."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from converge.bots import make_bot
from converge.engine import IllegalActionError, Match, Playset, PlaysetError, PositionError, RecordError, native
from converge.engine.actions import MINE, SKILLSET_0
from converge.engine.effects import SKILLSET
from converge.engine.goals import FactionStats, goal_winners
from converge.engine.playset import all_playsets
from converge.engine.variant import FULL, SMALL, TINY, Variant, variant_named
from tests.helpers import zones_of

TINY_NAMES = ["alchemist", "mechanist"]


def tiny_match(seed: int = 0, **kw: object) -> Match:
    return Match.new(TINY_NAMES, seed=seed, variant="tiny", **kw)  # type: ignore[arg-type]


def test_the_full_game_is_the_default_and_its_digest_is_unchanged() -> None:
    ps = Playset.from_names(["alchemist", "mechanist", "archivist"])
    assert ps.variant is FULL
    assert ps.digest == "9b2bc757d80a0b9b"  # the digest before variants existed: full-game records still replay
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=5)
    assert "variant" not in m.record() and "variant" not in m.position()


def test_a_tiny_playset_holds_ranks_1_to_3_of_two_skillsets_as_ids_0_to_5() -> None:
    ps = Playset.from_names(TINY_NAMES, variant=TINY)
    assert ps.card_ids == ("ALC1", "ALC2", "ALC3", "MEC1", "MEC2", "MEC3")
    assert ps.printed_skill == (0, 0, 0, 1, 1, 1)
    assert ps.printed_rank == (1, 2, 3, 1, 2, 3)
    assert ps.digest != Playset.from_names(TINY_NAMES, variant=Variant("other", 2, (1, 2, 3), 2, 1)).digest


def test_M3_in_tiny_each_hand_gets_one_card_then_the_artifact_the_first_discard_and_a_deck_of_two() -> None:
    for seed in range(20):
        z = tiny_match(seed).zones
        assert [len(h) for h in z.hands] == [1, 1] and len(z.discard) == 1 and len(z.deck) == 2
        placed = z.hands[0] + z.hands[1] + z.discard + z.deck + [z.artifact]
        assert sorted(placed) == list(range(6))


def test_M1_a_tiny_match_is_one_round_whoever_wins_it_wins_the_match() -> None:
    for seed in range(40):
        m = tiny_match(seed)
        m.random_playout(random.Random(seed))
        assert m.is_terminal and len(m.round_results) == 1
        assert m.winner == m.round_winners[0] and sorted(m.round_wins) == [0, 1]


def test_a_small_match_deals_hands_of_two_from_twelve_cards() -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=3, variant=SMALL)
    assert [len(h) for h in m.zones.hands] == [2, 2] and len(m.zones.deck) == 6 and len(m.playset.cards) == 12


def test_C4_a_chosen_skillset_in_tiny_is_one_of_its_two() -> None:
    # ALC1 converts to a chosen skillset: put MEC1 in my faction, then discard ALC1 on it
    doc = {"format": "converge-position", "variant": "tiny", "playset": TINY_NAMES, "artifact_holder": 0,
           "hands": [["ALC1"], ["ALC2"]], "deck": ["ALC3", "MEC3"], "artifact": "MEC2", "discard": [],
           "factions": [["MEC1"], []]}
    m = Match.from_position(doc)
    m.apply("ALC1")
    m.apply("discard")
    m.apply("MEC1")
    assert m.effect.step == SKILLSET
    assert m.legal_actions() == [SKILLSET_0, SKILLSET_0 + 1]
    assert m.action_to_string(SKILLSET_0 + 1) == "Mechanist"


def test_the_each_skillset_goal_in_a_two_skillset_variant_takes_one_card_of_each_of_the_two() -> None:
    # ALC5's goal is "one card of each skillset"; a variant of ranks 1 and 5 has it with two skillsets
    ps = Playset.from_names(TINY_NAMES, variant=Variant("five", 2, (1, 5), 1, 1))
    assert ps.card_ids == ("ALC1", "ALC5", "MEC1", "MEC5")
    skill, rank = list(ps.printed_skill), list(ps.printed_rank)
    both, one = FactionStats([0, 2], skill, rank), FactionStats([3], skill, rank)
    assert goal_winners(ps.goal_kind[1], ps.goal_arg[1], both, one) == (1, 0)


def test_a_tiny_record_names_its_variant_and_replays_to_the_same_match() -> None:
    m = tiny_match(7)
    m.random_playout(random.Random(2))
    doc = m.record()
    assert doc["variant"] == "tiny" and len(doc["playset"]) == 2
    again = Match.replay(doc)
    assert again.history == m.history and again.winner == m.winner and again.playset.variant is TINY
    with pytest.raises(RecordError, match="variant"):
        Match.replay({**doc, "variant": "huge"})


def test_a_tiny_position_names_its_variant_and_sets_up_the_same_state() -> None:
    m = tiny_match(4)
    m.apply(m.legal_actions()[0])
    doc = m.position()
    assert doc["variant"] == "tiny"
    assert Match.from_position(doc).position() == doc
    with pytest.raises(PositionError, match="round_wins"):
        Match.from_position({**doc, "round_wins": [1, 1]})


def test_a_wrong_variant_or_playset_size_is_a_clear_error() -> None:
    with pytest.raises(PlaysetError, match="unknown variant 'huge'"):
        Match.new(TINY_NAMES, variant="huge")
    with pytest.raises(PlaysetError, match="tiny variant is 2 skillset names"):
        Match.new(["alchemist", "mechanist", "archivist"], variant="tiny")
    with pytest.raises(PlaysetError, match="not 'full'"):
        Match.new(Playset.from_names(TINY_NAMES, variant=TINY), variant="full")
    with pytest.raises(PlaysetError, match="too many"):
        Variant("x", 2, (1, 2), 2, 1)
    with pytest.raises(IllegalActionError, match="action 7 names no card or skillset of this playset"):
        tiny_match().apply(7)  # a card id of the full game, not of tiny's six cards
    assert variant_named("TINY") is TINY


def test_the_native_core_serves_the_full_game_only_and_bots_fall_back_to_the_engine() -> None:
    assert native.tables(Playset.from_names(TINY_NAMES, variant=TINY)) is None
    m = tiny_match(1)
    assert m.view(m.current_player).native_state() is None
    for name in ("easy", "medium", "hard"):
        action = make_bot(name, seed=1).decide(m.view(m.current_player))
        assert action in m.legal_actions()
    if native.available():
        full = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
        assert full.view(full.current_player).native_state() is not None


def test_a_tiny_match_s_actions_are_the_full_game_s_ids() -> None:
    m = tiny_match(0)
    m.apply(m.legal_actions()[0])
    assert m.legal_actions() == [18, 19, MINE, 21]


# ------------------------------------------------------------------------- the full game's invariants, on variants

PAIRS = [list(p[:2]) for p in all_playsets()[::7]]
variant_matches = st.one_of(
    st.tuples(st.just("tiny"), st.sampled_from(PAIRS)),
    st.tuples(st.just("small"), st.sampled_from([list(p) for p in all_playsets()[::11]])),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant_matches, st.integers(0, 2**63 - 1), st.data())
def test_every_card_of_a_variant_is_in_exactly_one_zone_and_the_record_replays(
        which: tuple[str, list[str]], seed: int, data: st.DataObject) -> None:
    name, names = which
    m = Match.new(names, seed=seed, variant=name)
    n = m.playset.variant.num_cards
    while not m.is_terminal:
        assert sorted(zones_of(m)) == list(range(n)), f"zones after {m.history}"
        m.apply(data.draw(st.sampled_from(m.legal_actions())))
    assert len(m.round_results) == 1 and m.winner == m.round_winners[0]
    again = Match.replay(m.record())
    assert again.observation(0) == m.observation(0) and again.observation(1) == m.observation(1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PAIRS), st.integers(10**12, 2**63 - 1), st.data())
def test_a_tiny_view_holds_no_hidden_card(names: list[str], seed: int, data: st.DataObject) -> None:
    m = Match.new(names, seed=seed, variant="tiny")
    while not m.is_terminal:
        for viewer in (0, 1):
            hidden = set(m.hidden_from(viewer))
            obs = m.observation(viewer)
            board = json.dumps({k: v for k, v in obs.items() if k != "events"})  # (the log may name a card
            assert not any(f'"{m.playset.card_ids[c]}"' in board for c in hidden)  # seen before it went hidden)
            assert m.zones.artifact in hidden and str(seed) not in json.dumps(m.observation(viewer))
        m.apply(data.draw(st.sampled_from(m.legal_actions())))
