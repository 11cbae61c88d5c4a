"""What a finished match says about its decks: read from its public event log, added up per playset.

The simulator is the referee of finished bot matches, not a player: it reads each finished match's event
log (``match.events``), and only its *public* events (visibility ``-1``, what a spectator's
``observation(-1)["events"]`` lists), so nothing here depends on a hand, the deck order or the artifact
card; the one exception is the deal, read once the match is over and only to count, per card, the rounds
its holder won (a card's value, ``balance --value``).

From those events :class:`MatchReader` rebuilds the goal area and both factions at every end of turn
(with the engine's :class:`~converge.engine.events.PublicTracker`) and scores each goal the way RULES.md
section 6 says. Its totals are checked against the engine's own
``score`` event at every end of turn, so the per-goal figures can never silently drift from the rules.

A :class:`PlaysetTally` holds plain counters (a few hundred integers per playset, whatever the number of
matches); tallies of different chunks of matches add up with :meth:`PlaysetTally.merge`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from converge.engine.events import END_REASONS, MODE_NAMES, Event
from converge.engine.playset import Playset
from converge.engine.sizes import NUM_CARDS
from converge.simulation.replay import replay_events

if TYPE_CHECKING:
    from converge.engine.state import Match

#: How a card is played (T3), in the order of the action ids 18..21.
MODES: tuple[str, ...] = MODE_NAMES
NUM_MODES = len(MODES)

#: One row of the tidy results table: one round of one match.
ROUND_COLUMNS: tuple[str, ...] = (
    "playset",  # "a/b/c", the skillsets in catalogue order
    "match",  # the match's index within its playset, 0..n-1
    "match_seed",  # the engine seed of the match
    "bot_p0", "bot_p1",  # which bot played player 0 / player 1
    "bot1_seat",  # the seat of bot 1 (--bot1): 0 in even-numbered matches, 1 in odd ones
    "round",  # 1, 2 or 3
    "start_holder",  # the seat holding the artifact at the start of the round
    "winner",  # the seat that won the round
    "holder_won",  # the starting holder won the round
    "end",  # "outscored" (T6) or "hands_empty" (T8)
    "turns",  # turns played in the round
    "plays",  # cards played in the round (both players)
    "score_p0", "score_p1",  # the scores at the end of the round's last turn
    "match_winner",  # the seat that won the match
    "match_rounds",  # rounds in the match (2 or 3)
)
#: The column types of :data:`ROUND_COLUMNS` (for Parquet): ``str``, ``int`` or ``bool``.
ROUND_TYPES: tuple[str, ...] = ("str", "int", "int", "str", "str", "int", "int", "int", "int", "bool", "str",
                                "int", "int", "int", "int", "int", "int")

RoundRow = tuple[str, int, int, str, str, int, int, int, int, bool, str, int, int, int, int, int, int]

class ScoringMismatch(RuntimeError):
    """The goals rebuilt from the event log do not add up to the engine's score: a bug to report."""


def _hist_add(into: dict[int, int], other: dict[int, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


@dataclass
class PlaysetTally:
    """Counters for the matches of one playset. Every field is a count; all of them add up."""

    matches: int = 0
    rounds: int = 0
    holder_wins: int = 0  # rounds won by the player who held the artifact at the round's start
    ends: list[int] = field(default_factory=lambda: [0, 0])  # rounds per end reason
    holder_wins_by_end: list[int] = field(default_factory=lambda: [0, 0])
    seat0_round_wins: int = 0
    seat0_match_wins: int = 0
    first_holder_match_wins: int = 0  # matches won by the round-1 starting holder
    bot1_round_wins: int = 0
    bot1_match_wins: int = 0
    round_turns: dict[int, int] = field(default_factory=dict)  # turns in a round -> rounds
    match_rounds: dict[int, int] = field(default_factory=dict)  # rounds in a match -> matches
    match_turns: dict[int, int] = field(default_factory=dict)  # turns in a match -> matches
    # per card and mode (card * 4 + mode): plays, and plays by the player who went on to win the round
    card_plays: list[int] = field(default_factory=lambda: [0] * (NUM_CARDS * NUM_MODES))
    card_wins: list[int] = field(default_factory=lambda: [0] * (NUM_CARDS * NUM_MODES))
    card_rounds_played: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)  # rounds it was played in
    # per goal card: ends of turn while it was in the goal area, players fulfilling it then (0-2 each
    # time), ends of turn where at least one player fulfilled it, and stars it paid
    goal_turns: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)
    goal_fulfilled: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)
    goal_any: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)
    goal_rounds_declared: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)
    # every goal of the playset, declared or not, at every end of turn: players whose faction fulfils it
    turn_ends: int = 0
    goal_potential: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)
    # per card: rounds it was dealt in (the deal, read once the match is over), and those its player won
    card_dealt: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)
    card_dealt_wins: list[int] = field(default_factory=lambda: [0] * NUM_CARDS)

    def merge(self, other: PlaysetTally) -> None:
        """Add ``other``'s counts to this tally."""
        self.matches += other.matches
        self.rounds += other.rounds
        self.holder_wins += other.holder_wins
        self.seat0_round_wins += other.seat0_round_wins
        self.seat0_match_wins += other.seat0_match_wins
        self.first_holder_match_wins += other.first_holder_match_wins
        self.bot1_round_wins += other.bot1_round_wins
        self.bot1_match_wins += other.bot1_match_wins
        self.turn_ends += other.turn_ends
        for mine, theirs in ((self.ends, other.ends), (self.holder_wins_by_end, other.holder_wins_by_end),
                             (self.card_plays, other.card_plays), (self.card_wins, other.card_wins),
                             (self.card_rounds_played, other.card_rounds_played),
                             (self.goal_turns, other.goal_turns), (self.goal_fulfilled, other.goal_fulfilled),
                             (self.goal_any, other.goal_any),
                             (self.goal_rounds_declared, other.goal_rounds_declared),
                             (self.goal_potential, other.goal_potential),
                             (self.card_dealt, other.card_dealt), (self.card_dealt_wins, other.card_dealt_wins)):
            for i, v in enumerate(theirs):
                mine[i] += v
        _hist_add(self.round_turns, other.round_turns)
        _hist_add(self.match_rounds, other.match_rounds)
        _hist_add(self.match_turns, other.match_turns)

    def to_dict(self) -> dict[str, object]:
        return {k: (dict(sorted(v.items())) if isinstance(v, dict) else v) for k, v in self.__dict__.items()}


@dataclass
class RoundFacts:
    """What one round of a match came to (before it becomes a table row)."""

    start_holder: int
    winner: int
    reason: int
    turns: int
    plays: int
    scores: tuple[int, int]


class MatchReader:
    """Reads finished matches of one playset (public events only) into round facts and a tally."""

    def __init__(self, playset: Playset) -> None:
        self.playset = playset
        self.printed_skill = playset.printed_skill
        self.printed_rank = playset.printed_rank
        self.goal_kind = playset.goal_kind
        self.goal_arg = playset.goal_arg
        self.goal_stars = playset.goal_stars

    def read(self, match: Match, tally: PlaysetTally, bot1_seat: int = 0) -> list[RoundFacts]:
        """Add a finished match to ``tally``; return its rounds."""
        if not match.is_terminal:
            raise ValueError("only a finished match can be read")
        if not match.log_events:
            raise ValueError("the match was played without its event log (log_events=False)")
        rounds = self.read_events(match.events, tally)
        if [(r.winner, r.reason) for r in rounds] != list(match.round_results):
            raise ScoringMismatch("the event log and round_results disagree")
        winner = match.winner
        tally.matches += 1
        tally.seat0_match_wins += winner == 0
        tally.bot1_match_wins += winner == bot1_seat
        tally.first_holder_match_wins += winner == rounds[0].start_holder
        for r in rounds:
            tally.bot1_round_wins += r.winner == bot1_seat
        n = len(rounds)
        tally.match_rounds[n] = tally.match_rounds.get(n, 0) + 1
        turns = sum(r.turns for r in rounds)
        tally.match_turns[turns] = tally.match_turns.get(turns, 0) + 1
        return rounds

    def read_events(self, events: Sequence[Event], tally: PlaysetTally
                    ) -> list[RoundFacts]:
        """Replay the public events of a match into ``tally`` (round counters, cards, goals)."""
        counters = [tally.card_plays, tally.card_wins, tally.card_rounds_played, tally.goal_turns,
                    tally.goal_fulfilled, tally.goal_any, tally.goal_rounds_declared, tally.goal_potential,
                    tally.card_dealt, tally.card_dealt_wins]
        try:
            rounds = replay_events(events if isinstance(events, list) else list(events), self.printed_skill,
                                   self.printed_rank, self.goal_kind, self.goal_arg, self.goal_stars, counters)
        except ValueError as exc:
            raise ScoringMismatch(str(exc)) from None
        out = []
        for holder, winner, reason, turns, plays, s0, s1 in rounds:
            tally.rounds += 1
            tally.turn_ends += turns
            tally.ends[reason] += 1
            if winner == holder:
                tally.holder_wins += 1
                tally.holder_wins_by_end[reason] += 1
            tally.seat0_round_wins += winner == 0
            tally.round_turns[turns] = tally.round_turns.get(turns, 0) + 1
            out.append(RoundFacts(holder, winner, reason, turns, plays, (s0, s1)))
        return out


__all__ = ["END_REASONS", "MODES", "ROUND_COLUMNS", "ROUND_TYPES", "MatchReader", "PlaysetTally", "RoundFacts",
           "RoundRow", "ScoringMismatch"]
