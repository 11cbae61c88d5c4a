"""A card's parameter swept: ``converge balance --sweep GAR6.goal.at_least=2..6``.

The designer names one parameter of one card's goal or effect and the values to try; each value is played
as its own simulation of the same playsets on the same seeds (so the deals are the same and only the card
differs), and the figure the parameter moves is set against the value: a goal's fulfilment rate against the
star bands of ``converge balance`` (which values fit its stars), an effect's round win rate after a play
against the card band. The deck with each value goes through the same validation as a deck file, so a value
out of the parameter's bounds is refused before anything is played.

A value's interval is the Wilson interval at the balance checks' confidence for all the values together
(Bonferroni's correction over the values swept), and its verdict follows the checks' rule: *fits* inside the
band, *does not fit* where the interval clears the band's line, *near the line* between.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from converge.simulation.balance import Criteria, corrected_z
from converge.simulation.runner import wilson_interval

if TYPE_CHECKING:
    from converge.engine.params import ParamValue
    from converge.simulation.summary_doc import Summary

#: The parts of a card a sweep may change, and what figure each moves.
PARTS = {"goal": "fulfilment rate of its goal", "effect": "round win rate after a play"}
_SPEC = re.compile(r"^(?P<card>[A-Za-z0-9_-]+)\.(?P<part>goal|effect)\.(?P<param>[a-z_][a-z0-9_]*)"
                   r"=(?P<values>.+)$")
#: At most this many values in one sweep (each is a whole simulation).
MAX_VALUES = 20

FITS, NEAR, OUT, NOT_JUDGED = "fits", "near the line", "does not fit", "not judged"


@dataclass(frozen=True)
class Sweep:
    card: str  # the card's id, as its deck file writes it
    part: str  # "goal" or "effect"
    param: str  # the parameter of the goal or effect kind ("stars" for a goal's stars)
    values: tuple[ParamValue, ...]

    @property
    def name(self) -> str:
        return f"{self.card}.{self.part}.{self.param}"


def parse_sweep(text: str) -> Sweep:
    """``"GAR6.goal.at_least=2..6"`` (a range of whole numbers, both ends in) or ``"ALC3.effect.skillset=own,
    choose"`` (a list); ``ValueError`` with what was wrong otherwise."""
    m = _SPEC.match(text.strip())
    if m is None:
        raise ValueError(f"--sweep takes CARD.goal.PARAM=VALUES or CARD.effect.PARAM=VALUES, e.g. "
                         f"GAR6.goal.at_least=2..6 or ALC3.effect.count=1,2; got {text!r}")
    raw = m["values"].strip()
    values: list[ParamValue]
    span = re.fullmatch(r"(-?\d+)\s*\.\.\s*(-?\d+)", raw)
    if span:
        lo, hi = int(span[1]), int(span[2])
        if lo > hi:
            raise ValueError(f"--sweep {m['card']}.{m['part']}.{m['param']}: the range {raw} is empty "
                             "(write the lower end first)")
        values = list(range(lo, hi + 1))
    else:
        values = [_value(v.strip()) for v in raw.split(",") if v.strip()]
    if len(values) < 2:
        raise ValueError(f"--sweep needs at least two values to compare, got {raw!r}")
    if len(values) > MAX_VALUES:
        raise ValueError(f"--sweep takes at most {MAX_VALUES} values (each is a whole simulation), "
                         f"got {len(values)}")
    if len(set(map(repr, values))) != len(values):
        raise ValueError(f"--sweep names a value twice: {raw!r}")
    return Sweep(m["card"], m["part"], m["param"], tuple(values))


def _value(text: str) -> ParamValue:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    return text


# ---------------------------------------------------------------------- the decks with one value


def with_value(sources: Sequence[tuple[str, str]], sweep: Sweep, value: ParamValue) -> tuple[tuple[str, str], ...]:
    """The deck sources with the card's parameter set to ``value`` (the deck file written anew); ``KeyError`` when
    no deck has the card, ``ValueError`` when the card has no such part."""

    def change(card: dict[str, object], deck: str) -> None:
        part = card.get(sweep.part)
        if not isinstance(part, dict):
            raise ValueError(f"card {sweep.card} ({deck}) has no {sweep.part} table to change")
        part[sweep.param] = value

    return with_card_changed(sources, sweep.card, change)


def with_card_changed(sources: Sequence[tuple[str, str]], card_id: str,
                      change: Callable[[dict[str, object], str], None]) -> tuple[tuple[str, str], ...]:
    """The deck sources with ``change(card, deck file name)`` made to the table of the card ``card_id`` (its deck
    file written anew, the others as they were); ``KeyError`` when no deck has the card."""
    out = list(sources)
    for i, (name, text) in enumerate(out):
        data = tomllib.loads(text)
        cards = data.get("card")
        if not isinstance(cards, list):
            continue
        for card in cards:
            if isinstance(card, dict) and card.get("id") == card_id:
                change(card, name)
                out[i] = (name, deck_toml(data))
                return tuple(out)
    raise KeyError(card_id)


def deck_toml(data: dict[str, object]) -> str:
    """A deck file's data as TOML again (the shape deck files have: keys, inline tables, ``[[card]]``)."""
    lines = [f"{_key(k)} = {_toml(v)}" for k, v in data.items() if not _is_table_array(v)]
    for k, v in data.items():
        if _is_table_array(v):
            assert isinstance(v, list)
            for table in v:
                lines += ["", f"[[{_key(k)}]]"] + [f"{_key(kk)} = {_toml(vv)}" for kk, vv in table.items()]
    return "\n".join(lines) + "\n"


def _is_table_array(v: object) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(t, dict) for t in v)


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k, ensure_ascii=False)


def _toml(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # (a JSON string is a TOML basic string)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


# ---------------------------------------------------------------------- one value's figure


@dataclass(frozen=True)
class Point:
    """One value of a sweep and the figure it gave."""

    value: ParamValue
    rate: float | None
    observations: int
    interval: tuple[float, float] | None
    band: tuple[float, float]  # the band the figure should be in
    band_text: str
    verdict: str  # FITS, NEAR, OUT or NOT_JUDGED
    plays_like: int | None = None  # the stars a goal's rate deserves


def point(summary: Summary, sweep: Sweep, value: ParamValue, criteria: Criteria, values: int) -> Point:
    """What the summary of one value's simulation says of the swept card."""
    z = corrected_z(criteria.confidence, values)
    if sweep.part == "goal":
        g = next(g for g in summary["goals"] if g["id"] == sweep.card)
        rate, n, needed = g["fulfilment_rate"], 2 * g["turn_ends"], criteria.min_samples
        band = criteria.star_band(g["stars"])
        text = f"{100 * band[0]:.1f}-{100 * band[1]:.1f}% for {g['stars']} star{'s' if g['stars'] > 1 else ''}"
    else:
        c = next(c for c in summary["cards"] if c["id"] == sweep.card)
        rate, n, needed = c["all_win_rate"], c["all_plays"], criteria.min_plays
        band = criteria.card_band
        text = f"{100 * band[0]:.1f}-{100 * band[1]:.1f}%"
    if rate is None or n < needed:
        return Point(value, rate, n, None, band, text, NOT_JUDGED)
    ci = wilson_interval(round(rate * n), n, z)
    inside = band[0] <= rate <= band[1]
    verdict = FITS if inside else OUT if ci[1] < band[0] or ci[0] > band[1] else NEAR
    return Point(value, rate, n, ci, band, text, verdict,
                 criteria.stars_for(rate) if sweep.part == "goal" else None)


def sweep_doc(sweep: Sweep, points: Sequence[Point], settings: dict[str, object]) -> dict[str, object]:
    """``sweep.json``: what was swept, how, and each value's figure."""
    return {"sweep": sweep.name, "figure": PARTS[sweep.part], "settings": settings,
            "points": [asdict(p) for p in points]}


__all__ = ["FITS", "NEAR", "NOT_JUDGED", "OUT", "PARTS", "Point", "Sweep", "deck_toml", "parse_sweep", "point",
           "sweep_doc", "with_card_changed", "with_value"]
