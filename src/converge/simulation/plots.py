"""The plots of a simulation's report (matplotlib, PNG or SVG): the starting holder by playset, the goals,
the cards and their ways of playing, how rounds end, and two versions side by side. The user's skillsets
(``--deck-dir``) come first and in their own colour.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from converge import install_command
from converge.simulation.balance import Criteria, check
from converge.simulation.compare import Change, Comparison
from converge.simulation.stats import MODES
from converge.simulation.tables import have

if TYPE_CHECKING:
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    from converge.simulation.summary_doc import CardFigures, SkillsetFigures, Summary

PLOT_FORMATS = ("png", "svg")
NO_PLOTS = f"matplotlib is not installed, so the report has no plots ({install_command('sim')})"
#: The colour of the user's skillsets, playsets and cards in the plots.
YOURS_COLOUR = "#c51b7d"
#: The cards plot: inches per row and the labels' type size (60 rows stay readable).
ROW_INCHES, CARD_FONT = 0.22, 8
_MODE_COLOURS = {"discard": "#8c6bb1", "declare": "#e6a700", "mine": "#2b8cbe", "theirs": "#a6bddb"}
#: The starting-holder plot: a flagged playset, one out of the band but not flagged (near the line or too few
#: rounds to judge), the others.
FLAGGED_COLOUR, UNSURE_COLOUR, FAIR_COLOUR = "#d7301f", "#fdae61", "#2b8cbe"





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
        self.flagged = {(f.subject, f.figure) for f in judged.flags}

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
        errs = [[r - (p["holder_win_rate_ci95"] or [r, r])[0] for r, p in zip(rates, items, strict=True)],
                [(p["holder_win_rate_ci95"] or [r, r])[1] - r for r, p in zip(rates, items, strict=True)]]
        colours = [FLAGGED_COLOUR if (p["playset"], "holder_win_rate") in self.flagged
                   else UNSURE_COLOUR if not lo <= r <= hi else FAIR_COLOUR
                   for r, p in zip(rates, items, strict=True)]
        ax.errorbar(rates, ys, xerr=errs, fmt="none", ecolor="#bbb", lw=1, zorder=1)
        ax.scatter(rates, ys, c=colours, s=14, zorder=2)
        for colour, label in ((FLAGGED_COLOUR, "flagged: its interval clears the band"),
                              (UNSURE_COLOUR, "out of the band, not flagged: near the line or too few rounds")):
            if colour in colours:  # a legend entry for each kind of mark the plot has
                ax.scatter([], [], c=colour, s=14, label=label)
        ax.set_yticks(ys)
        ax.set_yticklabels([p["playset"] for p in items], fontsize=6 if n > 30 else 8)
        self._mark_yours(ax.get_yticklabels(), [bool(self.your_keys & set(p["skillsets"])) for p in items])
        ax.set_ylim(-1, n)
        ax.set_xlim(min(0.3, min(rates) - 0.05), max(0.7, max(rates) + 0.05))
        ax.set_xlabel("rounds won by the round's starting artifact holder (95% Wilson interval)")
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
        for mode in MODES:
            pts = [(c["win_rate"][mode], y) for c, y in cards if c["win_rate"][mode] is not None]
            ax2.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, color=_MODE_COLOURS[mode], label=mode)
        allr = [(c["all_win_rate"], y) for c, y in cards if c["all_win_rate"] is not None]
        ax2.scatter([p[0] for p in allr], [p[1] for p in allr], marker="|", s=110, color="black", label="any way")
        ax2.set_xlim(0.15, 0.85)
        ax2.set_xlabel("round win rate of the player after playing it")
        ax2.legend(fontsize=8, loc="lower right")
        ax2.set_title("Round win rate after each way of playing it")
        self._save(fig, "cards", "Cards: how they are played, and the round win rate after each")

    def goals(self) -> None:
        from matplotlib import pyplot as plt

        goals = [(g, rate) for g in self.summary["goals"] if (rate := g["fulfilment_rate"])]
        if not goals:
            return
        your_cards = {c["id"] for c in self.summary["cards"] if c["skillset"] in self.yours}
        fig, ax = plt.subplots(figsize=(9, 5.5))
        one, three = self.criteria.star_cuts
        colours = {1: "#2b8cbe", 2: "#e6a700", 3: "#d7301f"}
        for i, (g, rate) in enumerate(goals):
            x = g["stars"] + ((i * 37) % 11 - 5) * 0.04
            ok = self.criteria.stars_for(rate) == g["stars"]
            flagged = (g["id"], "fulfilment_rate") in self.flagged
            mine = g["id"] in your_cards
            # flagged: a black outline; out of its band but not flagged (near the line, or too few
            # ends of turn to judge): a grey one
            ax.scatter([x], [rate], color=colours.get(g["stars"], "#555"), s=22 if ok else 40,
                       marker="D" if mine else "o", zorder=2, linewidths=1.2,
                       edgecolors="none" if ok else "black" if flagged else "#aaa")
            if not ok or mine:
                ax.annotate(g["id"], (x, rate), fontsize=7, xytext=(4, 2),
                            textcoords="offset points", color=YOURS_COLOUR if mine else "black",
                            fontweight="bold" if mine else "normal")
        ax.axhline(one, color="#888", ls="--", lw=0.8)
        ax.axhline(three, color="#888", ls="--", lw=0.8)
        ax.text(3.45, one, f" 1★ above {one:.1%}", va="bottom", fontsize=7)
        ax.text(3.45, three, f" 3★ below {three:.1%}", va="top", fontsize=7)
        ax.set_yscale("log")
        ax.set_xticks([1, 2, 3])
        ax.set_xticklabels(["1 star", "2 stars", "3 stars"])
        ax.set_xlim(0.5, 4.1)
        ax.set_ylabel("fulfilment rate (per player, per end of turn; log scale)")
        ax.set_title("Goals: how often they are fulfilled, against their stars\n(outlined in black: flagged, "
                     "its interval clears the band; in grey: out of the band, not flagged"
                     + ("; diamonds, named in colour: yours)" if self.yours else ")"), fontsize=10)
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


def plots_available() -> bool:
    return have("matplotlib")


__all__ = ["NO_PLOTS", "PLOT_FORMATS", "Plots", "card_rows", "comparison_rows", "draw_comparison", "draw_plots",
           "plots_available", "your_skillsets"]
