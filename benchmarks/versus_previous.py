"""Play this version's bot against the previous release's, the same level and time limit, over N matches.

The previous release runs in its own virtual environment (build it from a tag or commit with
``python -m venv /tmp/prev && /tmp/prev/bin/pip install <checkout>``); it decides in a subprocess that
replays the match record it is sent (deals are the same in both versions) and answers with an action::

    python benchmarks/versus_previous.py --previous /tmp/prev/bin/python --bot hard -n 400 --workers 2

``--seconds S`` gives both sides' ISMCTS the same budget of S seconds per decision and no simulation cap
(the strength a faster search buys in the same time). Each pair of matches swaps the seats. Prints this
version's wins with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from converge import Match
from converge.bots import ISMCTSBot, make_bot
from converge.simulation.runner import series_plan, wilson_interval

# The previous release's side: read {"record", "bot", "seed"} lines, answer {"action"} lines.
PREVIOUS = r"""
import json, sys
from converge import Match
from converge.bots import ISMCTSBot, make_bot
from converge.bots import ISMCTSBot
for line in sys.stdin:
    req = json.loads(line)
    match = Match.replay(req["record"])
    if req["iterations"]:
        bot = ISMCTSBot(req["seed"], iterations=req["iterations"])
    elif req["seconds"]:
        bot = ISMCTSBot(req["seed"], iterations=0, seconds=req["seconds"])
    else:
        bot = make_bot(req["bot"], req["seed"])
    decide = getattr(bot, "decide", None)
    action = decide(match.view(match.current_player)) if decide else bot.choose(match)
    print(json.dumps({"action": int(action)}), flush=True)
"""


def play(task: tuple[str, str, list[str], int, int, float, int, int]) -> int:
    """One match; returns 1 when this version's bot won."""
    previous, bot_name, playset, seed, new_seat, seconds, iterations, previous_iterations = task
    proc = subprocess.Popen([previous, "-c", PREVIOUS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        match = Match.new(playset, seed=seed)
        if iterations:
            bot: Any = ISMCTSBot(seed, iterations=iterations)
        elif seconds:
            bot = ISMCTSBot(seed, iterations=0, seconds=seconds)
        else:
            bot = make_bot(bot_name, seed)
        decisions = 0
        while not match.is_terminal:
            seat = match.current_player
            if seat == new_seat:
                action = bot.decide(match.view(seat))
            else:
                request = {"record": match.record(), "bot": bot_name, "seconds": seconds,
                           "iterations": previous_iterations, "seed": seed * 1000 + decisions}
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
                action = json.loads(proc.stdout.readline())["action"]
            decisions += 1
            match.apply(action, seat)
        return int(match.winner == new_seat)
    finally:
        proc.stdin.close()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--previous", required=True, help="the python of the previous release's venv")
    parser.add_argument("--bot", default="hard", help="the bot level both sides play (default hard)")
    parser.add_argument("-n", type=int, default=400, help="matches (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=0.0,
                        help="both sides: ISMCTS with this many seconds per decision (default: the level's)")
    parser.add_argument("--iterations", type=int, default=0,
                        help="both sides: ISMCTS with this many simulations per decision (a check of equal play)")
    parser.add_argument("--previous-iterations", type=int, default=0,
                        help="with --iterations: the previous release's simulations, if different")
    args = parser.parse_args(argv)
    plan = series_plan(args.n, args.seed)
    tasks = [(args.previous, args.bot, list(names), seed, i % 2, args.seconds, args.iterations,
              args.previous_iterations or args.iterations) for i, (names, seed) in enumerate(plan)]
    wins = 0
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for done, won in enumerate(pool.map(play, tasks), start=1):
            wins += won
            if done % 20 == 0:
                print(f"{done}/{args.n}: this version won {wins}", file=sys.stderr, flush=True)
    lo, hi = wilson_interval(wins, args.n)
    who = (f"ISMCTS {args.iterations} simulations" if args.iterations else
           f"ISMCTS {args.seconds} s/decision" if args.seconds else args.bot)
    print(f"{who} (this version) vs {who} (previous): {wins}/{args.n} = {wins / args.n:.1%} "
          f"(95% CI [{lo:.1%}, {hi:.1%}])")
    return 0


if __name__ == "__main__":
    sys.exit(main())
