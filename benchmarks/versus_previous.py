"""Play this version's bot against the previous release's over N matches, and time this version's decisions.

The previous release runs in its own virtual environment (build it from a tag or commit with
``python -m venv /tmp/prev && /tmp/prev/bin/pip install <checkout>``); it decides in a subprocess that
replays the match record it is sent (deals are the same in both versions) and answers with an action::

    python benchmarks/versus_previous.py --previous /tmp/prev/bin/python --bot hard --previous-bot ismcts:20000 \
        -n 400 --workers 2

``--log FILE`` keeps each match's result as it ends (a JSON line) and, run again with the same arguments, plays
only the matches not in it: a long series survives a kill. ``--bot`` names this version's bot and
``--previous-bot`` the previous release's (default: the same name), as each version understands it (a level, or
``ismcts:N``: the previous release's hard was ``ismcts:20000`` capped at 1.2 s, so ``ismcts:20000`` is that bot
at its full strength, whatever the machine's load). Each pair of matches swaps the seats. Prints this version's
wins with a 95% Wilson interval, and the CPU time of its decisions (median, 99th percentile, largest), where it
had a choice.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from converge import Match
from converge.bots import make_bot
from converge.simulation.runner import series_plan, wilson_interval

# The previous release's side: read {"record", "bot", "seed"} lines, answer {"action"} lines.
PREVIOUS = r"""
import json, sys
from converge import Match
from converge.bots import make_bot
for line in sys.stdin:
    req = json.loads(line)
    match = Match.replay(req["record"])
    bot = make_bot(req["bot"], req["seed"])
    decide = getattr(bot, "decide", None)
    action = decide(match.view(match.current_player)) if decide else bot.choose(match)
    print(json.dumps({"action": int(action)}), flush=True)
"""


def play(task: tuple[str, str, str, list[str], int, int]) -> tuple[int, list[float]]:
    """One match; returns 1 when this version's bot won, and the CPU seconds of its decisions with a choice."""
    previous, bot_name, previous_bot, playset, seed, new_seat = task
    proc = subprocess.Popen([previous, "-c", PREVIOUS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    times: list[float] = []
    try:
        match = Match.new(playset, seed=seed)
        bot: Any = make_bot(bot_name, seed)
        decisions = 0
        while not match.is_terminal:
            seat = match.current_player
            if seat == new_seat:
                view = match.view(seat)
                began = time.process_time()
                action = bot.decide(view)
                if len(view.legal_actions()) > 1:
                    times.append(time.process_time() - began)
            else:
                request = {"record": match.record(), "bot": previous_bot, "seed": seed * 1000 + decisions}
                proc.stdin.write(json.dumps(request) + "\n")
                proc.stdin.flush()
                action = json.loads(proc.stdout.readline())["action"]
            decisions += 1
            match.apply(action, seat)
        return int(match.winner == new_seat), times
    finally:
        proc.stdin.close()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--previous", required=True, help="the python of the previous release's venv")
    parser.add_argument("--bot", default="hard", help="this version's bot (default hard)")
    parser.add_argument("--previous-bot", default=None, help="the previous release's bot (default: --bot)")
    parser.add_argument("-n", type=int, default=400, help="matches (default 400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--log", type=Path, default=None,
                        help="a file of each match's result: run again, the matches in it are not replayed")
    args = parser.parse_args(argv)
    previous_bot = args.previous_bot or args.bot
    plan = series_plan(args.n, args.seed)
    tasks = [(args.previous, args.bot, previous_bot, list(names), seed, i % 2)
             for i, (names, seed) in enumerate(plan)]
    key = [args.bot, previous_bot, args.seed]
    results: dict[int, tuple[int, list[float]]] = {}
    if args.log is not None and args.log.exists():
        for line in args.log.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["key"] == key and row["match"] < args.n:
                results[row["match"]] = (row["won"], row["times"])
    todo = [i for i in range(args.n) if i not in results]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for i, (won, spent) in zip(todo, pool.map(play, [tasks[i] for i in todo]), strict=True):
            results[i] = (won, spent)
            if args.log is not None:
                with args.log.open("a", encoding="utf-8") as log:
                    log.write(json.dumps({"key": key, "match": i, "won": won, "times": spent}) + "\n")
            if len(results) % 20 == 0:
                print(f"{len(results)}/{args.n}: this version won {sum(w for w, _ in results.values())}",
                      file=sys.stderr, flush=True)
    wins = sum(w for w, _ in results.values())
    times = [t for _, spent in results.values() for t in spent]
    lo, hi = wilson_interval(wins, args.n)
    print(f"{args.bot} (this version) vs {previous_bot} (previous): {wins}/{args.n} = {wins / args.n:.1%} "
          f"(95% CI [{lo:.1%}, {hi:.1%}])")
    if times:
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(f"this version's CPU per decision with a choice ({len(times):,}): median "
              f"{statistics.median(times):.3f} s, 99th percentile {p99:.3f} s, largest {times[-1]:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
