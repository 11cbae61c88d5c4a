"""The CPU time of a bot level's decisions, against medium, over N matches (the figures of docs/bots.md's table)::

    python benchmarks/level_times.py hard 10

Each match draws its playset from its number and seats the level first in even matches; only decisions with a
choice are timed. CPU time is the process's (the search's parts run on threads, all counted); wall time is
printed beside it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from converge import Match
from converge.bots import make_bot
from converge.engine.playset import all_playsets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("level", help="the bot to time (a level or ismcts:N)")
    parser.add_argument("matches", type=int, nargs="?", default=10)
    args = parser.parse_args()
    cpu, wall = [], []
    for k in range(args.matches):
        rng = random.Random(k)
        match = Match.new(rng.choice(all_playsets()), seed=k)
        timed, other = make_bot(args.level, k), make_bot("medium", k + 99)
        seat = k % 2
        while not match.is_terminal:
            view = match.view(match.current_player)
            if match.current_player != seat:
                action = other.decide(view)
            elif len(view.legal_actions()) > 1:
                c, w = time.process_time(), time.perf_counter()
                action = timed.decide(view)
                cpu.append(time.process_time() - c)
                wall.append(time.perf_counter() - w)
            else:
                action = timed.decide(view)
            match.apply(action)
    q = statistics.quantiles(cpu, n=100)
    print(f"{args.level}: {len(cpu)} decisions with a choice over {args.matches} matches; CPU median "
          f"{statistics.median(cpu):.3f} s, p99 {q[98]:.3f} s, max {max(cpu):.3f} s; wall median "
          f"{statistics.median(wall):.3f} s, max {max(wall):.3f} s")


if __name__ == "__main__":
    main()
