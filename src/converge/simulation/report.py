"""The report of a simulation: one self-contained HTML page, and a terminal summary (the plots:
:mod:`converge.simulation.plots`).

The HTML page embeds its plots (PNG as data URIs, SVG inline) and its styles, so it can be mailed or
archived as one file; the plot files are also written next to it. Without matplotlib the page has the
tables and no plots, and says how to get them.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from converge.simulation.balance import BalanceReport, Criteria, check
from converge.simulation.plots import NO_PLOTS, card_rows, your_skillsets, yours_first
from converge.simulation.stats import MODES

if TYPE_CHECKING:
    from rich.console import Console

    from converge.simulation.summary_doc import RunInfo, Summary, SummarySettings

#: How many items the terminal names as not judged (the report and summary.json name them all).
NOT_JUDGED_SHOWN = 10


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _interval(ci: Sequence[float] | None) -> str:
    """An interval as the tables show it (each end "–" without one)."""
    return f"{_pct(ci[0] if ci else None)}-{_pct(ci[1] if ci else None)}"


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


def _table(head: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1,
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


def yours_line(settings: SummarySettings) -> str | None:
    """What a run with the user's decks played of them, or None for the built-in decks alone."""
    yours = settings.get("yours")
    if not yours:
        return None
    names = ", ".join(yours["skillsets"])
    return (f"your skillset{'s' if len(yours['skillsets']) > 1 else ''}: {names} — {yours['playsets']} of the "
            f"{yours['of_playsets']} playsets played")


def render_html(summary: Summary, balance: BalanceReport | None = None,
                figures: Mapping[str, tuple[str, bytes]] | None = None, fmt: str = "png",
                note: str | None = None, run: RunInfo | None = None) -> str:
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
          _interval(p["holder_win_rate_ci95"]),
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
                          _pct(k["play_win_rate"])] for k in yours_first(summary)], left=2))

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


def terminal_summary(summary: Summary, console: Console, balance: BalanceReport | None = None) -> None:
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
    for k in yours_first(summary):
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
            listed = balance.not_judged[:NOT_JUDGED_SHOWN]
            more = len(balance.not_judged) - len(listed)
            console.print(f"not judged (too few observations; simulate more matches): {'; '.join(listed)}"
                          + (f"; and {more} more (all in summary.json)" if more else ""),
                          highlight=False, markup=False)


__all__ = ["render_html", "terminal_summary", "yours_line"]
