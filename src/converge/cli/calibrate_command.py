"""``converge calibrate``: how far a hint's chances can be trusted (see :mod:`converge.simulation.calibration`).

``converge calibrate -n 2000`` samples decisions, asks the hint, plays one option at random and the round
out by a strong search on both sides, then prints the reliability by tenths, the calibration error, the
over-confidence on the options given 40% or more and the Brier score, each with its 95% interval, and
whether each bar of a trustworthy hint is met (exit 1 when one is missed). ``--out FILE`` keeps the
samples; ``--samples FILE [FILE...]`` measures samples kept earlier without playing, with the chances the
hint shows now (the package's map read at each kept search value: the option played and the round's outcome
do not depend on the map); ``--fit FILE`` fits the calibration map of the search's values on the samples and
writes it (the package ships one, fitted on decisions that the figures in the docs were *not* measured on).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import asdict, replace

from converge.cli.common import (
    Subcommands,
    UserError,
    add_command,
    bot_name,
    path_text,
    positive_int,
    read_json_file,
    seed_int,
)

EXIT_MISSED = 1


def sample_seeds(base: int, n: int) -> list[int]:
    """The seeds of ``n`` samples from ``--seed base``: disjoint for different bases in practice.

    >>> sample_seeds(1, 2) == sample_seeds(1, 2) != sample_seeds(2, 2)
    True
    """
    return [random.Random(f"calibrate:{base}:{i}").getrandbits(63) for i in range(n)]


def parse_bots(text: str) -> tuple[str, str]:
    names = [n for n in text.split(",") if n.strip()]
    if len(names) != 2:
        raise argparse.ArgumentTypeError(f"expected two bots, A,B (e.g. medium,medium), got {text!r}")
    return bot_name(names[0]), bot_name(names[1])


def add_sampling_arguments(p: argparse.ArgumentParser, decisions: int, samples_help: str) -> None:
    """The options of a command that samples decisions from bots' matches (``calibrate``, ``stability``): how
    many, from which bots, their seed, the workers, the samples kept (``--out``) or read back (``--samples``)."""
    p.add_argument("-n", "--decisions", dest="n", type=positive_int, default=decisions,
                   help=f"decisions to sample (default {decisions})")
    p.add_argument("--bots", type=parse_bots, default=("medium", "medium"), metavar="A,B",
                   help="the bots of the matches the decisions are sampled from (default medium,medium)")
    p.add_argument("--seed", type=seed_int, default=1, help="base seed of the samples (default 1)")
    p.add_argument("--workers", type=positive_int, default=None, help="worker processes (default 1)")
    p.add_argument("--samples", metavar="FILE", type=path_text, nargs="+", default=None, help=samples_help)
    p.add_argument("--out", metavar="FILE", type=path_text, default=None, help="write the samples here")


def cmd_calibrate(args: argparse.Namespace) -> int:
    from converge.bots.hint import Calibration, shipped_calibration
    from converge.simulation.calibration import Setting, fit, measure, read_samples, run, write_samples

    shipped_budget = shipped_calibration().budget
    setting = Setting(args.bots, args.hint_simulations or shipped_budget.simulations, args.playout, not args.raw)
    if args.samples:
        samples, settings = [], set()
        for path in args.samples:
            doc = read_json_file(path, "samples file")
            try:
                samples += read_samples(doc)
                assert isinstance(doc, dict)  # (read_samples took it: an object)
                setting = Setting(**{**doc["setting"], "bots": tuple(doc["setting"]["bots"])})
            except (KeyError, TypeError, ValueError, AttributeError):
                raise UserError(f"{path} is not a samples file written by converge calibrate --out") from None
            settings.add(replace(setting, calibrated=True))
        if not samples:
            raise UserError(f"{', '.join(args.samples)} hold no samples")
        if len(settings) > 1:
            raise UserError("these samples files were measured with different settings (bots, hint or playout): "
                            "measure them apart")
        shown = shipped_calibration()
        samples = [replace(s, chance=shown(s.raw)) for s in samples]  # (what the hint shows now)
        setting = replace(setting, calibrated=not args.raw)  # (whether the file's run judged the map or not)
    else:
        from converge.cli.simulation_steps import ProgressBar

        calibration = Calibration() if args.raw else None
        bar = ProgressBar(not args.no_progress, "calibrating")
        try:
            samples = run(sample_seeds(args.seed, args.n), setting, calibration, args.workers or 1, bar)
        finally:
            bar.close()
        if args.out is not None:
            try:
                write_samples(args.out, samples, setting)
            except OSError as exc:
                raise UserError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    judged = "the chances the hint shows" if setting.calibrated else "the search's own values"
    report = measure(samples, chance=(lambda s: s.raw) if args.raw else (lambda s: s.chance))
    if args.json:
        print(json.dumps({"setting": asdict(setting), "judged": judged, "report": report.to_dict()}, indent=1))
    else:
        simulations = setting.hint_simulations or shipped_calibration().budget.simulations
        print(f"judged: {judged}; decisions from {setting.bots[0]} vs {setting.bots[1]} matches, hint "
              f"{simulations:,} simulations, rounds played out by {setting.playout} on both sides")
        for line in report.lines():
            print(line)
    if args.fit is not None:
        # the budget the samples were searched on: a run's own (raw: the budget a new map is fitted on, else the
        # shipped map's); samples read from files are taken to be of the budget a new map is fitted on
        searched = shipped_budget if not (args.raw or args.samples) else Calibration().budget
        cal = fit(samples, replace(searched, simulations=setting.hint_simulations))
        try:
            with open(args.fit, "w", encoding="utf-8") as f:
                json.dump(cal.to_dict(), f, indent=1)
                f.write("\n")
        except OSError as exc:
            raise UserError(f"cannot write {args.fit}: {exc.strerror or exc}") from None
        sys.stderr.write(f"converge: wrote the calibration map fitted on {cal.fitted_on:,} decisions to "
                         f"{args.fit}\n")
    return 0 if all(ok for _, ok in report.bars()) else EXIT_MISSED


def register(sub: Subcommands) -> None:
    """Add ``converge calibrate`` to the command's subparsers."""
    p = add_command(sub, "calibrate", epilog="Exit code: 0 when every bar of a trustworthy hint is met, 1 when "
                                             "one is missed, 2 a usage error.")
    add_sampling_arguments(p, 2000, "measure the samples of earlier runs (--out), with the chances the hint shows "
                                    "now, instead of playing")
    p.add_argument("--hint-simulations", type=positive_int, default=0,
                   help="the hint's search, in simulations (default: the hint's budget, as every door spends it)")
    p.add_argument("--playout", type=bot_name, default="ismcts:2000", metavar="BOT",
                   help="the bot on both sides from the option played to the end of the round "
                        "(default ismcts:2000)")
    p.add_argument("--raw", action="store_true",
                   help="judge the search's own values, before the calibration map")
    p.add_argument("--fit", metavar="FILE", type=path_text, default=None,
                   help="fit the calibration map of the search's values on these samples and write it here")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_calibrate)


__all__ = ["add_sampling_arguments", "parse_bots", "register", "sample_seeds"]
