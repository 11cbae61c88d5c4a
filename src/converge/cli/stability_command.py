"""``converge stability``: whether a hint says the same whatever its seed (see
:mod:`converge.simulation.stability`).

``converge stability -n 300`` samples decisions, presses the hint four times at each with other seeds and asks a
search ten times as long, then prints how often the presses named the same best option, how often a press
named an option the longer search finds 8 points or more worse (and 15), each with its 95% interval, and
whether each bar is met (exit 1 when one is missed). ``--out FILE`` keeps the samples; ``--samples FILE
[FILE...]`` measures samples kept earlier without playing.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import asdict

from converge.cli.calibrate_command import add_sampling_arguments
from converge.cli.common import Subcommands, UserError, add_command, positive_int, read_json_file

EXIT_MISSED = 1


def cmd_stability(args: argparse.Namespace) -> int:
    from converge.bots.hint import shipped_calibration
    from converge.simulation.stability import Setting, measure, read_samples, run, write_samples

    setting = Setting(args.bots, args.presses, args.longer)
    if args.samples:
        samples = []
        for path in args.samples:
            doc = read_json_file(path, "samples file")
            try:
                samples += read_samples(doc)
                assert isinstance(doc, dict)  # (read_samples took it: an object)
                setting = Setting(tuple(doc["setting"]["bots"]), int(doc["setting"]["presses"]),
                                  int(doc["setting"]["longer"]))
            except (KeyError, TypeError, ValueError, AttributeError):
                raise UserError(f"{path} is not a samples file written by converge stability --out") from None
        if not samples:
            raise UserError(f"{', '.join(args.samples)} hold no samples")
    else:
        from converge.cli.simulation_steps import ProgressBar

        seeds = [random.Random(f"stability:{args.seed}:{i}").getrandbits(63) for i in range(args.n)]
        bar = ProgressBar(not args.no_progress, "pressing")
        try:
            samples = run(seeds, setting, args.workers or 1, bar)
        finally:
            bar.close()
        if args.out is not None:
            try:
                write_samples(args.out, samples, setting)
            except OSError as exc:
                raise UserError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    report = measure(samples)
    budget = shipped_calibration().budget
    if args.json:
        print(json.dumps({"setting": asdict(setting), "budget": asdict(budget), "report": report.to_dict()},
                         indent=1))
    else:
        print(f"decisions from {setting.bots[0]} vs {setting.bots[1]} matches; the hint pressed "
              f"{setting.presses} times with other seeds ({budget.simulations:,} simulations in {budget.parts} "
              f"parts each), against one search {setting.longer} times as long")
        for line in report.lines():
            print(line)
    return 0 if all(ok for _, ok in report.bars()) else EXIT_MISSED


def register(sub: Subcommands) -> None:
    """Add ``converge stability`` to the command's subparsers."""
    p = add_command(sub, "stability", epilog="Exit code: 0 when every bar is met, 1 when one is missed, 2 a usage "
                                             "error.")
    add_sampling_arguments(p, 300, "measure the samples of earlier runs (--out) instead of playing")
    p.add_argument("--presses", type=positive_int, default=4, help="presses of Hint at each decision (default 4)")
    p.add_argument("--longer", type=positive_int, default=10,
                   help="the longer search's budget, in hints' budgets (default 10)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_stability)


__all__ = ["register"]
