"""Illegal input raises the documented error (IllegalActionError, a ValueError; PlaysetError for a bad
match set-up), says what was wrong without revealing anything hidden, and changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from converge import ConvergeError, IllegalActionError, Match, Playset, PlaysetError
from converge.engine.actions import DECLARE, DISCARD, DONE, MINE, NUM_ACTIONS, SKILLSET_0, THEIRS
from tests.helpers import play, setup

# Player 0 to play, holding ALC1 (Convert one card, skillset of your choice) and MEC2; player 1
# holds ARC3 and ARC4. ALC2 is the artifact; MEC1 is the top of the deck.
HANDS = (["ALC1", "MEC2"], ["ARC3", "ARC4"])


def fresh() -> Match:
    return setup(hands=HANDS, factions=(["MEC5"], ["ALC6"]), goals=["MEC3"], discard=["ARC1"],
                 deck=["MEC1", "MEC4"], artifact="ALC2")


def at_select() -> Match:
    return fresh()


def at_mode() -> Match:
    return play(fresh(), "ALC1")


def at_effect() -> Match:
    return play(fresh(), "ALC1", "discard")  # Convert: choose a card in a faction


PHASES = {"select": at_select, "mode": at_mode, "effect": at_effect}


def snapshot(match: Match) -> dict[str, Any]:
    """Everything a change could touch: every view, the legal actions, the history and the hidden zones."""
    out: dict[str, Any] = {
        "views": [match.observation(0), match.observation(1), match.public_observation()],
        "legal": match.legal_actions(),
        "player": match.current_player,
        "history": list(match.history),
        "hands": [list(h) for h in match.zones.hands],
        "deck": list(match.zones.deck),
        "artifact": match.zones.artifact,
    }
    if match.turn.phase == 0 and not match.is_terminal:
        out["position"] = match.position()
    return out


def refused(match: Match, action: Any, **kwargs: Any) -> str:
    """Apply an illegal action: assert IllegalActionError and that nothing changed; return the message."""
    before = snapshot(match)
    with pytest.raises(IllegalActionError) as info:
        match.apply(action, **kwargs)
    assert snapshot(match) == before
    message = str(info.value)
    assert message and len(message) < 400, message
    return message


def test_illegal_action_error_is_a_value_error():
    assert issubclass(IllegalActionError, ValueError) and issubclass(IllegalActionError, ConvergeError)
    assert issubclass(PlaysetError, ValueError) and issubclass(PlaysetError, ConvergeError)


# ---------------------------------------------------------------------------------------------- wrong player


@pytest.mark.parametrize("phase", list(PHASES))
def test_the_wrong_player_is_refused(phase):
    match = PHASES[phase]()
    me = match.current_player
    assert me == 0
    for action in match.legal_actions():
        message = refused(match, action, player=1)
        assert "player 0" in message and "player 1" in message
    for who in (2, -1, -2):
        refused(match, match.legal_actions()[0], player=who)
    match.apply(match.legal_actions()[0], player=0)  # the right player may act
    assert len(match.history) == 1 + {"select": 0, "mode": 1, "effect": 2}[phase]


def test_the_wrong_player_message_names_no_card():
    match = at_effect()
    message = refused(match, "MEC5", player=1)
    ids = match.playset.card_ids
    assert not [c for c in ids if c in message and c != "MEC5"]


# ---------------------------------------------------------------------------------------------- cards not in hand


@pytest.mark.parametrize("card", ["ARC3", "ARC4", "MEC1", "MEC4", "ALC2", "ARC1", "MEC3", "MEC5", "ALC6"])
def test_a_card_not_in_hand_cannot_be_played(card):
    match = at_select()
    refused(match, card)
    refused(match, match.parse_action(card))
    refused(match, f"play {card.lower()}")


def test_the_error_does_not_say_where_a_hidden_card_is():
    """A card in the opponent's hand, in the deck and the artifact get the same words (I3)."""
    match = at_select()
    hidden = {"ARC3": "opponent's hand", "MEC1": "deck (top)", "MEC4": "deck", "ALC2": "artifact"}
    messages = {card: refused(match, card).replace(card, "<card>") for card in hidden}
    assert len(set(messages.values())) == 1, messages
    message = next(iter(messages.values()))
    ids = match.playset.card_ids
    others_hidden = [c for c in ids if c in message and c not in ("ALC1", "MEC2")]  # own hand may be listed
    assert others_hidden == []
    for word in ("opponent", "deck", "artifact", "player 1"):
        assert word not in message.lower(), message


def test_the_opponent_cannot_learn_the_chosen_card_from_errors():
    """In the MODE phase, the waiting player's errors are the same whatever card was chosen."""
    messages = []
    for card in HANDS[0]:
        match = play(fresh(), card)
        messages.append([refused(match, action, player=1) for action in ("discard", "ALC1", "MEC2", 0)]
                        + [refused(match, action) for action in ("ALC1", "MEC2", DONE)])
    assert messages[0] == messages[1]
    assert not any(c in m for m in messages[0] for c in HANDS[0] if c not in ("ALC1", "MEC2"))


# ---------------------------------------------------------------------------------------------- bad targets


def test_a_bad_target_in_an_effect_is_refused():
    match = at_effect()
    assert [match.action_to_string(a) for a in match.legal_actions()] == ["ALC6", "MEC5"]
    # a card in hand, the discard pile, the goal area, the deck, the artifact; and the wrong kinds of action
    for action in ("MEC2", "ARC1", "MEC3", "MEC1", "ALC2", "ARC3", DONE, MINE, THEIRS, DISCARD, DECLARE,
                   SKILLSET_0, SKILLSET_0 + 2):
        refused(match, action)
    match.apply("ALC6")
    assert [match.action_to_string(a) for a in match.legal_actions()] == ["Alchemist", "Mechanist", "Archivist"]
    for action in ("MEC5", "ALC6", DONE, MINE, DISCARD):
        refused(match, action)
    match.apply("archivist")
    assert match.observation(0)["factions"][1][0]["skillset"] == "Archivist"


def test_a_card_guarded_by_the_opponent_is_not_a_target():
    match = setup(hands=HANDS, factions=(["MEC5"], ["ALC6"]), guards={"ALC6": 1})
    play(match, "ALC1", "discard")
    assert [match.action_to_string(a) for a in match.legal_actions()] == ["MEC5"]
    refused(match, "ALC6")


def test_modes_are_refused_outside_the_mode_step():
    match = at_select()
    for action in (DISCARD, DECLARE, MINE, THEIRS, DONE, SKILLSET_0, "discard", "mine", "done", "alchemist"):
        refused(match, action)
    match = at_mode()
    for action in ("MEC2", "ALC1", DONE, SKILLSET_0, "done", "archivist"):
        refused(match, action)


# ---------------------------------------------------------------------------------------------- garbage


GARBAGE = [-1, 26, 27, 10**9, -(10**9), 2**70, True, False, None, 3.5, float("nan"), 18.0, "xyz", "", "   ",
           "x" * 10_240, "ALC1 " * 2000, "play", "play ALC1 now", "ALC99", "-1", "26", "²", "٣٣", "\x00",
           b"ALC1", [0], (0,), {"action": 0}, object()]


@pytest.mark.parametrize("phase", list(PHASES))
@pytest.mark.parametrize("action", GARBAGE, ids=[repr(a)[:20] for a in GARBAGE])
def test_garbage_actions_are_refused(phase, action):
    match = PHASES[phase]()
    message = refused(match, action)
    if isinstance(action, str) and len(action) > 100:
        assert action[:60] not in message  # long input is not echoed back in full


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=30), st.integers(), st.floats(), st.none(), st.booleans(), st.binary()))
def test_any_input_either_applies_or_raises_illegal_action_error(action):
    for make in (at_select, at_mode, at_effect):
        match = make()
        legal = match.legal_actions()
        try:
            match.apply(action)
        except IllegalActionError:
            assert len(match.history) == len(make().history)
            continue
        assert match.history[-1] in legal


@pytest.mark.parametrize("text", ["ALC1", "alc1", " play alc1 ", "PLAY ALC1", "0", "play 0"])
def test_readable_forms_are_accepted(text):
    match = at_select()
    match.apply(text)
    assert match.history == [0]


# ---------------------------------------------------------------------------------------------- match over


def finished() -> Match:
    match = Match.new(["protector", "searcher", "merchant"], seed=11)
    match.random_playout(random.Random(5))
    assert match.is_terminal
    return match


def test_no_action_is_legal_after_the_match_is_over():
    match = finished()
    assert match.legal_actions() == [] and match.current_player == -1
    for action in [*range(NUM_ACTIONS), "done", "discard", match.playset.card_ids[0], None, -1, "xyz"]:
        assert "over" in refused(match, action)
    for who in (0, 1, match.winner):
        refused(match, 0, player=who)


# ---------------------------------------------------------------------------------------------- bad set-up


@pytest.mark.parametrize("playset", [
    ["alchemist", "mechanist", "wizard"],
    ["alchemist", "alchemist", "mechanist"],
    ["alchemist", "ALCHEMIST", "mechanist"],
    ["alchemist", "mechanist"],
    ["alchemist", "mechanist", "archivist", "healer"],
    [],
    "alchemist,mechanist,archivist",
    "alchemist",
    None,
    123,
    [None, "alchemist", "mechanist"],
    [1, 2, 3],
    ["", "alchemist", "mechanist"],
    {"alchemist": 1, "mechanist": 2, "archivist": 3},
])
def test_a_bad_playset_raises_playset_error(playset):
    with pytest.raises(PlaysetError):
        Match.new(playset, seed=1)


def test_the_playset_error_names_the_unknown_skillset_and_the_known_ones():
    with pytest.raises(PlaysetError) as info:
        Match.new(["alchemist", "mechanist", "wizard"])
    assert "wizard" in str(info.value) and "healer" in str(info.value)
    with pytest.raises(PlaysetError) as info:
        Playset.from_names(["alchemist", "Alchemist", "mechanist"])
    assert "different" in str(info.value)


@pytest.mark.parametrize("seed", [1.5, "3", None, True, False, [1], -1, 2**63])
def test_a_bad_seed_raises_playset_error(seed):
    with pytest.raises(PlaysetError):
        Match.new(["alchemist", "mechanist", "archivist"], seed=seed)


@pytest.mark.parametrize("start", ["2", 2, -1, "first", None, 1.0, "", "Random", [0]])
def test_a_bad_start_raises_playset_error(start):
    with pytest.raises(PlaysetError):
        Match.new(["alchemist", "mechanist", "archivist"], seed=1, start=start)


@pytest.mark.parametrize("names", [["Alchemist", "MECHANIST", " archivist "], ("healer", "delver", "astropath")])
def test_good_set_up_arguments_are_accepted(names):
    for start in ("random", 0, 1, "0", "1"):
        match = Match.new(names, seed=2**63 - 1, start=start)
        assert match.current_player in (0, 1)
        if start != "random":
            assert match.holder == int(start)
