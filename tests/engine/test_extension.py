"""A new card mechanic in one place: an effect kind and a goal kind defined here, registered through the
public extension point, used by a deck file in a temporary folder, and played by the engine, every bot,
the narration, sampled worlds and the OpenSpiel and PettingZoo adapters — none of which knows them."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from converge import Match
from converge.bots import GreedyBot, ISMCTSBot, RandomBot
from converge.bots.search import Settings
from converge.cards.loader import DeckError, load_catalog
from converge.engine import EffectKind, GoalKind, register_effect, register_goal
from converge.engine.effects import unregister_effect
from converge.engine.goals import FactionStats, unregister_goal
from converge.engine.params import Param, ParamValue
from converge.engine.zones import DECK, FACTION
from converge.simulation.runner import play_match


class Bury(EffectKind):
    """Put up to N cards of any faction on top of the deck, where both players know they are."""

    def __init__(self) -> None:
        super().__init__("bury", "Bury", "put cards of a faction on top of the deck",
                         (Param("count", "int", 1, 1, 2, doc="how many cards, up to"),), commutes=False)

    def text(self, params: Mapping[str, ParamValue], own_skillset: str) -> str:
        return f"Bury: put up to {params['count']} card(s) of a faction on top of the deck."

    def picks(self, args: tuple[int, ...]) -> int:
        return args[0]

    def optional(self, args: tuple[int, ...]) -> bool:
        return True

    def targets(self, m: Match, step: int) -> list[int]:
        z, p = m.zones, m.turn.player
        return [c for f in z.factions for c in f if z.movable(c, p)]

    def act(self, m: Match, action: int) -> None:
        m.move_card(action, FACTION + m.zones.faction_of(action), DECK)
        m.effect.remaining -= 1
        m.continue_effect()


class EvenRanks(GoalKind):
    """The single faction with the most cards of even rank."""

    def __init__(self) -> None:
        super().__init__("even_ranks", "strictly more cards of even rank", single_winner=True)

    def text(self, params: Mapping[str, ParamValue]) -> str:
        return "Most even ranks"

    def value(self, arg: int, st: FactionStats) -> int:
        return sum(1 for c in st.cards if st.rank[c] % 2 == 0)


CARDS = [
    ("GRA1", "Shovel Hand", "bury", "count = 1", "even_ranks", 1),
    ("GRA2", "Night Warden", "bury", "count = 2", "highest_skillset", 1),
    ("GRA3", "Lantern Bearer", "bury", "count = 1", "even_ranks", 2),
    ("GRA4", "Mourner", "bury", "count = 1", "most_cards", 1),
    ("GRA5", "Sexton", "bury", "count = 2", "even_ranks", 2),
    ("GRA6", "Old Digger", "bury", "count = 2", "rank_total", 3),
]


def deck_file(folder: Path) -> Path:
    lines = ['skillset = "Gravedigger"', 'set = "Home Brew"', 'keyword = "Bury"', 'color = "white"']
    for rank, (cid, name, effect, params, goal, stars) in enumerate(CARDS, start=1):
        goal_params = {"highest_skillset": 'skillset = "own", ', "rank_total": "at_least = 12, "}.get(goal, "")
        lines += ["", "[[card]]", f'id = "{cid}"', f'name = "{name}"', f"rank = {rank}",
                  f'goal = {{ kind = "{goal}", {goal_params}stars = {stars} }}',
                  f'effect = {{ kind = "{effect}", {params} }}']
    path = folder / "gravedigger.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def decks(tmp_path: Path) -> Iterator[str]:
    register_effect(Bury())
    register_goal(EvenRanks())
    deck_file(tmp_path)
    try:
        yield str(tmp_path)
    finally:
        unregister_effect("bury")
        unregister_goal("even_ranks")


PLAYSETS = (["gravedigger", "alchemist", "searcher"], ["gravedigger", "mechanist", "delver"],
            ["gravedigger", "astropath", "healer"])


def test_a_deck_naming_an_unregistered_kind_is_refused(tmp_path: Path) -> None:
    deck_file(tmp_path)
    with pytest.raises(DeckError, match="unknown effect kind 'bury'"):
        load_catalog([str(tmp_path)])


def test_the_new_kinds_load_print_and_score(decks: str) -> None:
    deck = load_catalog([decks])["gravedigger"]
    assert deck.cards[0].text == ("Shovel Hand (Gravedigger 1) — Goal: Most even ranks ★ — Bury: put up to 1 "
                                  "card(s) of a faction on top of the deck.")
    m = Match.from_position(_position(), [decks])
    assert m.scores() == (1, 0)  # two even ranks against none
    m.apply("GRA4")
    m.apply("discard")
    m.apply("ALC2")  # buried: on top of the deck, in public
    obs = m.observation(1)
    assert obs["known_deck"] == [{"id": "ALC2", "from_top": 0}]
    texts = [e["text"] for e in obs["events"]]
    assert "They move ALC2 from their faction into the top of the deck (Bury)." in texts


def _position() -> dict[str, object]:
    return {
        "playset": PLAYSETS[0], "artifact_holder": 0, "lead": 0, "to_play": 0,
        "hands": [["GRA4"], ["ALC1"]], "factions": [["ALC2", "SEA4"], ["ALC3"]], "goals": ["GRA1"],
        "discard": [], "artifact": "ALC4",
        "deck": ["ALC5", "ALC6", "SEA1", "SEA2", "SEA3", "SEA5", "SEA6", "GRA2", "GRA3", "GRA5", "GRA6"],
    }


@pytest.mark.parametrize("bots", [("random", "random"), ("greedy", "random"), ("greedy", "ismcts")])
def test_whole_matches_with_every_bot(decks: str, bots: tuple[str, str]) -> None:
    # The strong search runs on the engine here (the native core cannot play a deck's Python mechanic): a small
    # budget, its endgames solved exactly only when small (a default endgame budget costs minutes in Python).
    search = Settings(30, exact=2_000)
    make = {"random": RandomBot, "greedy": GreedyBot, "ismcts": lambda s: ISMCTSBot(s, settings=search)}
    buried = 0
    for k, names in enumerate(PLAYSETS * 2):
        match = play_match(names, 100 + k, (make[bots[0]](k), make[bots[1]](k + 1)), log_events=True,
                           deck_dirs=[decks])
        assert match.is_terminal and match.winner in (0, 1)
        assert Match.replay(match.record(), [decks]).position() == match.position()
        buried += sum(1 for e in match.observation(-1)["events"] if "(Bury)" in e.get("text", ""))
    assert buried > 0


def test_sampled_worlds_play_to_the_end(decks: str) -> None:
    rng = random.Random(3)
    for k, names in enumerate(PLAYSETS):
        match = Match.new(names, seed=k, deck_dirs=[decks])
        while not match.is_terminal:
            for seat in (0, 1):
                world = match.sample_world(seat, rng)
                world.random_playout(rng)
                assert world.is_terminal
            match.apply(rng.choice(match.legal_actions()))


def test_openspiel_plays_the_new_deck(decks: str) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import converge.adapters.openspiel  # noqa: F401  (registers python_converge)

    game = pyspiel.load_game("python_converge", {"playset": "gravedigger/alchemist/searcher", "decks": decks})
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    state = game.new_initial_state()
    rng = random.Random(1)
    while not state.is_terminal():  # resampled histories stay consistent with the player's information
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        player = state.current_player()
        other = state.resample_from_infostate(player, rng.random)
        assert other.information_state_string(player) == state.information_state_string(player)
        state.apply_action(rng.choice(state.legal_actions()))


def test_pettingzoo_api_test_passes_on_the_new_deck(decks: str) -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from converge.adapters import converge_v0

    api_test(converge_v0.env(playset="gravedigger/healer/merchant", deck_dirs=[decks]), num_cycles=300)
