"""A hint: the strong bot's chance to win the round with each option of the player to move — computed from
that player's view alone, so a hint never knows a hidden card — the option with the best chance first.

The chance of an option is the search's value of its *whole play* (the card, then how it is placed and
its targets, as the search would go on to play them: the mean of the rounds its simulations won), read
through a calibration map fitted on measured outcomes (``converge calibrate --fit``, shipped in the package
as ``hint_calibration.json``), so that of the options given "6 in 10", about 6 in 10 win the round.
Without a map the search's values are shown as they are, and said to be its estimates.

Drawing a little-searched option's value towards its decision's mean was tried and measured worse: on the
same 2,000 measured decisions, the Brier skill after calibration fell from 0.31 to 0.27 (the search leaves
an option little searched because it looks worse, so the decision's mean flatters it).

>>> from converge import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=1)
>>> options = hint(m.view(m.current_player), simulations=200, seed=1)
>>> sorted(o.action for o in options) == m.legal_actions(), 0.0 <= options[0].win_chance <= 1.0
(True, True)
>>> options[0].win_chance == max(o.win_chance for o in options)
True
"""

# No ``from __future__ import annotations`` here: HintOption's NotRequired key must be seen at run time (the
# server's Pydantic models and the tests read ``__required_keys__``).
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from importlib import resources
from itertools import pairwise
from typing import TYPE_CHECKING, NotRequired

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.bots.budgets import HINT
from converge.bots.estimates import Estimate, Found, paired_difference, prefer
from converge.bots.search import Settings, native_available, search
from converge.engine.schema import legal_actions_of

if TYPE_CHECKING:
    from converge.engine.view import PlayerView

#: The calibration map shipped with the package (absent: the search's values are shown as they are).
CALIBRATION_FILE = "hint_calibration.json"


class CalibrationDoc(TypedDict):
    """A calibration map as JSON (:meth:`Calibration.to_dict`: the file the package ships)."""

    format: int
    fitted_on: int
    knots: list[list[float]]  # [value, chance] pairs
    budget: dict[str, float]  # the search's Settings, field by field


@dataclass(frozen=True)
class Calibration:
    """A monotone map from the search's value of a play to the chance a hint shows: straight lines between
    ``knots`` ``(value, chance)``; the default is the identity.

    >>> Calibration(((0.0, 0.1), (1.0, 0.7)))(0.5)
    0.4
    """

    knots: tuple[tuple[float, float], ...] = ((0.0, 0.0), (1.0, 1.0))
    fitted_on: int = 0  # how many measured decisions the map was fitted on (0: not fitted)
    budget: Settings = field(default_factory=lambda: HINT)  # the search the map was fitted on

    def __call__(self, value: float) -> float:
        knots = self.knots
        if value <= knots[0][0]:
            return knots[0][1]
        for (x0, y0), (x1, y1) in pairwise(knots):
            if value <= x1:
                return y0 if x1 == x0 else y0 + (value - x0) / (x1 - x0) * (y1 - y0)
        return knots[-1][1]

    def to_dict(self) -> CalibrationDoc:
        return {"format": 2, "fitted_on": self.fitted_on, "knots": [list(k) for k in self.knots],
                "budget": asdict(self.budget)}

    @classmethod
    def from_dict(cls, doc: CalibrationDoc) -> "Calibration":
        """A map from :meth:`to_dict`'s form; ``ValueError`` for anything else (or a map that goes down)."""
        try:
            knots = tuple((float(x), float(y)) for x, y in doc["knots"])
            fitted_on = int(doc.get("fitted_on", 0))
            b = doc.get("budget")
            budget = HINT if b is None else Settings(**{k: type(getattr(HINT, k))(v) for k, v in b.items()})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a calibration map: {exc}") from None
        if len(knots) < 2 or any(b[0] < a[0] or b[1] < a[1] for a, b in pairwise(knots)) \
                or not all(0.0 <= y <= 1.0 for _, y in knots):
            raise ValueError("a calibration map needs two knots or more, rising, with chances from 0 to 1")
        return cls(knots, fitted_on, budget)

    @classmethod
    def shipped(cls) -> "Calibration":
        """The map in the package (fitted by ``converge calibrate --fit``), or the identity."""
        try:
            text = resources.files("converge.bots").joinpath(CALIBRATION_FILE).read_text(encoding="utf-8")
        except (FileNotFoundError, OSError):
            return cls()
        return cls.from_dict(json.loads(text))


_SHIPPED: list[Calibration] = []


def shipped_calibration() -> Calibration:
    """The package's calibration map, read once."""
    if not _SHIPPED:
        _SHIPPED.append(Calibration.shipped())
    return _SHIPPED[0]


class HintOption(TypedDict):
    """One option of a hint as the server sends it."""

    action: int
    label: str
    win_chance: float  #: the chance to win the round with it (and the best of what follows), 0 to 1, whole points
    simulations: int  #: the simulations behind it (solved exactly: the worlds it was solved in)
    then: NotRequired[list["HintOption"]]  #: the player's own next choices after it, the best chance first
    equal: NotRequired[bool]  #: true: the hint cannot tell it from the best option (about equal)
    sure: NotRequired[int]  #: 1: it wins in every case; -1: it loses in every case against the best replies
    exact: NotRequired[bool]  #: true: the decision was solved in every world (the deck is empty), not searched


class HintAnswer(TypedDict):
    """A hint as the server sends it: the options, the best first; the hint in a sentence (:func:`verdict`); and
    whether the chances were measured (:func:`measured`), or are the bot's estimates."""

    options: list[HintOption]
    verdict: str
    calibrated: bool


@dataclass(frozen=True)
class Option:
    """One legal action with what the search made of it."""

    action: int
    label: str  # the action's menu label, e.g. "play ALC3 Salt Reader (Alchemist 3)"
    win_chance: float  # the chance to win the current round with this option, 0..1, as the hint shows it
    simulations: int
    raw: float = 0.0  # the search's own value of the option's whole play, before the calibration map
    then: tuple["Option", ...] = ()  # the player's own next choices after it (a card's placement...), best first
    equal: bool = False  # the hint cannot tell it from the best option: about equal
    sure: int = 0  # solved exactly: 1 it wins in every case, -1 it loses in every case against the best replies
    exact: bool = False  # the decision was solved in every world (the deck is empty), not searched

    def to_dict(self) -> HintOption:
        # whole points, as the verdict says them: a chance sent to three places (0.515 for 0.51496) was
        # rounded a second time by the page, which then said 52% where the sentence said 51%
        doc: HintOption = {"action": self.action, "label": self.label, "win_chance": points(self.win_chance) / 100,
                           "simulations": self.simulations}
        if self.then:
            doc["then"] = [o.to_dict() for o in self.then]
        if self.equal:
            doc["equal"] = True
        if self.sure:
            doc["sure"] = self.sure
        if self.exact:
            doc["exact"] = True
        return doc


def hint(view: "PlayerView", simulations: int | None = None, seed: int = 0,
         calibration: Calibration | None = None, threads: int = 0) -> list[Option]:
    """The options of the view's decision, the best first, each with the options of the player's own next
    choice after it from the same judgement, so that the steps of one play agree: a card's chance is the best
    chance of its placements. The options the hint cannot tell from the best (:data:`EQUAL_POINTS`) are marked
    about equal and come first, in a fixed order (cards kept in play first, then by id), so that which of
    them is named first does not depend on the search's seed. Once the deck is empty the decision is solved in
    every world (:mod:`converge.bots.endgame`) and an option may win or lose in every case.

    The search spends the budget the calibration map was fitted on (``simulations``: another, for tests), and
    the same view and seed give the same hint. ``calibration`` defaults to the package's map; ``threads``: how
    many of the search's parts may run at once (0: all)."""
    cal = shipped_calibration() if calibration is None else calibration
    settings = cal.budget if simulations is None else replace(cal.budget, simulations=simulations)
    labels = {item["id"]: item["label"] for item in legal_actions_of(view.observation())}
    found = search(view, settings, seed, threads=threads)
    visits = sum(e.visits for e in found.estimates)
    mean = sum(e.wins for e in found.estimates) / visits if visits else 0.5
    return _about_equal_first(_options(found.estimates, mean, cal, labels, view, found.exact), found)


def _options(found: list[Estimate], prior: float, cal: Calibration, labels: dict[int, str],
             view: "PlayerView", exact: bool) -> list[Option]:
    """Options from the estimates: each worth the mean of its simulations (``prior``, its decision's mean, when
    it has none); an option whose next choice is a step of the same play (nothing comes to light in between:
    :meth:`~converge.engine.view.PlayerView.follow_up`) is worth the best of that step's options. An option
    that wins in every case has the chance 1, whatever the map says of its value."""
    out = []
    for e in found:
        mean = e.wins / e.visits if e.visits else prior
        then: list[Option] = []
        step = view.follow_up(e.action) if e.then else None
        if step is not None:
            named = {a["id"]: a["label"] for a in legal_actions_of(step.observation())}
            then = _options([t for t in e.then if t.action in named], mean, cal, named, step, exact)
        raw = then[0].raw if then else mean
        sure = then[0].sure if then else e.sure
        chance = 1.0 if sure > 0 else cal(raw)
        out.append(Option(e.action, str(labels.get(e.action, e.action)), chance, e.visits, raw, tuple(then),
                          sure=sure, exact=exact))
    out.sort(key=lambda o: (-o.raw, -o.sure, -o.simulations, -prefer(o.action), o.action))
    return out


#: How close to the best option another must be for a hint to call them about equal: within this many points
#: of chance, or with a paired difference (the two options' outcomes in the same sampled worlds) under two
#: standard errors — and only an option the search kept in the running to its last phase (at least half the
#: best's simulations): one it set aside earlier was measured worse on the worlds both were played in. Solved
#: exactly, options are about equal when their values are equal.
EQUAL_POINTS = 0.02


def _about_equal_first(options: list[Option], found: Found) -> list[Option]:
    """The options about equal to the best one marked, and put first in a fixed order (see :func:`hint`)."""
    if len(options) < 2:
        return options
    top = options[0]
    equal = [top]
    for o in options[1:]:
        if found.exact:
            alike = o.raw == top.raw and o.sure == top.sure
        else:
            n, diff, se = paired_difference(found.outcomes[top.action], found.outcomes[o.action])
            kept = 2 * o.simulations >= top.simulations
            alike = kept and (top.raw - o.raw < EQUAL_POINTS or (n > 0 and abs(diff) <= 2 * se))
        if alike:
            equal.append(o)
    if len(equal) == 1:
        return options
    equal.sort(key=lambda o: (-prefer(o.action), o.action))
    rest = [o for o in options if o not in equal]
    return [replace(o, equal=True) for o in equal] + rest


def follow_on(options: list[Option], action: int, legal: list[int]) -> list[Option] | None:
    """The hint for the decision right after ``action`` from the same search: the chosen option's ``then``
    when it covers exactly the new decision's ``legal`` actions; None when it does not (something came to
    light in between, or the search left an option untried): then ask again.

    >>> o = Option(5, "play X", 0.6, 90, 0.6, (Option(1, "declare", 0.6, 60), Option(2, "mine", 0.4, 30)))
    >>> [x.action for x in follow_on([o], 5, [2, 1])], follow_on([o], 5, [1, 2, 3])
    ([1, 2], None)
    """
    for o in options:
        if o.action == action:
            return list(o.then) if o.then and sorted(x.action for x in o.then) == sorted(legal) else None
    return None


def answer(view: "PlayerView", simulations: int | None = None, seed: int = 0) -> HintAnswer:
    """The hint of the view's decision (:func:`hint`) as the server sends it."""
    options = hint(view, simulations=simulations, seed=seed)
    calibrated = measured(simulations, view)
    return {"options": [o.to_dict() for o in options], "verdict": verdict(options, calibrated),
            "calibrated": calibrated}


def measured(simulations: int | None = None, view: "PlayerView | None" = None) -> bool:
    """Whether a hint on ``simulations`` (None: the map's budget) of ``view`` shows chances that were measured:
    the map is fitted, and the search spends the budget it was fitted on, on the native core. Elsewhere (a host
    or a test that asks for another budget; a deck with a mechanic written in Python, or an install without a C
    compiler, where the search runs on the engine with less) the chances are the strong bot's estimates, and
    the doors say so."""
    cal = shipped_calibration()
    return (cal.fitted_on > 0 and (simulations is None or simulations == cal.budget.simulations)
            and (view is None or native_available(view)))


def points(chance: float) -> int:
    """A chance (0..1) in whole points, rounded half up as players (and the browser) round.

    >>> points(0.625), points(0.0049)
    (63, 0)
    """
    return math.floor(round(100 * chance, 6) + 0.5)


def in_words(chance: float, measured_chances: bool = True) -> str:
    """What a hint's chance means, for players: a frequency once the chances are measured (:func:`measured`),
    else only that it is the bot's estimate. The words follow the figure shown (5% is never "about 1 in 10").

    >>> in_words(0.62), in_words(0.03), in_words(0.97)
    ('about 6 in 10 rounds like this are won', 'fewer than 1 in 20 rounds like this are won', \
'more than 19 in 20 rounds like this are won')
    >>> in_words(0.62, measured_chances=False)
    'the strong bot estimates it at 62%'
    """
    p = points(chance)
    if not measured_chances:
        return f"the strong bot estimates it at {p}%"
    words = ("fewer than 1 in 20" if p < 5 else "fewer than 1 in 10" if p < 10 else "more than 19 in 20" if p > 95
             else "more than 9 in 10" if p > 90 else f"about {round(p / 10)} in 10")
    return f"{words} rounds like this are won"


#: The most options a hint's sentence names when they are about equal; more are counted ("your 4 best choices,
#: listed first"), as every door lists the options below it.
NAMED_EQUAL = 3


def verdict(options: Sequence[Option], measured_chances: bool = True) -> str:
    """The hint in a sentence, as every door says it: the best option (those about equal to it, together), its
    chance in words, and what an exact endgame proves. ``measured_chances``: see :func:`in_words`.

    >>> a, b = Option(3, "play A", 0.62, 900, equal=True), Option(5, "play B", 0.618, 900, equal=True)
    >>> print(verdict([a, b, Option(7, "play C", 0.3, 400)]))
    “play A” and “play B” are about equal, your best choices: with either, about 6 in 10 rounds like this are \
won (62%).
    >>> print(verdict([b, a, Option(7, "play C", 0.58, 400, equal=True)]))
    “play B”, “play A” and “play C” are about equal, your best choices: with any of them, about 6 in 10 rounds \
like this are won (58–62%).
    >>> print(verdict([Option(k, f"play {k}", 0.6 - k / 100, 900, equal=True) for k in range(4)]))
    Your 4 best choices, listed first, are about equal: with any of them, about 6 in 10 rounds like this are \
won (57–60%).
    >>> print(verdict([Option(3, "play A", 1.0, 4, sure=1, exact=True)]))
    “play A” wins the round in every case, whatever your opponent does (worked out exactly: the deck is empty, \
and every hand your opponent may hold was played out).
    """
    best = options[0]
    equal = [o for o in options if o.equal] or [best]
    if len(equal) > NAMED_EQUAL:  # (a sentence of six quoted options would push the board out of the window)
        names = f"your {len(equal)} best choices, listed first,"
    elif len(equal) > 1:
        names = ", ".join(f"“{o.label}”" for o in equal[:-1]) + f" and “{equal[-1].label}”"
    else:
        names = f"“{best.label}”"
    top = max(equal, key=lambda o: o.win_chance)
    low = points(min(o.win_chance for o in equal))
    p = points(top.win_chance) if low == points(top.win_chance) else f"{low}–{points(top.win_chance)}"
    if best.sure > 0:
        wins = "each win" if len(equal) > 1 else "wins"
        said = f"{names} {wins} the round in every case, whatever your opponent does"
    elif best.sure < 0:
        said = (f"every choice loses the round in every case if your opponent answers well; {names} "
                f"{'are' if len(equal) > 1 else 'is'} the best try ({p}%)")
    else:
        words = in_words(top.win_chance, measured_chances)
        chance = (f"{words} ({p}%)" if measured_chances else words if len(equal) == 1
                  else f"the strong bot estimates them at {p}%")
        either = "either" if len(equal) == 2 else "any of them"
        said = (f"{names} are about equal: with {either}, {chance}" if len(equal) > NAMED_EQUAL
                else f"{names} are about equal, your best choices: with {either}, {chance}" if len(equal) > 1
                else f"your best choice is {names}: with it, {chance}")
    if best.exact:
        said += (" (worked out exactly: the deck is empty, and every hand your opponent may hold was played out)"
                 if best.sure >= 0 else " (worked out exactly: the deck is empty)")
    return said[0].upper() + said[1:] + "."


def note(option: Option, unit: str = "") -> str:
    """What a hint says of one option, beside it in a list: its chance (followed by ``unit``), and "about equal"
    or what an exact endgame proves.

    >>> note(Option(3, "play A", 0.62, 900, equal=True)), note(Option(3, "play A", 1.0, 4, sure=1), " to win")
    ('62%, about equal to the best', '100% to win, wins in every case')
    """
    said = f"{points(option.win_chance)}%{unit}"
    if option.sure > 0:
        return said + ", wins in every case"
    if option.sure < 0:
        return said + ", loses in every case"
    return said + (", about equal to the best" if option.equal else "")
