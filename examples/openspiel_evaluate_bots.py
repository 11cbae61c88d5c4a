"""OpenSpiel's ``evaluate_bots`` with its Python ``ISMCTSBot`` on ``python_converge``.

    python examples/openspiel_evaluate_bots.py --games 4 --simulations 50

``evaluate_bots`` calls ``bot.restart_at(state)`` before each game, which OpenSpiel's Python ``ISMCTSBot``
does not implement ("RestartAt not implemented"): :class:`converge.adapters.openspiel_bot.RestartableISMCTSBot`
adds it (a new game forgets the search trees, the bot's ``reset()``), and nothing else changes. The
opponent is OpenSpiel's uniform random bot; seats alternate from game to game.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, mcts

from converge.adapters.openspiel_bot import RestartableISMCTSBot  # registers python_converge too


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=50, help="ISMCTS simulations per decision")
    parser.add_argument("--playset", default="alchemist/mechanist/archivist")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(f"python_converge(playset={args.playset})")
    rng = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    ismcts_bot = RestartableISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=args.simulations,
                                      random_state=rng)
    wins = 0.0
    for n in range(args.games):
        seat = n % 2
        random_bot = pyspiel.make_uniform_random_bot(1 - seat, args.seed + n)
        bots = [ismcts_bot, random_bot] if seat == 0 else [random_bot, ismcts_bot]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        wins += returns[seat] > 0
        print(f"game {n + 1}: ISMCTS in seat {seat} {'won' if returns[seat] > 0 else 'lost'}")
    print(f"ISMCTS ({args.simulations} simulations) won {wins:.0f} of {args.games} against uniform random")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
