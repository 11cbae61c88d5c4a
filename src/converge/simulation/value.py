"""A card's value to its holder, against a plain card of its deck: ``converge balance --value``.

Each card measured is played twice on the same playsets and seeds (the same deals): as printed, and as its
*stand-in*, the plainest card its deck allows in its place — the same id, name, rank and skillset, a goal no
faction fulfils ("rank total of 60 or more") and its deck's keyword effect with every option at its default (a
parameter the effect requires, such as Search's depth, keeps the card's value). The card's value is
how much more often the player dealt it wins the round than the player dealt the stand-in:

    value = P(win the round | dealt the card) - P(win the round | dealt its stand-in)

in points of round win rate, with Newcombe's interval of a difference of two rates at the balance checks'
confidence for all the cards measured together (Bonferroni's correction). Against a plain card, not against
"no card": a deck always holds six cards, so the question a designer has is what this card adds over the
least it could be.

Verdicts, each only where the interval says so (``MARGIN`` is ``Criteria.value_margin``, 3 points):

- **useless**: the whole interval lies below +MARGIN — holding the card is worth no more than holding a plain
  one (below 0: worth less);
- **overpowered**: the card's value minus the mean value of its deck's other cards measured (at least two of
  them) has its whole interval above +MARGIN — the card is worth clearly more than its deck-mates;
- **fair**: the whole interval lies above 0 and neither of the above;
- **near the line**: the interval holds 0 and reaches past +MARGIN: more matches would tell;
- **not judged**: fewer than ``Criteria.min_plays`` rounds dealt with the card or with its stand-in.

What a card is worth depends on who holds it: under the greedy bot, which plays a card's effect for the points
it makes this turn, many cards are worth no more than a plain one; under a searching bot (``--bot1 ismcts:200
--bot2 ismcts:200``) most are worth several points. Judge value under the bots your players will be.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from converge.simulation.balance import Criteria, corrected_z
from converge.simulation.compare import difference_interval
from converge.simulation.sweep import with_card_changed

if TYPE_CHECKING:
    from converge.simulation.summary_doc import Summary

#: The stand-in's goal: the largest rank total a goal may ask for, which no faction reaches in practice (18 cards
#: of ranks 1-6 total 63, and a faction holds a share of them).
STAND_IN_GOAL_KIND = "rank_total"
STAND_IN_GOAL_AT_LEAST = 60

USELESS, OVERPOWERED, FAIR, NEAR, NOT_JUDGED = "useless", "overpowered", "fair", "near the line", "not judged"
#: The verdicts that fail the check.
FLAGGED = (USELESS, OVERPOWERED)


def stand_in(sources: Sequence[tuple[str, str]], card: str) -> tuple[tuple[str, str], ...]:
    """The deck sources with ``card`` replaced by its stand-in (the deck file written anew); ``KeyError`` when
    no deck has the card."""

    def plain(c: dict[str, object], _deck: str) -> None:
        goal, effect = c.get("goal"), c.get("effect")
        stars = goal.get("stars", 1) if isinstance(goal, dict) else 1
        c["goal"] = {"kind": STAND_IN_GOAL_KIND, "at_least": STAND_IN_GOAL_AT_LEAST, "stars": stars}
        c["effect"] = _plain_effect(effect) if isinstance(effect, dict) else effect

    return with_card_changed(sources, card, plain)


def _plain_effect(effect: dict[str, object]) -> dict[str, object]:
    """The effect with every option at its default; a parameter its kind requires (Search's depth) keeps the
    card's value, since no card of the keyword can do without it. An unknown kind is left for the deck's own
    validation to name."""
    from converge.engine.effects import effect_kinds

    kind = effect_kinds().get(str(effect.get("kind")))
    if kind is None:
        return dict(effect)
    required = {p.name for p in kind.params if p.default is None}
    return {k: v for k, v in effect.items() if k == "kind" or k in required}


@dataclass(frozen=True)
class CardValue:
    """One card's value and its verdict."""

    card: str
    skillset: str
    dealt: int  # rounds dealt with the card
    won: int  # of those, rounds its player won
    dealt_plain: int  # rounds dealt with its stand-in
    won_plain: int
    value: float | None  # points of round win rate (a fraction: 0.05 is 5 points)
    interval: tuple[float, float] | None
    above_deck: float | None  # value minus the mean value of the deck's other cards measured
    above_deck_interval: tuple[float, float] | None
    verdict: str

    @property
    def rate(self) -> float | None:
        return self.won / self.dealt if self.dealt else None

    @property
    def rate_plain(self) -> float | None:
        return self.won_plain / self.dealt_plain if self.dealt_plain else None

    @property
    def flagged(self) -> bool:
        return self.verdict in FLAGGED

    def reason(self, criteria: Criteria) -> str:
        """Why the verdict, in words."""
        margin = criteria.value_margin
        if self.verdict == NOT_JUDGED:
            return (f"{min(self.dealt, self.dealt_plain):,} rounds dealt with it or its stand-in (at least "
                    f"{criteria.min_plays:,} needed)")
        assert self.value is not None and self.interval is not None
        if self.verdict == USELESS:
            return ("its holder wins less often than with a plain card" if self.interval[1] < 0
                    else f"it wins its holder less than {100 * margin:.0f} points more than a plain card would")
        if self.verdict == OVERPOWERED:
            assert self.above_deck is not None and self.above_deck_interval is not None
            lo, hi = self.above_deck_interval
            return (f"{100 * self.above_deck:+.1f} points above its deck's other cards (interval {100 * lo:+.1f} "
                    f"to {100 * hi:+.1f})")
        if self.verdict == FAIR:
            return "worth more than a plain card"
        return "no clear difference from a plain card yet (the interval holds zero): more matches would tell"


def _counts(summary: Summary, card: str) -> tuple[str, int, int]:
    c = next(c for c in summary["cards"] if c["id"] == card)
    return c["skillset"], c.get("dealt", 0), c.get("dealt_wins", 0)


def card_values(base: Summary, plain: dict[str, Summary], criteria: Criteria) -> list[CardValue]:
    """Every card of ``plain`` (card id -> the summary of the run with its stand-in) judged against ``base``,
    the run with every card as printed, in ``plain``'s order."""
    z = corrected_z(criteria.confidence, len(plain))
    margin = criteria.value_margin
    raw: list[tuple[str, str, int, int, int, int, float | None, tuple[float, float] | None]] = []
    for card, summary in plain.items():
        skillset, dealt, won = _counts(base, card)
        _, dealt_plain, won_plain = _counts(summary, card)
        judged = min(dealt, dealt_plain) >= criteria.min_plays
        value = won / dealt - won_plain / dealt_plain if judged else None
        interval = difference_interval(won, dealt, won_plain, dealt_plain, z) if judged else None
        raw.append((card, skillset, dealt, won, dealt_plain, won_plain, value, interval))
    out = []
    for card, skillset, dealt, won, dealt_plain, won_plain, value, interval in raw:
        mates = [(v, ci) for c, s, *_, v, ci in raw if s == skillset and c != card and v is not None and ci]
        above: float | None = None
        above_ci: tuple[float, float] | None = None
        if value is not None and interval is not None and len(mates) >= 2:
            # the card's and its deck-mates' values are from independent pairs of runs: their errors add
            se = (interval[1] - interval[0]) / (2 * z)
            se_mates = math.sqrt(sum(((ci[1] - ci[0]) / (2 * z)) ** 2 for _, ci in mates)) / len(mates)
            above = value - sum(v for v, _ in mates) / len(mates)
            half = z * math.hypot(se, se_mates)
            above_ci = (above - half, above + half)
        if value is None or interval is None:
            verdict = NOT_JUDGED
        elif interval[1] < margin:
            verdict = USELESS
        elif above_ci is not None and above_ci[0] > margin:
            verdict = OVERPOWERED
        elif interval[0] > 0:
            verdict = FAIR
        else:
            verdict = NEAR
        out.append(CardValue(card, skillset, dealt, won, dealt_plain, won_plain, value, interval, above,
                             above_ci, verdict))
    return out


def value_doc(values: Sequence[CardValue], settings: dict[str, object]) -> dict[str, object]:
    """``value.json``: how the values were measured, and each card's."""
    goal = {"kind": STAND_IN_GOAL_KIND, "at_least": STAND_IN_GOAL_AT_LEAST}
    effect = "the card's keyword, every option at its default"
    return {"settings": settings, "stand_in": {"goal": goal, "effect": effect},
            "cards": [{**asdict(v), "rate": v.rate, "rate_plain": v.rate_plain} for v in values]}


__all__ = ["FAIR", "FLAGGED", "NEAR", "NOT_JUDGED", "OVERPOWERED", "USELESS", "CardValue", "card_values",
           "stand_in", "value_doc"]
