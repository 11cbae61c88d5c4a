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
    OBSERVATION_SIZE,
    info_state_string,
    observation_string,
    recall_size,
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
    assert game.information_state_tensor_size() == recall_size(game.playset)
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
                                          enc.recall_tensor(obs, game.history_rows, p))
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
    observers = [make_observation(game, pyspiel.IIGObservationType(public_info=pub, perfect_recall=r,
                                                                   private_info=pi))
                 for pub in (True, False) for r in (False, True)
                 for pi in (pyspiel.PrivateInfoType.SINGLE_PLAYER, pyspiel.PrivateInfoType.NONE)]
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


# ---------------------------------------------------------------------- perfect recall

def _observer(game: cvos.ConvergeGame, recall: bool = True, public: bool = True,
              private: bool = True) -> cvos.ConvergeObserver:
    kind = pyspiel.PrivateInfoType.SINGLE_PLAYER if private else pyspiel.PrivateInfoType.NONE
    observer: cvos.ConvergeObserver = make_observation(
        game, pyspiel.IIGObservationType(public_info=public, perfect_recall=recall, private_info=kind))
    return observer


def _relative(event: tuple[int, ...], me: int) -> tuple[int, ...]:
    """An event as the perfect-recall rows can tell it: its fields relative to ``me``."""
    from converge.engine.tensors import F_MODE, F_NONE, F_PLAYER, F_ZONE, FIELD_A, FIELD_B, relative_zone

    kind, _vis, player, card, a, b = event
    fields = []
    for ftype, value in ((FIELD_A[kind], a), (FIELD_B[kind], b)):
        if ftype == F_NONE or value < 0:
            fields.append(-1)
        elif ftype == F_ZONE:
            fields.append(relative_zone(value, me))
        elif ftype == F_PLAYER:
            fields.append(0 if value == me else 1)
        elif ftype == F_MODE:
            fields.append(value)
        else:
            fields.append(value)
    return (kind, 0 if player == me else 1 if player in (0, 1) else 2, card, *fields)


def _decode(rows: np.ndarray) -> list[tuple[int, ...]]:
    """The events written in perfect-recall rows, read back (the rows lose nothing of what they encode)."""
    from converge.engine.events import MODES, NUM_EVENT_KINDS
    from converge.engine.tensors import (
        E_CARD,
        E_KIND,
        E_MODE,
        E_NUMBERS,
        E_PLAYER,
        E_SKILLSET,
        E_WHO,
        E_ZONES,
        F_MODE,
        F_NONE,
        F_NUMBER,
        F_PLAYER,
        F_SKILLSET,
        F_ZONE,
        FIELD_A,
        FIELD_B,
        SCALE_A,
        SCALE_B,
    )
    from converge.engine.zones import NUM_ZONES

    out = []
    for row in rows:
        if row[0] == 0:
            assert not row.any()  # padding is all zero, and only at the end
            continue
        kind = int(np.argmax(row[E_KIND:E_KIND + NUM_EVENT_KINDS]))
        who = int(np.argmax(row[E_WHO:E_WHO + 3]))
        cards = np.flatnonzero(row[E_CARD:E_CARD + 18])
        fields = []
        for slot, ftype, scale in ((0, FIELD_A[kind], SCALE_A[kind]), (1, FIELD_B[kind], SCALE_B[kind])):
            if ftype == F_ZONE:
                hot = np.flatnonzero(row[E_ZONES + slot * NUM_ZONES:E_ZONES + (slot + 1) * NUM_ZONES])
                fields.append(int(hot[0]) if len(hot) else -1)
            elif ftype == F_MODE:
                hot = np.flatnonzero(row[E_MODE:E_MODE + 4])
                fields.append(MODES[int(hot[0])] if len(hot) else -1)
            elif ftype == F_PLAYER:
                hot = np.flatnonzero(row[E_PLAYER:E_PLAYER + 2])
                fields.append(int(hot[0]) if len(hot) else -1)
            elif ftype == F_SKILLSET:
                hot = np.flatnonzero(row[E_SKILLSET:E_SKILLSET + 3])
                fields.append(int(hot[0]) if len(hot) else -1)
            elif ftype == F_NUMBER:
                fields.append(round(float(row[E_NUMBERS + slot]) * scale))
            else:
                assert ftype == F_NONE
                fields.append(-1)
        out.append((kind, who, int(cards[0]) if len(cards) else -1, *fields))
    return out


def _expected(event: tuple[int, ...], me: int) -> tuple[int, ...]:
    """``_relative`` with what the rows cannot hold marked as such: a number field of an unused slot."""
    from converge.engine.tensors import F_NONE, F_NUMBER, FIELD_A, FIELD_B

    rel = list(_relative(event, me))
    for i, ftype in ((3, FIELD_A[event[0]]), (4, FIELD_B[event[0]])):
        if ftype == F_NUMBER and rel[i] < 0:
            rel[i] = 0
        if ftype == F_NONE:
            rel[i] = -1
    return tuple(rel)


@pytest.mark.parametrize("playset", ["alchemist/mechanist/archivist", ENGINES, "delver/astropath/healer",
                                     "searcher/delver/astropath"])
def test_the_perfect_recall_tensor_holds_every_event_the_player_saw_in_order(playset: str) -> None:
    game = load(playset)
    observers = {(pub, priv): _observer(game, public=pub, private=priv)
                 for pub, priv in ((True, True), (True, False), (False, True))}
    rng = random.Random(playset)
    longest = 0
    for steps in (30, 120, 400, 10_000):
        state = random_state(game, rng, steps)
        for p in (0, 1):
            for (pub, priv), observer in observers.items():
                observer.set_from(state, p)
                history = observer.dict["history"]
                viewer = p if priv else -1
                seen = [e for e in state.match.events
                        if (e[1] == viewer if not pub else e[1] < 0 or e[1] == viewer)]
                assert _decode(history) == [_expected(e, p) for e in seen]
                assert history[len(seen):].sum() == 0 and history.min() >= 0.0 and history.max() <= 1.0
                longest = max(longest, len(seen))
    assert longest > 50 and state.is_terminal()


def _family(game: cvos.ConvergeGame, seed: int, prefix: int, branches: int) -> list[cvos.ConvergeState]:
    """States that share a long history: a random prefix, then random branches from it, and the worlds
    each player cannot tell from them."""
    rng = random.Random(seed)
    root = random_state(game, rng, prefix)
    out = [root]
    for _ in range(branches):
        state = root.clone()
        for _ in range(rng.randrange(1, 12)):
            if state.is_terminal():
                break
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        out.append(state)
        if not state.is_terminal() and not state.is_chance_node():
            out.append(state.resample_from_infostate(rng.randrange(2), rng.random))
    return out


def _assert_tensors_tell_information_states_apart(game: cvos.ConvergeGame,
                                                  states: Sequence[cvos.ConvergeState]) -> None:
    """Equal information-state strings <=> equal perfect-recall tensors, for both players."""
    observer = _observer(game)
    for p in (0, 1):
        by_tensor: dict[bytes, str] = {}
        by_string: dict[str, bytes] = {}
        for state in states:
            if state.is_chance_node():
                continue
            observer.set_from(state, p)
            tensor, text = observer.tensor.tobytes(), state.information_state_string(p)
            assert by_tensor.setdefault(tensor, text) == text, "two information states share a tensor"
            assert by_string.setdefault(text, tensor) == tensor, "one information state, two tensors"


def test_information_states_with_different_histories_never_share_a_tensor() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    games = [load(), load(ENGINES, "player0"), load("searcher/delver/astropath")]

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(0, len(games) - 1), st.integers(0, 2**32), st.integers(20, 400), st.integers(2, 8))
    def check(which: int, seed: int, prefix: int, branches: int) -> None:
        game = games[which]
        _assert_tensors_tell_information_states_apart(game, _family(game, seed, prefix, branches))

    check()


def _round_one(game: cvos.ConvergeGame, seed: int) -> cvos.ConvergeState:
    """A state at the deal of round 2, after a round 1 played at random."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.match.round_no < 2 or not state.is_chance_node():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_histories_that_differ_only_before_the_last_32_events_get_different_tensors() -> None:
    """Two matches whose first rounds differ (same winner, same number of turns) and whose second rounds
    are the same deal and the same moves: after 32 events of round 2 the current view and the last 32
    events are the same — the former information-state tensor (the recent-history tensor) cannot tell
    them apart — but the information states differ, and so do the perfect-recall tensors."""
    from converge.adapters.encoding import HISTORY_EVENTS, info_state_array

    game = load(ENGINES, "player0")
    by_key: dict[tuple[int, int], cvos.ConvergeState] = {}
    pairs = []
    for seed in range(200):
        state = _round_one(game, seed)
        key = (state.match.round_winners[0], state.match.turn_no)
        if key in by_key:  # each state in one pair only: the pair's moves change it
            pairs.append((by_key.pop(key), state))
        else:
            by_key[key] = state
    observer = _observer(game)
    collided = 0
    for n, (a, b) in enumerate(pairs):
        if collided >= 3:
            break
        rng = random.Random(n)
        deal = list(range(18))
        rng.shuffle(deal)
        for card in deal[:17]:
            a.apply_action(card)
            b.apply_action(card)
        checked = 0
        while not a.is_terminal() and a.match.round_no == 2:
            p = a.current_player()
            round_two = [e for e in a.match.events[-200:] if e[1] in (-1, p)]
            start = max(i for i, e in enumerate(round_two) if e[0] == 0)  # this round's start
            if len(round_two) - start > HISTORY_EVENTS + 4:
                assert np.array_equal(info_state_array(a.match, p), info_state_array(b.match, p))
                assert a.information_state_string(p) != b.information_state_string(p)
                observer.set_from(a, p)
                ta = observer.tensor.copy()
                observer.set_from(b, p)
                assert not np.array_equal(ta, observer.tensor)
                checked += 1
            action = rng.choice(a.legal_actions())
            a.apply_action(action)
            b.apply_action(action)
        collided += checked > 0
    assert collided == 3  # three pairs of matches reached such states (round 2 often ends sooner)


def test_the_observer_writes_the_same_tensor_whatever_it_read_before() -> None:
    """The observer keeps each player's history from the state it read last; read in any order — the
    next state, a clone's branch, an earlier state, the other player — it writes what a new one writes."""
    game = load("searcher/delver/astropath")
    rng = random.Random(11)
    states = _family(game, 5, 150, 6) + _family(game, 6, 40, 4)
    line = game.new_initial_state()
    while not line.is_terminal():
        if not line.is_chance_node():
            states.append(line.clone())
        line.apply_action(rng.choice(line.legal_actions()))
    kinds = [(True, True, True), (True, False, True), (False, True, True), (True, True, False)]
    observers = [_observer(game, recall, public, private) for recall, public, private in kinds]
    order = list(range(len(states))) * 2
    rng.shuffle(order)
    order += list(range(len(states)))  # and in the order played
    for i in order:
        state = states[i]
        if state.is_chance_node():
            continue
        p = rng.randrange(2)
        for (recall, public, private), observer in zip(kinds, observers, strict=True):
            observer.set_from(state, p)
            fresh = _observer(game, recall, public, private)
            fresh.set_from(state, p)
            np.testing.assert_array_equal(observer.tensor, fresh.tensor)
            assert observer.string_from(state, p) == fresh.string_from(state, p)
    for state in states:  # the strings of states copied and stepped on match the reference
        if not state.is_chance_node():
            for p in (0, 1):
                assert state.information_state_string(p) == info_state_string(state.match.observation(p))


def test_every_observation_type_but_all_players_is_offered() -> None:
    game = load(ENGINES, "player0")
    state = dealt(game, ENGINES_DEAL, [SEA2, DISCARD])  # player 0 searches: MER3, MER4, MER5 shown to it
    rows = game.history_rows
    mine = state.match.observation(0)
    for public in (True, False):
        for private in (True, False):
            for recall in (True, False):
                observer = _observer(game, recall, public, private)
                observer.set_from(state, 0)
                text = observer.string_from(state, 0)
                view = OBSERVATION_SIZE if public else 18 * 7 if private else 0
                has_history = recall and (public or private)
                assert observer.tensor.size == view + (rows * 68 if has_history else 0)
                assert ("log: " in text) == has_history
                if public:
                    assert ("hand: " in text) == private and "faction 0:" in text
                elif private:
                    cards = observer.dict["private_cards"]
                    assert text.startswith("hand: " + " ".join(mine["hand"])) and "faction" not in text
                    assert "revealed MER3 MER4 MER5" in text  # shown to player 0 alone
                    assert set(np.flatnonzero(cards[:, 0])) == {state.match.playset.card_ids.index(c)
                                                                for c in mine["hand"]}
                    assert cards[:, 6].sum() == 3  # the three revealed cards
                    if recall:  # only the private events: the cards dealt to and seen by player 0
                        assert all(t.split("/")[0] in ("dealt", "saw") for t in text.split("log: ")[1].split())
                else:
                    assert text == "" and observer.tensor.size == 0
    public_view = _observer(game, False, True, False).string_from(state, 0)
    assert not any(card in public_view for card in ("MER3", "MER4", "MER5"))
    with pytest.raises(ValueError, match="all players"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True,
                                                         private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def test_the_docs_hold_the_tensor_layouts_generated_from_the_code() -> None:
    from converge.adapters.encoding import layout_reference
    from tests.helpers import ROOT

    text = (ROOT / "docs" / "openspiel.md").read_text(encoding="utf-8")
    assert text.endswith(layout_reference()), "regenerate the end of docs/openspiel.md from layout_reference()"


def test_the_observer_writes_only_the_new_rows_of_a_state_that_continues_the_last() -> None:
    """Along one line of play (each state the previous one stepped on, or a clone of it), the observer
    never writes rows again; a state of another line does."""
    game = load()
    observer = _observer(game)
    history = observer._history
    assert history is not None
    rng = random.Random(12)
    state = game.new_initial_state()
    reads = 0
    while not state.is_terminal():
        if not state.is_chance_node():
            observer.set_from(state if reads % 2 else state.clone(), reads % 2)
            reads += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert reads > 20 and history.restarts == 0
    observer.set_from(random_state(game, random.Random(13), 60), 0)
    assert history.restarts == 1
