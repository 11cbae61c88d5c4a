"""The OpenSpiel game python_converge: OpenSpiel's own checks, observers, resampling and ISMCTS."""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Sequence

import pytest

pyspiel = pytest.importorskip("pyspiel")  # the rl extra; numpy comes with it

import numpy as np  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

from converge.adapters import openspiel as cvos  # noqa: E402  (registers python_converge)
from converge.adapters.encoding import (  # noqa: E402
    INFO_STATE_SIZE,
    OBSERVATION_SIZE,
    info_state_string,
    observation_string,
)
from converge.adapters.resample import resample_history  # noqa: E402
from converge.engine.errors import PlaysetError  # noqa: E402
from converge.engine.playset import all_playsets  # noqa: E402
from tests.helpers import load_example  # noqa: E402
from tests.tensor_oracle import Encoder  # noqa: E402

ENGINES = "protector/searcher/merchant"
# Card ids of the Engines of Progress playset: PRO1..6 = 0..5, SEA1..6 = 6..11, MER1..6 = 12..17.
PRO1, PRO2, PRO3, PRO4, PRO5, PRO6 = range(6)
SEA1, SEA2, SEA3, SEA4, SEA5, SEA6 = range(6, 12)
MER1, MER2, MER3, MER4, MER5, MER6 = range(12, 18)
DISCARD = 18


def load(playset: str = "alchemist/mechanist/archivist", start: str = "random") -> cvos.ConvergeGame:
    game: cvos.ConvergeGame = pyspiel.load_game(f"python_converge(playset={playset},start={start})")
    return game


def random_state(game: cvos.ConvergeGame, rng: random.Random, steps: int) -> cvos.ConvergeState:
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history()) < steps:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def dealt(game: cvos.ConvergeGame, order: list[int], moves: Sequence[int] = ()) -> cvos.ConvergeState:
    """A state whose first deal is ``order`` (hands 0..2 and 3..5, artifact 6, discard 7, deck 8.. with
    the top last), then ``moves``."""
    state = game.new_initial_state()
    for a in [*order[:17], *moves]:
        state.apply_action(a)
    return state


ENGINES_DEAL = [SEA2, PRO1, PRO2, SEA3, MER1, MER2, PRO6, PRO5,
                PRO3, PRO4, SEA1, SEA4, SEA5, SEA6, MER6, MER5, MER4, MER3]


# ---------------------------------------------------------------------- the game and OpenSpiel's checks

def test_the_game_is_registered_with_its_parameters() -> None:
    game = load(ENGINES, "player1")
    assert str(game) == "python_converge(playset=protector/searcher/merchant,start=player1)"
    assert game.num_distinct_actions() == 26 and game.max_chance_outcomes() == 18
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.information_state_tensor_size() == INFO_STATE_SIZE
    assert game.observation_tensor_size() == OBSERVATION_SIZE
    default = pyspiel.load_game("python_converge")
    assert default.get_parameters() == {"playset": "alchemist/mechanist/archivist", "start": "random"}
    # the start setting: player1 holds the artifact in round 1, no chance node for it
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 18


@pytest.mark.parametrize("params", [{"playset": "alchemist/mechanist"}, {"playset": "alchemist/nobody/healer"},
                                    {"start": "2"}, {"colour": "red"}])
def test_bad_parameters_are_refused(params: dict[str, str]) -> None:
    with pytest.raises((PlaysetError, ValueError)):
        cvos.ConvergeGame(params)


@pytest.mark.parametrize(("playset", "start", "sims"), [
    ("alchemist/mechanist/archivist", "random", 4),
    (ENGINES, "player1", 4),
    ("delver/astropath/healer", "player0", 4),
    ("alchemist/searcher/healer", "random", 2),
])
def test_openspiel_random_sim_test_passes(playset: str, start: str, sims: int) -> None:
    pyspiel.random_sim_test(load(playset, start), num_sims=sims, serialize=True, verbose=False)


def test_every_random_event_is_a_chance_node() -> None:
    game = load(start="random")
    state = game.new_initial_state()
    assert state.current_player() == pyspiel.PlayerId.CHANCE
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # the round-1 artifact holder
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "artifact starts with player 1"
    state.apply_action(1)
    for n in range(17):  # the deal order, one card at a time; the 18th is forced
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 18 - n and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        state.apply_action(outcomes[-1][0])
    assert state.current_player() == 1
    # the outcomes chosen were 17, 16, ..., 1 (and 0, forced): player 1's hand is order[3:6] = 14, 13, 12
    assert state.observation_dict(1)["hand"] == ["ARC1", "ARC2", "ARC3"]


def test_serialisation_and_pickling_round_trip() -> None:
    game = load(ENGINES, "player0")
    state = random_state(game, random.Random(5), 40)
    assert not state.is_terminal()
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert state2.history() == state.history() and str(state2) == str(state)
    assert state2.information_state_string(0) == state.information_state_string(0)
    again = pickle.loads(pickle.dumps(state))
    assert again.history() == state.history() and str(again) == str(state)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert len(state.history()) + 1 == len(clone.history())  # the clone is independent


# ---------------------------------------------------------------------- observers: from observation() only

def test_strings_and_tensors_are_built_from_the_players_observation() -> None:
    game = load()
    enc = Encoder(game.playset.card_ids, game.playset.skillsets)
    rng = random.Random(1)
    for steps in (20, 45, 90, 200):
        state = random_state(game, rng, steps)
        for p in (0, 1):
            obs = state.match.observation(p)
            assert state.information_state_string(p) == info_state_string(obs)
            assert state.observation_string(p) == observation_string(obs)
            np.testing.assert_array_equal(np.asarray(state.information_state_tensor(p), np.float32),
                                          enc.info_state_tensor(obs, p))
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(p), np.float32),
                                          enc.observation_tensor(obs, p))
            view = state.information_state_string(p).split("\nlog:")[0]
            assert all(c in view for c in obs["hand"])
            hidden = set(state.match.observation(1 - p)["hand"]) - set(obs["known_opponent_hand"])
            assert not any(c in view for c in hidden)


def test_the_public_observer_shows_no_hand_and_all_players_is_refused() -> None:
    game = load()
    state = random_state(game, random.Random(2), 40)
    public = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False,
                                                              private_info=pyspiel.PrivateInfoType.NONE))
    text = public.string_from(state, 0)
    assert "hand:" not in text and text.startswith("public view for player 0")
    with pytest.raises(Exception, match="all players"):
        game.make_py_observer(pyspiel.IIGObservationType(
            perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def test_changing_hidden_cards_changes_no_tensor_or_string() -> None:
    """Two deals that differ only in cards player 0 never sees (player 1's hand, the artifact, the deck
    below what gets drawn) give player 0 identical strings and tensors, move after move."""
    game = load(ENGINES, "player0")
    other = ENGINES_DEAL[:]
    # swap a card of player 1's hand that it keeps (MER2) with the artifact, and two deep deck cards
    other[5], other[6] = other[6], other[5]
    other[8], other[9] = other[9], other[8]
    moves = [PRO1, 20, SEA3, 20]  # player 0 adds PRO1 to its faction, player 1 adds SEA3 to its own
    a, b = dealt(game, ENGINES_DEAL), dealt(game, other)
    observers = [make_observation(game, pyspiel.IIGObservationType(perfect_recall=r, private_info=pi))
                 for r in (False, True) for pi in (pyspiel.PrivateInfoType.SINGLE_PLAYER,
                                                   pyspiel.PrivateInfoType.NONE)]
    for move in [None, *moves]:
        if move is not None:
            a.apply_action(move)
            b.apply_action(move)
        assert a.match.observation(0) == b.match.observation(0)
        assert a.match.observation(1) != b.match.observation(1)  # the states really differ
        assert a.information_state_string(0) == b.information_state_string(0)
        assert a.observation_string(0) == b.observation_string(0)
        assert a.information_state_tensor(0) == b.information_state_tensor(0)
        assert a.observation_tensor(0) == b.observation_tensor(0)
        for obs in observers:
            obs.set_from(a, 0)
            ta = obs.tensor.copy()
            obs.set_from(b, 0)
            np.testing.assert_array_equal(ta, obs.tensor)
            assert obs.string_from(a, 0) == obs.string_from(b, 0)


# ---------------------------------------------------------------------- resample_from_infostate

def test_resampled_states_keep_the_information_state_and_play_on() -> None:
    rng = random.Random(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for playset in ("alchemist/mechanist/archivist", ENGINES, "delver/astropath/healer"):
        game = load(playset)
        for steps in (5, 25, 60, 120, 250):
            state = random_state(game, rng, steps)
            if state.is_terminal():
                continue
            for p in (0, 1):
                other = state.resample_from_infostate(p, sampler)
                assert other.information_state_string(p) == state.information_state_string(p)
                assert other.information_state_tensor(p) == state.information_state_tensor(p)
                assert [h.player for h in other.full_history()] == [h.player for h in state.full_history()]
                while not other.is_terminal():  # the sampled world plays on to the end
                    if other.is_chance_node():
                        other.apply_action(other.chance_outcomes()[0][0])
                    else:
                        other.apply_action(rng.choice(other.legal_actions()))


@pytest.mark.parametrize("playset", ["/".join(p) for p in all_playsets()])
def test_resampling_works_in_every_playset(playset: str) -> None:
    game = load(playset)
    rng = random.Random(playset)
    for steps in (40, 110, 180):
        state = random_state(game, rng, steps)
        if state.is_terminal():
            continue
        for p in (0, 1):
            world = state.resample_from_infostate(p, rng.random)
            assert world.information_state_string(p) == state.information_state_string(p)


def test_resampling_depends_only_on_the_players_information() -> None:
    """Same observation, different hidden cards: the same random numbers give the same sampled history."""
    game = load(ENGINES, "player0")
    other = ENGINES_DEAL[:]
    other[5], other[6] = other[6], other[5]
    moves = [PRO1, 20, SEA3, 20]
    a, b = dealt(game, ENGINES_DEAL, moves), dealt(game, other, moves)
    assert a.history() != b.history()
    for seed in range(5):
        ra, rb = random.Random(seed), random.Random(seed)
        sa = a.resample_from_infostate(0, ra.random)
        sb = b.resample_from_infostate(0, rb.random)
        assert sa.history() == sb.history()


def test_resampling_draws_the_opponents_hand_uniformly() -> None:
    game = load(ENGINES, "player0")
    state = dealt(game, ENGINES_DEAL)
    seen = {SEA2, PRO1, PRO2, PRO5}  # player 0's hand and the first discard
    counts: Counter[int] = Counter()
    rng = random.Random(4)
    samples = 700
    for _ in range(samples):
        world = state.resample_from_infostate(0, rng.random)
        hand = world.history()[3:6]
        assert not seen & set(hand)
        counts.update(hand)
    assert set(counts) == set(range(18)) - seen
    expected = samples * 3 / 14
    assert all(0.6 * expected < n < 1.4 * expected for n in counts.values()), counts


def test_resampling_weighs_an_opponents_search_over_cards_the_player_saw() -> None:
    """Player 0's Search shows MER3, MER4, MER5 (it takes MER3); player 1's Search takes one of MER4, MER5
    and the card below (MER6, never seen); player 0 then draws MER4. So player 1 took MER5 or the unseen
    card, one chance in two each, and holds MER5 either way."""
    game = load(ENGINES, "player0")
    moves = [SEA2, DISCARD, MER3, SEA3, DISCARD, MER6]
    state = dealt(game, ENGINES_DEAL, moves)
    obs = state.match.observation(0)
    assert "MER4" in obs["hand"] and state.current_player() == 0
    took_mer5 = 0
    rng = random.Random(6)
    samples = 300
    for _ in range(samples):
        world = state.resample_from_infostate(0, rng.random)
        assert world.information_state_string(0) == state.information_state_string(0)
        assert "MER5" in world.match.observation(1)["hand"]
        take = world.history()[17 + 5]
        assert take not in (MER3, MER4)
        took_mer5 += take == MER5
    assert 0.38 * samples < took_mer5 < 0.62 * samples


def test_resampling_redraws_the_opponents_card_chosen_but_not_yet_played() -> None:
    game = load(ENGINES, "player0")
    state = dealt(game, ENGINES_DEAL, [PRO1, 20, MER1])  # player 1 has chosen MER1, not yet its mode
    rng = random.Random(7)
    chosen = {state.resample_from_infostate(0, rng.random).history()[-1] for _ in range(60)}
    assert len(chosen) > 3 and PRO1 not in chosen


def test_a_search_take_is_what_the_resampler_draws_again() -> None:
    # The resampler redraws a pick "among cards only its player saw": an effect that reveals, whose
    # choice is not public, at a target step. A Search's take is one; an Assemble's placement is not.
    game = load(ENGINES, "player0")
    state = dealt(game, ENGINES_DEAL, [SEA2, DISCARD])
    kind = state.match.effect_kind
    assert kind is not None and kind.name == "search" and state.match.decision_kind == "target"
    assert kind.reveals and not kind.public_choice(0)


def test_resample_history_checks_its_result() -> None:
    game = load(ENGINES, "player0")
    state = dealt(game, ENGINES_DEAL, [PRO1, 20])
    moves = state.core.moves
    new, world = resample_history(game.playset, "0", moves, 1, state.match.observation(1), random.Random(1).random)
    assert world.observation(1) == state.match.observation(1)
    assert [p for p, _ in new] == [p for p, _ in moves]
    with pytest.raises(ValueError):
        resample_history(game.playset, "0", moves, 2, state.match.observation(1), random.random)


# ---------------------------------------------------------------------- OpenSpiel's ISMCTS plays it

def test_openspiel_ismcts_bot_plays_a_match() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = load()
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rs)
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        elif state.current_player() == 0:
            state.apply_action(int(bot.step(state)))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert sorted(state.returns()) == [-1.0, 1.0]



def test_the_ismcts_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example("openspiel_ismcts")
    assert example.main(["--games", "2", "--simulations", "4", "--opponent", "greedy"]) == 0
    assert "won" in capsys.readouterr().out.splitlines()[-1]
