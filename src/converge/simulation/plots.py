"""The plots of a simulation's report (matplotlib, PNG or SVG): the starting holder by playset, the goals,
the cards and their ways of playing, how rounds end, and two versions side by side. The user's skillsets
(``--deck-dir``) come first and in their own colour.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from converge import install_command
from converge.simulation.balance import FAIR, FLAGGED, NEAR, NOT_JUDGED, Criteria, Verdict, check
from converge.simulation.compare import Change, Comparison
from converge.simulation.stats import MODES
from converge.simulation.tables import have

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    from converge.simulation.summary_doc import CardFigures, SkillsetFigures, Summary
    from converge.simulation.sweep import Point, Sweep

PLOT_FORMATS = ("png", "svg")
NO_PLOTS = f"matplotlib is not installed, so the report has no plots ({install_command('sim')})"
#: The colour of the user's skillsets, playsets and cards in the plots.
YOURS_COLOUR = "#c51b7d"
#: The cards plot: inches per row and the labels' type size (60 rows stay readable).
ROW_INCHES, CARD_FONT = 0.22, 8
_MODE_COLOURS = {"discard": "#8c6bb1", "declare": "#e6a700", "mine": "#2b8cbe", "theirs": "#a6bddb"}
#: The starting-holder plot: a flagged playset, one out of the band but not flagged (near the line or too few
#: rounds to judge), the others.
FLAGGED_COLOUR, UNSURE_COLOUR, FAIR_COLOUR, NOT_JUDGED_COLOUR = "#d7301f", "#fdae61", "#2b8cbe", "#737373"
#: How a point is drawn by its verdict, the same in every plot: flagged, near the line, fair, not judged.
STATUS_LEGEND = {FLAGGED: "flagged: its interval clears the band", NEAR: "near the line: out of the band, its "
                 "interval holds the line", FAIR: "fair", NOT_JUDGED: "not judged: too few observations (hollow)"}





def _draw_to_files(fmt: str) -> None:
    """Check the plot format, and have matplotlib draw to files (there may be no display): before pyplot is
    imported."""
    if fmt not in PLOT_FORMATS:
        raise ValueError(f"unknown plot format {fmt!r} (known: {', '.join(PLOT_FORMATS)})")
    import matplotlib

    matplotlib.use("Agg")


def _image(fig: Figure, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes (no date or version in them: the same run gives the same bytes)."""
    from matplotlib import pyplot as plt

    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buf, format=fmt, dpi=110, bbox_inches="tight", metadata=meta)
    plt.close(fig)
    return buf.getvalue()


class Plots:
    """Draws the report's figures from a summary; each figure is saved to ``folder`` and kept as bytes."""

    def __init__(self, summary: Summary, fmt: str = "png", criteria: Criteria | None = None) -> None:
        _draw_to_files(fmt)
        self.summary = summary
        self.fmt = fmt
        self.criteria = criteria or Criteria()
        self.figures: dict[str, tuple[str, bytes]] = {}  # name -> (title, image bytes)
        self.yours = your_skillsets(summary)
        self.your_keys = {k["key"] for k in summary["skillsets"] if k["skillset"] in self.yours}
        # What the plots mark as out of line is what balance flags (the interval clears the line), never a
        # point estimate alone: a plot must not flag what the report calls near the line or not judged.
        judged = check(summary, self.criteria)
        self.verdicts: dict[tuple[str, str], Verdict] = {(v.subject, v.figure): v for v in judged.verdicts}

    def status(self, subject: str, figure: str) -> str:
        v = self.verdicts.get((subject, figure))
        return v.status if v is not None else NOT_JUDGED

    def errors(self, points: list[tuple[float, str, str]]) -> list[list[float]]:
        """The report's intervals (corrected for the figures judged together) of (rate, subject, figure) points,
        as matplotlib's errorbar takes them; none for a figure not judged."""
        lows, highs = [], []
        for rate, subject, figure in points:
            v = self.verdicts.get((subject, figure))
            lo, hi = v.interval if v is not None and v.interval is not None else (rate, rate)
            lows.append(rate - lo)
            highs.append(hi - rate)
        return [lows, highs]

    def _mark_yours(self, labels: Iterable[Text], yours: Iterable[bool]) -> None:
        """Set the user's tick labels in bold and the user's colour."""
        for label, mine in zip(labels, yours, strict=True):
            if mine:
                label.set_fontweight("bold")
                label.set_color(YOURS_COLOUR)

    def _save(self, fig: Figure, name: str, title: str) -> None:
        self.figures[name] = (title, _image(fig, self.fmt))

    def draw_all(self) -> dict[str, tuple[str, bytes]]:
        self.holder_by_playset()
        self.pair_heatmaps()
        self.cards()
        self.goals()
        self.lengths()
        self.ends()
        return self.figures

    def holder_by_playset(self) -> None:
        from matplotlib import pyplot as plt
        from matplotlib.transforms import offset_copy

        items = sorted(self.summary["playsets"], key=lambda p: p["holder_win_rate"] or 0.0)
        n = len(items)
        fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.16 * n + 1)))
        lo, hi = self.criteria.holder_band
        ax.axvspan(lo, hi, color="#e5f5e0", zorder=0, label=f"fair band {lo:.0%}-{hi:.0%}")
        ax.axvline(0.5, color="#999", lw=0.8)
        ys = list(range(n))
        rates = [p["holder_win_rate"] or 0.0 for p in items]
        errs = self.errors([(r, p["playset"], "holder_win_rate") for r, p in zip(rates, items, strict=True)])
        kinds = {FLAGGED: FLAGGED_COLOUR, NEAR: UNSURE_COLOUR, FAIR: FAIR_COLOUR, NOT_JUDGED: NOT_JUDGED_COLOUR}
        colours = [kinds[self.status(p["playset"], "holder_win_rate")] for p in items]
        ax.errorbar(rates, ys, xerr=errs, fmt="none", ecolor="#bbb", lw=1, zorder=1)
        ax.scatter(rates, ys, c=colours, s=14, zorder=2)
        for status in (FLAGGED, NEAR, NOT_JUDGED):
            colour, label = kinds[status], STATUS_LEGEND[status].removesuffix(" (hollow)")
            if colour in colours:  # a legend entry for each kind of mark the plot has
                ax.scatter([], [], c=colour, s=14, label=label)
        ax.set_yticks(ys)
        ax.set_yticklabels([p["playset"] for p in items], fontsize=6 if n > 30 else 8)
        self._mark_yours(ax.get_yticklabels(), [bool(self.your_keys & set(p["skillsets"])) for p in items])
        ax.set_ylim(-1, n)
        ax.set_xlim(min(0.3, min(rates) - 0.05), max(0.7, max(rates) + 0.05))
        ax.set_xlabel(f"rounds won by the round's starting artifact holder (Wilson interval at "
                      f"{self.criteria.confidence:.0%} for all the figures judged together, as the report's)")
        # half an inch below the axes, under the x label (the saved image grows to hold it): inside the
        # axes, it hid the lowest playsets
        below = offset_copy(ax.transAxes, fig=fig, y=-0.5, units="inches")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below, fontsize=7,
                  frameon=False, ncol=3)
        ax.set_title("Starting-holder win rate per playset"
                     + ("\n(in colour: the playsets that hold your skillsets)" if self.yours else ""))
        self._save(fig, "holder_by_playset", "Starting-holder win rate per playset")

    def pair_heatmaps(self) -> None:
        from matplotlib import pyplot as plt

        pairs = self.summary["pairs"]
        if len(pairs["skillsets"]) < 2:
            return
        order = sorted(range(len(pairs["skillsets"])), key=lambda i: pairs["skillsets"][i] not in self.yours)
        names = [pairs["skillsets"][i] for i in order]
        mine = [name in self.yours for name in names]
        fig, axes = plt.subplots(1, 2, figsize=(13, 5.6))
        panels: tuple[tuple[Literal["holder_win_rate", "play_win_rate"], str, str], ...] = (
            ("holder_win_rate", "Starting-holder win rate\n(playsets with both skillsets)", "RdBu_r"),
            ("play_win_rate", "Round win rate after playing a card of the row's skillset\n"
                              "(playsets that also hold the column's)", "PuOr_r"))
        for ax, (key, title, cmap) in zip(axes, panels, strict=True):
            values = [[pairs[key][i][j] for j in order] for i in order]
            grid = [[(v if v is not None else float("nan")) for v in row] for row in values]
            im = ax.imshow(grid, cmap=cmap, vmin=0.35, vmax=0.65)
            ax.set_xticks(range(len(names)))
            ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
            ax.set_yticks(range(len(names)))
            ax.set_yticklabels(names, fontsize=8)
            self._mark_yours(ax.get_xticklabels(), mine)
            self._mark_yours(ax.get_yticklabels(), mine)
            for i, row in enumerate(values):
                for j, v in enumerate(row):
                    if v is not None:
                        ax.text(j, i, f"{100 * v:.0f}", ha="center", va="center", fontsize=7)
            ax.set_title(title, fontsize=10)
            fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        self._save(fig, "skillset_pairs", "Skillsets and pairs of skillsets")

    def cards(self) -> None:
        from matplotlib import pyplot as plt
        from matplotlib.transforms import offset_copy

        rows = card_rows(self.summary)
        if not rows:
            return
        n = len(rows)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, ROW_INCHES * n + 1.4), sharey=True)
        ys = list(range(n))[::-1]
        cards = [(card, y) for (_, card, _), y in zip(rows, ys, strict=True) if card is not None]
        left = [0.0] * len(cards)
        for mode in MODES:
            vals = [c["play_rate"][mode] or 0.0 for c, _ in cards]
            ax1.barh([y for _, y in cards], vals, left=left, color=_MODE_COLOURS[mode], label=mode, height=0.75)
            left = [a + b for a, b in zip(left, vals, strict=True)]
        ax1.set_yticks(ys)
        ax1.set_yticklabels([label for label, _, _ in rows], fontsize=CARD_FONT)
        for tick, (_, card, mine) in zip(ax1.get_yticklabels(), rows, strict=True):
            if card is None:  # a skillset's heading
                tick.set_fontweight("bold")
            if mine:
                tick.set_color(YOURS_COLOUR)
        for ax in (ax1, ax2):
            for (_, card, _), y in zip(rows, ys, strict=True):
                if card is None:
                    ax.axhline(y, color="#ddd", lw=0.6, zorder=0)
            ax.set_ylim(-0.7, n - 0.3)
            ax.xaxis.set_ticks_position("both")
            ax.tick_params(axis="x", labeltop=True, labelsize=8)
        ax1.set_xlabel("plays per round of its playsets")
        ax1.legend(fontsize=8, loc="lower right")
        ax1.set_title("How each card is played")
        lo, hi = self.criteria.card_band
        ax2.axvspan(lo, hi, color="#e5f5e0", zorder=0)
        ax2.axvline(0.5, color="#999", lw=0.8)
        # Each way of playing a card a small dot of its colour beside the card's row, the card over all its
        # plays a black tick with its interval; each point drawn as its verdict says: flagged ringed in red,
        # near the line ringed in orange, not judged hollow (a point estimate alone is never a flag).
        offsets = {mode: (k - 1.5) * 0.14 for k, mode in enumerate(MODES)}
        for mode in MODES:
            pts = [(r, y + offsets[mode], c["id"], f"win_rate.{mode}") for c, y in cards
                   if (r := c["win_rate"][mode]) is not None]
            self._status_points(ax2, pts, _MODE_COLOURS[mode], "o", 12, mode)
        allr = [(r, y, c["id"], "all_win_rate") for c, y in cards if (r := c["all_win_rate"]) is not None]
        ax2.errorbar([p[0] for p in allr], [p[1] for p in allr],
                     xerr=self.errors([(p[0], p[2], p[3]) for p in allr]), fmt="none", ecolor="#444", lw=0.8,
                     zorder=2)
        self._status_points(ax2, allr, "black", "|", 110, "any way (with its interval)")
        for status, colour in ((FLAGGED, FLAGGED_COLOUR), (NEAR, UNSURE_COLOUR), (NOT_JUDGED, "#999")):
            ax2.scatter([], [], s=40, facecolors="none" if status == NOT_JUDGED else "white",
                        edgecolors=colour, linewidths=1.5, label=STATUS_LEGEND[status])
        ax2.set_xlim(0.15, 0.85)
        ax2.set_xlabel("round win rate of the player after playing it")
        # under the x label, outside the axes (inside, it hid the last skillset's points)
        below = offset_copy(ax2.transAxes, fig=fig, y=-0.45, units="inches")
        ax2.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below, ncol=2,
                   frameon=False)
        ax2.set_title("Round win rate after each way of playing it")
        self._save(fig, "cards", "Cards: how they are played, and the round win rate after each")

    def _status_points(self, ax: Axes, pts: Sequence[tuple[float, float, str, str]], colour: str, marker: str,
                       size: float, label: str) -> None:
        """(rate, y, subject, figure) points of one series, each drawn as its verdict says."""
        ax.scatter([], [], s=size, color=colour, marker=marker, label=label)  # the series' legend entry
        for status in (FAIR, NEAR, FLAGGED, NOT_JUDGED):
            group = [p for p in pts if self.status(p[2], p[3]) == status]
            if not group:
                continue
            xs, ys = [p[0] for p in group], [p[1] for p in group]
            if status == NOT_JUDGED:
                if marker == "|":
                    ax.scatter(xs, ys, s=size, color="#999", marker=marker, zorder=3)
                else:
                    ax.scatter(xs, ys, s=size, facecolors="none", edgecolors=colour, linewidths=0.8, zorder=3)
                continue
            ax.scatter(xs, ys, s=size, color=colour, marker=marker, zorder=3)
            if status != FAIR:
                ax.scatter(xs, ys, s=max(size, 40), facecolors="none", linewidths=1.5, zorder=4,
                           edgecolors=FLAGGED_COLOUR if status == FLAGGED else UNSURE_COLOUR)

    def goals(self) -> None:
        from matplotlib import pyplot as plt

        goals = [(g, rate) for g in self.summary["goals"] if (rate := g["fulfilment_rate"])]
        if not goals:
            return
        your_cards = {c["id"] for c in self.summary["cards"] if c["skillset"] in self.yours}
        fig, ax = plt.subplots(figsize=(9, 5.5))
        one, three = self.criteria.star_cuts
        colours = {1: "#2b8cbe", 2: "#e6a700", 3: "#6a51a3"}  # (red is kept for the flags' rings)
        for i, (g, rate) in enumerate(goals):
            x = g["stars"] + ((i * 37) % 11 - 5) * 0.04
            status = self.status(g["id"], "fulfilment_rate")
            mine = g["id"] in your_cards
            colour = colours.get(g["stars"], "#555")
            if status != NOT_JUDGED:  # its interval, as the report's (none for a goal not judged)
                ax.errorbar([x], [rate], yerr=self.errors([(rate, g["id"], "fulfilment_rate")]), fmt="none",
                            ecolor=colour, lw=0.8, zorder=1)
            ax.scatter([x], [rate], s=22 if status == FAIR else 40, marker="D" if mine else "o", zorder=2,
                       linewidths=1.5, facecolors="none" if status == NOT_JUDGED else colour,
                       edgecolors={FLAGGED: FLAGGED_COLOUR, NEAR: UNSURE_COLOUR}.get(status, colour))
            if status != FAIR or mine:
                ax.annotate(g["id"], (x, rate), fontsize=7, xytext=(4, 2),
                            textcoords="offset points", color=YOURS_COLOUR if mine else "black",
                            fontweight="bold" if mine else "normal")
        for status, edge in ((FLAGGED, FLAGGED_COLOUR), (NEAR, UNSURE_COLOUR), (NOT_JUDGED, "#555")):
            ax.scatter([], [], s=40, facecolors="none" if status == NOT_JUDGED else "#ccc", edgecolors=edge,
                       linewidths=1.5, label=STATUS_LEGEND[status])
        ax.legend(fontsize=7, loc="lower right")
        ax.axhline(one, color="#888", ls="--", lw=0.8)
        ax.axhline(three, color="#888", ls="--", lw=0.8)
        ax.text(3.45, one, f" 1★ above {one:.1%}", va="bottom", fontsize=7)
        ax.text(3.45, three, f" 3★ below {three:.1%}", va="top", fontsize=7)
        ax.set_yscale("log")
        ax.set_xticks([1, 2, 3])
        ax.set_xticklabels(["1 star", "2 stars", "3 stars"])
        ax.set_xlim(0.5, 4.1)
        ax.set_ylabel("fulfilment rate (per player, per end of turn; log scale)")
        ax.set_title("Goals: how often they are fulfilled, against their stars, with the report's intervals"
                     + ("\n(diamonds, named in colour: yours)" if self.yours else ""), fontsize=10)
        self._save(fig, "goals", "Goals: fulfilment rate against stars")

    def lengths(self) -> None:
        from matplotlib import pyplot as plt

        o = self.summary["overall"]
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
        panels: tuple[tuple[Literal["round_turns", "match_rounds", "match_turns"], str, str], ...] = (
            ("round_turns", "Round length (turns)", "#2b8cbe"),
            ("match_rounds", "Match length (rounds)", "#8c6bb1"),
            ("match_turns", "Match length (turns)", "#41ab5d"))
        for ax, (key, title, colour) in zip(axes, panels, strict=True):
            hist = {int(k): v for k, v in o[key].items()}
            total = sum(hist.values()) or 1
            xs = sorted(hist)
            ax.bar(xs, [hist[x] / total for x in xs], color=colour, width=0.8)
            ax.set_title(title, fontsize=10)
            ax.set_ylabel("share")
            if key == "match_rounds":
                ax.set_xticks(xs)
        self._save(fig, "lengths", "Round and match lengths")

    def ends(self) -> None:
        from matplotlib import pyplot as plt

        playsets = self.summary["playsets"]
        labels, t6, t8 = ["all"], [self.summary["overall"]["end_shares"]["outscored"] or 0.0], \
            [self.summary["overall"]["end_shares"]["hands_empty"] or 0.0]
        for s in yours_first(self.summary):
            items = [p for p in playsets if s["key"] in p["skillsets"]]
            rounds = sum(p["rounds"] for p in items) or 1
            labels.append(s["skillset"])
            t6.append(sum(p["ends"]["outscored"] for p in items) / rounds)
            t8.append(sum(p["ends"]["hands_empty"] for p in items) / rounds)
        fig, ax = plt.subplots(figsize=(9, 3.8))
        xs = list(range(len(labels)))
        ax.bar(xs, t6, color="#2b8cbe", label="the lead outscores (T6)")
        ax.bar(xs, t8, bottom=t6, color="#fdae6b", label="hands run out (T8)")
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        self._mark_yours(ax.get_xticklabels(), [label in self.yours for label in labels])
        ax.set_ylabel("share of rounds")
        ax.set_ylim(0, 1.18)
        ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
        ax.legend(fontsize=8, loc="upper center", ncol=2, frameon=False)
        ax.set_title("How rounds end (all playsets, then the playsets with each skillset)", fontsize=10)
        self._save(fig, "ends", "How rounds end")


def draw_plots(summary: Summary, folder: Path | None, fmt: str = "png",
               criteria: Criteria | None = None) -> dict[str, tuple[str, bytes]]:
    """Draw every plot; save them in ``folder`` (when given) as ``NAME.png`` / ``NAME.svg``."""
    figures = Plots(summary, fmt, criteria).draw_all()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for name, (_, data) in figures.items():
            (folder / f"{name}.{fmt}").write_bytes(data)
    return figures


#: The most figures the before-and-after plot shows (the changed cards' first, then the largest changes).
COMPARE_ROWS = 40


def comparison_rows(comparison: Comparison) -> list[Change]:
    """The figures the before-and-after plot shows: those of the cards whose text changed, then the other
    clear changes, largest first, up to ``COMPARE_ROWS``."""
    theirs = comparison.changed_subjects()
    own = [c for c in comparison.changes if c.subject in theirs]
    clear = sorted((c for c in comparison.changes if c.clear and c.subject not in theirs),
                   key=lambda c: -abs(c.new - c.old))
    return (own + clear)[:COMPARE_ROWS]


def draw_comparison(comparison: Comparison, path: Path, fmt: str = "png") -> bool:
    """Draw two versions side by side into ``path``: each figure's old and new value, and the change with
    its 95% interval. Returns False (and writes nothing) when there is nothing to show."""
    rows = comparison_rows(comparison)
    if not rows:
        return False
    _draw_to_files(fmt)
    from matplotlib import pyplot as plt

    n = len(rows)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, ROW_INCHES * n + 1.6), sharey=True,
                                   gridspec_kw={"width_ratios": [3, 2]})
    ys = list(range(n))[::-1]
    theirs = comparison.changed_subjects()
    for c, y in zip(rows, ys, strict=True):
        colour = "#d7301f" if c.clear else "#777"
        ax1.annotate("", (c.new, y), (c.old, y), arrowprops={"arrowstyle": "->", "color": colour, "lw": 1})
        ax1.scatter([c.old], [y], s=22, facecolors="white", edgecolors="#555", zorder=3)
        ax1.scatter([c.new], [y], s=22, color=colour, zorder=3)
        lo, hi = c.interval
        ax2.plot([100 * lo, 100 * hi], [y, y], color=colour, lw=2, solid_capstyle="butt")
        ax2.scatter([100 * (c.new - c.old)], [y], s=16, color="black", zorder=3)
    ax1.set_yticks(ys)
    ax1.set_yticklabels([f"{c.subject}: {c.figure}" for c in rows], fontsize=CARD_FONT)
    for tick, c in zip(ax1.get_yticklabels(), rows, strict=True):
        if c.subject in theirs:
            tick.set_fontweight("bold")
            tick.set_color(YOURS_COLOUR)
    ax1.set_xlim(0, 1)
    ax1.set_xlabel("rate: old (hollow) to new (filled)")
    ax1.set_title("Before and after (in colour: the cards whose text changed; red: a clear change)", fontsize=10)
    ax2.axvline(0, color="#999", lw=0.8)
    ax2.set_xlabel(f"change in points, with its interval ({100 * comparison.confidence:g}% for all "
                   f"{len(comparison.changes)} figures together)")
    ax2.set_title("The change", fontsize=10)
    for ax in (ax1, ax2):
        ax.set_ylim(-0.7, n - 0.3)
        ax.grid(axis="x", color="#eee")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_image(fig, fmt))
    return True



def your_skillsets(summary: Summary) -> set[str]:
    """The names of the user's skillsets in a run with ``--deck-dir`` (empty for the built-in decks alone)."""
    return set(summary["settings"].get("yours", {}).get("skillsets", ()))


def card_rows(summary: Summary) -> list[tuple[str, CardFigures | None, bool]]:
    """The rows of the cards plot, top to bottom: each skillset's heading (card None), then its cards;
    the user's skillsets first. Each row is (label, card, the user's)."""
    yours = your_skillsets(summary)
    rows: list[tuple[str, CardFigures | None, bool]] = []
    for deck in yours_first(summary):
        name = deck["skillset"]
        cards = [c for c in summary["cards"] if c["skillset"] == name]
        if not cards:
            continue
        mine = name in yours
        rows.append((f"{name} (yours)" if mine else name, None, mine))
        rows += [(f"{c['id']} {'★' * c['stars']}", c, mine) for c in cards]
    return rows


def yours_first(summary: Summary) -> list[SkillsetFigures]:
    mine = your_skillsets(summary)
    return sorted(summary["skillsets"], key=lambda k: k["skillset"] not in mine)


def draw_sweep(sweep: Sweep, points: Sequence[Point], criteria: Criteria, fmt: str = "png") -> bytes:
    """A sweep's figure against the value (``converge balance --sweep``), each with its interval; the star
    bands (a goal) or the card band (an effect) shaded, and each value drawn as its verdict."""
    from converge.simulation.sweep import FITS, NOT_JUDGED, OUT, PARTS
    from converge.simulation.sweep import NEAR as SWEEP_NEAR

    _draw_to_files(fmt)
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    numeric = all(isinstance(p.value, int) and not isinstance(p.value, bool) for p in points)
    xs = [float(p.value) if numeric and isinstance(p.value, int) else float(i) for i, p in enumerate(points)]
    top = min(1.0, 1.15 * max([p.interval[1] if p.interval else (p.rate or 0.0) for p in points] + [0.2]))
    if sweep.part == "goal":
        one, three = criteria.star_cuts
        for lo, hi, label, shade in ((one, 1.0, "1★", "#deebf7"), (three, one, "2★", "#fff7bc"),
                                     (0.0, three, "3★", "#efedf5")):
            ax.axhspan(lo, hi, color=shade, zorder=0)
            if lo < top:
                ax.text(1.01, (lo + min(hi, top)) / 2, label, transform=ax.get_yaxis_transform(), fontsize=8,
                        va="center")
    else:
        ax.axhspan(*criteria.card_band, color="#e5f5e0", zorder=0)
    colours = {FITS: FAIR_COLOUR, SWEEP_NEAR: UNSURE_COLOUR, OUT: FLAGGED_COLOUR, NOT_JUDGED: NOT_JUDGED_COLOUR}
    for x, p in zip(xs, points, strict=True):
        if p.rate is None:
            continue
        if p.interval is not None:
            ax.errorbar([x], [p.rate], yerr=[[p.rate - p.interval[0]], [p.interval[1] - p.rate]], fmt="none",
                        ecolor="#555", lw=1, zorder=1)
        ax.scatter([x], [p.rate], s=36, zorder=2, edgecolors=colours[p.verdict],
                   facecolors="none" if p.verdict == NOT_JUDGED else colours[p.verdict])
    for verdict, colour in colours.items():
        if any(p.verdict == verdict for p in points):
            ax.scatter([], [], s=36, color=colour, label=f"{verdict} its band" if verdict in (FITS, OUT)
                       else verdict)
    ax.set_xticks(xs)
    ax.set_xticklabels([str(p.value) for p in points])
    ax.set_xlabel(sweep.name)
    ax.set_ylabel(PARTS[sweep.part])
    ax.set_ylim(0, top)
    ax.legend(fontsize=8, loc="best")
    bands = "shaded: the rate each number of stars calls for" if sweep.part == "goal" else "shaded: the card band"
    ax.set_title(f"{sweep.name}: each value played on the same seeds, should be {points[0].band_text}\n"
                 f"({criteria.confidence:.0%} intervals for the {len(points)} values together; {bands})",
                 fontsize=9)
    return _image(fig, fmt)


def plots_available() -> bool:
    return have("matplotlib")


__all__ = ["NO_PLOTS", "PLOT_FORMATS", "Plots", "card_rows", "comparison_rows", "draw_comparison", "draw_plots",
           "draw_sweep", "plots_available", "your_skillsets"]
