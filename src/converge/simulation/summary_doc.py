"""The simulator's documents, typed once: ``summary.json`` (:func:`converge.simulation.summary.summarize`
builds it; the balance checks, the report, the plots and a comparison read it).

A summary read back from a file is read as one of these: a field of the wrong shape raises as it is read
(``KeyError``, ``TypeError``...), which ``converge balance`` reports as not a summary it wrote.
"""

# No ``from __future__ import annotations``: which keys are NotRequired is known at run time only from real
# annotations (as in converge.engine.schema).
from typing import NotRequired, TypedDict

from converge.engine.schema import CardFace


class RoundFigures(TypedDict):
    """The round and match figures of some playsets (all of them, or one); a rate is None without data."""

    matches: int
    rounds: int
    holder_wins: int
    holder_win_rate: float | None
    holder_win_rate_ci95: list[float] | None
    ends: dict[str, int]  # by end reason (converge.engine.events.END_REASONS)
    end_shares: dict[str, float | None]
    holder_win_rate_by_end: dict[str, float | None]
    mean_round_turns: float | None
    mean_match_rounds: float | None
    mean_match_turns: float | None
    seat0_round_win_rate: float | None
    seat0_match_win_rate: float | None
    first_holder_match_win_rate: float | None
    bot1_match_win_rate: float | None
    bot1_match_win_rate_ci95: list[float] | None
    bot1_round_win_rate: float | None


class OverallFigures(RoundFigures):
    """The figures of every playset, with the length distributions (length as text -> count)."""

    round_turns: dict[str, int]
    match_rounds: dict[str, int]
    match_turns: dict[str, int]


class PlaysetFigures(RoundFigures):
    """One playset's figures."""

    playset: str  # "a/b/c"
    skillsets: list[str]
    round_turns: dict[str, int]


class SkillsetFigures(TypedDict):
    """One skillset's figures, over the playsets that hold it."""

    skillset: str
    key: str
    keyword: str
    playsets: int
    rounds: int
    holder_win_rate: float | None
    holder_win_rate_ci95: list[float] | None
    plays: int
    play_win_rate: float | None
    play_win_rate_ci95: list[float] | None


class PairFigures(TypedDict):
    """The figures of each pair of skillsets (row, column), over the playsets that hold both."""

    skillsets: list[str]
    rounds: list[list[int]]
    holder_win_rate: list[list[float | None]]
    play_win_rate: list[list[float | None]]


class CardFigures(CardFace):
    """One card: what it is, and how it was played (by way of playing: converge.simulation.stats.MODES)."""

    playsets: int
    rounds: int
    plays: dict[str, int]
    play_rate: dict[str, float | None]
    share: dict[str, float | None]
    win_rate: dict[str, float | None]
    faction_plays: int
    faction_win_rate: float | None
    all_plays: int
    all_win_rate: float | None
    all_win_rate_ci95: list[float] | None
    rounds_played_rate: float | None
    #: rounds the card was dealt in, and those its player won (absent from older summaries)
    dealt: NotRequired[int]
    dealt_wins: NotRequired[int]


class GoalFigures(TypedDict):
    """One card's goal: how often it was declared and fulfilled."""

    id: str
    goal: str
    kind: str
    stars: int
    single_winner: bool
    rounds: int
    declared_rate: float | None
    turn_ends: int
    fulfilment_rate: float | None
    fulfilment_rate_ci95: list[float] | None
    declared_turns: int
    declared_fulfilment_rate: float | None
    declared_any_rate: float | None
    declare_win_rate: float | None


class Yours(TypedDict):
    """What a run with the user's decks (``--deck-dir``) played of them."""

    skillsets: list[str]
    playsets: int  # the playsets played
    of_playsets: int  # of all those of the catalogue


class SummarySettings(TypedDict):
    bots: list[str]
    matches_per_playset: int
    seed: int
    playsets: int
    matches: int
    decks: str  # the digest of the decks played with
    deck_files: list[str]
    yours: NotRequired[Yours]  # (added by ``converge simulate`` with the user's decks)


class RunInfo(TypedDict):
    """How a run went (it differs from run to run: not part of the results)."""

    backend: str
    workers: int
    seconds: float
    matches_per_second: float


class Summary(TypedDict):
    """The summary document of a run: ``summary.json``."""

    format: int
    settings: SummarySettings
    overall: OverallFigures
    playsets: list[PlaysetFigures]
    skillsets: list[SkillsetFigures]
    pairs: PairFigures
    cards: list[CardFigures]
    goals: list[GoalFigures]
    balance: NotRequired[dict[str, object]]  # (added by ``converge balance``: BalanceReport.to_dict)
    run: NotRequired[RunInfo]  # (added by ``converge simulate``)


__all__ = ["CardFigures", "GoalFigures", "OverallFigures", "PairFigures", "PlaysetFigures", "RoundFigures",
           "RunInfo", "SkillsetFigures", "Summary", "SummarySettings", "Yours"]
