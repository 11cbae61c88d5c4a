"""The report of a simulation: plots (matplotlib, PNG or SVG), one self-contained HTML page, and a
terminal summary.

The HTML page embeds its plots (PNG as data URIs, SVG inline) and its styles, so it can be mailed or
archived as one file; the plot files are also written next to it. Without matplotlib the page has the
tables and no plots, and says how to get them.
"""

from __future__ import annotations

import base64
import html
import importlib
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from converge import install_command
from converge.simulation.balance import BalanceReport, Criteria, check
from converge.simulation.compare import Change, Comparison
from converge.simulation.stats import MODES
from converge.simulation.tables import have

#: How many items the terminal names as not judged (the report and summary.json name them all).
NOT_JUDGED_SHOWN = 10

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


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


# ---------------------------------------------------------------------- plots


def _pyplot(fmt: str) -> Any:
    """matplotlib's pyplot, drawing to files (there may be no display)."""
    if fmt not in PLOT_FORMATS:
        raise ValueError(f"unknown plot format {fmt!r} (known: {', '.join(PLOT_FORMATS)})")
    matplotlib: Any = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    return importlib.import_module("matplotlib.pyplot")


def _image(plt: Any, fig: Any, fmt: str) -> bytes:
    """The figure as PNG or SVG bytes (no date or version in them: the same run gives the same bytes)."""
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buf, format=fmt, dpi=110, bbox_inches="tight", metadata=meta)
    plt.close(fig)
    return buf.getvalue()


class Plots:
    """Draws the report's figures from a summary; each figure is saved to ``folder`` and kept as bytes."""

    def __init__(self, summary: Mapping[str, Any], fmt: str = "png", criteria: Criteria | None = None) -> None:
        self.plt: Any = _pyplot(fmt)
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

    def _mark_yours(self, labels: Any, yours: Sequence[bool]) -> None:
        """Set the user's tick labels in bold and the user's colour."""
        for label, mine in zip(labels, yours, strict=True):
            if mine:
                label.set_fontweight("bold")
                label.set_color(YOURS_COLOUR)

    def _save(self, fig: Any, name: str, title: str) -> None:
        self.figures[name] = (title, _image(self.plt, fig, self.fmt))

    def draw_all(self) -> dict[str, tuple[str, bytes]]:
        self.holder_by_playset()
        self.pair_heatmaps()
        self.cards()
        self.goals()
        self.lengths()
        self.ends()
        return self.figures

    def holder_by_playset(self) -> None:
        plt = self.plt
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
        below = importlib.import_module("matplotlib.transforms").offset_copy(ax.transAxes, fig=fig, y=-0.5,
                                                                              units="inches")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below, fontsize=7,
                  frameon=False, ncol=3)
        ax.set_title("Starting-holder win rate per playset"
                     + ("\n(in colour: the playsets that hold your skillsets)" if self.yours else ""))
        self._save(fig, "holder_by_playset", "Starting-holder win rate per playset")

    def pair_heatmaps(self) -> None:
        plt = self.plt
        pairs = self.summary["pairs"]
        if len(pairs["skillsets"]) < 2:
            return
        order = sorted(range(len(pairs["skillsets"])), key=lambda i: pairs["skillsets"][i] not in self.yours)
        names = [pairs["skillsets"][i] for i in order]
        mine = [name in self.yours for name in names]
        fig, axes = plt.subplots(1, 2, figsize=(13, 5.6))
        panels = (("holder_win_rate", "Starting-holder win rate\n(playsets with both skillsets)", "RdBu_r"),
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
        plt = self.plt
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
        plt = self.plt
        goals = [g for g in self.summary["goals"] if g["fulfilment_rate"]]
        if not goals:
            return
        your_cards = {c["id"] for c in self.summary["cards"] if c["skillset"] in self.yours}
        fig, ax = plt.subplots(figsize=(9, 5.5))
        one, three = self.criteria.star_cuts
        colours = {1: "#2b8cbe", 2: "#e6a700", 3: "#d7301f"}
        for i, g in enumerate(goals):
            x = g["stars"] + ((i * 37) % 11 - 5) * 0.04
            ok = self.criteria.stars_for(g["fulfilment_rate"]) == g["stars"]
            flagged = (g["id"], "fulfilment_rate") in self.flagged
            mine = g["id"] in your_cards
            # flagged: a black outline; out of its band but not flagged (near the line, or too few
            # ends of turn to judge): a grey one
            ax.scatter([x], [g["fulfilment_rate"]], color=colours.get(g["stars"], "#555"), s=22 if ok else 40,
                       marker="D" if mine else "o", zorder=2, linewidths=1.2,
                       edgecolors="none" if ok else "black" if flagged else "#aaa")
            if not ok or mine:
                ax.annotate(g["id"], (x, g["fulfilment_rate"]), fontsize=7, xytext=(4, 2),
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
        plt = self.plt
        o = self.summary["overall"]
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
        for ax, key, title, colour in ((axes[0], "round_turns", "Round length (turns)", "#2b8cbe"),
                                       (axes[1], "match_rounds", "Match length (rounds)", "#8c6bb1"),
                                       (axes[2], "match_turns", "Match length (turns)", "#41ab5d")):
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
        plt = self.plt
        playsets = self.summary["playsets"]
        labels, t6, t8 = ["all"], [self.summary["overall"]["end_shares"]["outscored"] or 0.0], \
            [self.summary["overall"]["end_shares"]["hands_empty"] or 0.0]
        for s in _yours_first(self.summary):
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


def draw_plots(summary: Mapping[str, Any], folder: Path | None, fmt: str = "png",
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
    plt = _pyplot(fmt)
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
    path.write_bytes(_image(plt, fig, fmt))
    return True


# ---------------------------------------------------------------------- HTML

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, Segoe UI, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; }
th { background: #f4f4f4; } td.l, th.l { text-align: left; }
.bad { background: #fde0dd; } .near { background: #fff5e6; } .ok { color: #238b45; } .flagged { color: #cb181d; }
figure { margin: 1em 0; } figure img, figure svg { max-width: 100%; height: auto; }
.kv td:first-child { text-align: left; color: #555; }
.note { color: #777; }
"""


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]], left: int = 1,
           marks: Sequence[str | None] | None = None) -> str:
    """An HTML table; ``marks`` gives each row's class (``"bad"``: flagged, ``"near"``: out of its band, not
    flagged) or None."""
    out = ["<table><tr>"]
    out += [f"<th{' class=l' if i < left else ''}>{html.escape(h)}</th>" for i, h in enumerate(head)]
    out.append("</tr>")
    for k, row in enumerate(rows):
        cls = f" class={marks[k]}" if marks is not None and marks[k] else ""
        out.append(f"<tr{cls}>")
        out += [f"<td{' class=l' if i < left else ''}>{html.escape(str(v))}</td>" for i, v in enumerate(row)]
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _figure(fmt: str, title: str, data: bytes) -> str:
    if fmt == "svg":
        text = data.decode("utf-8")
        start = text.find("<svg")
        body = text[start:] if start >= 0 else text
    else:
        body = f'<img alt="{html.escape(title)}" src="data:image/png;base64,{base64.b64encode(data).decode()}">'
    return f"<figure>{body}<figcaption>{html.escape(title)}</figcaption></figure>"


def your_skillsets(summary: Mapping[str, Any]) -> set[str]:
    """The names of the user's skillsets in a run with ``--deck-dir`` (empty for the built-in decks alone)."""
    return set(summary["settings"].get("yours", {}).get("skillsets", ()))


def card_rows(summary: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any] | None, bool]]:
    """The rows of the cards plot, top to bottom: each skillset's heading (card None), then its cards;
    the user's skillsets first. Each row is (label, card, the user's)."""
    yours = your_skillsets(summary)
    rows: list[tuple[str, Mapping[str, Any] | None, bool]] = []
    for deck in _yours_first(summary):
        name = deck["skillset"]
        cards = [c for c in summary["cards"] if c["skillset"] == name]
        if not cards:
            continue
        mine = name in yours
        rows.append((f"{name} (yours)" if mine else name, None, mine))
        rows += [(f"{c['id']} {'★' * c['stars']}", c, mine) for c in cards]
    return rows


def yours_line(settings: Mapping[str, Any]) -> str | None:
    """What a run with the user's decks played of them, or None for the built-in decks alone."""
    yours = settings.get("yours")
    if not yours:
        return None
    names = ", ".join(yours["skillsets"])
    return (f"your skillset{'s' if len(yours['skillsets']) > 1 else ''}: {names} — {yours['playsets']} of the "
            f"{yours['of_playsets']} playsets played")


def _yours_first(summary: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    mine = your_skillsets(summary)
    return sorted(summary["skillsets"], key=lambda k: k["skillset"] not in mine)


def render_html(summary: Mapping[str, Any], balance: BalanceReport | None = None,
                figures: Mapping[str, tuple[str, bytes]] | None = None, fmt: str = "png",
                note: str | None = None, run: Mapping[str, Any] | None = None) -> str:
    """The whole report as one HTML document."""
    s, o = summary["settings"], summary["overall"]
    figures = figures or {}
    criteria = balance.criteria if balance is not None else Criteria()
    # Rows are marked as the checks judge them (a plain simulate run is judged with the default criteria),
    # never on a point estimate alone: "bad" where a figure is flagged, "near" where out of its band only.
    # (a goal and its card share an id: the kind tells them apart)
    flagged = {(f.kind, f.subject) for f in (balance if balance is not None else check(summary, criteria)).flags}

    def mark(kind: str, subject: str, out_of_band: bool) -> str | None:
        return "bad" if (kind, subject) in flagged else "near" if out_of_band else None

    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8>",
             "<title>Converge balance report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>Converge balance report</h1>"]
    bots = f"{s['bots'][0]} vs {s['bots'][1]}"
    parts.append(_table(["setting", "value"], [
        ["bots", bots], ["playsets", s["playsets"]], ["matches per playset", s["matches_per_playset"]],
        ["matches", s["matches"]], ["rounds", o["rounds"]], ["seed", s["seed"]], ["decks", s["decks"]],
        *([["yours", yours_line(s)]] if yours_line(s) else []),
        *([["run", f"{run['seconds']} s on {run['workers']} {run['backend']} worker(s), "
                   f"{run['matches_per_second']} matches/s"]] if run else []),
    ]).replace("<table>", "<table class=kv>", 1))
    if note:
        parts.append(f"<p class=note>{html.escape(note)}</p>")

    if balance is not None:
        parts.append("<h2>Balance</h2>")
        if balance.passed:
            parts.append(f"<p class=ok><b>Nothing out of line</b> ({balance.judged_text()}).</p>")
        else:
            parts.append(f"<p class=flagged><b>{len(balance.flags)} out of line</b> ({balance.judged_text()}):"
                         "</p><ul>")
            parts += [f"<li>{html.escape(f.message)}</li>" for f in balance.flags]
            parts.append("</ul>")
        if balance.near:
            parts.append(f"<p class=note><b>{len(balance.near)} near the line</b>: out of band, but the interval "
                         "still holds the line; more matches would tell.</p><ul>")
            parts += [f"<li>{html.escape(f.message)}</li>" for f in balance.near]
            parts.append("</ul>")
        if balance.not_judged:
            parts.append(f"<p class=note>Not judged (too few observations; simulate more matches): "
                         f"{html.escape('; '.join(balance.not_judged))}</p>")

    parts.append("<h2>Overview</h2>")
    ci = o["holder_win_rate_ci95"] or [0, 0]
    parts.append(_table(["figure", "value"], [
        ["starting holder wins the round", f"{_pct(o['holder_win_rate'])} (95% CI {_pct(ci[0])}-{_pct(ci[1])})"],
        ["round-1 holder wins the match", _pct(o["first_holder_match_win_rate"])],
        ["player 0 wins the round", _pct(o["seat0_round_win_rate"])],
        [f"bot 1 ({s['bots'][0]}) wins the match", _pct(o["bot1_match_win_rate"])],
        ["rounds ending with the lead outscoring (T6)", _pct(o["end_shares"]["outscored"])],
        ["rounds ending with both hands empty (T8)", _pct(o["end_shares"]["hands_empty"])],
        ["turns per round (mean)", o["mean_round_turns"]],
        ["rounds per match (mean)", o["mean_match_rounds"]],
        ["turns per match (mean)", o["mean_match_turns"]],
    ]))
    if not figures and note is None:
        parts.append(f"<p class=note>{html.escape(NO_PLOTS)}</p>")
    for name in ("holder_by_playset", "skillset_pairs", "lengths", "ends"):
        if name in figures:
            parts.append(_figure(fmt, *figures[name]))

    lo, hi = criteria.holder_band
    parts.append("<h2>Playsets</h2>")
    items = sorted(summary["playsets"], key=lambda p: p["holder_win_rate"] or 0.0)
    parts.append(_table(
        ["playset", "matches", "rounds", "holder wins", "95% CI", "T6", "T8", "turns/round", "rounds/match"],
        [[p["playset"], p["matches"], p["rounds"], _pct(p["holder_win_rate"]),
          f"{_pct((p['holder_win_rate_ci95'] or [None])[0])}-{_pct((p['holder_win_rate_ci95'] or [0, None])[1])}",
          _pct(p["end_shares"]["outscored"]), _pct(p["end_shares"]["hands_empty"]), p["mean_round_turns"],
          p["mean_match_rounds"]] for p in items],
        marks=[mark("playset", p["playset"],
                    p["holder_win_rate"] is not None and not lo <= p["holder_win_rate"] <= hi) for p in items]))
    parts.append("<p class=note>Red rows: flagged (the interval clears the band); pale rows: out of the band but "
                 "not flagged (near the line, or too few observations to judge).</p>")

    parts.append("<h2>Skillsets</h2>")
    mine = your_skillsets(summary)
    parts.append(_table(["skillset", "keyword", "playsets", "rounds", "holder wins", "plays",
                         "win rate after a play"],
                        [[k["skillset"] + (" (yours)" if k["skillset"] in mine else ""), k["keyword"],
                          k["playsets"], k["rounds"], _pct(k["holder_win_rate"]), k["plays"],
                          _pct(k["play_win_rate"])] for k in _yours_first(summary)], left=2))

    parts.append("<h2>Cards</h2>")
    if "cards" in figures:
        parts.append(_figure(fmt, *figures["cards"]))
    clo, chi = criteria.card_band
    rows = [(card, mine) for _, card, mine in card_rows(summary) if card is not None]
    cards = [card for card, _ in rows]
    parts.append(_table(
        ["card", "name", "stars", *[f"{m}/round" for m in MODES], *[f"win after {m}" for m in MODES],
         "win after any", "played in"],
        [[c["id"] + (" (yours)" if mine else ""), c["name"], c["stars"], *[_pct(c["play_rate"][m]) for m in MODES],
          *[_pct(c["win_rate"][m]) for m in MODES], _pct(c["all_win_rate"]), _pct(c["rounds_played_rate"])]
         for c, mine in rows], left=2,
        marks=[mark("card", c["id"], any(r is not None and not clo <= r <= chi
                                 for r in (c["all_win_rate"], *c["win_rate"].values()))) for c in cards]))

    parts.append("<h2>Goals</h2>")
    if "goals" in figures:
        parts.append(_figure(fmt, *figures["goals"]))
    goals = summary["goals"]
    parts.append(_table(
        ["card", "goal", "stars", "fulfilment rate", "deserves", "declared in", "fulfilled while declared",
         "declarer wins"],
        [[g["id"], g["goal"], g["stars"], _pct(g["fulfilment_rate"]),
          criteria.stars_for(g["fulfilment_rate"]) if g["fulfilment_rate"] is not None else "–",
          _pct(g["declared_rate"]), _pct(g["declared_fulfilment_rate"]), _pct(g["declare_win_rate"])]
         for g in goals], left=2,
        marks=[mark("goal", g["id"], g["fulfilment_rate"] is not None
                    and criteria.stars_for(g["fulfilment_rate"]) != g["stars"]) for g in goals]))
    parts.append("<p class=note>Fulfilment rate: at every end of turn, declared or not, the share of players "
                 "whose faction fulfils the goal. Win rates: rounds won by the player after playing the card "
                 "that way.</p>")
    parts.append("</body></html>\n")
    return "".join(parts)


# ---------------------------------------------------------------------- terminal


def terminal_summary(summary: Mapping[str, Any], console: Any, balance: BalanceReport | None = None) -> None:
    """A few tables for the terminal (``console`` is a rich Console)."""
    from rich.table import Table

    s, o = summary["settings"], summary["overall"]
    ci = o["holder_win_rate_ci95"] or [0, 0]
    sets = f"{s['playsets']} playset{'s' if s['playsets'] != 1 else ''}"
    console.print(f"[bold]{s['matches']:,} matches[/bold] ({sets} × "
                  f"{s['matches_per_playset']:,}, "
                  f"{s['bots'][0]} vs {s['bots'][1]}, seed {s['seed']}), {o['rounds']:,} rounds", highlight=False)
    if yours_line(s):
        console.print(yours_line(s), highlight=False)
    if s["bots"][0] != s["bots"][1] and o.get("bot1_match_win_rate") is not None:
        lo, hi = o.get("bot1_match_win_rate_ci95") or [0, 0]
        console.print(f"bot 1 ({s['bots'][0]}) wins {_pct(o['bot1_match_win_rate'])} of the matches against "
                      f"{s['bots'][1]} (95% CI {_pct(lo)}-{_pct(hi)})", highlight=False, markup=False)
    console.print(f"starting holder wins {_pct(o['holder_win_rate'])} of rounds (95% CI {_pct(ci[0])}-"
                  f"{_pct(ci[1])}); rounds end T6 {_pct(o['end_shares']['outscored'])}, T8 "
                  f"{_pct(o['end_shares']['hands_empty'])}; {o['mean_round_turns']} turns per round, "
                  f"{o['mean_match_rounds']} rounds per match", highlight=False)
    items = sorted(summary["playsets"], key=lambda p: p["holder_win_rate"] or 0.0)
    if len(items) > 1:
        t = Table(title="Starting-holder win rate: lowest and highest playsets", title_justify="left")
        for col in ("playset", "rounds", "holder wins", "95% CI"):
            t.add_column(col, justify="left" if col == "playset" else "right")
        shown = items if len(items) <= 6 else items[:3] + items[-3:]
        for p in shown:
            c = p["holder_win_rate_ci95"] or [0, 0]
            t.add_row(p["playset"], f"{p['rounds']:,}", _pct(p["holder_win_rate"]), f"{_pct(c[0])}-{_pct(c[1])}")
        console.print(t)
    t = Table(title="Skillsets", title_justify="left")
    for col in ("skillset", "playsets", "holder wins", "win rate after a play"):
        t.add_column(col, justify="left" if col == "skillset" else "right")
    mine = your_skillsets(summary)
    for k in _yours_first(summary):
        name = f"{k['skillset']} (yours)" if k["skillset"] in mine else k["skillset"]
        t.add_row(name, str(k["playsets"]), _pct(k["holder_win_rate"]), _pct(k["play_win_rate"]))
    console.print(t)
    if balance is not None:
        if balance.passed:
            console.print(f"[green]balance: nothing out of line[/green] ({balance.judged_text()})",
                          highlight=False)
        else:
            console.print(f"[red]balance: {len(balance.flags)} out of line[/red]", highlight=False)
            for f in balance.flags:
                console.print(f"  - {f.message}", highlight=False, markup=False)
        if balance.near:
            console.print(f"near the line (out of band, but the interval holds the line; more matches would "
                          f"tell): {len(balance.near)}", highlight=False)
            for f in balance.near:
                console.print(f"  - {f.message}", highlight=False, markup=False)
        if balance.not_judged:
            shown = balance.not_judged[:NOT_JUDGED_SHOWN]
            more = len(balance.not_judged) - len(shown)
            console.print(f"not judged (too few observations; simulate more matches): {'; '.join(shown)}"
                          + (f"; and {more} more (all in summary.json)" if more else ""),
                          highlight=False, markup=False)


def plots_available() -> bool:
    return have("matplotlib")


__all__ = ["NO_PLOTS", "PLOT_FORMATS", "Plots", "card_rows", "comparison_rows", "draw_comparison", "draw_plots",
           "plots_available", "render_html", "terminal_summary", "your_skillsets"]
