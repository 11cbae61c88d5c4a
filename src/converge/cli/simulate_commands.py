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
import time
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
from converge.engine.playset import SETS, all_playsets, catalog_order

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from converge.cards.model import Deck
    from converge.simulation.balance import Criteria
    from converge.simulation.jobs import SimulationSpec
    from converge.simulation.summary_doc import Summary, Yours

EXIT_FLAGGED = 1


class ProgressBar:
    """Matches done, rate and ETA on stderr: a live bar on a terminal, a line every 10% otherwise."""

    def __init__(self, enabled: bool, label: str = "simulating") -> None:
        self.enabled = enabled
        self.label = label
        self._live = enabled and sys.stderr.isatty()
        self._bar: tuple[Progress, TaskID] | None = None  # (the live bar, once started)
        self._next = 0.1
        self._begin = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._live:
            if self._bar is None:
                self._bar = self._start(total)
            progress, task = self._bar
            progress.update(task, completed=done)
            return
        if done == 0:
            self._begin = time.perf_counter()
            sys.stderr.write(f"{self.label}: {total:,} matches\n")
            return
        if done >= total or done / total >= self._next:
            while self._next <= done / total:
                self._next += 0.1
            spent = time.perf_counter() - self._begin
            speed = done / spent if spent > 0 else 0.0
            eta = (total - done) / speed if speed > 0 else 0.0
            sys.stderr.write(f"{self.label}: {done:,}/{total:,} matches ({done / total:.0%}), "
                             f"{per_second(speed)} matches/s, "
                             f"ETA {int(eta) // 60}:{int(eta) % 60:02d}\n")

    def _start(self, total: int) -> tuple[Progress, TaskID]:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            ProgressColumn,
            Task,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.text import Text

        def rate(task: Task) -> float:  # the mean since the start: steadier than a recent window
            return float(task.completed / task.elapsed) if task.completed and task.elapsed else 0.0

        class Rate(ProgressColumn):
            def render(self, task: Task) -> Text:
                speed = rate(task)
                return Text(f"{per_second(speed)} matches/s" if speed else "– matches/s", style="cyan")

        class Eta(ProgressColumn):
            def render(self, task: Task) -> Text:
                speed = rate(task)
                if not speed or task.total is None:  # (the bar's task always has its total)
                    return Text("ETA -:--", style="yellow")
                left = int((task.total - task.completed) / speed)
                return Text(f"ETA {left // 60}:{left % 60:02d}", style="yellow")

        progress = Progress(TextColumn(self.label), BarColumn(), MofNCompleteColumn(), Rate(),
                            TimeElapsedColumn(), Eta(), console=Console(stderr=True), transient=False)
        progress.start()
        return progress, progress.add_task(self.label, total=total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar[0].stop()
            self._bar = None


def per_second(rate: float) -> str:
    """A rate as people read it: whole numbers from 10 on, two significant digits below (strong bots play
    well under one match a second).

    >>> per_second(1234.5), per_second(3.14159), per_second(0.0213)
    ('1,234', '3.1', '0.021')
    """
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"


# ---------------------------------------------------------------------- shared steps


def user_skillsets(catalog: dict[str, Deck]) -> list[str]:
    """The skillsets of the catalogue that are not built in (those of ``--deck-dir``), in catalogue order."""
    from converge.cards.loader import load_catalog

    builtin = load_catalog()
    return [k for k in catalog_order(catalog) if k not in builtin]


def _playsets(args: argparse.Namespace, catalog: dict[str, Deck], mine: list[str]) -> list[list[str]] | None:
    """The playsets asked for: every ``--playset`` and every ``--set``; when neither, those that hold one of
    the user's skillsets (``--deck-dir``), or None (all of them) with ``--all-playsets`` or no user deck."""
    chosen: list[list[str]] = [list(p) for p in args.playset or []]
    chosen += [list(SETS[s]) for s in args.set or []]
    for names in chosen:
        unknown = [n for n in names if n not in catalog]
        if unknown:
            raise UserError(f"unknown skillset {unknown[0]!r} (known: {', '.join(catalog_order(catalog))})")
    if chosen or args.all_playsets or not mine:
        return chosen or None
    return [list(names) for names in all_playsets(catalog) if set(mine) & set(names)]


def _focus(playsets: list[list[str]] | None, catalog: dict[str, Deck], mine: list[str]) -> Yours | None:
    """What the summary says of the user's decks: their skillsets, and how many of all the playsets ran."""
    if not mine:
        return None
    ran = len(all_playsets(catalog)) if playsets is None else len(playsets)
    return {"skillsets": [catalog[k].skillset for k in mine], "playsets": ran,
            "of_playsets": len(all_playsets(catalog))}


def _out_dir(path: str) -> Path:
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{path} exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".converge-write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
        # what an earlier run left here would no longer match this run's results
        stale = [folder / n for n in ("rounds.parquet", "rounds.csv", "summary.json", "report.html")]
        plots = folder / "plots"
        if plots.is_dir():
            stale += [f for f in plots.iterdir() if f.suffix in (".png", ".svg")]
        for f in stale:
            if f.is_file():
                f.unlink()
    except OSError as exc:
        raise UserError(f"cannot write in {path}: {exc.strerror or exc}") from None
    return folder


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
    playsets = _playsets(args, catalog, mine)
    focus = _focus(playsets, catalog, mine)
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
    folder = _out_dir(args.out)
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


def _run(args: argparse.Namespace, spec: SimulationSpec, label: str) -> Summary:
    """One simulation of a sweep or a value check, with its progress bar; its summary."""
    from converge.simulation.backends import BackendError
    from converge.simulation.simulate import simulate
    from converge.simulation.summary import summarize

    bar = ProgressBar(not args.no_progress, label)
    try:
        result = simulate(spec, args.backend, args.workers, args.address, args.chunk_size, None, bar)
    except BackendError as exc:
        raise UserError(str(exc)) from None
    finally:
        bar.close()
    return summarize(spec, result.tallies)


def _sweep(args: argparse.Namespace, criteria: Criteria) -> int:
    """``balance --sweep``: each value of one card's parameter played on the same playsets and seeds; the
    figure it moves against the value, a table in the terminal, sweep.json and the plot in ``--out``."""
    from dataclasses import replace

    from rich.console import Console
    from rich.table import Table

    from converge.cards.loader import DeckError
    from converge.simulation.jobs import SimulationSpec, catalog_of
    from converge.simulation.sweep import PARTS, parse_sweep, point, sweep_doc, with_value

    if args.summary is not None or args.compare is not None:
        raise UserError("--sweep plays its own simulations: leave out --summary and --compare")
    try:
        sweep = parse_sweep(args.sweep)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    catalog = user_catalog(args.deck_dir)
    owner = next((k for k, deck in catalog.items() for c in deck.cards if c.id == sweep.card), None)
    if owner is None:
        ids = [c.id for k in catalog_order(catalog) for c in catalog[k].cards]
        raise UserError(f"--sweep: no card {sweep.card!r} in the decks (cards: {ids[0]}...{ids[-1]}; "
                        "`converge cards` lists them)")
    chosen = _playsets(args, catalog, [owner])
    try:
        base = SimulationSpec.build(chosen, args.n, args.bot1, args.bot2, args.seed, args.deck_dir)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not any(owner in names for names in base.playsets):
        raise UserError(f"--sweep: {sweep.card} is a card of {catalog[owner].skillset}, which none of the "
                        "playsets asked for holds (leave out --playset and --set to play those that hold it)")
    specs = []
    for value in sweep.values:  # every value checked as a deck file is, before anything is played
        try:
            sources = with_value(base.sources, sweep, value)
            catalog_of(sources)
        except (ValueError, DeckError) as exc:
            raise UserError(f"--sweep {sweep.name}={value}: {exc}") from None
        specs.append(replace(base, sources=sources))
    folder = _out_dir(args.out)
    sys.stderr.write(f"converge: sweep of {sweep.name} over {len(specs)} values, {len(base.playsets)} playset"
                     f"{'s' if len(base.playsets) != 1 else ''} × {args.n} matches each, the same seeds\n")
    points = [point(_run(args, spec, f"{sweep.name}={value}"), sweep, value, criteria, len(specs))
              for value, spec in zip(sweep.values, specs, strict=True)]
    settings = {"bots": [base.bot1, base.bot2], "matches_per_playset": args.n, "seed": args.seed,
                "playsets": ["/".join(p) for p in base.playsets], "confidence": criteria.confidence}
    (folder / "sweep.json").write_text(json.dumps(sweep_doc(sweep, points, settings), indent=1) + "\n",
                                       encoding="utf-8")
    console = Console(highlight=False)
    t = Table(title=f"{sweep.name}: the {PARTS[sweep.part]} by value ({criteria.confidence:.0%} intervals for "
                    f"the {len(points)} values together)", title_justify="left")
    for col in ("value", "rate", "interval", "observations", "should be", "verdict"):
        t.add_column(col, justify="left" if col in ("should be", "verdict") else "right")
    for p in points:
        verdict = p.verdict + (f" (plays like {p.plays_like}★)" if p.plays_like and p.verdict != "fits" else "")
        t.add_row(str(p.value), "–" if p.rate is None else f"{100 * p.rate:.1f}%",
                  "–" if p.interval is None else f"{100 * p.interval[0]:.1f}-{100 * p.interval[1]:.1f}%",
                  f"{p.observations:,}", p.band_text, verdict)
    console.print(t)
    fitting = [str(p.value) for p in points if p.verdict == "fits"]
    console.print(f"values that fit: {', '.join(fitting) if fitting else 'none'}", highlight=False, markup=False)
    written = [str(folder / "sweep.json")]
    if not args.no_report:
        from converge.simulation.plots import NO_PLOTS, draw_sweep, plots_available

        if plots_available():
            (folder / f"sweep.{args.plots}").write_bytes(draw_sweep(sweep, points, criteria, args.plots))
            written.append(str(folder / f"sweep.{args.plots}"))
        else:
            sys.stderr.write(f"converge: note: {NO_PLOTS}\n")
    console.print(f"wrote {', '.join(written)}", highlight=False, markup=False)
    return 0


def _value_cards(args: argparse.Namespace, catalog: dict[str, Deck], mine: list[str]) -> list[str]:
    """The cards ``--value`` names (``--value`` alone: every card of the user's decks), each checked."""
    if not args.value.strip():
        if not mine:
            raise UserError("--value alone measures the cards of your decks (--deck-dir DIR); without them, "
                            "name the cards, e.g. --value ALC2,ALC5")
        return [c.id for k in mine for c in catalog[k].cards]
    ids = [c.id for k in catalog_order(catalog) for c in catalog[k].cards]
    cards: list[str] = []
    for card in (x.strip() for x in args.value.split(",")):
        if card not in ids:
            raise UserError(f"--value: no card {card!r} in the decks (cards: {ids[0]}...{ids[-1]}; "
                            "`converge cards` lists them)")
        if card not in cards:
            cards.append(card)
    return cards


def _value(args: argparse.Namespace, criteria: Criteria) -> int:
    """``balance --value``: each card against a plain stand-in on the same playsets and seeds; what holding it
    is worth, a table in the terminal and value.json in ``--out`` (see :mod:`converge.simulation.value`)."""
    from dataclasses import replace

    from rich.console import Console
    from rich.table import Table

    from converge.cards.loader import DeckError
    from converge.simulation.jobs import SimulationSpec, catalog_of
    from converge.simulation.value import FAIR, card_values, stand_in, value_doc

    if args.summary is not None or args.compare is not None or args.sweep is not None:
        raise UserError("--value plays its own simulations: leave out --summary, --compare and --sweep")
    catalog = user_catalog(args.deck_dir)
    cards = _value_cards(args, catalog, user_skillsets(catalog))
    owner = {c.id: k for k, deck in catalog.items() for c in deck.cards}
    decks = [k for k in catalog_order(catalog) if k in {owner[c] for c in cards}]
    try:
        base = SimulationSpec.build(_playsets(args, catalog, decks), args.n, args.bot1, args.bot2, args.seed,
                                    args.deck_dir)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    missing = [c for c in cards if not any(owner[c] in names for names in base.playsets)]
    if missing:
        raise UserError(f"--value: {missing[0]} is a card of {catalog[owner[missing[0]]].skillset}, which none of "
                        "the playsets asked for holds (leave out --playset and --set to play those that hold it)")
    specs = {}
    for card in cards:  # every stand-in checked as a deck file is, before anything is played
        try:
            sources = stand_in(base.sources, card)
            catalog_of(sources)
        except (ValueError, DeckError) as exc:
            raise UserError(f"--value {card}: its stand-in is not a valid card: {exc}") from None
        specs[card] = replace(base, sources=sources)
    folder = _out_dir(args.out)
    sys.stderr.write(f"converge: the value of {len(cards)} card{'s' if len(cards) != 1 else ''}: the decks as "
                     f"printed, then each card's stand-in, {len(base.playsets)} playset"
                     f"{'s' if len(base.playsets) != 1 else ''} × {args.n} matches each, the same seeds\n")
    printed = _run(args, base, "as printed")
    values = card_values(printed, {card: _run(args, spec, f"{card} plain") for card, spec in specs.items()},
                         criteria)
    settings = {"bots": [base.bot1, base.bot2], "matches_per_playset": args.n, "seed": args.seed,
                "playsets": ["/".join(p) for p in base.playsets], "confidence": criteria.confidence,
                "margin": criteria.value_margin, "min_rounds_dealt": criteria.min_plays}
    (folder / "value.json").write_text(json.dumps(value_doc(values, settings), indent=1) + "\n", encoding="utf-8")
    console = Console(highlight=False)
    t = Table(title=f"What holding each card is worth against a plain card of its deck ({criteria.confidence:.0%} "
                    f"intervals for the {len(values)} cards together; bots {base.bot1} and {base.bot2})",
              title_justify="left")
    for col in ("card", "won when\ndealt it", "won with\na plain", "value", "interval", "above\ndeck", "verdict"):
        t.add_column(col, justify="left" if col in ("card", "verdict") else "right", no_wrap=True)

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}%"

    def pts(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:+.1f}"

    for v in values:
        interval = "–" if v.interval is None else f"{pts(v.interval[0])}..{pts(v.interval[1])}"
        t.add_row(v.card, pct(v.rate), pct(v.rate_plain), pts(v.value), interval, pts(v.above_deck),
                  v.verdict.upper() if v.flagged else v.verdict)
    console.print(t)
    console.print(f"value: the round win rate of the player dealt the card minus that of the player dealt its "
                  f"stand-in, in points; rounds dealt: {min(min(v.dealt, v.dealt_plain) for v in values):,} or "
                  "more each", highlight=False, markup=False)
    for v in values:
        if v.verdict != FAIR:
            console.print(f"{v.card}: {v.verdict}: {v.reason(criteria)}", highlight=False, markup=False)
    flagged = [v for v in values if v.flagged]
    console.print(f"flagged: {', '.join(f'{v.card} ({v.verdict})' for v in flagged) if flagged else 'none'}",
                  highlight=False, markup=False)
    console.print(f"wrote {folder / 'value.json'}", highlight=False, markup=False)
    return EXIT_FLAGGED if flagged else 0


def cmd_balance(args: argparse.Namespace) -> int:
    criteria = _criteria(args)
    if args.value is not None:
        return _value(args, criteria)
    if args.sweep is not None:
        return _sweep(args, criteria)
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
