"""What is out of line in a simulation summary: the checks of ``converge balance``.

Three checks, each with a threshold a designer may change (:class:`Criteria`):

* **playset** — the starting holder's round win rate must stay within 40%-60%: outside it, who starts a
  round decides it too often (or too rarely);
* **goal** — a goal's stars must match how hard it is. Difficulty is the goal's *fulfilment rate*: at every
  end of turn, whether or not the goal is in the goal area, the share of players whose faction fulfils it
  (so it does not depend on when the bots chose to declare it). Rates at or above ``star_cuts[0]`` are
  one-star goals, rates below ``star_cuts[1]`` three-star goals, the others two-star goals;
* **card** — the round win rate of a player after playing the card (any way) must stay within 40%-60%:
  below, the card is never worth playing; above, it is always worth playing. The same band holds for each
  way of playing it (discarded, declared, added to one's own or to the opponent's faction) with enough plays:
  a card fair over all can be a sure win when declared.

A figure is flagged only where its interval clears the line: the Wilson interval of its rate at
``confidence`` (95%) for every item judged together — Bonferroni's correction, so that among a hundred fair
items the chance of any false flag stays 5%. A figure out of its band whose interval still holds the line
is listed as *near the line*, not flagged: more matches would tell. An item with too few observations to
judge (fewer than ``min_rounds`` rounds for a playset, ``min_plays`` plays for a card, ``min_samples``
player-ends-of-turn for a goal) is listed as not judged, by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from statistics import NormalDist
from typing import TYPE_CHECKING

from converge.simulation.runner import wilson_interval
from converge.simulation.stats import MODES

if TYPE_CHECKING:
    from converge.simulation.summary_doc import CardFigures, GoalFigures, PlaysetFigures, Summary

#: How a card played each way is said in a flag.
PLAYED_AS = {"discard": "discarded", "declare": "declared", "mine": "added to its player's faction",
             "theirs": "added to the opponent's faction"}


@dataclass(frozen=True)
class Criteria:
    holder_band: tuple[float, float] = (0.40, 0.60)
    star_cuts: tuple[float, float] = (1 / 6, 1 / 20)  # fulfilment rate: >= first: 1 star; < second: 3 stars
    card_band: tuple[float, float] = (0.40, 0.60)
    min_rounds: int = 100
    min_plays: int = 200
    min_samples: int = 1000
    confidence: float = 0.95  #: of all the judged items' intervals together

    def __post_init__(self) -> None:
        if not 0.5 <= self.confidence < 1:
            raise ValueError(f"the confidence must be at least 0.5 and below 1, got {self.confidence}")
        for name, (lo, hi) in (("holder band", self.holder_band), ("card band", self.card_band)):
            if not 0 <= lo < hi <= 1:
                raise ValueError(f"the {name} must be two rates with 0 <= low < high <= 1, got {lo}, {hi}")
        one, three = self.star_cuts
        if not 0 < three < one < 1:
            raise ValueError(f"the star cuts must be two rates with 0 < three-star cut < one-star cut < 1, "
                             f"got {one}, {three}")

    def stars_for(self, rate: float) -> int:
        """The stars a goal fulfilled at ``rate`` deserves."""
        one, three = self.star_cuts
        return 1 if rate >= one else 3 if rate < three else 2

    def star_band(self, stars: int) -> tuple[float, float]:
        one, three = self.star_cuts
        return {1: (one, 1.0), 2: (three, one)}.get(stars, (0.0, three))


@dataclass(frozen=True)
class Flag:
    """One thing out of line."""

    kind: str  # "playset", "goal" or "card"
    subject: str  # the playset ("a/b/c") or the card id
    figure: str  # which figure is out of line
    value: float
    expected: str  # the band it should be in, in words
    message: str
    interval: tuple[float, float] = (0.0, 1.0)  # at the report's confidence, corrected for the items judged

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class BalanceReport:
    criteria: Criteria
    flags: list[Flag]
    not_judged: list[str]
    judged: dict[str, int]  # how many playsets, goals and cards were judged
    near: list[Flag] = field(default_factory=list)  # out of band, but the interval holds the line
    z: float = 1.959963984540054  # the intervals' normal quantile (corrected for the items judged)
    #: (subject, figure) of every figure judged, as a :class:`Flag` names them: what a comparison needs to
    #: tell a figure fixed or broken from one that had too few observations on one side
    judged_figures: frozenset[tuple[str, str]] = frozenset()

    @property
    def passed(self) -> bool:
        return not self.flags

    def judged_text(self) -> str:
        """``"3 playsets, 6 goals, 3 cards and 5 ways of playing them judged"``."""
        j = self.judged
        return (f"{j['playsets']} playsets, {j['goals']} goals, {j['cards']} cards and "
                f"{j['ways of playing a card']} ways of playing them judged")

    def to_dict(self) -> dict[str, object]:
        c = self.criteria
        return {"passed": self.passed, "flags": [f.to_dict() for f in self.flags],
                "near_the_line": [f.to_dict() for f in self.near], "not_judged": self.not_judged,
                "judged": self.judged, "interval_z": self.z,
                "criteria": {"holder_band": list(c.holder_band), "star_cuts": list(c.star_cuts),
                             "card_band": list(c.card_band), "min_rounds": c.min_rounds, "min_plays": c.min_plays,
                             "min_samples": c.min_samples, "confidence": c.confidence}}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _interval_text(ci: tuple[float, float], c: Criteria, items: int) -> str:
    together = f", for all {items} items judged together" if items > 1 else ""
    return f"{c.confidence:.0%} interval {_pct(ci[0])}-{_pct(ci[1])}{together}"


def corrected_z(confidence: float, items: int) -> float:
    """The normal quantile of two-sided intervals that hold together at ``confidence`` over ``items``.

    >>> round(corrected_z(0.95, 1), 2), round(corrected_z(0.95, 100), 2)
    (1.96, 3.48)
    """
    return NormalDist().inv_cdf(1 - (1 - confidence) / (2 * max(1, items)))


def check(summary: Summary, criteria: Criteria | None = None) -> BalanceReport:
    """Apply the three checks to a summary (from :func:`converge.simulation.summary.summarize`)."""
    c = criteria or Criteria()
    skipped: list[str] = []
    # what has enough observations to be judged, with the rate judged
    playsets: list[tuple[PlaysetFigures, float]] = []
    goals: list[tuple[GoalFigures, float]] = []
    cards: list[tuple[CardFigures, float]] = []
    for p in summary["playsets"]:
        holder = p["holder_win_rate"]
        if holder is None or p["rounds"] < c.min_rounds:
            skipped.append(f"playset {p['playset']}: {p['rounds']} rounds (at least {c.min_rounds} needed)")
        else:
            playsets.append((p, holder))
    for g in summary["goals"]:
        samples = 2 * g["turn_ends"]
        fulfilment = g["fulfilment_rate"]
        if fulfilment is None or samples < c.min_samples:
            skipped.append(f"goal {g['id']}: {samples} player-ends of turn (at least {c.min_samples} needed)")
        else:
            goals.append((g, fulfilment))
    for card in summary["cards"]:
        after = card["all_win_rate"]
        if after is None or card["all_plays"] < c.min_plays:
            skipped.append(f"card {card['id']}: {card['all_plays']} plays (at least {c.min_plays} needed)")
        else:
            cards.append((card, after))
    ways = [(card, mode, way) for card, _ in cards for mode in MODES
            if card.get("plays", {}).get(mode, 0) >= c.min_plays and (way := card["win_rate"][mode]) is not None]
    items = len(playsets) + len(goals) + len(cards) + len(ways)
    z = corrected_z(c.confidence, items)
    keys = frozenset([(p["playset"], "holder_win_rate") for p, _ in playsets]
                     + [(g["id"], "fulfilment_rate") for g, _ in goals]
                     + [(card["id"], "all_win_rate") for card, _ in cards]
                     + [(card["id"], f"win_rate.{mode}") for card, mode, _ in ways])
    report = BalanceReport(c, [], skipped, {"playsets": len(playsets), "goals": len(goals), "cards": len(cards),
                                            "ways of playing a card": len(ways)}, z=z, judged_figures=keys)

    def judge(flag: Flag, ci: tuple[float, float], lo: float, hi: float) -> None:
        clears = ci[1] < lo or ci[0] > hi
        (report.flags if clears else report.near).append(flag)

    def interval(rate: float, n: int) -> tuple[float, float]:
        return wilson_interval(round(rate * n), n, z)

    lo, hi = c.holder_band
    for p, rate in playsets:
        rounds = p["rounds"]
        if not lo <= rate <= hi:
            ci = interval(rate, rounds)
            judge(Flag("playset", p["playset"], "holder_win_rate", rate, f"{_pct(lo)}-{_pct(hi)}",
                       f"playset {p['playset']}: the starting holder wins {_pct(rate)} of rounds "
                       f"({_interval_text(ci, c, items)}; {rounds} rounds); expected {_pct(lo)}-{_pct(hi)}", ci),
                  ci, lo, hi)

    for g, rate in goals:
        samples = 2 * g["turn_ends"]
        deserved = c.stars_for(rate)
        if deserved != g["stars"]:
            band_lo, band_hi = c.star_band(g["stars"])
            harder = deserved > g["stars"]
            ci = interval(rate, samples)
            judge(Flag("goal", g["id"], "fulfilment_rate", rate,
                       f"{_pct(band_lo)}-{_pct(band_hi)} for {g['stars']} star{'s' if g['stars'] > 1 else ''}",
                       f"goal {g['id']} '{g['goal']}' ({'★' * g['stars']}): fulfilled at {_pct(rate)} of "
                       f"player-ends of turn ({_interval_text(ci, c, items)}), "
                       f"{'harder' if harder else 'easier'} than its stars say ({_pct(band_lo)}-{_pct(band_hi)}); "
                       f"it plays like a {deserved}-star goal", ci),
                  ci, band_lo, band_hi)

    lo, hi = c.card_band
    for card, rate in cards:
        plays = card["all_plays"]
        if not lo <= rate <= hi:
            word = "never" if rate < lo else "always"
            ci = interval(rate, plays)
            judge(Flag("card", card["id"], "all_win_rate", rate, f"{_pct(lo)}-{_pct(hi)}",
                       f"card {card['id']} {card['name']}: {word} worth playing — the player who plays it "
                       f"wins {_pct(rate)} of those rounds ({_interval_text(ci, c, items)}; {plays} plays); "
                       f"expected {_pct(lo)}-{_pct(hi)}", ci),
                  ci, lo, hi)
    for card, mode, rate in ways:
        plays = card["plays"][mode]
        if not lo <= rate <= hi:
            ci = interval(rate, plays)
            judge(Flag("card", card["id"], f"win_rate.{mode}", rate, f"{_pct(lo)}-{_pct(hi)}",
                       f"card {card['id']} {card['name']} {PLAYED_AS[mode]}: its player wins {_pct(rate)} of "
                       f"those rounds ({_interval_text(ci, c, items)}; {plays} plays); "
                       f"expected {_pct(lo)}-{_pct(hi)}", ci),
                  ci, lo, hi)
    return report


def parse_band(text: str) -> tuple[float, float]:
    """``"0.4,0.6"`` or ``"40,60"`` (percentages) -> ``(0.4, 0.6)``; ``ValueError`` otherwise."""
    parts = [p.strip().rstrip("%") for p in text.split(",")]
    if len(parts) != 2:
        raise ValueError(f"expected two numbers separated by a comma, e.g. 0.4,0.6; got {text!r}")
    try:
        a, b = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"expected two numbers separated by a comma, e.g. 0.4,0.6; got {text!r}") from None
    if a > 1 or b > 1:
        a, b = a / 100, b / 100
    return a, b


def flag_lines(report: BalanceReport) -> Sequence[str]:
    return [f.message for f in report.flags]


__all__ = ["BalanceReport", "Criteria", "Flag", "check", "corrected_z", "flag_lines", "parse_band"]
