"""OpenSpiel's outcome-sampling MCCFR on ``python_converge``, then its average policy against random.

    python examples/openspiel_mccfr.py --iterations 2000 --games 50

Outcome sampling walks one sampled match per player each iteration and keeps regrets per information
state (keyed by ``information_state_string``, which is perfect recall: the player's view and every event
they saw). Converge is far too large for MCCFR to converge on — or for OpenSpiel's exploitability to be
computed — so this is a smoke test of the loop: the average policy (uniform where it saw nothing) then
plays matches against OpenSpiel's uniform random bot, seats alternating.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

import pyspiel
from open_spiel.python.algorithms import outcome_sampling_mccfr

import converge.adapters.openspiel  # noqa: F401  (registers python_converge)


def play(game: pyspiel.Game, policy: object, seat: int, rng: random.Random) -> float:
    """One match of the policy in ``seat`` against uniform random; its return."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        elif state.current_player() == seat:
            probs = policy.action_probabilities(state)  # type: ignore[attr-defined]
            actions = list(probs)
            state.apply_action(rng.choices(actions, [probs[a] for a in actions])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return float(state.returns()[seat])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--playset", default="alchemist/mechanist/archivist")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = pyspiel.load_game(f"python_converge(playset={args.playset})")
    import numpy as np

    np.random.seed(args.seed)  # outcome sampling draws from numpy's global generator
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(args.iterations):
        solver.iteration()
    infostates = len(solver._infostates)  # the solver does not publish its table's size
    policy = solver.average_policy()
    rng = random.Random(args.seed)
    total = sum(play(game, policy, n % 2, rng) for n in range(args.games))
    print(f"{args.iterations} iterations, {infostates} information states; the average policy scored "
          f"{total:+.0f} over {args.games} matches against uniform random")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
