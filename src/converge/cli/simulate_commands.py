"""``converge simulate`` and ``converge balance``: the balance simulator on the command line.

``simulate`` plays N matches per playset and writes, in ``--out``: the tidy table ``rounds.parquet`` (or
``rounds.csv``), ``summary.json``, ``report.html`` (self-contained, with its plots) and the plots in
``plots/``; then prints a summary. ``balance`` does the same and then flags what is out of line (see
:mod:`converge.simulation.balance`): exit code 0 when nothing is, 1 when something is. ``balance --summary
FILE`` judges the ``summary.json`` of an earlier run without playing anything.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from converge import install_command
from converge.cli.common import (
    Subcommands,
    UserError,
    add_command,
    bot_choice,
    deck_dir_option,
    path_text,
    playset_names,
    positive_int,
    printable,
    read_json_file,
    seed_int,
    user_catalog,
)
from converge.cli.simulation_steps import (
    EXIT_FLAGGED,
    ProgressBar,
    asked_playsets,
    out_dir,
    per_second,
    user_skillsets,
    your_focus,
)
from converge.engine.playset import SETS

if TYPE_CHECKING:

    from converge.simulation.balance import Criteria
    from converge.simulation.summary_doc import Summary

def _criteria(args: argparse.Namespace) -> Criteria:
    from converge.simulation.balance import Criteria, parse_band

    try:
        holder = parse_band(args.holder_band)
        card = parse_band(args.card_band)
        cuts = parse_band(args.star_cuts)
        return Criteria(holder_band=holder, card_band=card, star_cuts=cuts, min_rounds=args.min_rounds,
                        min_plays=args.min_plays, min_samples=args.min_samples, confidence=args.confidence,
                        value_margin=args.value_margin / 100)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _simulate(args: argparse.Namespace, criteria: Criteria | None) -> int:
    """Run the simulation of ``args``, write every output, print the summary; return the exit code."""
    from rich.console import Console

    from converge.simulation.backends import BackendError
    from converge.simulation.balance import check
    from converge.simulation.jobs import SimulationSpec
    from converge.simulation.plots import NO_PLOTS, draw_plots, plots_available
    from converge.simulation.report import render_html, terminal_summary
    from converge.simulation.simulate import simulate
    from converge.simulation.summary import summarize
    from converge.simulation.tables import open_rounds, resolve_format

    catalog = user_catalog(args.deck_dir)
    mine = user_skillsets(catalog)
    playsets = asked_playsets(args, catalog, mine)
    focus = your_focus(playsets, catalog, mine)
    if focus is not None and not (args.playset or args.set or args.all_playsets):
        names = ", ".join(focus["skillsets"])
        sys.stderr.write(f"converge: note: {focus['playsets']} of the {focus['of_playsets']} playsets, those that "
                         f"hold your skillset{'s' if len(focus['skillsets']) > 1 else ''} ({names}); "
                         "--all-playsets for all of them\n")
    try:
        fmt, table_note = resolve_format(args.format)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if args.backend == "local" and args.address:
        raise UserError("--address is for the Ray backend (--backend ray)")
    if args.backend == "ray":
        from converge.simulation import backends, tables

        if not tables.have("ray"):
            raise UserError(f"the Ray backend needs Ray: {install_command('ray')} (or pip install ray)")
        if args.address:
            try:
                backends.check_reachable(args.address)
            except BackendError as exc:
                raise UserError(str(exc)) from None
    try:
        spec = SimulationSpec.build(playsets, args.n, args.bot1, args.bot2, args.seed, args.deck_dir)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    folder = out_dir(args.out)
    plots = not args.no_report and plots_available()
    notes = [n for n in (table_note, None if plots or args.no_report else NO_PLOTS) if n]
    for n in notes:
        sys.stderr.write(f"converge: note: {n}\n")

    writer = open_rounds(folder, fmt)
    bar = ProgressBar(not args.no_progress, "balance" if criteria is not None else "simulating")
    try:
        try:
            result = simulate(spec, args.backend, args.workers, args.address, args.chunk_size, writer.write, bar)
        except BackendError as exc:
            raise UserError(str(exc)) from None
    finally:
        bar.close()
        writer.close()

    summary = summarize(spec, result.tallies)
    if focus is not None:
        summary["settings"]["yours"] = focus
    report = check(summary, criteria, getattr(args, "strict_all", False)) if criteria is not None else None
    if report is not None:
        summary["balance"] = report.to_dict()
    run = result.run_info()
    summary["run"] = run
    (folder / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    written = [str(writer.path), str(folder / "summary.json")]
    if not args.no_report:
        figures = draw_plots(summary, folder / "plots", args.plots, report.criteria if report else None) \
            if plots else {}
        page = render_html(summary, report, figures, args.plots, None if plots else NO_PLOTS, run)
        (folder / "report.html").write_text(page, encoding="utf-8")
        written.append(str(folder / "report.html"))
        if figures:
            written.append(str(folder / "plots") + "/")

    console = Console(highlight=False)
    terminal_summary(summary, console, report)
    workers = f"{run['workers']} {run['backend']} worker{'s' if run['workers'] != 1 else ''}"
    console.print(f"{result.matches:,} matches in {run['seconds']:.1f} s "
                  f"({per_second(run['matches_per_second'])} matches/s, {workers})", highlight=False)
    console.print(f"wrote {', '.join(written)}", highlight=False, markup=False)
    return EXIT_FLAGGED if report is not None and not report.passed else 0


# ---------------------------------------------------------------------- commands


def cmd_simulate(args: argparse.Namespace) -> int:
    return _simulate(args, None)


def _summary(doc: object) -> Summary:
    """A summary.json read from a file, as a summary; ``TypeError`` when it is not a JSON object. Its fields
    are checked as they are read: one of the wrong shape raises (``KeyError``, ``TypeError``...), which the
    commands report as not a summary written by ``converge simulate``."""
    if not isinstance(doc, dict):
        raise TypeError("a summary is a JSON object")
    return cast("Summary", doc)  # (an object: its fields are checked as they are read, as said above)


def _side(args: argparse.Namespace, criteria: Criteria, path: str, label: str) -> object:
    """One side of ``--compare``: a summary.json as it is, or a deck folder simulated (into OUT/label) with
    this command's options and seeds, so that both sides play the same deals where the decks agree."""
    if Path(path).is_dir():
        side = argparse.Namespace(**vars(args))
        side.deck_dir, side.out, side.no_report = [*args.deck_dir, path], str(Path(args.out) / label), True
        sys.stderr.write(f"converge: {label}: simulating with the decks of {path}\n")
        _simulate(side, criteria)
        path = str(Path(side.out) / "summary.json")
    return read_json_file(path, "summary.json")


def _compare(args: argparse.Namespace, criteria: Criteria) -> int:
    from converge.simulation.compare import compare

    if args.summary is not None:
        raise UserError("--compare takes its own two summaries or deck folders: leave out --summary")
    old_path, new_path = args.compare
    old, new = _side(args, criteria, old_path, "old"), _side(args, criteria, new_path, "new")
    try:
        comparison = compare(_summary(old), _summary(new), criteria)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, ArithmeticError, RecursionError):
        raise UserError(f"{old_path} and {new_path} are not two summary.json files written by converge simulate "
                        "(or two deck folders)") from None
    print(f"comparing {old_path} (old) with {new_path} (new)")
    for line in comparison.lines():
        print(printable(line))
    if not args.no_report:
        from converge.simulation.plots import NO_PLOTS, draw_comparison, plots_available

        figure = Path(args.out) / f"compare.{args.plots}"
        if not plots_available():
            sys.stderr.write(f"converge: note: {NO_PLOTS}\n")
        else:
            try:
                if draw_comparison(comparison, figure, args.plots):
                    print(printable(f"wrote {figure} (before and after)"))
            except OSError as exc:
                raise UserError(f"cannot write {figure}: {exc.strerror or exc}") from None
    return EXIT_FLAGGED if comparison.newly_flagged else 0


def cmd_balance(args: argparse.Namespace) -> int:
    criteria = _criteria(args)
    if args.value is not None or args.sweep is not None:
        from converge.cli.balance_modes import card_value, sweep

        return card_value(args, criteria) if args.value is not None else sweep(args, criteria)
    if args.compare is not None:
        return _compare(args, criteria)
    if args.summary is None:
        return _simulate(args, criteria)
    from rich.console import Console
    from rich.errors import MarkupError

    from converge.simulation.balance import check
    from converge.simulation.report import terminal_summary

    doc = read_json_file(args.summary, "summary.json")
    try:  # a summary from a user's file: any field of the wrong shape means it is not one of ours
        summary = _summary(doc)
        report = check(summary, criteria, args.strict_all)
        terminal_summary(summary, Console(highlight=False, file=io.StringIO()), report)  # a dry run first
    except (KeyError, TypeError, IndexError, AttributeError, ValueError, ArithmeticError, RecursionError,
            MarkupError):
        raise UserError(f"{args.summary} is not a summary.json written by converge simulate") from None
    terminal_summary(summary, Console(highlight=False), report)
    return EXIT_FLAGGED if not report.passed else 0


# ---------------------------------------------------------------------- parser


def _confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 0.95, got {text!r}") from None
    if not 0.5 <= value < 1:
        raise argparse.ArgumentTypeError(f"the confidence is at least 0.5 and below 1, got {text!r}")
    return value


def _points(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of points, e.g. 3, got {text!r}") from None
    if not 0 < value < 100:
        raise argparse.ArgumentTypeError(f"the margin must be above 0 and below 100 points, got {text}")
    return value


def _fraction_pair(text: str) -> str:
    from converge.simulation.balance import parse_band

    try:
        parse_band(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _options(p: argparse.ArgumentParser, matches: int, out: str) -> None:
    from converge.simulation.backends import BACKENDS
    from converge.simulation.jobs import DEFAULT_CHUNK
    from converge.simulation.plots import PLOT_FORMATS
    from converge.simulation.tables import FORMATS

    which = p.add_argument_group("which playsets (default: all of them, 84 with the built-in decks; with "
                                 "--deck-dir, those that hold your skillsets)")
    which.add_argument("--playset", type=playset_names, action="append", metavar="A,B,C",
                       help="a playset of three skillsets; may be repeated")
    which.add_argument("--set", action="append", choices=sorted(SETS),
                       help="one of the three published sets; may be repeated")
    which.add_argument("--all-playsets", action="store_true",
                       help="with --deck-dir: every playset, not only those that hold your skillsets")
    deck_dir_option(p)
    p.add_argument("--per-playset", dest="n", type=positive_int, default=matches, metavar="N",
                   help=f"matches per playset (default {matches})")
    p.add_argument("-n", "--matches", dest="n", type=positive_int, default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)  # the former names of --per-playset
    bot_choice(p, "--bot1", "greedy", "bot 1 (player 0 in even-numbered matches, player 1 in odd ones)")
    bot_choice(p, "--bot2", "greedy", "bot 2")
    p.add_argument("--seed", type=seed_int, default=1,
                   help="base seed: each match's seeds come from it, the playset and the match number (default 1)")
    run = p.add_argument_group("where it runs (the results are the same everywhere)")
    run.add_argument("--workers", type=positive_int, default=None,
                     help="worker processes (local) or tasks in parallel (ray); "
                          "default: all cores / the cluster's")
    run.add_argument("--backend", choices=BACKENDS, default="local",
                     help=f"local processes (default) or a Ray cluster ({install_command('ray')})")
    run.add_argument("--address", metavar="ADDR", default=None,
                     help="the Ray cluster, e.g. ray://head:10001 (default: start a local Ray instance)")
    run.add_argument("--chunk-size", type=positive_int, default=DEFAULT_CHUNK,
                     help=f"matches per task (default {DEFAULT_CHUNK})")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    outp = p.add_argument_group("output")
    outp.add_argument("--out", metavar="DIR", default=out, type=path_text, help=f"output folder (default {out})")
    outp.add_argument("--format", choices=FORMATS, default="auto",
                      help="the table of rounds: parquet (needs pyarrow) or csv; "
                           "auto: parquet if pyarrow is there")
    outp.add_argument("--plots", choices=PLOT_FORMATS, default="png", help="plot format (default png)")
    outp.add_argument("--no-report", action="store_true", help="no HTML report and no plots")


def register(sub: Subcommands) -> None:
    """Add ``simulate`` and ``balance`` to the ``converge`` command's subparsers."""
    p = add_command(sub, "simulate", epilog="It reports starting-holder win rates, skillsets, cards, goals, "
                                            "round and match lengths.")
    _options(p, 200, "converge-sim")
    p.set_defaults(func=cmd_simulate)

    p = add_command(sub, "balance",
                    epilog="It simulates (or reads a summary.json with --summary) and flags playsets whose "
                           "starting-holder win rate leaves its band, goals whose fulfilment rate does not match "
                           "their stars, and cards never or always worth playing — each only where its interval "
                           "clears the line (at --confidence for all the items judged together); a figure out "
                           "of band whose interval holds the line is listed as near it. With --deck-dir, a "
                           "verdict on your cards comes first and the exit code counts your cards, goals and "
                           "playsets alone (--strict-all: every deck's). Exit code: 0 nothing flagged, 1 "
                           "something flagged, 2 a usage error.")
    _options(p, 1000, "converge-balance")
    p.add_argument("--summary", metavar="FILE", default=None, type=path_text,
                   help="judge this summary.json of an earlier run instead of simulating")
    p.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), default=None, type=path_text,
                   help="compare two versions: two summary.json files, or two deck folders (each simulated "
                        "beside the built-in decks with these options, into OUT/old and OUT/new); every "
                        "judged figure's change with its interval, and what the new version fixed and broke "
                        "(exit 1 when it has a flag the old version had not)")
    p.add_argument("--sweep", metavar="CARD.PART.PARAM=VALUES", default=None,
                   help="play each value of one parameter of a card's goal or effect on the same playsets and "
                        "seeds (e.g. GAR6.goal.at_least=2..6, ALC3.effect.count=1,2): its goal's fulfilment rate, "
                        "or its round win rate after a play, against the value, which values fit the stars or the "
                        "band, sweep.json and a plot in --out (playsets: those that hold the card, unless given)")
    p.add_argument("--value", nargs="?", const="", default=None, metavar="CARD,CARD",
                   help="what holding each card is worth: the round win rate of the player dealt it against that "
                        "of the player dealt a plain stand-in (the same card with a goal no one fulfils and its "
                        "deck's plain keyword effect), on the same playsets and seeds; flags the useless and the "
                        "overpowered, value.json in --out (alone, with --deck-dir: every card of your decks)")
    p.add_argument("--strict-all", action="store_true",
                   help="with --deck-dir, count the published decks' flags in the exit code too (by default only "
                        "those of your decks count)")
    crit = p.add_argument_group("criteria")
    crit.add_argument("--holder-band", type=_fraction_pair, default="0.40,0.60", metavar="LO,HI",
                      help="fair starting-holder win rate of a playset (default 0.40,0.60)")
    crit.add_argument("--card-band", type=_fraction_pair, default="0.40,0.60", metavar="LO,HI",
                      help="fair round win rate after playing a card (default 0.40,0.60)")
    crit.add_argument("--star-cuts", type=_fraction_pair, default=f"{1 / 6:.4f},0.05", metavar="ONE,THREE",
                      help="goal fulfilment rates: at least ONE is a 1-star goal, below THREE a 3-star goal, "
                           "between them a 2-star goal (default 0.1667,0.05)")
    crit.add_argument("--min-rounds", type=positive_int, default=100,
                      help="rounds to judge a playset (default 100)")
    crit.add_argument("--min-plays", type=positive_int, default=200, help="plays to judge a card (default 200)")
    crit.add_argument("--min-samples", type=positive_int, default=1000,
                      help="player-ends of turn to judge a goal (default 1000)")
    crit.add_argument("--confidence", type=_confidence, default=0.95,
                      help="of the intervals, for all the items judged together (default 0.95)")
    crit.add_argument("--value-margin", type=_points, default=3.0, metavar="POINTS",
                      help="--value: a card worth less than this many points of round win rate over a plain one "
                           "is useless, one worth this many more than its deck's other cards overpowered "
                           "(default 3)")
    p.set_defaults(func=cmd_balance)


__all__ = ["register"]
