"""What each player knows of the hidden cards, and worlds sampled consistently with it (I2)."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from converge import Match
from converge.engine.playset import all_playsets
from tests.helpers import setup

ENGINES = ["protector", "searcher", "merchant"]


def _hidden_places(m: Match, player: int) -> tuple[list[int], list[int], int]:
    return sorted(m.zones.hands[1 - player]), list(m.zones.deck), m.zones.artifact


def test_recalled_card_is_known_in_the_opponents_hand() -> None:
    m = setup(hands=(["ARC1", "ALC2"], ["MEC3"]), discard=["ALC5"])
    m.apply("ARC1")
    m.apply("discard")
    m.apply("ALC5")  # player 0 recalls ALC5 from the discard pile: public
    obs = m.observation(1)
    assert obs["known_opponent_hand"] == ["ALC5"]
    assert "ALC2" not in json.dumps(obs)


def test_search_shows_the_searcher_the_deck_it_put_back_and_no_one_else() -> None:
    m = setup(ENGINES, hands=(["SEA2", "PRO1"], ["MER1"]), deck=["PRO6", "MER5", "SEA6", "PRO4"])
    m.apply("SEA2")
    m.apply("discard")  # Search 3: PRO6, MER5, SEA6
    m.apply("MER5")
    mine = m.observation(0)
    assert mine["known_deck"] == [{"id": "PRO6", "from_top": 0}, {"id": "SEA6", "from_top": 1}]
    assert m.observation(1)["known_deck"] == []
    assert "PRO6" not in json.dumps(m.observation(1))


def test_a_card_the_searcher_saw_drawn_by_the_opponent_is_known_in_their_hand() -> None:
    m = setup(ENGINES, hands=(["SEA2", "PRO1"], ["MER1", "MER2"]), deck=["PRO6", "MER5", "SEA6", "PRO4"])
    m.apply("SEA2")
    m.apply("discard")  # Search 3: PRO6, MER5, SEA6
    m.apply("PRO6")
    m.apply("MER1")
    m.apply("declare")  # no score: player 0 draws MER5, then player 1 draws SEA6, both seen by the search
    assert "MER5" in m.observation(0)["hand"]
    assert m.observation(0)["known_opponent_hand"] == ["SEA6"]
    assert m.observation(1)["known_opponent_hand"] == []


def test_knowledge_changes_only_when_a_card_is_shown() -> None:
    """P16 and I3: player 1 knows player 0 recalled ALC5. When player 0 chooses a card to play, player 1
    must not learn which one before it is shown: ALC5 stays known in their hand, whichever card it was."""
    views = []
    for card in ("ALC2", "ALC5", "MEC2"):
        m = setup(hands=(["ARC1", "ALC2", "MEC2"], ["MEC3", "ARC2"]), discard=["ALC5"], factions=(["ALC1"], []))
        for action in ("ARC1", "discard", "ALC5", "MEC3", "mine"):  # ALC5 recalled; player 1 answers
            m.apply(action)
        assert m.current_player == 0 and m.observation(1)["known_opponent_hand"] == ["ALC5"]
        m.apply(card)  # chosen, not played yet
        views.append(m.observation(1))
        assert views[-1]["known_opponent_hand"] == ["ALC5"]
        assert m.view(1).observation() == views[-1]
    assert views[0] == views[1] == views[2]
    m.apply("mine")  # shown now: ALC5 went into the faction, and is no longer said to be in the hand
    assert m.observation(1)["known_opponent_hand"] == ([] if card == "ALC5" else ["ALC5"])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(all_playsets()), st.integers(0, 2**32), st.integers(0, 2**32), st.data())
def test_sampled_world_agrees_with_the_players_observation(playset: tuple[str, str, str], seed: int,
                                                           world_seed: int, data: st.DataObject) -> None:
    m = Match.new(list(playset), seed=seed)
    rng = random.Random(seed)
    steps = data.draw(st.integers(0, 60))
    for _ in range(steps):
        if m.is_terminal:
            return
        m.apply(rng.choice(m.legal_actions()))
    if m.is_terminal:
        return
    p = m.current_player
    world = m.sample_world(p, random.Random(world_seed))
    mine, theirs = m.observation(p), world.observation(p)
    mine.pop("events")
    theirs.pop("events")
    assert mine == theirs
    assert sorted(world.zones.hands[1 - p] + world.zones.deck + [world.zones.artifact]) == sorted(
        m.zones.hands[1 - p] + m.zones.deck + [m.zones.artifact])
    assert world.history == [] and world.events == []
    # the world plays on to the end without error
    world.random_playout(random.Random(world_seed))
    assert world.is_terminal


def test_same_observation_gives_the_same_sampled_world() -> None:
    """Two states that differ only in cards hidden from player 0 sample identical worlds for player 0."""
    a = setup(hands=(["ALC1", "MEC2"], ["ARC3", "ARC4"]), deck=["ALC6", "MEC6", "ARC6"], artifact="MEC5")
    b = setup(hands=(["ALC1", "MEC2"], ["MEC6", "MEC5"]), deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
    assert a.observation(0) == b.observation(0)
    wa, wb = a.sample_world(0, random.Random(3)), b.sample_world(0, random.Random(3))
    assert _hidden_places(wa, 0) == _hidden_places(wb, 0)
    assert wa.seed == wb.seed
    assert _hidden_places(a, 0) != _hidden_places(b, 0)


def test_sampled_world_redraws_what_is_hidden() -> None:
    m = setup(hands=(["ALC1", "MEC2"], ["ARC3", "ARC4"]))
    worlds = {tuple(m.sample_world(0, random.Random(s)).zones.hands[1]) for s in range(30)}
    assert len(worlds) > 5
    assert all(set(w).isdisjoint({0, 7}) for w in worlds)  # never player 0's own cards


def test_sampled_world_keeps_the_card_assemble_revealed() -> None:
    m = setup(hands=(["MEC3", "ALC1"], ["ARC2"]), deck=["ALC3"])
    m.apply("MEC3")
    m.apply("discard")  # Assemble reveals ALC3 to both players
    for s in range(10):
        world = m.sample_world(0, random.Random(s))
        world.apply("mine")
        assert world.playset.card_ids[world.zones.factions[0][-1]] == "ALC3"


def test_a_chance_deal_is_forgotten_once_dealt() -> None:
    """In chance mode the deal order is drawn card by card; once the round is dealt it is in the zones only, so
    neither a view nor the worlds sampled from it carry the other hand, the artifact or the deck order."""
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=1, start=0, chance=True)
    rng = random.Random(5)
    while m.is_chance_node:
        m.apply(rng.choice(m.legal_actions()))
    assert not m.is_chance_node and m.turn.dealt == []
    real = _hidden_places(m, 0)
    view = m.view(0)
    worlds = [view.sample_world(random.Random(k)) for k in range(20)]
    assert sum(_hidden_places(w, 0) == real for w in worlds) <= 1
    assert _hidden_places(view._world, 0) != real  # the view's own world is dealt again too
    assert len({json.dumps(_hidden_places(w, 0)) for w in worlds}) >= 15


def test_in_the_middle_of_a_chance_deal_a_view_holds_none_of_the_cards_dealt_so_far() -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=1, start=0, chance=True)
    for card in (5, 9, 2, 14, 0, 7, 11):  # both hands and the artifact
        m.apply(card)
    worlds = [m.view(p).sample_world(random.Random(k)) for p in (0, 1) for k in range(10)]
    assert sum(w.turn.dealt == [5, 9, 2, 14, 0, 7, 11] for w in worlds) == 0
    assert all(len(w.turn.dealt) == 7 and len(set(w.turn.dealt)) == 7 for w in worlds)


def test_a_view_of_a_match_set_up_from_a_position_holds_no_position_and_no_seed() -> None:
    """The position a match began at names both hands, the artifact and the deck order, and its seed deals every
    later round: the match's record keeps them (it replays from there), no view or sampled world does."""
    m = setup(ENGINES, hands=(["PRO1", "SEA2"], ["MER3", "PRO4"]), artifact="SEA5", seed=424242424242)
    assert m.record()["position"]["artifact"] == "SEA5" and m.record()["position"]["seed"] == 424242424242
    view = m.view(0)
    assert view._world.origin is None and view._world.seed == 0
    for world in (view.sample_world(random.Random(1)), view.sample_world(random.Random(2), chance=True),
                  m.sample_world(0, random.Random(3))):
        assert world.origin is None and world.seed != 424242424242
