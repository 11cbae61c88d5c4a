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

from converge.simulation.balance import (
    FAIR,
    FLAGGED,
    NEAR,
    NOT_JUDGED,
    PLAYED_AS,
    BalanceReport,
    Criteria,
    Verdict,
    check,
)
from converge.simulation.plots import NO_PLOTS, card_rows, your_skillsets, yours_first
from converge.simulation.stats import MODES

if TYPE_CHECKING:
    from rich.console import Console

    from converge.simulation.balance import Flag
    from converge.simulation.summary_doc import RunInfo, Summary, SummarySettings

#: How many items the terminal names as not judged (the report and summary.json name them all).
NOT_JUDGED_SHOWN = 10


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _interval(ci: Sequence[float] | None) -> str:
    """An interval as the tables show it (each end "–" without one)."""
    return f"{_pct(ci[0] if ci else None)}-{_pct(ci[1] if ci else None)}"


# ---------------------------------------------------------------------- the verdict on the user's decks

#: A row of the verdict table: item, figure, interval, observations, band, verdict and its status.
VerdictRow = tuple[str, str, str, str, str, str, str]


def _verdict_word(v: Verdict, criteria: Criteria) -> str:
    if v.status == NOT_JUDGED:
        return f"not judged: {v.why_not_judged}"
    if v.status == FAIR:
        return "fair"
    assert v.value is not None
    if v.kind == "goal":
        what = f"plays like a {criteria.stars_for(v.value)}-star goal"
    elif v.figure == "all_win_rate":
        what = "never worth playing" if v.value < criteria.card_band[0] else "always worth playing"
    else:
        what = "too weak" if v.value < criteria.card_band[0] else "too strong"
    return f"OUT OF LINE: {what}" if v.status == FLAGGED else f"near the line: {what}?"


def verdict_rows(report: BalanceReport) -> tuple[list[VerdictRow], list[str]]:
    """The verdict on the user's decks: a row for each card (over all its plays), each goal, and each way of
    playing a card or playset that is not fair; and notes on what the rows leave out (the fair ways and
    playsets, the ways with too few plays)."""
    order = {FLAGGED: 0, NEAR: 1, NOT_JUDGED: 2, FAIR: 3}
    rows: list[VerdictRow] = []
    notes: list[str] = []
    mine = report.your_verdicts()
    cards = list(dict.fromkeys(v.subject for v in mine if v.kind == "card"))
    for cid in cards:
        own = [v for v in mine if v.subject == cid and v.kind in ("card", "goal")]
        ways = [v for v in own if v.figure.startswith("win_rate.")]
        shown = [v for v in own if v not in ways] + [v for v in ways if v.status in (FLAGGED, NEAR)]
        rows += [_row(v, report.criteria)
                 for v in sorted(shown, key=lambda v: (v.kind == "goal", v.figure.startswith("win_rate.")))]
        unjudged = [v for v in ways if v.status == NOT_JUDGED]
        if unjudged:
            notes.append(f"{cid}: not judged, too few plays (at least {report.criteria.min_plays:,} each): "
                         + ", ".join(f"{PLAYED_AS[v.figure.removeprefix('win_rate.')]} {v.observations:,}"
                                     for v in unjudged))
    playsets = [v for v in mine if v.kind == "playset"]
    odd = sorted((v for v in playsets if v.status != FAIR), key=lambda v: order[v.status])
    rows += [_row(v, report.criteria) for v in odd]
    fair = [v for v in playsets if v.status == FAIR]
    if fair:
        rates = sorted(v.value for v in fair if v.value is not None)
        span = _pct(rates[0]) if len(rates) == 1 else f"{_pct(rates[0])} to {_pct(rates[-1])}"
        notes.append(f"{_count(len(fair), 'playset')} with your skillsets fair: the starting holder wins {span} "
                     "of rounds")
    return rows, notes


def _row(v: Verdict, criteria: Criteria) -> VerdictRow:
    """A verdict as a row, short enough for a terminal: each card's name once, its ways and goal beneath it."""
    if v.kind == "card" and v.figure != "all_win_rate":
        item = f"  {PLAYED_AS[v.figure.removeprefix('win_rate.')]}"
    elif v.kind == "goal":
        item = f"  goal {v.label.removeprefix(f'goal {v.subject} ')}"
    else:
        item = v.label.removeprefix("card ")
    if v.kind == "goal":
        one, three = criteria.star_cuts
        band = f"at least {_pct(one)}" if "1 star" in v.band else f"below {_pct(three)}" if "3 stars" in v.band \
            else f"{_pct(three)}-{_pct(one)}"
    else:
        band = v.band
    return (item, _pct(v.value), _interval(v.interval) if v.interval else "–", f"{v.observations:,}", band,
            _verdict_word(v, criteria), v.status)


# ---------------------------------------------------------------------- HTML

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, Segoe UI, sans-serif; margin: 2em auto; max-width: 1200px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; }
th { background: #f4f4f4; } td.l, th.l { text-align: left; }
.bad { background: #fde0dd; } .near { background: #fff5e6; } .unjudged { color: #777; }
details { margin: 1em 0; } summary { cursor: pointer; } .ok { color: #238b45; } .flagged { color: #cb181d; }
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
    # never on a point estimate alone: "bad" where a figure is flagged, "near" where one is near the line,
    # "unjudged" where one is out of its band on too few observations to judge.
    # (a goal and its card share an id: the kind tells them apart)
    judged = balance if balance is not None else check(summary, criteria)
    flagged = {(f.kind, f.subject) for f in judged.flags}
    near = {(f.kind, f.subject) for f in judged.near}

    def mark(kind: str, subject: str, out_of_band: bool) -> str | None:
        return ("bad" if (kind, subject) in flagged else "near" if (kind, subject) in near
                else "unjudged" if out_of_band else None)

    parts = ["<!doctype html><html lang=en><head><meta charset=utf-8>",
             "<title>Converge balance report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>Converge balance report</h1>"]
    if balance is not None:  # the verdict first: what a designer opens the report for
        parts += _html_verdict(balance)
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
    parts.append("<p class=note>Red rows: flagged (the interval clears the band); pale rows: near the line (out "
                 "of the band, the interval holds the line); grey rows: out of the band on too few observations "
                 "to judge.</p>")

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


def _html_verdict(balance: BalanceReport) -> list[str]:
    """The balance section: the verdict on the user's decks (with ``--deck-dir``) as a table, then the flags
    as a table; the figures near the line and those not judged folded beneath, one click away."""
    parts = ["<h2>Verdict</h2>"]
    if balance.yours:
        rows, notes = verdict_rows(balance)
        scope = ("The exit code counts every deck's flags (--strict-all)." if balance.strict_all else
                 "The exit code counts these alone (--strict-all: every deck's).")
        parts.append(f"<p><b>Your decks</b>: {html.escape(verdict_headline(balance))}. {scope}</p>")
        marks = {FLAGGED: "bad", NEAR: "near", NOT_JUDGED: "unjudged", FAIR: None}
        parts.append(_table(["item", "rate", f"interval ({balance.criteria.confidence:.0%}, all together)",
                             "observations", "should be", "verdict"],
                            [row[:-1] for row in rows], marks=[marks[row[-1]] for row in rows]))
        parts += [f"<p class=note>{html.escape(n)}</p>" for n in notes]
    flags, near = balance.not_yours(balance.flags), balance.not_yours(balance.near)
    unjudged = [v for v in balance.not_yours(balance.verdicts) if v.status == NOT_JUDGED]
    whose = "the published decks: " if balance.yours else ""

    def lead(text: str) -> str:
        said = whose + text
        return said[0].upper() + said[1:]

    if not flags:
        parts.append(f"<p class=ok><b>{lead('nothing out of line')}</b> ({balance.judged_text()}).</p>")
    else:
        counted = "" if not balance.yours or balance.strict_all else " (not counted in the exit code)"
        parts.append(f"<p class=flagged><b>{lead(f'{len(flags)} out of line')}</b>{counted} "
                     f"({balance.judged_text()}):</p>")
        parts.append(_flag_table(flags))
    if near:
        parts.append(f"<details><summary>{lead(f'{len(near)} near the line')}: out of band, but the "
                     "interval still holds the line; more matches would tell</summary>"
                     f"{_flag_table(near)}</details>")
    if unjudged:
        parts.append(f"<details><summary>{lead(f'{len(unjudged)} not judged')}: too few observations "
                     "(simulate more matches)</summary>"
                     + _table(["item", "observations", "needed"],
                              [[v.label, f"{v.observations:,} {v.unit}", f"{v.needed:,}"] for v in unjudged])
                     + "</details>")
    return parts


def _flag_table(flags: Sequence[Flag]) -> str:
    return _table(["item", "rate", "interval", "should be"],
                  [[f.label or f.subject, _pct(f.value), _interval(f.interval), f.expected] for f in flags])


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
    if balance is not None and balance.yours:  # the designer's verdict first; the published decks' after
        your_verdict_table(balance, console)
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
        _terminal_balance(balance, console)


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def verdict_headline(report: BalanceReport) -> str:
    """``"Your deck (Tinker): 2 out of line, 1 near the line, 30 fair, 5 not judged"``."""
    mine = report.your_verdicts()
    counts = {status: sum(v.status == status for v in mine) for status in (FLAGGED, NEAR, FAIR, NOT_JUDGED)}
    return (f"{counts[FLAGGED]} out of line, {counts[NEAR]} near the line, {counts[FAIR]} fair and "
            f"{counts[NOT_JUDGED]} not judged, of the {len(mine)} figures of your cards and their playsets")


def your_verdict_table(report: BalanceReport, console: Console) -> None:
    """The first table a designer reads: every card and goal of their decks with its figure and interval."""
    from rich.markup import escape
    from rich.table import Table

    rows, notes = verdict_rows(report)
    scope = ("the exit code counts every deck's flags (--strict-all)" if report.strict_all else
             "the exit code counts these alone (--strict-all: every deck's)")
    t = Table(title=f"Your decks: {verdict_headline(report)}; {scope}", title_justify="left")
    for col in ("item", "rate", "interval*", "n**", "should be", "verdict"):
        t.add_column(col, justify="left" if col in ("item", "verdict", "should be") else "right")
    style = {FLAGGED: "bold red", NEAR: "yellow", NOT_JUDGED: "dim", FAIR: "green"}
    for *cells, status in rows:
        t.add_row(*cells[:-1], f"[{style[status]}]{escape(cells[-1])}[/]")
    console.print(t)
    console.print(f"  * {report.criteria.confidence:.0%} for all {sum(report.judged.values())} figures judged "
                  "together; ** plays of the card (round won after it), or player-ends of turn (its goal "
                  "fulfilled), or rounds (a playset's starting holder won)", highlight=False)
    for note in notes:
        console.print(f"  {note}", highlight=False, markup=False)


def _terminal_balance(balance: BalanceReport, console: Console) -> None:
    """The flags after the tables: all of them; or, with the user's decks (whose verdict came first), the
    published decks' folded to one line each."""
    theirs = balance.yours and not balance.strict_all
    flags, near = balance.not_yours(balance.flags), balance.not_yours(balance.near)
    if balance.yours:
        console.print(f"[bold]Your decks[/bold]: {len(balance.counted) if theirs else len(balance.flags)} "
                      f"{'of your figures' if theirs else 'figures'} out of line ({balance.judged_text()})",
                      highlight=False)
        published = "the published decks (not counted in the exit code; --strict-all counts them)" if theirs \
            else "the published decks"
        console.print(f"{published}: {_count(len(flags), 'flag')}, {len(near)} near the line", highlight=False)
        for f in flags:
            console.print(f"  - {_short(f)}", highlight=False, markup=False)
    elif balance.passed:
        console.print(f"[green]balance: nothing out of line[/green] ({balance.judged_text()})", highlight=False)
    else:
        console.print(f"[red]balance: {len(balance.flags)} out of line[/red]", highlight=False)
        for f in balance.flags:
            console.print(f"  - {f.message}", highlight=False, markup=False)
    if near and not balance.yours:
        console.print(f"near the line (out of band, but the interval holds the line; more matches would "
                      f"tell): {len(near)}", highlight=False)
        for f in near:
            console.print(f"  - {f.message}", highlight=False, markup=False)
    unjudged = [f"{v.label}: {v.why_not_judged}" for v in balance.not_yours(balance.verdicts)
                if v.status == NOT_JUDGED]
    if unjudged:
        listed = unjudged[:NOT_JUDGED_SHOWN]
        more = len(unjudged) - len(listed)
        console.print(f"not judged (too few observations; simulate more matches): {'; '.join(listed)}"
                      + (f"; and {more} more (all in summary.json)" if more else ""),
                      highlight=False, markup=False)


def _short(f: Flag) -> str:
    """A flag on one line: its item, figure and interval."""
    return f"{f.label}: {_pct(f.value)} ({_interval(f.interval)}), should be {f.expected}"


__all__ = ["render_html", "terminal_summary", "yours_line"]
