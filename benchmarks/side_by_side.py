"""This version beside the previous release, interleaved in one run: engine rounds per second (`converge bench`)
and steps per second of the PettingZoo and Gymnasium adapters beside PettingZoo's own board games.

The previous release lives in its own virtual environment with the ``rl`` extra (and pygame for the board
games)::

    python -m venv /tmp/prev && /tmp/prev/bin/pip install "<checkout of the release>[rl,bench]"
    python benchmarks/side_by_side.py --previous /tmp/prev/bin/python --repeats 5

Each repeat runs every subject once in each version, one after the other, so that a busy moment of the
machine falls on both; the table gives medians and the ratio. The adapters are driven by this version's
:mod:`converge.adapters.bench` code in both (the previous release is measured through its own adapters).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ADAPTERS = ("pettingzoo", "gymnasium", "connect_four_v3", "tictactoe_v3")
BENCH_SOURCE = Path(__file__).resolve().parents[1] / "src" / "converge" / "adapters" / "bench.py"

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


def _engine(python: str, rounds: int) -> float:
    bin_dir = Path(python).parent
    out = subprocess.run([str(bin_dir / "converge"), "bench", "--json", "--no-greedy", "--repeats", "1",
                          "--rounds", str(rounds)], capture_output=True, text=True, check=True)
    return float(json.loads(out.stdout)["rounds_per_second"])


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
    args = parser.parse_args(argv)
    versions = {"this version": args.current, "previous release": args.previous}
    subjects = ("converge bench (rounds/s)", *ADAPTERS)
    runs: dict[tuple[str, str], list[float]] = {}
    for r in range(args.repeats):
        for subject in subjects:
            for label, python in versions.items():
                figure = (_engine(python, args.rounds) if subject.startswith("converge bench")
                          else _adapter(python, subject, args.steps))
                runs.setdefault((subject, label), []).append(figure)
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
