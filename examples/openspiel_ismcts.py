"""OpenSpiel's information-set MCTS (its Python ``ISMCTSBot``) against Converge's own bots.

    python examples/openspiel_ismcts.py --games 4 --simulations 100 --opponent greedy

Needs the ``rl`` extra (``pip install 'converge-game[rl]'``). The ISMCTS bot searches the OpenSpiel game
``python_converge``: at each decision it draws worlds consistent with what it knows
(``resample_from_infostate``) and plays random rollouts in them. The opponent is a bot of
:mod:`converge.bots` deciding on the same match; seats alternate from game to game.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import converge.adapters.openspiel  # noqa: F401  (registers python_converge)
from converge.bots import BOTS, make_bot


def play(game: pyspiel.Game, bot: ismcts.ISMCTSBot, opponent: str, ismcts_seat: int, seed: int) -> float:
    """One match; returns the ISMCTS bot's result (+1 win, -1 loss)."""
    rng = random.Random(seed)
    other = make_bot(opponent, seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        elif state.current_player() == ismcts_seat:
            state.apply_action(int(bot.step(state)))
        else:
            state.apply_action(other.decide(state.match.view(state.current_player())))
    return float(state.returns()[ismcts_seat])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="matches to play (default 4)")
    parser.add_argument("--simulations", type=int, default=100, help="ISMCTS simulations a decision (default 100)")
    parser.add_argument("--opponent", choices=sorted(BOTS), default="random", help="the opponent bot")
    parser.add_argument("--playset", default="alchemist/mechanist/archivist", help="three skillsets, a/b/c")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(f"python_converge(playset={args.playset})")
    rs = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=args.simulations, random_state=rs,
                           final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    wins = 0
    start = time.perf_counter()
    for g in range(args.games):
        seat = g % 2
        result = play(game, bot, args.opponent, seat, args.seed * 1000 + g)
        wins += result > 0
        print(f"game {g + 1}: ISMCTS as player {seat} {'wins' if result > 0 else 'loses'} against {args.opponent}")
    print(f"ISMCTS ({args.simulations} simulations) won {wins} of {args.games} against {args.opponent} "
          f"in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
