"""What is out of line in a simulation summary: the checks of ``converge balance``.

Three checks, each with a threshold a designer may change (:class:`Criteria`):

* **playset** — the starting holder's round win rate must stay within 40%-60%: outside it, who starts a
  round decides it too often (or too rarely);
* **goal** — a goal's stars must match how hard it is. Difficulty is the goal's *fulfilment rate*: at every
  end of turn, whether or not the goal is in the goal area, the share of players whose faction fulfils it
  (so it does not depend on when the bots chose to declare it). Rates at or above ``star_cuts[0]`` are
  one-star goals, rates below ``star_cuts[1]`` three-star goals, the others two-star goals;
* **card** — the round win rate of a player after playing the card (any way) must stay within 40%-60%:
  below, the card is never worth playing; above, it is always worth playing.

An item with too few observations to judge (fewer than ``min_rounds`` rounds for a playset, ``min_plays``
plays for a card, ``min_samples`` player-ends-of-turn for a goal) is listed as not judged, not flagged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Criteria:
    holder_band: tuple[float, float] = (0.40, 0.60)
    star_cuts: tuple[float, float] = (1 / 6, 1 / 20)  # fulfilment rate: >= first: 1 star; < second: 3 stars
    card_band: tuple[float, float] = (0.40, 0.60)
    min_rounds: int = 100
    min_plays: int = 200
    min_samples: int = 1000

    def __post_init__(self) -> None:
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class BalanceReport:
    criteria: Criteria
    flags: list[Flag]
    not_judged: list[str]
    judged: dict[str, int]  # how many playsets, goals and cards were judged

    @property
    def passed(self) -> bool:
        return not self.flags

    def to_dict(self) -> dict[str, Any]:
        c = self.criteria
        return {"passed": self.passed, "flags": [f.to_dict() for f in self.flags], "not_judged": self.not_judged,
                "judged": self.judged,
                "criteria": {"holder_band": list(c.holder_band), "star_cuts": list(c.star_cuts),
                             "card_band": list(c.card_band), "min_rounds": c.min_rounds, "min_plays": c.min_plays,
                             "min_samples": c.min_samples}}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def check(summary: Mapping[str, Any], criteria: Criteria | None = None) -> BalanceReport:
    """Apply the three checks to a summary (from :func:`converge.simulation.summary.summarize`)."""
    c = criteria or Criteria()
    flags: list[Flag] = []
    skipped: list[str] = []
    judged = {"playsets": 0, "goals": 0, "cards": 0}

    lo, hi = c.holder_band
    for p in summary["playsets"]:
        rate, rounds = p["holder_win_rate"], p["rounds"]
        if rate is None or rounds < c.min_rounds:
            skipped.append(f"playset {p['playset']}: {rounds} rounds (at least {c.min_rounds} needed)")
            continue
        judged["playsets"] += 1
        if not lo <= rate <= hi:
            ci = p["holder_win_rate_ci95"]
            flags.append(Flag("playset", p["playset"], "holder_win_rate", rate, f"{_pct(lo)}-{_pct(hi)}",
                              f"playset {p['playset']}: the starting holder wins {_pct(rate)} of rounds "
                              f"(95% CI {_pct(ci[0])}-{_pct(ci[1])}, {rounds} rounds); "
                              f"expected {_pct(lo)}-{_pct(hi)}"))

    for g in summary["goals"]:
        rate, samples = g["fulfilment_rate"], 2 * g["turn_ends"]
        if rate is None or samples < c.min_samples:
            skipped.append(f"goal {g['id']}: {samples} player-ends of turn (at least {c.min_samples} needed)")
            continue
        judged["goals"] += 1
        deserved = c.stars_for(rate)
        if deserved != g["stars"]:
            band_lo, band_hi = c.star_band(g["stars"])
            harder = deserved > g["stars"]
            flags.append(Flag("goal", g["id"], "fulfilment_rate", rate,
                              f"{_pct(band_lo)}-{_pct(band_hi)} for {g['stars']} "
                              f"star{'s' if g['stars'] > 1 else ''}",
                              f"goal {g['id']} '{g['goal']}' ({'★' * g['stars']}): fulfilled at {_pct(rate)} of "
                              f"player-ends of turn, {'harder' if harder else 'easier'} than its stars say "
                              f"({_pct(band_lo)}-{_pct(band_hi)}); it plays like a {deserved}-star goal"))

    lo, hi = c.card_band
    for card in summary["cards"]:
        rate, plays = card["all_win_rate"], card["all_plays"]
        if rate is None or plays < c.min_plays:
            skipped.append(f"card {card['id']}: {plays} plays (at least {c.min_plays} needed)")
            continue
        judged["cards"] += 1
        if not lo <= rate <= hi:
            word = "never" if rate < lo else "always"
            ci = card["all_win_rate_ci95"]
            flags.append(Flag("card", card["id"], "all_win_rate", rate, f"{_pct(lo)}-{_pct(hi)}",
                              f"card {card['id']} {card['name']}: {word} worth playing — the player who plays it "
                              f"wins {_pct(rate)} of those rounds (95% CI {_pct(ci[0])}-{_pct(ci[1])}, {plays} "
                              f"plays); expected {_pct(lo)}-{_pct(hi)}"))
    return BalanceReport(c, flags, skipped, judged)


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


__all__ = ["BalanceReport", "Criteria", "Flag", "check", "flag_lines", "parse_band"]
