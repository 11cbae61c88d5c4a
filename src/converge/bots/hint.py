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
from dataclasses import dataclass, field, replace
from importlib import resources
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NotRequired

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.bots.budgets import HINT
from converge.bots.estimates import Estimate, Found, paired_difference, prefer
from converge.bots.search import Settings, search
from converge.engine.schema import legal_actions_of

if TYPE_CHECKING:
    from converge.engine.view import PlayerView

#: The calibration map shipped with the package (absent: the search's values are shown as they are).
CALIBRATION_FILE = "hint_calibration.json"


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

    def to_dict(self) -> dict[str, Any]:
        b = self.budget
        return {"format": 2, "fitted_on": self.fitted_on, "knots": [list(k) for k in self.knots],
                "budget": {"simulations": b.simulations, "parts": b.parts, "exploration": b.exploration,
                           "greedy": b.greedy}}

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> "Calibration":
        """A map from :meth:`to_dict`'s form; ``ValueError`` for anything else (or a map that goes down)."""
        try:
            knots = tuple((float(x), float(y)) for x, y in doc["knots"])
            fitted_on = int(doc.get("fitted_on", 0))
            b = doc.get("budget")
            budget = HINT if b is None else Settings(int(b["simulations"]), int(b["parts"]),
                                                       float(b["exploration"]), float(b["greedy"]))
        except (KeyError, TypeError, ValueError) as exc:
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
    win_chance: float  #: the chance to win the round with it (and the best of what follows), 0 to 1
    simulations: int  #: the simulations behind it (solved exactly: the worlds it was solved in)
    then: NotRequired[list["HintOption"]]  #: the player's own next choices after it, the best chance first
    equal: NotRequired[bool]  #: true: the hint cannot tell it from the best option (about equal)
    sure: NotRequired[int]  #: 1: it wins in every case; -1: it loses in every case against the best replies
    exact: NotRequired[bool]  #: true: the decision was solved in every world (the deck is empty), not searched


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
        doc: HintOption = {"action": self.action, "label": self.label, "win_chance": round(self.win_chance, 3),
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
#: standard errors. Solved exactly, options are about equal when their values are equal.
EQUAL_POINTS = 0.01


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
            alike = top.raw - o.raw < EQUAL_POINTS or (n > 0 and abs(diff) <= 2 * se)
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


def measured(simulations: int | None = None) -> bool:
    """Whether a hint on ``simulations`` (None: the map's budget) shows chances that were measured: the map is
    fitted, and the search spends the budget it was fitted on. Elsewhere (a host or a test that asks for another
    budget) the chances are the strong bot's estimates, and the doors say so."""
    cal = shipped_calibration()
    return cal.fitted_on > 0 and (simulations is None or simulations == cal.budget.simulations)


def in_words(chance: float, calibration: Calibration | None = None) -> str:
    """What a hint's chance means, for players: a frequency once the chances are calibrated (the map was
    fitted on measured outcomes), else only that it is the bot's estimate. ``calibration`` defaults to
    the package's map.

    >>> fitted = Calibration(fitted_on=2000)
    >>> in_words(0.62, fitted)
    'about 6 in 10 rounds like this are won'
    >>> in_words(0.03, fitted), in_words(0.97, fitted)[:18]
    ('fewer than 1 in 20 rounds like this are won', 'more than 19 in 20')
    >>> in_words(0.62, Calibration())
    'as the strong bot estimates it from its search'
    """
    if not (shipped_calibration() if calibration is None else calibration).fitted_on:
        return "as the strong bot estimates it from its search"
    if chance < 0.05:
        return "fewer than 1 in 20 rounds like this are won"
    if chance > 0.95:
        return "more than 19 in 20 rounds like this are won"
    return f"about {max(1, min(9, round(chance * 10)))} in 10 rounds like this are won"
