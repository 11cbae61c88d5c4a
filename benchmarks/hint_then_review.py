"""Follow the hint at every decision of N matches, then review them: how many of those decisions the review marks.

A player who plays the hint's best option (the first it lists: with options about equal, the first of them) at
each of their decisions against ``medium`` should not then read in ``converge review`` that those very decisions
were inaccuracies, mistakes or blunders. Each match draws its playset and seat from its seed; the hint and the
review spend the hint's budget (the shipped calibration map's) on other seeds, as two presses would::

    python benchmarks/hint_then_review.py -n 20 --workers 2

Prints the decisions judged, those marked (8 points lost or more) with a 95% Wilson interval, each mark with
the chances the review gave, and the CPU time.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from converge import Match
from converge.bots import make_bot
from converge.bots.hint import hint
from converge.bots.review import review
from converge.engine.playset import all_playsets
from converge.simulation.runner import wilson_interval


def one(k: int, simulations: int | None = None) -> dict[str, Any]:
    rng = random.Random(f"hint-then-review:{k}")
    playset = rng.choice(all_playsets())
    seat = rng.randrange(2)
    match = Match.new(playset, seed=rng.getrandbits(32), start="random")
    start = match.clone()
    opponent = make_bot("medium", rng.getrandbits(32))
    began = time.process_time()
    while not match.is_terminal:
        view = match.view(match.current_player)
        if match.current_player != seat:
            action = opponent.decide(view)
        elif len(view.legal_actions()) > 1:
            action = hint(view, simulations, seed=rng.getrandbits(62))[0].action
        else:
            action = view.legal_actions()[0]
        match.apply(action)
    judged = review(start, match.history, seat, simulations, seed=rng.getrandbits(62))
    marks = [f"{d.mark}: round {d.round_no} turn {d.turn_no} played {d.played_label} {d.played_chance:.0%}, "
             f"best {d.best_label} {d.best_chance:.0%}" for d in judged.marked()]
    return {"decisions": len(judged.decisions), "marks": marks, "cpu": time.process_time() - began}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20, help="matches (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="the first match's number (default 0)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--simulations", type=int, default=None,
                        help="the hint's and the review's search (default: the hint's budget; another is for a "
                             "quick run, its figure means nothing)")
    args = parser.parse_args()
    numbers = range(args.seed, args.seed + args.n)
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(one, numbers, [args.simulations] * len(numbers)))
    decisions = sum(r["decisions"] for r in results)
    marked = sum(len(r["marks"]) for r in results)
    lo, hi = wilson_interval(marked, decisions)
    print(f"{args.n} matches following the hint against medium: {decisions} decisions with a choice judged by "
          f"the review, {marked} marked ({100 * marked / max(decisions, 1):.2f}%, 95% CI {100 * lo:.2f}-"
          f"{100 * hi:.2f}%)")
    for r in results:
        for line in r["marks"]:
            print("  " + line)
    print(f"CPU: {sum(r['cpu'] for r in results):.0f} s in all")


if __name__ == "__main__":
    main()
