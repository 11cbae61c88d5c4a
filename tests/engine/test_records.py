"""Match records (save and replay format) and positions (set up any state): round trips, partial
replays, and the errors that a tampered record or an impossible position gets."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converge import IllegalActionError, Match, PositionError, RecordError
from converge.engine import all_playsets
from tests.helpers import play, setup

CATALYSTS = ["alchemist", "mechanist", "archivist"]
SELECT = 0


def views(match: Match) -> list[dict[str, Any]]:
    return [match.observation(0), match.observation(1), match.public_observation()]


def played(playset: list[str] | None = None, seed: int = 5, upto: int | None = None) -> Match:
    """A match played with seeded random legal actions (to the end, or ``upto`` actions)."""
    match = Match.new(playset or CATALYSTS, seed=seed)
    rng = random.Random(seed)
    while not match.is_terminal and (upto is None or len(match.history) < upto):
        match.apply(rng.choice(match.legal_actions()))
    return match


def same(a: Match, b: Match) -> None:
    assert views(a) == views(b)
    assert a.legal_actions() == b.legal_actions()
    assert a.history == b.history
    if a.turn.phase == SELECT and not a.is_terminal:
        assert a.position() == b.position()


# ---------------------------------------------------------------------------------------------- records


@pytest.mark.parametrize(("playset", "seed", "upto"), [
    (CATALYSTS, 1, None), (["protector", "searcher", "merchant"], 2, None),
    (["delver", "astropath", "healer"], 3, 17),
    (["alchemist", "searcher", "healer"], 2**63 - 1, None), (["merchant", "archivist", "delver"], 0, 0),
])
def test_a_record_round_trips_through_json(playset, seed, upto):
    match = played(playset, seed, upto)
    record = match.record()
    assert record["format"] == "converge-record" and record["version"] == 1
    assert record["playset"] == match.playset.names() and record["seed"] == seed
    assert record["decks"] == match.playset.digest
    assert record["actions"] == match.history
    assert record["moves"] == [match.action_to_string(a) for a in match.history]
    text = json.dumps(record)
    again = Match.replay(json.loads(text))
    same(match, again)
    assert json.dumps(again.record()) == text


def test_a_record_keeps_the_start_setting():
    for start in (0, 1):
        match = Match.new(CATALYSTS, seed=9, start=start)
        play(match, match.action_to_string(match.legal_actions()[0]), "declare")
        record = json.loads(json.dumps(match.record()))
        assert record["start"] == str(start)
        assert Match.replay(record, upto=0).holder == start
        same(match, Match.replay(record))


def test_moves_are_only_for_people():
    match = played(seed=4)
    record = match.record()
    del record["moves"]
    same(match, Match.replay(record))
    record["moves"] = ["nonsense"] * 3
    same(match, Match.replay(record))


def test_actions_may_be_written_as_readable_moves():
    match = played(seed=6, upto=30)
    record = match.record()
    record["actions"] = record["moves"]
    same(match, Match.replay(record))


def test_replay_upto_k_gives_the_kth_state():
    match = Match.new(["protector", "searcher", "merchant"], seed=21)
    rng = random.Random(21)
    states = [(views(match), match.legal_actions())]
    while not match.is_terminal:
        match.apply(rng.choice(match.legal_actions()))
        states.append((views(match), match.legal_actions()))
    record = json.loads(json.dumps(match.record()))
    n = len(record["actions"])
    for k in range(n + 1):
        partial = Match.replay(record, upto=k)
        assert len(partial.history) == k
        assert (views(partial), partial.legal_actions()) == states[k], f"state {k}"
    assert Match.replay(record, upto=n + 10).history == match.history
    assert Match.replay(record, upto=None).history == match.history


# ---------------------------------------------------------------------------------------------- tampered records


@pytest.fixture(scope="module")
def finished() -> tuple[Match, dict[str, Any]]:
    match = played(["alchemist", "searcher", "healer"], seed=12)
    return match, json.loads(json.dumps(match.record()))


def replay_error(record: Any) -> str:
    with pytest.raises(RecordError) as info:
        Match.replay(record)
    message = str(info.value)
    assert message and len(message) < 600
    return message


def test_an_illegal_action_in_a_record_is_reported_with_its_number(finished):
    _, record = finished
    for i in (0, 1, 7, len(record["actions"]) - 1):
        replay = Match.replay(record, upto=i)
        illegal = next(a for a in range(26) if a not in replay.legal_actions())
        bad = copy.deepcopy(record)
        bad["actions"][i] = illegal
        message = replay_error(bad)
        assert f"#{i + 1}" in message and "does not replay" in message


@pytest.mark.parametrize("action", [99, -1, None, 3.5, "xyz", "", True, [1], {"a": 1}])
def test_a_malformed_action_in_a_record_is_reported(finished, action):
    _, record = finished
    bad = copy.deepcopy(record)
    bad["actions"][3] = action
    assert "#4" in replay_error(bad)


def test_an_action_after_the_end_of_the_match_is_reported(finished):
    match, record = finished
    bad = copy.deepcopy(record)
    bad["actions"].append(0)
    message = replay_error(bad)
    assert f"#{len(match.history) + 1}" in message and "over" in message


@pytest.mark.parametrize("doc", [None, [], "converge-record", 42, {"actions": []},
                                 {"format": "converge-position", "actions": []},
                                 {"format": "Converge-Record", "actions": []}])
def test_a_document_that_is_not_a_record_is_rejected(doc):
    assert "format" in replay_error(doc) or "record" in replay_error(doc)


@pytest.mark.parametrize(("field", "value", "words"), [
    ("actions", "0,1,2", "actions"),
    ("actions", {"0": 1}, "actions"),
    ("actions", 5, "actions"),
    ("actions", None, "actions"),
    ("seed", "12", "seed"),
    ("seed", None, "seed"),
    ("seed", True, "seed"),
    ("seed", 1.5, "seed"),
    ("playset", "alchemist,searcher,healer", "playset"),
    ("playset", ["alchemist", "searcher"], "playset"),
    ("playset", ["alchemist", "searcher", "wizard"], "wizard"),
    ("playset", ["alchemist", "alchemist", "healer"], "different"),
    ("playset", None, "playset"),
    ("start", "2", "start"),
    ("decks", "0123456789abcdef", "decks"),
    ("decks", 7, "decks"),
])
def test_a_tampered_record_field_is_rejected_clearly(finished, field, value, words):
    _, record = finished
    bad = copy.deepcopy(record)
    bad[field] = value
    assert words in replay_error(bad)


@pytest.mark.parametrize("field", ["actions", "seed", "playset", "format"])
def test_a_record_missing_a_field_is_rejected(finished, field):
    _, record = finished
    bad = {k: v for k, v in record.items() if k != field}
    message = replay_error(bad)
    assert field in message or "record" in message


def test_a_record_with_a_different_seed_does_not_replay(finished):
    """The seed fixes the deal: the same actions under another seed are (almost surely) illegal."""
    _, record = finished
    failures = 0
    for seed in range(1, 6):
        bad = dict(record, seed=record["seed"] + seed)
        try:
            Match.replay(bad)
        except RecordError:
            failures += 1
    assert failures >= 4


def test_record_errors_are_value_errors():
    assert issubclass(RecordError, ValueError)
    with pytest.raises(ValueError):
        Match.replay({"format": "converge-record"})


# ------------------------------------------------------------------------------------ records from a position


def test_a_record_may_start_from_a_position():
    start = setup(hands=(["ALC1", "MEC2", "ARC3"], ["ARC4", "MEC5"]), factions=(["MEC1"], ["ALC6"]),
                  goals=["ARC1"], discard=["ALC2"])
    position = start.position()
    match = Match.from_position(position)
    play(match, "ALC1", "discard", "ALC6", "archivist", "ARC4", "mine")
    record = json.loads(json.dumps(match.record()))
    assert record["position"] == position
    again = Match.replay(record)
    same(match, again)
    assert [again.action_to_string(a) for a in again.history] == record["moves"]


def test_the_record_of_a_match_set_up_from_a_position_replays():
    """Match.record() of a match that began from a position must start from that position."""
    match = setup(hands=(["ALC1", "MEC2", "ARC3"], ["ARC4", "MEC5"]), factions=(["MEC1"], ["ALC6"]),
                  goals=["ARC1"], discard=["ALC2"])
    position = match.position()
    play(match, "MEC2", "declare", "ARC4", "theirs", "ALC1", "discard", "MEC1", "mechanist")
    record = json.loads(json.dumps(match.record()))
    assert record["position"] == position
    same(match, Match.replay(record))
    same(match.clone(), Match.replay(json.loads(json.dumps(match.clone().record()))))


def test_a_record_whose_position_is_impossible_is_rejected():
    position = setup(hands=(["ALC1"], ["ARC4"])).position()
    position["deck"] = position["deck"][1:]
    message = replay_error({"format": "converge-record", "position": position, "actions": []})
    assert "missing" in message


# ---------------------------------------------------------------------------------------------- positions


def select_states(playset: list[str], seed: int) -> list[tuple[Match, list[int]]]:
    """Copies of a random match at the start of each play, with the actions that followed."""
    match = Match.new(playset, seed=seed)
    rng = random.Random(seed)
    out = []
    while not match.is_terminal:
        if match.turn.phase == SELECT:
            out.append(match.clone())
        match.apply(rng.choice(match.legal_actions()))
    return [(m, match.history[len(m.history):]) for m in out]


def without_log(obs: dict[str, Any]) -> dict[str, Any]:
    """An observation less what a position does not hold: the event log and earlier rounds' results.
    (What each player knows of the hidden cards is in the position, so it must survive the round trip.)"""
    return {k: v for k, v in obs.items() if k not in ("events", "round_results")}


@pytest.mark.parametrize(("playset", "seed"), [
    (CATALYSTS, 3), (["protector", "searcher", "merchant"], 4), (["delver", "astropath", "healer"], 5),
    (["alchemist", "protector", "delver"], 6), (["archivist", "merchant", "healer"], 7),
])
def test_a_position_round_trips_and_plays_on_identically(playset, seed):
    for original, rest in select_states(playset, seed):
        position = json.loads(json.dumps(original.position()))
        copy_ = Match.from_position(position)
        assert copy_.position() == position
        assert copy_.legal_actions() == original.legal_actions()
        for viewer in (0, 1, -1):
            assert without_log(copy_.observation(viewer)) == without_log(original.observation(viewer))
        # the position holds everything the future depends on: the same actions give the same states
        follow = original.clone()
        for action in rest:
            copy_.apply(action)
            follow.apply(action)
            if follow.turn.phase == SELECT and not follow.is_terminal:
                assert copy_.position() == follow.position()
        assert copy_.winner == follow.winner and copy_.round_wins == follow.round_wins


def test_a_temporary_conversion_of_a_converted_card_reverts_to_its_converted_values_after_a_round_trip():
    """MEC3 was permanently raised to rank 4; ALC3 converts it to Alchemist until the end of the turn.
    At the end of the turn it reverts to Mechanist 4 (C6), also when the turn was saved as a position."""
    match = setup(hands=(["ALC3", "ALC1"], ["ARC1", "ARC2"]), factions=(["MEC3"], []),
                  conversions={"MEC3": {"rank": 4}})
    play(match, "ALC3", "discard", "MEC3")  # no other card in a faction: the effect ends
    assert match.turn.phase == SELECT and match.current_player == 1
    position = json.loads(json.dumps(match.position()))
    assert position["conversions"]["MEC3"]["until_end_of_turn"] is True
    restored = Match.from_position(position)
    assert restored.position() == position
    for m in (match, restored):
        play(m, "ARC1", "declare")
    assert match.position()["conversions"] == {"MEC3": {"skillset": "Mechanist", "rank": 4,
                                                        "until_end_of_turn": False}}
    assert restored.position() == match.position()


# ---------------------------------------------------------------------------------------------- invalid positions


@pytest.fixture
def doc() -> dict[str, Any]:
    """A valid position: ALC4 and MEC5 in factions, MEC5 converted, ALC4 guarded, round 2."""
    match = setup(hands=(["ALC1", "MEC2"], ["ARC3"]), factions=(["ALC4"], ["MEC5"]), goals=["ARC1"],
                  discard=["ALC2"], artifact="MEC6", round=2, round_wins=[1, 0],
                  conversions={"MEC5": {"skillset": "Archivist", "rank": 2}}, guards={"ALC4": 0},
                  recalled=["ALC1"])
    return json.loads(json.dumps(match.position()))


def rejected(doc: Any) -> str:
    with pytest.raises(PositionError) as info:
        Match.from_position(doc)
    return str(info.value)


def test_the_fixture_position_is_valid(doc):
    match = Match.from_position(doc)
    assert match.position() == doc
    assert doc["conversions"] == {"MEC5": {"skillset": "Archivist", "rank": 2, "until_end_of_turn": False}}
    assert doc["guards"] == {"ALC4": 0} and doc["recalled"] == ["ALC1"] and doc["round"] == 2


def test_a_position_that_loses_a_card_is_rejected(doc):
    lost = doc["deck"].pop()
    assert lost in rejected(doc) and "missing" in rejected(doc)


def test_a_position_that_duplicates_a_card_is_rejected(doc):
    doc["deck"].append("ALC1")
    message = rejected(doc)
    assert "ALC1" in message and "both" in message
    doc["deck"].pop()
    doc["hands"][1].append("ARC3")
    assert "ARC3" in rejected(doc)


@pytest.mark.parametrize("card", ["ZZZ9", "SEA1", "", 3, None, ["ALC1"]])
def test_a_position_that_invents_a_card_is_rejected(doc, card):
    doc["deck"].append(card)
    assert "not a card of this playset" in rejected(doc)


def test_an_unknown_artifact_is_rejected(doc):
    doc["deck"].append(doc["artifact"])
    doc["artifact"] = "SEA1"
    assert "artifact" in rejected(doc)
    del doc["artifact"]
    assert "artifact" in rejected(doc)


@pytest.mark.parametrize(("card", "zone"), [("ALC1", "hands[0]"), ("ARC1", "goals"), ("ALC2", "discard"),
                                            ("MEC6", "artifact"), ("ARC3", "hands[1]")])
def test_a_conversion_outside_a_faction_is_rejected(doc, card, zone):
    doc["conversions"][card] = {"skillset": "Alchemist"}
    message = rejected(doc)
    assert card in message and zone in message


def test_a_conversion_of_a_deck_card_is_rejected(doc):
    card = doc["deck"][0]
    doc["conversions"][card] = {"rank": 2}
    assert card in rejected(doc)


@pytest.mark.parametrize("spec", [{"skillset": "Healer"}, {"skillset": "wild"}, {"rank": 7}, {"rank": 0},
                                  {"rank": "2"}, {"colour": "red"}, "Archivist", None])
def test_an_impossible_conversion_is_rejected(doc, spec):
    doc["conversions"]["MEC5"] = spec
    assert "MEC5" in rejected(doc) or "rank" in rejected(doc)


def test_a_conversion_of_an_unknown_card_is_rejected(doc):
    doc["conversions"]["ZZZ9"] = {"rank": 2}
    assert "ZZZ9" in rejected(doc)


@pytest.mark.parametrize(("card", "who"), [("MEC5", 0), ("ALC4", 1), ("ALC1", 0), ("ARC3", 1), ("ALC2", 0)])
def test_a_guard_on_a_card_outside_its_guarders_faction_is_rejected(doc, card, who):
    doc["guards"] = {card: who}
    message = rejected(doc)
    assert card in message and "guard" in message


@pytest.mark.parametrize("who", [2, -1, True, "0", None])
def test_a_guard_by_no_player_is_rejected(doc, who):
    doc["guards"] = {"ALC4": who}
    assert "ALC4" in rejected(doc)


@pytest.mark.parametrize(("round_no", "wins"), [
    (2, [0, 0]), (1, [1, 0]), (3, [1, 0]), (2, [1, 1]), (1, [0, 1]), (4, [1, 1]), (0, [0, 0]),
    (3, [2, 0]), (2, [2, 0]), (1, [0, 2]), (2, [-1, 2]), (2, [True, 0]), (2, [1]), (2, [1, 0, 0]),
    (2, "10"), (2, None), ("2", [1, 0]), (2.0, [1, 0]), (None, [1, 0]),
])
def test_an_impossible_round_is_rejected(doc, round_no, wins):
    del doc["round_results"]
    doc["round"] = round_no
    doc["round_wins"] = wins
    message = rejected(doc)
    assert "round" in message


@pytest.mark.parametrize(("round_no", "wins"), [(1, [0, 0]), (2, [0, 1]), (3, [1, 1])])
def test_a_possible_round_is_accepted(doc, round_no, wins):
    del doc["round_results"]  # then taken as won by outscoring, player 0's first
    doc["round"] = round_no
    doc["round_wins"] = wins
    match = Match.from_position(doc)
    assert match.round_no == round_no and match.round_wins == wins


@pytest.mark.parametrize("field", ["comment", "Hands", "winner", "history", "events"])
def test_an_unknown_field_is_rejected(doc, field):
    doc[field] = 1
    assert field in rejected(doc)


@pytest.mark.parametrize(("field", "value"), [
    ("format", "converge-record"), ("playset", ["alchemist", "mechanist"]), ("playset", ["wizard", "a", "b"]),
    ("playset", "alchemist,mechanist,archivist"), ("seed", "1"), ("seed", True), ("hands", [["ALC1"]]),
    ("hands", None), ("factions", {"0": []}), ("artifact_holder", 2), ("lead", 1), ("to_play", 3),
    ("turn", 0), ("turn", "1"), ("start", "2"), ("conversions", []), ("guards", ["ALC4"]), ("recalled", "ALC1"),
    ("recalled", ["ZZZ9"]), ("deck", "ALC3"),
])
def test_a_bad_field_value_is_rejected(doc, field, value):
    doc[field] = value
    rejected(doc)


@pytest.mark.parametrize("doc_", [None, [], "position", 3])
def test_a_position_must_be_an_object(doc_):
    rejected(doc_)


def test_the_player_to_play_must_hold_a_card(doc):
    doc["to_play"] = 1
    Match.from_position(doc)
    doc["hands"][0] += doc["hands"][1]
    doc["hands"][1] = []
    assert "empty hand" in rejected(doc)


def test_a_position_is_taken_at_any_decision_and_after_the_end():
    """Mid-play (a card chosen, an effect resolving) and at the end: the position sets up the same state,
    which plays on the same."""
    for seed in range(30):
        match = Match.new(CATALYSTS if seed % 2 else ["protector", "searcher", "merchant"], seed=seed)
        rng = random.Random(seed)
        while True:
            doc = json.loads(json.dumps(match.position()))
            copy_ = Match.from_position(doc)
            assert copy_.position() == doc
            assert copy_.legal_actions() == match.legal_actions()
            assert copy_.round_results == match.round_results and copy_.decision_kind == match.decision_kind
            for viewer in (0, 1, -1):
                assert {**copy_.observation(viewer), "events": []} == {**match.observation(viewer), "events": []}
            if match.is_terminal:
                assert doc["winner"] == match.winner and "to_play" not in doc
                assert doc["round_results"] == match.observation(-1)["round_results"]
                break
            action = rng.choice(match.legal_actions())
            match.apply(action)
    chance = Match.new(CATALYSTS, seed=1, chance=True)
    with pytest.raises(PositionError, match="chance node"):
        chance.position()


def test_an_invalid_position_changes_nothing_it_was_given(doc):
    doc["deck"].append("ZZZ9")
    before = copy.deepcopy(doc)
    rejected(doc)
    assert doc == before


def test_illegal_actions_on_a_position_match_raise_and_change_nothing(doc):
    match = Match.from_position(doc)
    before = match.position()
    with pytest.raises(IllegalActionError):
        match.apply("ARC3")
    assert match.position() == before


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(all_playsets()), st.integers(0, 2**63 - 1), st.integers(0, 10**6))
def test_any_position_round_trips_and_plays_on_identically(playset, seed, choice_seed):
    """From any start of a play, the position holds all the future depends on."""
    match = Match.new(list(playset), seed=seed)
    rng = random.Random(choice_seed)
    stop = rng.randrange(0, 80)
    while not match.is_terminal and (len(match.history) < stop or match.turn.phase != SELECT):
        match.apply(rng.choice(match.legal_actions()))
    if match.is_terminal:
        return
    position = json.loads(json.dumps(match.position()))
    restored = Match.from_position(position)
    assert restored.position() == position
    assert Match.replay(json.loads(json.dumps(restored.record()))).position() == position
    while not match.is_terminal:
        assert restored.legal_actions() == match.legal_actions()
        if match.turn.phase == SELECT:
            assert restored.position() == match.position()
            for viewer in (0, 1, -1):
                assert without_log(restored.observation(viewer)) == without_log(match.observation(viewer))
        action = rng.choice(match.legal_actions())
        match.apply(action)
        restored.apply(action)
    assert restored.winner == match.winner and restored.round_wins == match.round_wins
