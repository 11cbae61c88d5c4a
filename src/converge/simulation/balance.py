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
from dataclasses import asdict, dataclass, field, replace
from statistics import NormalDist
from typing import TYPE_CHECKING, TypeVar

from converge.simulation.runner import wilson_interval
from converge.simulation.stats import MODES

if TYPE_CHECKING:
    from converge.simulation.summary_doc import GoalFigures, Summary

T = TypeVar("T", "Flag", "Verdict")

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
    #: balance --value: a card worth less than this over a plain card is useless, one worth this much more than
    #: its deck's other cards overpowered
    value_margin: float = 0.03

    def __post_init__(self) -> None:
        if not 0.5 <= self.confidence < 1:
            raise ValueError(f"the confidence must be at least 0.5 and below 1, got {self.confidence}")
        for name, (lo, hi) in (("holder band", self.holder_band), ("card band", self.card_band)):
            if not 0 <= lo < hi <= 1:
                raise ValueError(f"the {name} must be two rates with 0 <= low < high <= 1, got {lo}, {hi}")
        if not 0 < self.value_margin < 1:
            raise ValueError(f"the value margin must be between 0 and 1, got {self.value_margin}")
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
    label: str = ""  # the item and figure in words, as its verdict names them

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


#: What a figure's verdict may be: out of line, out of its band with an interval that still holds the line,
#: inside its band, or too few observations to judge.
FLAGGED, NEAR, FAIR, NOT_JUDGED = "flagged", "near the line", "fair", "not judged"


@dataclass(frozen=True)
class Verdict:
    """One figure of one item and what the checks say of it; every figure of the summary has one, judged or
    not, so that a designer reads each of their cards' figures with its interval and why it was not judged."""

    kind: str  # "playset", "goal" or "card"
    subject: str  # the playset ("a/b/c") or the card id
    figure: str  # "holder_win_rate", "fulfilment_rate", "all_win_rate" or "win_rate.<way>"
    label: str  # the item and figure in words: "TIN2 Quicksilver Adept declared"
    value: float | None
    observations: int  # rounds, player-ends of turn or plays
    needed: int  # the observations needed to judge it
    unit: str  # "rounds", "player-ends of turn" or "plays"
    band: str  # the band it should be in, in words
    status: str  # FLAGGED, NEAR, FAIR or NOT_JUDGED
    interval: tuple[float, float] | None = None  # corrected as the flags' are; None when not judged

    @property
    def why_not_judged(self) -> str:
        return f"{self.observations:,} {self.unit} (at least {self.needed:,} needed)"

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
    verdicts: list[Verdict] = field(default_factory=list)  # every figure, in the summary's order
    #: the subjects (card ids, playsets) of the user's decks (``--deck-dir``): with any, the exit code is
    #: judged on them alone unless ``strict_all``
    yours: frozenset[str] = frozenset()
    strict_all: bool = False

    def is_yours(self, item: Flag | Verdict) -> bool:
        return item.subject in self.yours

    def not_yours(self, items: list[T]) -> list[T]:
        """``items`` (flags or verdicts) but the user's: the published decks' (all of them without user decks)."""
        return [i for i in items if not self.is_yours(i)] if self.yours else items

    @property
    def counted(self) -> list[Flag]:
        """The flags the exit code counts: the user's with their decks (all with ``strict_all``), else all."""
        if not self.yours or self.strict_all:
            return self.flags
        return [f for f in self.flags if self.is_yours(f)]

    @property
    def passed(self) -> bool:
        return not self.counted

    def your_verdicts(self) -> list[Verdict]:
        return [v for v in self.verdicts if self.is_yours(v)]

    def judged_text(self) -> str:
        """``"3 playsets, 6 goals, 3 cards and 5 ways of playing them judged"``."""
        j = self.judged
        return (f"{j['playsets']} playsets, {j['goals']} goals, {j['cards']} cards and "
                f"{j['ways of playing a card']} ways of playing them judged")

    def to_dict(self) -> dict[str, object]:
        c = self.criteria
        doc: dict[str, object] = {
            "passed": self.passed, "flags": [f.to_dict() for f in self.flags],
            "near_the_line": [f.to_dict() for f in self.near], "not_judged": self.not_judged,
            "judged": self.judged, "interval_z": self.z,
            "criteria": {"holder_band": list(c.holder_band), "star_cuts": list(c.star_cuts),
                         "card_band": list(c.card_band), "min_rounds": c.min_rounds, "min_plays": c.min_plays,
                         "min_samples": c.min_samples, "confidence": c.confidence}}
        if self.yours:
            doc["yours"] = {"strict_all": self.strict_all, "verdicts": [v.to_dict() for v in self.your_verdicts()]}
        return doc


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


def your_subjects(summary: Summary) -> frozenset[str]:
    """The card ids and playsets of the user's skillsets (``settings.yours``), as verdicts name them."""
    names = set(summary.get("settings", {}).get("yours", {}).get("skillsets", []))
    if not names:
        return frozenset()
    keys = {k["key"] for k in summary.get("skillsets", []) if k["skillset"] in names} | {n.lower() for n in names}
    return frozenset([c["id"] for c in summary["cards"] if c.get("skillset") in names]
                     + [p["playset"] for p in summary["playsets"] if keys & set(p["skillsets"])])


def check(summary: Summary, criteria: Criteria | None = None, strict_all: bool = False) -> BalanceReport:
    """Apply the three checks to a summary (from :func:`converge.simulation.summary.summarize`).

    With the user's decks in the summary (``converge balance --deck-dir``), the report's :attr:`passed`
    counts only the flags on their cards, goals and playsets, unless ``strict_all``."""
    c = criteria or Criteria()
    verdicts: list[Verdict] = []  # every figure; those judged get their status below
    holder_band = f"{_pct(c.holder_band[0])}-{_pct(c.holder_band[1])}"
    card_band = f"{_pct(c.card_band[0])}-{_pct(c.card_band[1])}"
    for p in summary["playsets"]:
        verdicts.append(Verdict("playset", p["playset"], "holder_win_rate", f"playset {p['playset']}",
                                p["holder_win_rate"], p["rounds"], c.min_rounds, "rounds", holder_band,
                                NOT_JUDGED))
    for g in summary["goals"]:
        band = c.star_band(g["stars"])
        verdicts.append(Verdict("goal", g["id"], "fulfilment_rate", f"goal {g['id']} '{g['goal']}' "
                                f"({'★' * g['stars']})", g["fulfilment_rate"], 2 * g["turn_ends"], c.min_samples,
                                "player-ends of turn", f"{_pct(band[0])}-{_pct(band[1])} for {g['stars']} "
                                f"star{'s' if g['stars'] > 1 else ''}", NOT_JUDGED))
    for card in summary["cards"]:
        name = f"card {card['id']} {card['name']}"
        verdicts.append(Verdict("card", card["id"], "all_win_rate", name, card["all_win_rate"], card["all_plays"],
                                c.min_plays, "plays", card_band, NOT_JUDGED))
        verdicts += [Verdict("card", card["id"], f"win_rate.{mode}", f"{name} {PLAYED_AS[mode]}",
                             card["win_rate"][mode], card["plays"].get(mode, 0), c.min_plays, "plays", card_band,
                             NOT_JUDGED)
                     for mode in MODES if "plays" in card]
    # A way of playing a card is judged only where the card itself is (as the flags always were).
    judged_cards = {v.subject for v in verdicts if v.figure == "all_win_rate" and _enough(v)}
    is_judged = [_enough(v) and (v.kind != "card" or v.subject in judged_cards) for v in verdicts]
    judged = [v for v, yes in zip(verdicts, is_judged, strict=True) if yes]
    items = len(judged)
    z = corrected_z(c.confidence, items)
    report = BalanceReport(
        c, [], [f"{v.label}: {v.why_not_judged}" for v, yes in zip(verdicts, is_judged, strict=True) if not yes],
        {"playsets": sum(v.kind == "playset" for v in judged), "goals": sum(v.kind == "goal" for v in judged),
         "cards": sum(v.figure == "all_win_rate" for v in judged),
         "ways of playing a card": sum(v.figure.startswith("win_rate.") for v in judged)},
        z=z, judged_figures=frozenset((v.subject, v.figure) for v in judged), yours=your_subjects(summary),
        strict_all=strict_all)
    goals = {g["id"]: g for g in summary["goals"]}
    for v, yes in zip(verdicts, is_judged, strict=True):
        if not yes:
            report.verdicts.append(v)
            continue
        assert v.value is not None  # (_enough)
        ci = wilson_interval(round(v.value * v.observations), v.observations, z)
        lo, hi = (c.holder_band if v.kind == "playset" else c.card_band if v.kind == "card"
                  else c.star_band(goals[v.subject]["stars"]))
        inside = lo <= v.value <= hi if v.kind != "goal" else c.stars_for(v.value) == goals[v.subject]["stars"]
        status = FAIR if inside else FLAGGED if ci[1] < lo or ci[0] > hi else NEAR
        report.verdicts.append(replace(v, status=status, interval=ci))
        if not inside:
            message = _message(v, ci, c, items, goals)
            flag = Flag(v.kind, v.subject, v.figure, v.value, v.band, message, ci, v.label)
            (report.flags if status == FLAGGED else report.near).append(flag)
    return report


def _enough(v: Verdict) -> bool:
    return v.value is not None and v.observations >= v.needed


def _message(v: Verdict, ci: tuple[float, float], c: Criteria, items: int, goals: dict[str, GoalFigures]) -> str:
    """A flag's sentence, as the terminal and the report print it."""
    assert v.value is not None
    rate, where = _pct(v.value), _interval_text(ci, c, items)
    if v.kind == "playset":
        return (f"{v.label}: the starting holder wins {rate} of rounds ({where}; {v.observations} rounds); "
                f"expected {v.band}")
    if v.kind == "goal":
        stars = goals[v.subject]["stars"]
        deserved = c.stars_for(v.value)
        lo, hi = c.star_band(stars)
        return (f"{v.label}: fulfilled at {rate} of player-ends of turn ({where}), "
                f"{'harder' if deserved > stars else 'easier'} than its stars say ({_pct(lo)}-{_pct(hi)}); "
                f"it plays like a {deserved}-star goal")
    if v.figure == "all_win_rate":
        word = "never" if v.value < c.card_band[0] else "always"
        return (f"{v.label}: {word} worth playing — the player who plays it wins {rate} of those rounds "
                f"({where}; {v.observations} plays); expected {v.band}")
    return (f"{v.label}: its player wins {rate} of those rounds ({where}; {v.observations} plays); "
            f"expected {v.band}")


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


__all__ = ["FAIR", "FLAGGED", "NEAR", "NOT_JUDGED", "BalanceReport", "Criteria", "Flag", "Verdict", "check",
           "corrected_z", "flag_lines", "parse_band", "your_subjects"]
