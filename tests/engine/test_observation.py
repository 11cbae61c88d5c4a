"""observation(player): the redacted, JSON-serialisable view, the only door to the state (I1-I3)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from converge import ConvergeError, Match
from tests.helpers import finished_matches, play, setup

ENGINES = ["protector", "searcher", "merchant"]

#: Keys the engine's page (docs/engine.md) and the observation module document.
DOCUMENTED = {"version", "viewer", "playset", "num_actions", "round", "turn", "round_wins", "round_results",
              "artifact_holder", "lead", "current_player", "is_terminal", "winner", "decision", "hand",
              "hand_sizes", "deck_size", "discard", "goals", "factions", "recalled", "scores", "score_breakdown",
              "events"}
#: Names that would hold what no viewer may see (I2).
FORBIDDEN = {"seed", "deck", "artifact", "opponent_hand", "hands", "history", "deck_order", "rng"}
PRIVATE_KINDS = {"dealt", "drew", "saw", "took"}


def random_states(seed: int, playset: list[str] | None = None) -> list[Match]:
    match = Match.new(playset or ["alchemist", "searcher", "healer"], seed=seed)
    rng = random.Random(seed)
    out = [match.clone()]
    while not match.is_terminal:
        match.apply(rng.choice(match.legal_actions()))
        out.append(match.clone())
    return out


def all_keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in all_keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in all_keys(v)}
    return set()


# ---------------------------------------------------------------------------------------------- shape


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_observations_are_json_with_the_documented_keys(seed):
    for match in random_states(seed):
        for viewer in (0, 1, -1):
            obs = match.observation(viewer)
            text = json.dumps(obs, allow_nan=False)
            assert json.loads(text) == obs
            assert set(obs) >= DOCUMENTED, DOCUMENTED - set(obs)
            assert not FORBIDDEN & all_keys(obs)
            assert obs["viewer"] == viewer and obs["num_actions"] == 26
            assert obs["current_player"] == match.current_player
            assert obs["is_terminal"] == match.is_terminal
            assert obs["hand_sizes"] == [len(match.zones.hands[0]), len(match.zones.hands[1])]
            assert obs["deck_size"] == len(match.zones.deck)
            assert list(obs["scores"]) == list(match.scores())
            assert [g["goal"] for g in obs["score_breakdown"]] == obs["goals"]
            assert sum(len(f) for f in obs["factions"]) + len(obs["discard"]) + len(obs["goals"]) + sum(
                obs["hand_sizes"]) + obs["deck_size"] + 1 + (match.turn.phase in (1, 2)) == 18


def test_the_observation_is_a_copy():
    match = setup(hands=(["ALC1", "MEC2"], ["ARC3"]), factions=(["ALC4"], []), goals=["ARC1"])
    before = copy.deepcopy(match.observation(0))
    obs = match.observation(0)
    obs["hand"].append("ARC3")
    obs["factions"][0].clear()
    obs["goals"].append("X")
    obs["decision"]["legal_actions"].clear()
    assert match.observation(0) == before
    assert match.legal_actions() == [0, 7]


@pytest.mark.parametrize("viewer", [2, -2, "0", None, True, 0.0])
def test_a_bad_viewer_is_refused(viewer):
    match = setup(hands=(["ALC1"], ["ARC3"]))
    with pytest.raises(ValueError):
        match.observation(viewer)


# ---------------------------------------------------------------------------------------------- hands


def test_a_player_sees_their_own_hand_and_only_the_size_of_the_other():
    match = setup(hands=(["MEC2", "ALC1", "ARC6"], ["ARC3", "MEC4"]), factions=(["ALC4"], []))
    obs0, obs1 = match.observation(0), match.observation(1)
    assert obs0["hand"] == ["ALC1", "MEC2", "ARC6"]  # catalogue order
    assert obs1["hand"] == ["MEC4", "ARC3"]
    assert obs0["hand_sizes"] == obs1["hand_sizes"] == [3, 2]
    for card in ("ARC3", "MEC4"):
        assert card not in json.dumps(obs0)
    for card in ("MEC2", "ALC1", "ARC6"):
        assert card not in json.dumps(obs1)


def test_the_spectator_sees_no_hand_and_no_private_event():
    for match in random_states(4):
        public = match.public_observation()
        assert public == match.observation(-1)
        assert public["hand"] is None
        assert public["decision"] is None or "legal_actions" not in public["decision"]
        assert not PRIVATE_KINDS & {e["kind"] for e in public["events"]}
        for viewer in (0, 1):
            own = match.observation(viewer)
            private = [e for e in own["events"] if e["kind"] in PRIVATE_KINDS]
            assert all(e["player"] == viewer for e in private)
            assert [e for e in own["events"] if e["kind"] not in PRIVATE_KINDS] == [
                {**e, "text": own_e["text"]} for e, own_e in zip(
                    public["events"], [x for x in own["events"] if x["kind"] not in PRIVATE_KINDS], strict=True)]


def test_dealt_and_drawn_cards_are_told_only_to_their_owner():
    match = Match.new(["alchemist", "mechanist", "archivist"], seed=8)
    for viewer in (0, 1):
        dealt = [e["card"] for e in match.observation(viewer)["events"] if e["kind"] == "dealt"]
        assert sorted(dealt) == sorted(match.observation(viewer)["hand"])
        other = [e for e in match.observation(1 - viewer)["events"] if e["kind"] == "dealt"]
        assert not set(dealt) & {e["card"] for e in other}
    rng = random.Random(8)
    while not any(e["kind"] == "draw" for e in match.public_observation()["events"]):
        match.apply(rng.choice(match.legal_actions()))
    draws = [e for e in match.public_observation()["events"] if e["kind"] == "draw"]
    assert all(e["card"] is None for e in draws)
    for viewer in (0, 1):
        drew = [e for e in match.observation(viewer)["events"] if e["kind"] == "drew"]
        assert drew and all(e["player"] == viewer and e["card"] in match.observation(viewer)["hand"] for e in drew)


# ---------------------------------------------------------------------------------------------- the decision


def test_legal_actions_appear_only_for_the_player_to_decide():
    for match in random_states(5, ENGINES):
        for viewer in (0, 1, -1):
            decision = match.observation(viewer)["decision"]
            if match.is_terminal:
                assert decision is None
                continue
            assert decision["player"] == match.current_player
            if viewer == match.current_player:
                legal = decision["legal_actions"]
                assert [a["id"] for a in legal] == match.legal_actions()
                assert [a["action"] for a in legal] == [match.action_to_string(a) for a in match.legal_actions()]
                assert all(isinstance(a["label"], str) and a["label"] for a in legal)
            else:
                assert "legal_actions" not in decision
                assert "pending" not in decision


def test_the_card_chosen_but_not_yet_played_is_hidden_from_the_opponent():
    """MODE phase: player 0 has chosen a card but not how to play it; player 1 cannot tell which."""
    hand = ["ALC1", "MEC2", "ARC6"]
    seen_by_1, seen_by_spectator = [], []
    for card in hand:
        match = setup(hands=(hand, ["ARC3", "MEC4"]), factions=(["ALC4"], []), goals=["ARC1"])
        match.apply(card)
        obs0, obs1 = match.observation(0), match.observation(1)
        assert obs0["decision"]["card"] == card
        assert card not in obs0["hand"] and obs0["hand_sizes"] == [2, 2]
        assert "card" not in obs1["decision"] and "card" not in match.public_observation()["decision"]
        for other in hand:
            assert other not in json.dumps(obs1) and other not in json.dumps(match.public_observation())
        seen_by_1.append(obs1)
        seen_by_spectator.append(match.public_observation())
    assert seen_by_1[0] == seen_by_1[1] == seen_by_1[2]
    assert seen_by_spectator[0] == seen_by_spectator[1] == seen_by_spectator[2]
    # once the mode is chosen the card is public
    match.apply("declare")
    assert match.observation(1)["goals"] == ["ARC1", "ARC6"]
    assert any(e["kind"] == "play" and e["card"] == "ARC6" for e in match.observation(1)["events"])


def test_a_discarded_card_is_public_while_its_effect_resolves():
    match = setup(hands=(["ALC1", "MEC2"], ["ARC3"]), factions=(["ALC4"], ["MEC5"]))
    play(match, "ALC1", "discard")
    for viewer in (0, 1, -1):
        decision = match.observation(viewer)["decision"]
        assert decision["card"] == "ALC1" and decision["effect"] == "convert"


# ---------------------------------------------------------------------------------------------- search


def searching(deck: list[str]) -> Match:
    """Player 0 discards SEA2 (Search 3) with ``deck`` on top of the deck."""
    match = setup(ENGINES, hands=(["SEA2", "PRO1"], ["MER3", "MER4"]), factions=(["PRO2"], ["MER5"]),
                  discard=["PRO6"], deck=deck, artifact="SEA6")
    return play(match, "SEA2", "discard")


def test_search_revealed_cards_are_visible_only_to_the_searcher():
    match = searching(["SEA1", "MER1", "PRO3"])
    obs0, obs1, public = match.observation(0), match.observation(1), match.public_observation()
    assert obs0["decision"]["revealed"] == ["SEA1", "MER1", "PRO3"]
    assert [a["action"] for a in obs0["decision"]["legal_actions"]] == ["PRO3", "SEA1", "MER1"]  # id order
    saw = [e["card"] for e in obs0["events"] if e["kind"] == "saw"]
    assert saw == ["SEA1", "MER1", "PRO3"]
    for obs in (obs1, public):
        assert "revealed" not in obs["decision"]
        assert not {e["kind"] for e in obs["events"]} & {"saw", "took"}
        for card in ("SEA1", "MER1", "PRO3"):
            assert card not in json.dumps(obs)
    # that a search happened is public
    assert any(e["kind"] == "search" and e["player"] == 0 for e in obs1["events"])


def test_what_a_search_shows_cannot_be_told_apart_by_the_opponent():
    a = searching(["SEA1", "MER1", "PRO3"])
    b = searching(["MER2", "SEA4", "SEA5"])
    assert a.observation(0) != b.observation(0)
    assert a.observation(1) == b.observation(1)
    assert a.public_observation() == b.public_observation()
    a.apply("MER1")
    b.apply("SEA4")
    assert "MER1" in a.observation(0)["hand"] and "SEA4" in b.observation(0)["hand"]
    assert [e["card"] for e in a.observation(0)["events"] if e["kind"] == "took"] == ["MER1"]
    assert a.observation(1) == b.observation(1)
    assert a.public_observation() == b.public_observation()
    assert a.observation(1)["hand_sizes"] == [2, 2]


def test_an_assembled_card_is_revealed_to_both():
    match = setup(["alchemist", "mechanist", "archivist"], hands=(["MEC3", "ALC1"], ["ARC3"]), deck=["ALC5"])
    play(match, "MEC3", "discard")
    for viewer in (0, 1, -1):
        obs = match.observation(viewer)
        assert obs["decision"]["revealed"] == ["ALC5"]
        assert any(e["kind"] == "reveal" and e["card"] == "ALC5" for e in obs["events"])


# ------------------------------------------------------------------------------------------ public changes (C8)


def test_conversions_and_guards_are_shown_with_printed_values():
    match = setup(["alchemist", "mechanist", "protector"], hands=(["ALC2", "PRO6"], ["MEC1"]),
                  factions=(["PRO3"], ["MEC4"]))
    play(match, "ALC2", "discard", "MEC4")  # Convert to Alchemist, rank +1
    entry = next(e for e in match.observation(1)["factions"][1] if e["id"] == "MEC4")
    assert entry == {"id": "MEC4", "skillset": "Alchemist", "rank": 5, "printed_skillset": "Mechanist",
                     "printed_rank": 4, "converted": True, "until_end_of_turn": False, "guarded_by": None}
    play(match, "MEC1", "declare")
    play(match, "PRO6", "discard", "PRO3")
    for viewer in (0, 1, -1):
        guarded = next(e for e in match.observation(viewer)["factions"][0] if e["id"] == "PRO3")
        assert guarded["guarded_by"] == 0 and guarded["converted"] is False


def test_an_observation_from_an_event_on_holds_only_the_new_events_said_the_same() -> None:
    rng = random.Random(12)
    for seed in range(10):
        match = Match.new(["alchemist", "searcher", "healer"], seed=seed)
        match.random_playout(rng, rounds=1)
        for viewer in (0, 1, -1):
            whole = match.observation(viewer)
            k = rng.randrange(len(whole["events"]) + 1)
            part = match.observation(viewer, events_from=k)
            assert part["events"] == whole["events"][k:]
            assert {**part, "events": []} == {**whole, "events": []}
    with pytest.raises(ConvergeError):
        match.observation(0, events_from=-1)


def test_observer_describes_only_what_is_new_and_agrees_with_observation() -> None:
    """An Observer, asked after every action, gives the observation with just the new events, and says how
    many of the viewer's events came before them: the same as ``observation(viewer, events_from=k)``."""
    from converge.engine.observation import Observer

    for seed in range(6):
        rng = random.Random(seed)
        match = Match.new(["alchemist", "searcher", "healer"], seed=seed)
        observers = {v: Observer(match, v) for v in (0, 1, -1)}
        read = {v: 0 for v in (0, 1, -1)}
        while not match.is_terminal:
            if rng.random() < 0.2:  # a snapshot restored (the server checks an action's outcome this way)
                before = match.snapshot()
                match.apply(rng.choice(match.legal_actions()))
                match.restore(before)
            match.apply(rng.choice(match.legal_actions()))
            for v, observer in observers.items():
                if rng.random() < 0.3:
                    continue  # not asked after every action: the next call catches up
                obs, start = observer.observe()
                assert start == read[v]  # never described again from the start
                assert obs == match.observation(v, events_from=start)
                read[v] = start + len(obs["events"])
                assert observer.seen == read[v]


def test_observer_starts_again_when_the_log_is_rewound() -> None:
    from converge.engine.observation import Observer

    match = Match.new(["alchemist", "searcher", "healer"], seed=3)
    start_of_round = match.snapshot()
    rng = random.Random(3)
    for _ in range(12):
        match.apply(rng.choice(match.legal_actions()))
    observer = Observer(match, 0)
    observer.observe()
    match.restore(start_of_round)
    match.apply(match.legal_actions()[-1])
    obs, start = observer.observe()
    assert start == 0 and obs == match.observation(0)
    with pytest.raises(ConvergeError):
        Observer(match, 2)


# ---------------------------------------------------------------------- the typed documents


def test_observations_have_exactly_the_keys_their_type_declares() -> None:
    """The schema (converge.engine.schema) is the observation's one definition: every key an observation, a
    decision, an event or a card in play holds is declared there, and every required one is present."""
    from converge.engine.events import SCHEMA
    from converge.engine.schema import CardInPlay, Decision, EventDoc, LegalAction, Observation

    def check(doc: dict[str, Any], kind: Any) -> None:
        assert kind.__required_keys__ <= set(doc) <= kind.__required_keys__ | kind.__optional_keys__, (kind, doc)

    seen_events: set[str] = set()
    for m in [*finished_matches(6), Match.new(["merchant", "astropath", "healer"], seed=3)]:
        history = m.history
        replayed = Match.new(m.playset, m.seed)
        for action in [*history, None]:
            for viewer in (0, 1, -1):
                obs = replayed.observation(viewer)
                check(obs, Observation)
                if obs["decision"] is not None:
                    check(obs["decision"], Decision)
                    for item in obs["decision"].get("legal_actions", []):
                        check(item, LegalAction)
                for faction in obs["factions"]:
                    for card in faction:
                        check(card, CardInPlay)
            if action is not None:
                replayed.apply(action)
        for viewer in (0, 1):
            for event in replayed.observation(viewer)["events"]:
                check(event, EventDoc)
                seen_events.add(event["kind"])
    fields = {f.name for spec in SCHEMA.values() for f in (spec.a, spec.b) if f is not None}
    assert fields <= EventDoc.__optional_keys__  # every field any kind's schema names
    assert len(seen_events) >= 15
