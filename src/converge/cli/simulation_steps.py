"""Steps the simulator's commands share (``simulate``, ``balance`` and its sweeps and values, ``calibrate``,
``stability``): the progress bar, the playsets asked for, the output folder."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from converge.cli.common import UserError
from converge.engine.playset import SETS, all_playsets, catalog_order

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from converge.cards.model import Deck
    from converge.simulation.summary_doc import Yours

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


def asked_playsets(args: argparse.Namespace, catalog: dict[str, Deck], mine: list[str]) -> list[list[str]] | None:
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


def your_focus(playsets: list[list[str]] | None, catalog: dict[str, Deck], mine: list[str]) -> Yours | None:
    """What the summary says of the user's decks: their skillsets, and how many of all the playsets ran."""
    if not mine:
        return None
    ran = len(all_playsets(catalog)) if playsets is None else len(playsets)
    return {"skillsets": [catalog[k].skillset for k in mine], "playsets": ran,
            "of_playsets": len(all_playsets(catalog))}


def out_dir(path: str) -> Path:
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
