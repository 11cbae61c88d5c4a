"""Narration reads right from every seat: players named as the board names them, verbs that agree, and
every card that enters a faction said to go into the faction it is actually in afterwards."""

from __future__ import annotations

import random
import re

import pytest

from converge import Match
from converge.engine import all_playsets
from converge.engine.events import SCHEMA, EventKind
from tests.helpers import finished_matches

PLAYSETS = all_playsets()
FACTION_NAMED = re.compile(r"\b(?:to|into) (your|their own|their|player [01]'s) faction\b")


def _owner(phrase: str, viewer: int, actor: int) -> int:
    """The player whose faction ``phrase`` names, from ``viewer``'s side (the sentence's actor: ``actor``)."""
    if phrase == "your":
        return viewer
    if phrase == "their":
        assert viewer in (0, 1), "a spectator never reads a bare 'their faction'"
        return 1 - viewer
    if phrase == "their own":
        assert viewer == -1
        return actor
    return int(phrase[7])


@pytest.mark.parametrize("viewer", [0, 1, -1])
def test_the_faction_named_is_where_the_card_goes(viewer: int) -> None:
    checked = 0
    rng = random.Random(viewer + 10)
    for k in range(60):
        match = Match.new(list(PLAYSETS[(k * 7) % len(PLAYSETS)]), seed=k)
        seen = 0
        while not match.is_terminal:
            match.apply(rng.choice(match.legal_actions()))
            events = match.observation(viewer)["events"]
            for event in events[seen:]:
                found = FACTION_NAMED.search(event["text"])
                if event["kind"] in ("play", "move") and event["card"] and (
                        event.get("faction") is not None or str(event.get("to", "")).startswith("faction")):
                    assert found, event["text"]
                if found:
                    owner = _owner(found.group(1), viewer, event["player"])
                    card = match.playset.index_of[event["card"]]
                    # the card is in that faction now (a round that just ended dealt the cards again)
                    if match.round_no == match.observation(viewer)["round"] and not any(
                            e["kind"] == "round_end" for e in events[seen:]):
                        assert card in match.zones.factions[owner], (event["text"], viewer)
                        checked += 1
            seen = len(events)
    assert checked > 300


def test_players_are_named_the_way_the_board_names_them() -> None:
    for match in finished_matches(20):
        for viewer in (0, 1):
            texts = [e["text"] for e in match.observation(viewer)["events"]]
            assert not [t for t in texts if re.search(r"\bplayer [01]\b", t)]
            assert not [t for t in texts if re.search(r"\b(You|They|you|they) (adds|discards|declares|takes|moves|"
                                                      r"draws|wins|passes|holds|converts|guards|reveals|searches|"
                                                      r"uses|declines|studies)\b", t)], texts
        spectator = [e["text"] for e in match.observation(-1)["events"]]
        assert not [t for t in spectator if re.search(r"\b[Yy]ou(r)?\b", t)]
        assert not [t for t in spectator if re.search(r"\b[Pp]layer [01] (add|discard|declare|take|move|draw|win|"
                                                      r"pass|hold|convert|guard|reveal|search|use|decline)\b", t)]


def test_every_sentence_starts_with_a_capital_and_ends_with_a_full_stop() -> None:
    for match in finished_matches(10):
        for viewer in (0, 1, -1):
            for event in match.observation(viewer)["events"]:
                text = event["text"]
                assert text[0].isupper() and text.endswith("."), text


def test_a_discard_says_why_its_effect_did_nothing() -> None:
    texts = [e["text"] for m in finished_matches(30) for e in m.observation(0)["events"]
             if e["kind"] == "discarded"]
    assert any(t.endswith("its effect had nothing to do.") for t in texts)
    assert any("decline" in t for t in texts)


def test_every_event_kind_has_a_sentence() -> None:
    events = [e for m in finished_matches(60) for v in (0, 1) for e in m.observation(v)["events"]]
    assert {e["kind"] for e in events} >= {k.label for k in EventKind} - {"revert"}  # (needs a rare C6)
    assert not [e["text"] for e in events if e["text"].startswith("Event ")]
    assert set(SCHEMA) == set(EventKind)
