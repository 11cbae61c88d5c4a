"""Solve the ``tiny`` variant exactly with OpenSpiel: CFR, CFR+ and external-sampling MCCFR, and their
exploitability as they run.

    python examples/openspiel_solve_tiny.py --seconds 300 --csv docs/images/tiny-exploitability.csv \\
        --png docs/images/tiny-exploitability.png

The game (by default ``python_converge(variant=tiny,start=player0)``: two skillsets of ranks 1 to 3, a card a
hand, one round) is written out once as a Gambit tree (:mod:`converge.adapters.efg`) and loaded with
``pyspiel.load_efg_game``; OpenSpiel's C++ solvers then run on it, and ``pyspiel.exploitability`` measures
each average policy exactly (in the game's units: a match is worth +1 or -1). ``--deal N`` solves the
subgame in which the first N cards of the deal are fixed (a smaller tree, for quick checks).
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import pyspiel

import converge.adapters.openspiel  # noqa: F401  (registers python_converge)
from converge.adapters.efg import TreeSize, export_efg, subgame

DEFAULT_GAME = "python_converge(variant=tiny,start=player0)"
SOLVERS = ("cfr", "cfr+", "mccfr")


class Point(NamedTuple):
    """One measurement: a solver's average policy after ``iteration`` iterations and ``seconds`` of solving
    (CPU time of this process, so on one core and whatever else the machine runs; the exploitability
    computations not counted)."""

    solver: str
    iteration: int
    seconds: float
    exploitability: float


def tree(game_string: str, deal: int = 0) -> tuple[pyspiel.Game, TreeSize, float]:
    """The game's tree (from the state with its first ``deal`` chance outcomes the first legal ones) as an
    OpenSpiel EFG game, its size and the CPU seconds the export took."""
    game = pyspiel.load_game(game_string)
    root = subgame(game, deal)
    start = time.process_time()
    text, size = export_efg(game, root)
    efg = pyspiel.load_efg_game(text)
    return efg, size, time.process_time() - start


def _solver(name: str, game: pyspiel.Game, seed: int) -> tuple[Callable[[], None], Callable[[], object]]:
    """A solver's step (one iteration) and its average policy."""
    if name == "cfr":
        cfr = pyspiel.CFRSolver(game)
        return cfr.evaluate_and_update_policy, cfr.average_policy
    if name == "cfr+":
        plus = pyspiel.CFRPlusSolver(game)
        return plus.evaluate_and_update_policy, plus.average_policy
    if name == "mccfr":
        mc = pyspiel.ExternalSamplingMCCFRSolver(game, seed, pyspiel.MCCFRAverageType.SIMPLE)
        return mc.run_iteration, mc.average_policy
    raise ValueError(f"unknown solver {name!r} (known: {', '.join(SOLVERS)})")


def solve(game: pyspiel.Game, name: str, seconds: float, iterations: int, seed: int = 0) -> list[Point]:
    """Run one solver until ``seconds`` of solving (CPU time) or ``iterations`` iterations, measuring its
    average policy's exploitability at iterations 1, 2, 3, 5, 7, 10, 15, 20, 30... (about five points a decade)
    and at the end. MCCFR's iterations are cheap samples: it takes 100 of them for each of the others' one."""
    step, average = _solver(name, game, seed)
    scale = 100 if name == "mccfr" else 1
    marks = sorted({round(m * 10**d) * scale for d in range(9) for m in (1, 1.5, 2, 3, 5, 7)})
    points: list[Point] = []
    done, spent = 0, 0.0
    for mark in marks:
        if done >= iterations * scale or spent >= seconds:
            break
        began = time.process_time()
        while done < min(mark, iterations * scale):
            step()
            done += 1
        spent += time.process_time() - began
        points.append(Point(name, done, spent, pyspiel.exploitability(game, average())))
    return points


def first_below(points: Sequence[Point], bound: float) -> Point | None:
    """The first measurement under ``bound``."""
    return next((p for p in points if p.exploitability < bound), None)


def write_csv(points: Sequence[Point], path: Path) -> None:
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["solver", "iteration", "seconds", "exploitability"])
        for p in points:
            out.writerow([p.solver, p.iteration, f"{p.seconds:.3f}", f"{p.exploitability:.6g}"])


def plot(points: Sequence[Point], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for name in SOLVERS:
        mine = [p for p in points if p.solver == name and p.exploitability > 0]
        if mine:
            ax.loglog([p.seconds for p in mine], [p.exploitability for p in mine], marker="o", ms=3,
                      label={"cfr": "CFR", "cfr+": "CFR+", "mccfr": "MCCFR (external sampling)"}[name])
    ax.axhline(0.01, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("CPU seconds of solving (one core)")
    ax.set_ylabel("exploitability (a match is worth ±1)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", lw=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help="an OpenSpiel game string (default: %(default)s)")
    parser.add_argument("--deal", type=int, default=0, help="fix the first N chance outcomes (a subgame)")
    parser.add_argument("--solvers", default=",".join(SOLVERS), help="which, joined by commas")
    parser.add_argument("--seconds", type=float, default=60.0, help="CPU seconds of solving for each solver")
    parser.add_argument("--iterations", type=int, default=100_000, help="at most this many iterations each")
    parser.add_argument("--csv", type=Path, help="write the measurements here")
    parser.add_argument("--png", type=Path, help="draw the curves here")
    args = parser.parse_args(argv)
    try:
        efg, size, export_seconds = tree(args.game, args.deal)
    except ValueError as e:  # a --deal longer than the game's deal
        parser.error(str(e))
    print(f"{args.game}{f' after {args.deal} dealt' if args.deal else ''}: {size.decisions:,} decisions, "
          f"{size.chance:,} chance nodes, {size.terminals:,} ends, {size.infosets[0]:,} + {size.infosets[1]:,} "
          f"information states; exported in {export_seconds:.1f} CPU s")
    points: list[Point] = []
    for name in args.solvers.split(","):
        mine = solve(efg, name.strip(), args.seconds, args.iterations)
        points += mine
        last = mine[-1]
        below = first_below(mine, 0.01)
        reached = (f"; below 0.01 after {below.iteration:,} iterations, {below.seconds:.1f} s" if below
                   else "; not below 0.01")
        print(f"{name}: exploitability {last.exploitability:.2g} after {last.iteration:,} iterations, "
              f"{last.seconds:.1f} s{reached}", flush=True)
    if args.csv:
        write_csv(points, args.csv)
    if args.png:
        plot(points, args.png, f"{args.game}: exploitability of the average policy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
