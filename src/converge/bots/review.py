"""A match reviewed for one player: each of their decisions judged by the hint, from what they knew then.

At every decision of the player that had a choice, the hint (:func:`~converge.bots.hint.hint`) is asked
from the player's view at that moment — never the cards revealed later — and the option they played is
set beside the option with the best chance. The chance lost marks the decision, as chess sites mark moves
by the winning chances lost: an *inaccuracy* from :data:`INACCURACY` points, a *mistake* from
:data:`MISTAKE`, a *blunder* from :data:`BLUNDER`. The points are shown whole and agree with each other:
the chance lost is rounded once, from the unrounded chances, and an option's chance is shown as the best
option's less the points it loses (44% and 40% never lose "5 points"); the marks go by the points shown.
Turns are counted in each round, as the log and the replay count them. A decision that is the next step
of the same play (how to play the card just chosen) is judged from the same search as the choice of the
card, so the steps agree. The seeds follow the decision's place in the match, so a review repeats.

>>> from converge import Match
>>> from converge.bots import make_bot
>>> from converge.simulation.runner import play_match
>>> m = play_match(["alchemist", "mechanist", "archivist"], 3, [make_bot("greedy", 1), make_bot("random", 2)])
>>> r = review(Match.replay(m.record(), upto=0), m.history, seat=1, simulations=60, upto=8)
>>> all(d.best_chance >= d.played_chance - 1e-9 for d in r.decisions), r.seat
(True, 1)
"""

# No ``from __future__ import annotations``: the server's Pydantic models read the TypedDicts below as they are.
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.bots.hint import Option, follow_on, hint, shipped_calibration

if TYPE_CHECKING:
    from converge.engine.state import Match
    from converge.engine.view import PlayerView

#: Chance lost (0..1) from which a decision is marked; the same thresholds everywhere a review is shown.
INACCURACY, MISTAKE, BLUNDER = 0.08, 0.15, 0.25
MARKS = ("inaccuracy", "mistake", "blunder")
#: The stored review's format: 2 counts turns in each round and carries the whole points shown (a review
#: stored in an older format is made again when asked for).
VERSION = 2


def whole_points(chance: float) -> int:
    """A chance (0..1) in whole points, rounded half up as players round (once: never a rounded figure again).

    >>> whole_points(0.444), whole_points(0.075), whole_points(0.6 - 0.525)
    (44, 8, 8)
    """
    return math.floor(round(100 * chance, 6) + 0.5)


class ChoiceDoc(TypedDict):
    """One option of a reviewed decision, as the server sends it."""

    action: int
    label: str
    chance: float  #: the chance to win the round with it, 0 to 1
    points: int  #: that chance as shown, in whole points: the best option's less the points this one loses


class JudgedDoc(TypedDict):
    """One reviewed decision, as the server sends it (:class:`Judged`)."""

    index: int  #: the decision's place in the match's actions: the replay's step that shows it
    round: int
    turn: int  #: the turn in its round, from 1 (as the log and the replay count it)
    kind: str
    before: list[str]  #: the player's earlier steps of the same turn (the card being played...)
    played: ChoiceDoc
    best: ChoiceDoc
    lost: float  #: the chance given up, 0 to 1
    lost_points: int  #: the chance given up in whole points, rounded once: the best's points less the played's
    mark: str  #: "blunder", "mistake", "inaccuracy" or "" (by lost_points)
    choices: list[ChoiceDoc]  #: every option, the best first


class ReviewDoc(TypedDict):
    """A match reviewed for one seat, as the server stores and sends it (:class:`Review`)."""

    version: int  #: :data:`VERSION`
    seat: int
    complete: bool  #: False: the time budget ran out before the last decision
    simulations: int
    thresholds: dict[str, float]  #: the chance lost (0 to 1) from which each mark is given
    counts: dict[str, int]
    decisions: list[JudgedDoc]


@dataclass(frozen=True)
class Judged:
    """One decision of the reviewed player."""

    index: int  # of the action in the match's history
    round_no: int
    turn_no: int  # in its round, from 1
    kind: str  # the decision's kind (select, mode, target...)
    played: int
    played_label: str
    played_chance: float
    best: int
    best_label: str
    best_chance: float
    choices: tuple[tuple[int, str, float], ...]  # every option: (action, label, chance), the best first
    before: tuple[str, ...] = ()  # the player's earlier steps of the same turn, e.g. ("ALC3",)

    @property
    def lost(self) -> float:
        """The chance given up by the option played, against the best (0 when it was the best)."""
        return max(0.0, self.best_chance - self.played_chance)

    @property
    def lost_points(self) -> int:
        """The chance given up, in whole points, rounded once from the unrounded chances."""
        return whole_points(self.lost)

    def points(self, chance: float) -> int:
        """An option's chance as the review shows it, in whole points: the best option's less the points the
        option loses against it, so that the figures shown agree with each other."""
        return whole_points(self.best_chance) - whole_points(max(0.0, self.best_chance - chance))

    @property
    def mark(self) -> str:
        """"blunder", "mistake", "inaccuracy" or "" (see the module's thresholds), by the points shown."""
        lost = self.lost_points
        return "blunder" if lost >= whole_points(BLUNDER) else "mistake" if lost >= whole_points(MISTAKE) else \
            "inaccuracy" if lost >= whole_points(INACCURACY) else ""

    def to_dict(self) -> JudgedDoc:
        def choice(action: int, label: str, chance: float) -> ChoiceDoc:
            return {"action": action, "label": label, "chance": round(chance, 3), "points": self.points(chance)}

        return {"index": self.index, "round": self.round_no, "turn": self.turn_no, "kind": self.kind,
                "before": list(self.before), "played": choice(self.played, self.played_label, self.played_chance),
                "best": choice(self.best, self.best_label, self.best_chance), "lost": round(self.lost, 3),
                "lost_points": self.lost_points, "mark": self.mark, "choices": [choice(*c) for c in self.choices]}


@dataclass
class Review:
    seat: int
    decisions: list[Judged]
    complete: bool  # False: the time budget ran out before the last decision
    simulations: int = 0

    def to_dict(self) -> ReviewDoc:
        """The review as the server stores and sends it."""
        return {"version": VERSION, "seat": self.seat, "complete": self.complete, "simulations": self.simulations,
                "thresholds": dict(zip(MARKS, (INACCURACY, MISTAKE, BLUNDER), strict=True)),
                "counts": self.counts(), "decisions": [d.to_dict() for d in self.decisions]}

    def marked(self) -> list[Judged]:
        return [d for d in self.decisions if d.mark]

    def counts(self) -> dict[str, int]:
        return {m: sum(d.mark == m for d in self.decisions) for m in MARKS}

    def chances_by_turn(self) -> list[tuple[int, int, float]]:
        """(round, turn, the chance after the player's last decision of that turn): the chart of the match."""
        out: dict[tuple[int, int], float] = {}
        for d in self.decisions:
            out[d.round_no, d.turn_no] = d.played_chance
        return [(r, t, c) for (r, t), c in out.items()]


def review(start: "Match", actions: Sequence[int], seat: int, simulations: int | None = None, seed: int = 0,
           seconds: float | None = None, upto: int | None = None,
           view_of: Callable[["Match", int], "PlayerView"] | None = None) -> Review:
    """Review ``seat``'s decisions in the match ``start`` plays into with ``actions`` (to ``upto``
    actions): each judged by the hint from the seat's view then, on the hint's budget (``simulations``: another,
    for tests). ``seconds`` bounds the whole
    review (the decisions judged so far are kept, ``complete`` says whether it finished). ``view_of``
    says how a decision is seen: the seat's own view (the tests plant a peek there, to show it matters)."""
    match = start.clone()
    see = view_of or (lambda m, p: m.view(p))
    deadline = time.perf_counter() + seconds if seconds else None
    judged: list[Judged] = []
    last: tuple[int, list[Option], int] | None = None  # the previous decision's index, hint and action
    stop = len(actions) if upto is None else min(upto, len(actions))
    complete = True
    turn: tuple[int, int] = (-1, -1)
    before: list[str] = []  # the seat's steps so far in this turn
    round_no, turns_before = match.round_no, 0  # the turns of the match before this round's first
    for i, action in enumerate(actions[:stop]):
        legal = match.legal_actions()
        if match.round_no != round_no:  # (every turn has an action: this is the new round's first turn)
            round_no, turns_before = match.round_no, match.turn_no - 1
        if (match.round_no, match.turn_no) != turn:
            turn, before = (match.round_no, match.turn_no), []
        if match.current_player == seat and len(legal) > 1:
            if deadline is not None and time.perf_counter() > deadline:
                complete = False
                break
            options = follow_on(last[1], last[2], legal) if last is not None and last[0] == i - 1 else None
            if options is None:
                options = hint(see(match, seat), simulations=simulations, seed=seed + i)
            chosen = next((o for o in options if o.action == action), None)
            if chosen is not None:
                # the chance lost is against the best chance (a hint lists the options about equal to the best
                # first, in a fixed order: the first of them is not always the highest by a point)
                best = max(options, key=lambda o: o.win_chance)
                judged.append(Judged(i, match.round_no, match.turn_no - turns_before, match.decision_kind, action,
                                     chosen.label,
                                     chosen.win_chance, best.action, best.label, best.win_chance,
                                     tuple((o.action, o.label, o.win_chance)
                                           for o in sorted(options, key=lambda o: -o.win_chance)), tuple(before)))
            last = (i, options, action)
        if match.current_player == seat:
            before.append(match.action_to_string(action))
        match.apply(action)
    return Review(seat, judged, complete, simulations or shipped_calibration().budget.simulations)


__all__ = ["BLUNDER", "INACCURACY", "MARKS", "MISTAKE", "VERSION", "ChoiceDoc", "Judged", "JudgedDoc", "Review",
           "ReviewDoc", "review", "whole_points"]
