"""What the HTTP API answers about puzzles (issue 43); declared as :mod:`.answers` declares the others (FastAPI
reads them for ``/openapi.json``)."""

# (no `from __future__ import annotations`: pydantic reads the TypedDicts' annotations as they are)

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.engine.schema import Observation, PrintedCard
from converge.server.protocol.messages import FollowUps, TurnSummary


class ThemeShown(TypedDict):
    key: str  #: the theme's key, for ``?theme=``
    name: str  #: its words for players


class ThemeCount(TypedDict):
    key: str
    name: str
    count: int  #: how many puzzles have it


class ThemeList(TypedDict):
    """``GET /api/puzzles/themes``: every theme, the most puzzles first."""

    themes: list[ThemeCount]


class Solving(TypedDict):
    """A player's puzzle rating (apart from their match rating), streaks and counts."""

    rating: int
    provisional: bool
    streak: int  #: puzzles solved in a row, to the last one
    best_streak: int
    tried: int
    solved: int


class PuzzleState(TypedDict):
    """The position as the mover sees it: their observation and the follow-ups of their choices (as a match's
    state), ``seq`` the number of their steps so far."""

    seq: int
    observation: Observation
    next: FollowUps
    turns: NotRequired[list[TurnSummary]]  #: in an attempt's answer: the turns its steps and replies ended


class PuzzleShown(TypedDict):
    """``GET /api/puzzles/next``, ``/daily``, ``/{id}``: a puzzle as its mover saw it at the table."""

    id: str
    rating: int
    themes: list[ThemeShown]
    skillsets: list[str]
    plays: int  #: the mover's plays (cards) in the solution
    daily: str | None  #: the day it is the daily puzzle of (UTC), or None
    seat: int  #: the mover
    cards: list[PrintedCard]
    colors: dict[str, str]
    state: PuzzleState
    me: Solving | None  #: the caller's puzzle rating (None: a visitor who is no player yet)
    tried: bool  #: the caller tried it before: another attempt is not rated


class Change(TypedDict):
    before: int
    after: int


class Why(TypedDict):
    label: str  #: a play that does not win in every case
    text: str  #: why


class AttemptResult(TypedDict):
    """How a finished attempt went: ratings (``rated`` false: tried before, or a visitor: nothing moved; the
    first attempt's change is shown), the solution's steps and why the other plays fail."""

    rated: bool
    me: Change | None
    puzzle: Change | None
    streak: int
    solution: list[str]
    why: list[Why]
    explanation: str


class AttemptAnswer(TypedDict):
    """``POST /api/puzzles/{id}/attempt``: the position after the steps (and the opponent's replies), and once
    the attempt is over, its result."""

    status: Literal["playing", "solved", "failed"]
    state: PuzzleState
    result: NotRequired[AttemptResult]


class ThemeRecord(TypedDict):
    key: str
    name: str
    tried: int
    solved: int


class RecentAttempt(TypedDict):
    id: str
    solved: bool
    at: float
    themes: list[ThemeShown]


class Dashboard(TypedDict):
    """``GET /api/puzzles/dashboard``: the caller's puzzle rating, their themes (the weakest first: to work on)
    and their latest rated attempts."""

    me: Solving | None
    themes: list[ThemeRecord]
    recent: list[RecentAttempt]
