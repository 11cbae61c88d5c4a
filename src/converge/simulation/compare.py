"""Two versions of the decks compared: ``converge balance --compare OLD NEW``.

Each figure the balance checks judge — a playset's starting-holder win rate, a goal's fulfilment rate, a
card's round win rate over all its plays and each way of playing it — is set beside its value in the other
run, with the interval of the difference (Newcombe's hybrid score interval, from the two Wilson
intervals) at the balance checks' confidence for all the figures compared together (Bonferroni's
correction: among two hundred figures, a handful would seem to move by chance alone at 95% each). A change
is *clear* when that interval leaves out zero. The cards whose printed text differs are
named first, then the clear changes, then what the new version fixed (flagged before, judged and not flagged
now) and broke (flagged now, judged and not flagged before). A flag on one side whose figure had too few
observations on the other to be judged is neither: it is listed on its own, so that a card played less
often in the new version is not reported fixed, nor one played more often reported broken.

>>> lo, hi = difference_interval(56, 70, 48, 80)  # Newcombe's worked example
>>> round(lo, 4), round(hi, 4)
(0.0524, 0.3339)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from converge.simulation.balance import BalanceReport, Criteria, check, corrected_z
from converge.simulation.runner import wilson_interval
from converge.simulation.stats import MODES

if TYPE_CHECKING:
    from converge.simulation.summary_doc import Summary


def difference_interval(wins_new: int, n_new: int, wins_old: int, n_old: int,
                        z: float = 1.959963984540054) -> tuple[float, float]:
    """The interval of ``wins_new / n_new - wins_old / n_old`` (Newcombe's method 10; 95% at the default ``z``)."""
    p1, p2 = wins_new / n_new, wins_old / n_old
    l1, u1 = wilson_interval(wins_new, n_new, z)
    l2, u2 = wilson_interval(wins_old, n_old, z)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


@dataclass(frozen=True)
class Change:
    """One figure in both runs."""

    subject: str  # "card ALC3", "goal ALC3", "playset a/b/c"
    figure: str  # what the rate is of
    old: float
    new: float
    interval: tuple[float, float]  # of new - old

    @property
    def clear(self) -> bool:
        return self.interval[0] > 0 or self.interval[1] < 0

    def line(self) -> str:
        lo, hi = self.interval
        return (f"{self.subject} {self.figure}: {100 * self.old:.1f}% -> {100 * self.new:.1f}% "
                f"({100 * (self.new - self.old):+.1f} points, interval {100 * lo:+.1f} to {100 * hi:+.1f})")


def _figures(summary: Summary) -> Iterator[tuple[str, str, float | None, int]]:
    """(subject, figure, rate, observations) of each figure the checks judge (the rate None without data)."""
    for p in summary["playsets"]:
        yield f"playset {p['playset']}", "starting holder's round win rate", p["holder_win_rate"], p["rounds"]
    for g in summary["goals"]:
        yield f"goal {g['id']}", "fulfilment rate", g["fulfilment_rate"], 2 * g["turn_ends"]
    for c in summary["cards"]:
        yield f"card {c['id']}", "round win rate after a play", c["all_win_rate"], c["all_plays"]
        for mode in MODES:
            yield f"card {c['id']}", f"round win rate when {mode}", c["win_rate"][mode], c["plays"][mode]


@dataclass
class Comparison:
    changed_cards: list[str]  # ids whose printed text differs (or that one version lacks)
    changes: list[Change]  # every figure both runs measured
    fixed: list[str]  # flagged in the old run, judged and not flagged in the new, the figure clearly changed
    broke: list[str]  # flagged in the new run, judged and not flagged in the old, the figure clearly changed
    old_report: BalanceReport
    new_report: BalanceReport
    confidence: float  # of the intervals, for all the figures together
    new_unjudged_before: list[str] = field(default_factory=list)  # flagged now; too few observations before
    old_unjudged_now: list[str] = field(default_factory=list)  # flagged before; too few observations now
    #: flagged on one side only, judged on both, but the figure did not change clearly: a figure near the line
    #: that crossed it by chance, which neither the edit broke nor fixed
    crossed: list[str] = field(default_factory=list)

    @property
    def newly_flagged(self) -> bool:
        """Whether the new version has a flag the old did not (broken, or judged only now): the exit code."""
        return bool(self.broke or self.new_unjudged_before)

    def changed_subjects(self) -> set[str]:
        """The subjects ("card X", "goal X") of the cards whose printed text differs."""
        return {f"{kind} {k}" for k in self.changed_cards for kind in ("card", "goal")}

    def lines(self) -> list[str]:
        out = [f"intervals of the changes: {100 * self.confidence:g}% for all {len(self.changes)} figures "
               "compared together",
               f"cards that differ: {', '.join(self.changed_cards) or 'none'}"]
        theirs = self.changed_subjects()
        out += [f"  {c.line()}{' (clear)' if c.clear else ''}" for c in self.changes if c.subject in theirs]
        clear = [c for c in self.changes if c.clear and c.subject not in theirs]
        out.append(f"other clear changes (the interval of the change leaves out zero): {len(clear)} of "
                   f"{len(self.changes)} figures")
        out += [f"  {c.line()}" for c in clear]
        out.append(f"fixed (flagged before, not now): {len(self.fixed)}")
        out += [f"  {m}" for m in self.fixed]
        out.append(f"broke (flagged now, not before): {len(self.broke)}")
        out += [f"  {m}" for m in self.broke]
        if self.crossed:
            out.append(f"crossed the line without a clear change (near it on both sides: chance, not the edit; "
                       f"more matches would tell): {len(self.crossed)}")
            out += [f"  {m}" for m in self.crossed]
        if self.new_unjudged_before:
            out.append(f"flagged now, too few observations before to judge: {len(self.new_unjudged_before)}")
            out += [f"  {m}" for m in self.new_unjudged_before]
        if self.old_unjudged_now:
            out.append(f"flagged before, too few observations now to judge (simulate more matches): "
                       f"{len(self.old_unjudged_now)}")
            out += [f"  {m}" for m in self.old_unjudged_now]
        return out


def _card_texts(summary: Summary) -> dict[str, str]:
    return {c["id"]: f"{c['name']}|{c['rank']}|{c['goal']}|{c['stars']}|{c['effect']}" for c in summary["cards"]}


def compare(old: Summary, new: Summary, criteria: Criteria | None = None) -> Comparison:
    """Every judged figure of two summaries side by side, and what the new one fixed and broke."""
    criteria = criteria or Criteria()
    before = {(s, f): (r, n) for s, f, r, n in _figures(old) if r is not None and n}
    both = [(s, f, r, n) for s, f, r, n in _figures(new) if r is not None and n and (s, f) in before]
    z = corrected_z(criteria.confidence, len(both))  # many figures: a few would seem to move by chance alone
    changes = []
    for subject, figure, rate, n in both:
        old_rate, old_n = before[subject, figure]
        interval = difference_interval(round(rate * n), n, round(old_rate * old_n), old_n, z)
        changes.append(Change(subject, figure, old_rate, rate, interval))
    texts_old, texts_new = _card_texts(old), _card_texts(new)
    differ = sorted(k for k in texts_old.keys() | texts_new.keys() if texts_old.get(k) != texts_new.get(k))
    old_report, new_report = check(old, criteria), check(new, criteria)

    def keyed(report: BalanceReport) -> dict[tuple[str, str], str]:
        return {(f.subject, f.figure): f.message for f in report.flags}

    was, now = keyed(old_report), keyed(new_report)
    gone, came = [k for k in was if k not in now], [k for k in now if k not in was]
    clear = {(c.subject, c.figure) for c in changes if c.clear}

    def moved(key: tuple[str, str], kind: str) -> bool:
        return _change_key(kind, *key) in clear

    kinds = {(f.subject, f.figure): f.kind for f in old_report.flags + new_report.flags}
    fixed = [k for k in gone if k in new_report.judged_figures]
    broke = [k for k in came if k in old_report.judged_figures]
    return Comparison(differ, changes,
                      [was[k] for k in fixed if moved(k, kinds[k])], [now[k] for k in broke if moved(k, kinds[k])],
                      old_report, new_report, criteria.confidence,
                      new_unjudged_before=[now[k] for k in came if k not in old_report.judged_figures],
                      old_unjudged_now=[was[k] for k in gone if k not in new_report.judged_figures],
                      crossed=[f"{now[k]} (flagged now)" for k in broke if not moved(k, kinds[k])]
                      + [f"{was[k]} (flagged before)" for k in fixed if not moved(k, kinds[k])])


def _change_key(kind: str, subject: str, figure: str) -> tuple[str, str]:
    """A flag's (subject, figure) as :func:`_figures` names the same figure."""
    words = {"holder_win_rate": "starting holder's round win rate", "fulfilment_rate": "fulfilment rate",
             "all_win_rate": "round win rate after a play"}
    return f"{kind} {subject}", words.get(figure, f"round win rate when {figure.removeprefix('win_rate.')}")


__all__ = ["Change", "Comparison", "compare", "difference_interval"]
