"""This version beside the previous release, interleaved in one run: random rounds per second, the strong
search's simulations per second, and steps per second of the PettingZoo and Gymnasium adapters beside
PettingZoo's own board games.

The previous release lives in its own virtual environment with the ``rl`` extra (and pygame for the board
games)::

    python -m venv /tmp/prev && /tmp/prev/bin/pip install "<checkout of the release>[rl,bench]"
    python benchmarks/side_by_side.py --previous /tmp/prev/bin/python --repeats 5

Each repeat runs every subject once in each version, one after the other, so that a busy moment of the
machine falls on both; the table gives medians and the ratio. Rounds and simulations are counted per second of
the process's CPU time (on a shared machine wall time also counts the moments others held the core), by the
same code in both versions (``SEARCH_RUN``, ``ROUNDS_RUN``): random playouts of whole matches from fresh deals
on each version's fastest path (this version's native core; the previous release's compiled engine) and on
the engine itself, and the ``ISMCTSBot`` of each version with 3,000 simulations at the same 12 positions (one
part: one core). ``--only engine`` skips the adapters. The adapters are driven by this version's
:mod:`converge.adapters.speed` code in both (the previous release is measured through its own adapters).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ADAPTERS = ("pettingzoo", "gymnasium", "connect_four_v3", "tictactoe_v3")
BENCH_SOURCE = Path(__file__).resolve().parents[1] / "src" / "converge" / "adapters" / "speed.py"

# Run in each interpreter: this version's adapter runners against whichever converge is installed there.
ADAPTER_RUN = """
import json, random, sys
namespace = {"__name__": "side_by_side"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), namespace)
subject, steps = sys.argv[2], int(sys.argv[3])
rng = random.Random(0)
namespace["RUNNERS"][subject](min(steps, 500), rng)
print(json.dumps(namespace["RUNNERS"][subject](steps, rng)))
"""


# Run in each interpreter: random rounds per second of CPU time, on the fastest path there and on the engine.
ROUNDS_RUN = """
import json, random, sys, time
from converge import Match
from converge.engine.playset import Playset
from converge.engine.state import shuffled_deal
rounds = int(sys.argv[1])
playset = Playset.from_names(["alchemist", "mechanist", "archivist"])
starts = [Match.new(playset, s, log_events=False) for s in range(8)]
rng = random.Random(0)
done, i, began = 0, 0, time.process_time()
while done < rounds:
    m = starts[i % 8].clone(history=False, events=False)
    m.random_playout(rng)
    done += m.rounds_finished
    i += 1
engine = done / (time.process_time() - began)
try:
    from converge import _native
    from converge.engine import native
except ImportError:
    fastest = engine
else:
    states = [native.state_of(m, deals=[shuffled_deal(m.seed, r) for r in (1, 2, 3)]) for m in starts]
    began = time.process_time()
    fastest = _native.random_rounds(states, 10 * rounds, 0) / (time.process_time() - began)
print(json.dumps([fastest, engine]))
"""

# Run in each interpreter: the ISMCTS bot's simulations per second of CPU time at 12 positions.
SEARCH_RUN = """
import random, sys, time
from converge import Match
from converge.bots import ISMCTSBot
from converge.engine.playset import Playset
playset = Playset.from_names(["alchemist", "mechanist", "archivist"])
done = spent = 0
for k in range(12):
    m = Match.new(playset, seed=k)
    rng = random.Random(k)
    for _ in range(rng.randrange(20)):
        m.apply(rng.choice(m.legal_actions()))
    if m.is_terminal or len(m.legal_actions()) < 2:
        continue
    bot = ISMCTSBot(k, iterations=int(sys.argv[1]))
    view = m.view(m.current_player)
    began = time.process_time()
    bot.decide(view)
    spent += time.process_time() - began
    done += bot.last_iterations
print(done / spent)
"""


def _rounds(python: str, rounds: int) -> list[float]:
    out = subprocess.run([python, "-c", ROUNDS_RUN, str(rounds)], capture_output=True, text=True, check=True)
    return [float(x) for x in json.loads(out.stdout)]


def _search(python: str, simulations: int) -> float:
    out = subprocess.run([python, "-c", SEARCH_RUN, str(simulations)], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def _adapter(python: str, subject: str, steps: int) -> float:
    out = subprocess.run([python, "-c", ADAPTER_RUN, str(BENCH_SOURCE), subject, str(steps)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--previous", required=True, help="the python of the previous release's venv")
    parser.add_argument("--current", default=sys.executable, help="this version's python (default: this one)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=20000, help="engine rounds per run (default 20000)")
    parser.add_argument("--steps", type=int, default=20000, help="adapter steps per run (default 20000)")
    parser.add_argument("--simulations", type=int, default=3000, help="the search's per position (default 3000)")
    parser.add_argument("--only", choices=("engine",), default=None, help="engine: rounds and search only")
    args = parser.parse_args(argv)
    versions = {"this version": args.current, "previous release": args.previous}
    rounds = ("random rounds/s, fastest path", "random rounds/s, the engine")
    subjects = (*rounds, "search simulations/s", *(() if args.only else ADAPTERS))
    runs: dict[tuple[str, str], list[float]] = {}
    for r in range(args.repeats):
        for label, python in versions.items():
            for subject, figure in zip(rounds, _rounds(python, args.rounds), strict=True):
                runs.setdefault((subject, label), []).append(figure)
            runs.setdefault(("search simulations/s", label), []).append(_search(python, args.simulations))
        for subject in subjects[3:]:
            for label, python in versions.items():
                runs.setdefault((subject, label), []).append(_adapter(python, subject, args.steps))
        print(f"repeat {r + 1}/{args.repeats} done", file=sys.stderr, flush=True)
    print("| what | this version | previous release | ratio |")
    print("| --- | --- | --- | --- |")
    for subject in subjects:
        now = statistics.median(runs[(subject, "this version")])
        before = statistics.median(runs[(subject, "previous release")])
        print(f"| {subject} | {now:,.0f} | {before:,.0f} | {now / before:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
