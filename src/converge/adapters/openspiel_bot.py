"""OpenSpiel's own Python ``ISMCTSBot`` as a contestant, on a time budget per decision.

OpenSpiel's bot counts its budget in simulations; to compare bots "given the same time per decision"
this wrapper sets that count before every decision from the rate it measured on its previous ones, so
each decision takes about ``seconds``. Matches are played through the OpenSpiel game
``python_converge`` (chance nodes drawn from the match seed); Converge's bots decide on the same
match through its player's view (:meth:`~converge.engine.state.Match.view`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import converge.adapters.openspiel  # noqa: F401  (registers python_converge)
from converge.bots import make_bot

OPENSPIEL = "openspiel"


class RestartableISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's Python ``ISMCTSBot``, with the ``restart_at`` that OpenSpiel's ``evaluate_bots`` calls
    before each game (the bot lacks it: "RestartAt not implemented"). A new game forgets the search
    trees (the bot's ``reset()``); actions the bot is told of need nothing (it searches from each state
    it is asked about)."""

    def restart_at(self, state: pyspiel.State) -> None:
        self.reset()

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass


class TimedISMCTS:
    """OpenSpiel's ISMCTSBot whose simulation count follows a time budget per decision."""

    def __init__(self, game: pyspiel.Game, seconds: float, seed: int):
        self.seconds = seconds
        self.random_state = np.random.RandomState(seed % 2**32)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self.random_state)
        self.simulations = 16
        self.bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=self.simulations,
                                    random_state=self.random_state,
                                    final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)

    def step(self, state: pyspiel.State) -> int:
        self.bot._max_simulations = self.simulations  # the bot has no public setter for its budget
        start = time.perf_counter()
        action = int(self.bot.step(state))
        elapsed = time.perf_counter() - start
        if len(state.legal_actions()) > 1 and elapsed > 0:
            rate = self.simulations / elapsed
            self.simulations = max(4, int(0.5 * self.simulations + 0.5 * rate * self.seconds))
        return action


def play_with_openspiel(playset: Sequence[str], seed: int, names: Sequence[str], seconds: float,
                        times: dict[str, list[float]]) -> tuple[int, int]:
    """One match through the OpenSpiel game: ``names[seat]`` plays seat 0/1; returns (winner, rounds)."""
    game = pyspiel.load_game(f"python_converge(playset={'/'.join(playset)})")
    rng = random.Random(seed)
    os_bots = {seat: TimedISMCTS(game, seconds, seed + seat) for seat, n in enumerate(names) if n == OPENSPIEL}
    our_bots = {seat: make_bot(n, seed + seat) for seat, n in enumerate(names) if n != OPENSPIEL}
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            continue
        seat = state.current_player()
        start = time.perf_counter()
        if seat in os_bots:
            action = os_bots[seat].step(state)
        else:
            action = our_bots[seat].decide(state.match.view(seat))
        times.setdefault(names[seat], []).append(time.perf_counter() - start)
        state.apply_action(action)
    winner = 0 if state.returns()[0] > 0 else 1
    return winner, state.match.rounds_finished
