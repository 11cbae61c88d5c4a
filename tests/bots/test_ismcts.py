"""The strong bot: information-set MCTS over worlds sampled from what its player knows."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest

from converge import Match
from converge.bots import ISMCTSBot, make_bot
from converge.engine.playset import all_playsets
from converge.simulation.runner import play_match
from tests.helpers import setup


def test_same_observation_gives_the_same_decision() -> None:
    """Two states that differ only in cards hidden from player 0 get the same decision, same seed."""
    a = setup(hands=(["ALC1", "MEC2", "ARC5"], ["ARC3", "ARC4"]), factions=(["MEC1"], ["ALC4"]),
              goals=["MEC4"], deck=["ALC6", "MEC6", "ARC6"], artifact="MEC5")
    b = setup(hands=(["ALC1", "MEC2", "ARC5"], ["MEC6", "MEC5"]), factions=(["MEC1"], ["ALC4"]),
              goals=["MEC4"], deck=["ARC4", "ALC6", "ARC3"], artifact="ARC6")
    assert a.observation(0) == b.observation(0) and a.zones.hands[1] != b.zones.hands[1]
    for seed in range(3):
        bot_a, bot_b = ISMCTSBot(seed, iterations=300), ISMCTSBot(seed, iterations=300)
        assert bot_a.decide(a.view(0)) == bot_b.decide(b.view(0))


def test_decisions_are_reproducible_with_a_simulation_budget() -> None:
    def moves(seed: int) -> list[int]:
        bots = (ISMCTSBot(seed, iterations=60), make_bot("greedy", 4))
        return play_match(["delver", "astropath", "healer"], 5, bots).history

    assert moves(7) == moves(7)


def test_budget_counts_simulations() -> None:
    m = Match.new(["protector", "searcher", "merchant"], seed=3, start=0)
    bot = ISMCTSBot(1, iterations=123)
    bot.decide(m.view(m.current_player))
    assert 120 <= bot.last_iterations <= 123  # (each option of a phase of the search gets an equal share)
    with pytest.raises(ValueError, match="positive budget"):
        ISMCTSBot(1, iterations=0)


def test_single_legal_action_needs_no_search() -> None:
    m = Match.new(["protector", "searcher", "merchant"], seed=3, start=0)
    m.apply(m.legal_actions()[0])
    m.apply("declare")  # opponent's turn to choose a card; then force a one-choice decision
    bot = ISMCTSBot(1, iterations=50)
    legal = m.legal_actions()
    assert bot.decide(m.view(m.current_player)) in legal


def test_ismcts_beats_random_and_holds_its_own_against_greedy() -> None:
    playsets = all_playsets()
    rng = random.Random(5)
    wins_vs_random = wins_vs_greedy = 0
    for i in range(16):
        names = playsets[rng.randrange(len(playsets))]
        for opponent in ("random", "greedy"):
            me = i % 2
            bots = [make_bot(opponent, i)] * 2
            bots[me] = ISMCTSBot(i, iterations=250)
            match = play_match(names, 1000 + i, bots)
            if match.winner == me:
                if opponent == "random":
                    wins_vs_random += 1
                else:
                    wins_vs_greedy += 1
    assert wins_vs_random >= 14
    assert wins_vs_greedy >= 8


class _Peeking:
    """A planted leak: the player's view, but its sampled worlds are the live match itself."""

    def __init__(self, match: Match, player: int) -> None:
        self.live, self.view = match, match.view(player)
        self.player, self.round_results = player, self.view.round_results

    def observation(self) -> Any:
        return self.view.observation()

    def legal_actions(self) -> list[int]:
        return self.view.legal_actions()

    def follow_up(self, action: int) -> Any:
        return self.view.follow_up(action)

    def sample_world(self, rng: random.Random, chance: bool = False) -> Match:
        return self.live.clone()

    def endgame_worlds(self) -> list[Match] | None:
        return None if self.live.zones.deck else [self.live.clone(False, False, True)]

    def native_state(self) -> None:
        return None  # (searched on the engine, where the leak is)


def test_a_hint_comes_from_the_players_view_only_and_puts_the_best_chance_first() -> None:
    """The same view with other hidden cards gives the same hint (a planted peek at the live match gives a
    different one, so the check can fail); the first option has the best chance, and the options go down."""
    from converge.bots.hint import hint

    rng = random.Random(9)
    told_apart = 0
    for k in range(6):
        m = Match.new(["protector", "searcher", "merchant"], seed=k)
        for _ in range(rng.randrange(12)):
            m.apply(rng.choice(m.legal_actions()))
        me = m.current_player
        other = m.redacted(me, rng)  # the same view, other hidden cards
        a, b = hint(m.view(me), simulations=150, seed=3), hint(other.view(me), 150, 3)
        assert a == b
        assert sorted(o.action for o in a) == m.legal_actions()
        assert all(0.0 <= o.win_chance <= 1.0 and o.label for o in a)
        ranked = [o for o in a if not o.equal]  # (those about equal to the best come first)
        assert [o.win_chance for o in ranked] == sorted((o.win_chance for o in ranked), reverse=True)
        peeked = [hint(cast(Any, _Peeking(x, me)), 150, 3) for x in (m, other)]
        told_apart += peeked[0] != peeked[1]
    assert told_apart >= 3


def test_greedy_playouts_play_only_legal_actions() -> None:
    """A playout's actions, applied again with every legality check, lead to the same end of round."""
    rng = random.Random(4)
    playsets = all_playsets()
    for k in range(40):
        m = Match.new(list(playsets[(k * 7) % len(playsets)]), seed=k)
        for _ in range(rng.randrange(20)):
            m.apply(rng.choice(m.legal_actions()))
        if m.is_terminal:
            continue
        start = len(m.history)
        played = m.clone()
        played.placement_playout(random.Random(k), (k % 5) * 0.25)
        assert played.rounds_finished == m.rounds_finished + 1
        checked = m.clone()
        for action in played.history[start:]:
            checked.apply(action)  # raises IllegalActionError on an illegal action
        assert checked.round_results == played.round_results


def test_a_greedy_playout_places_the_card_that_wins_the_turn() -> None:
    """Player 1 plays second, one card behind on the declared goal "most cards": most of its placements let the
    lead win the round, a few do not; a fully greedy playout finds one of those every time."""
    m = setup(hands=([], ["MEC2", "ARC2", "ALC6"]), factions=(["ALC1", "MEC5"], ["ALC3"]), goals=["MEC1"],
              holder=0, to_play=1)
    s0, s1 = m.scores()
    assert s0 > s1  # as things stand the lead wins the round
    options = []
    for card in m.legal_actions():
        for mode in ("declare", "mine", "theirs"):
            trial = m.clone()
            trial.apply(card)
            trial.apply(mode)
            options.append((trial.round_winners[0] if trial.rounds_finished else -1, card, mode))
    saving = {(card, mode) for winner, card, mode in options if winner != 0}
    assert saving and len(saving) < len(options)
    for seed in range(10):
        played = m.clone()
        start = len(played.history)
        played.placement_playout(random.Random(seed), 1.0)
        card, mode = played.history[start:start + 2]
        assert (card, m.action_to_string(mode)) in saving


def test_random_playouts_remain_available_and_the_greedy_share_is_checked() -> None:
    m = Match.new(["protector", "searcher", "merchant"], seed=3, start=0)
    for greedy in (0.0, 1.0):
        a, b = ISMCTSBot(2, iterations=200, greedy=greedy), ISMCTSBot(2, iterations=200, greedy=greedy)
        assert a.analyse(m.view(m.current_player)) == b.analyse(m.view(m.current_player))
    with pytest.raises(ValueError):
        ISMCTSBot(1, greedy=1.5)
