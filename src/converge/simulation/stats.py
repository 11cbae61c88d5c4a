"""What a finished match says about its decks: read from its public event log, added up per playset.

The simulator is the referee of finished bot matches, not a player: it reads each finished match's event
log (``match.events``), and only its *public* events (visibility ``-1``, what a spectator's
``observation(-1)["events"]`` lists), so nothing here depends on a hand, the deck order or the artifact.

From those events :class:`MatchReader` rebuilds the goal area and both factions at every end of turn
(plays, Assemble, Recall, Trade, Expand, Heal, conversions and their reverts, C7 on leaving play) and
scores each goal the way RULES.md section 6 says. Its totals are checked against the engine's own
``score`` event at every end of turn, so the per-goal figures can never silently drift from the rules.

A :class:`PlaysetTally` holds plain counters (a few hundred integers per playset, whatever the number of
matches); tallies of different chunks of matches add up with :meth:`PlaysetTally.merge`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from converge.engine.actions import DECLARE, DISCARD
from converge.engine.playset import NUM_CARDS, Playset

if TYPE_CHECKING:
    from converge.engine.state import Match

#: How a card is played (T3), in the order of the action ids 18..21.
MODES: tuple[str, ...] = ("discard", "declare", "mine", "theirs")
NUM_MODES = len(MODES)
#: How a round ends: T6 (the lead outscores) or T8 (both hands empty; the artifact holder wins).
END_REASONS: tuple[str, ...] = ("outscored", "hands_empty")

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
ROUND_TYPES: tuple[str, ...] = ("str", "int", "int", "str", "str", "int", "int", "int", "int", "bool", "str", "int",
                                "int", "int", "int", "int", "int")

RoundRow = tuple[str, int, int, str, str, int, int, int, int, bool, str, int, int, int, int, int, int]

#: The value of a single-winner goal for a faction that cannot win it (T5: no card of the skillset).
_CANNOT = -1000
_LAST_SINGLE_WINNER = 8


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
                             (self.goal_potential, other.goal_potential)):
            for i, v in enumerate(theirs):
                mine[i] += v
        _hist_add(self.round_turns, other.round_turns)
        _hist_add(self.match_rounds, other.match_rounds)
        _hist_add(self.match_turns, other.match_turns)

    def to_dict(self) -> dict[str, object]:
        return {k: (dict(sorted(v.items())) if isinstance(v, dict) else v) for k, v in self.__dict__.items()}


def _faction_stats(faction: list[int], skill: list[int], rank: list[int]
                   ) -> tuple[list[int], list[int], list[int], list[int], int]:
    count, high, low, per_rank = [0, 0, 0], [0, 0, 0], [7, 7, 7], [0] * 7
    total = 0
    for c in faction:
        s, r = skill[c], rank[c]
        count[s] += 1
        total += r
        per_rank[r] += 1
        if r > high[s]:
            high[s] = r
        if r < low[s]:
            low[s] = r
    return count, high, low, per_rank, total


def _longest_run(per_rank: list[int]) -> int:
    run = best = 0
    for r in range(1, 7):
        run = run + 1 if per_rank[r] else 0
        if run > best:
            best = run
    return best


def goal_value(code: int, arg: int, st: tuple[list[int], list[int], list[int], list[int], int], size: int) -> int:
    """How well one faction does at a goal (RULES.md section 6, T5).

    For a single-winner goal (codes 0..8: highest / lowest / most / fewest ...) a number where higher is
    better, or a very low one when the faction cannot win it; for the others (9..14) 1 if the faction
    fulfils it, else 0.
    """
    count, high, low, per_rank, total = st
    if code == 0:  # highest X: a faction without X cannot win it
        return high[arg] if arg >= 0 and count[arg] else _CANNOT
    if code == 1:  # lowest X
        return -low[arg] if arg >= 0 and count[arg] else _CANNOT
    if code == 2:  # most X
        return count[arg] if arg >= 0 else 0
    if code == 3:  # fewest X: none counts as zero
        return -count[arg] if arg >= 0 else 0
    if code == 4:  # most different skillsets
        return (count[0] > 0) + (count[1] > 0) + (count[2] > 0)
    if code == 5:  # highest rank total
        return total
    if code == 6:  # lowest rank total: an empty faction cannot win it (P4)
        return -total if size else _CANNOT
    if code == 7:  # most cards
        return size
    if code == 8:  # fewest cards
        return -size
    if code == 9:  # N consecutive ranks
        return int(_longest_run(per_rank) >= arg)
    if code == 10:  # N different ranks
        return int(sum(1 for r in range(1, 7) if per_rank[r]) >= arg)
    if code == 11:  # N of the same rank
        return int(max(per_rank) >= arg)
    if code == 12:  # N of one skillset
        return int(max(count) >= arg)
    if code == 13:  # one of each skillset of the playset
        return int(count[0] > 0 and count[1] > 0 and count[2] > 0)
    return int(total >= arg)  # 14: rank total of at least T


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
        self.printed_skill = list(playset.printed_skill)
        self.printed_rank = list(playset.printed_rank)
        self.goal_code = playset.goal_code
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

    def read_events(self, events: Sequence[tuple[str, int, int, int, int, int]], tally: PlaysetTally
                    ) -> list[RoundFacts]:
        """Replay the public events of a match into ``tally`` (round counters, cards, goals)."""
        printed_skill, printed_rank = self.printed_skill, self.printed_rank
        skill, rank = printed_skill[:], printed_rank[:]
        factions: tuple[list[int], list[int]] = ([], [])
        goals: list[int] = []
        plays: list[tuple[int, int, int]] = []  # (player, card, mode index) this round
        out: list[RoundFacts] = []
        holder = -1
        turns = 0
        last = (0, 0)
        card_plays, card_wins = tally.card_plays, tally.card_wins
        for kind, vis, player, card, a, b in events:
            if vis != -1:
                continue
            if kind == "play":
                if a == DECLARE:
                    goals.append(card)
                elif a != DISCARD:
                    factions[b].append(card)
                plays.append((player, card, a - DISCARD))
            elif kind == "score":
                turns += 1
                last = (a, b)
                self._score(goals, factions, skill, rank, tally, a, b)
            elif kind == "assemble" or kind == "expand" or kind == "heal":
                factions[a].append(card)
            elif kind == "convert" or kind == "revert":
                skill[card] = a
                rank[card] = b
            elif kind == "recall":
                if a == 1:  # from a faction (C7: it returns to its printed self)
                    factions[b].remove(card)
                    skill[card], rank[card] = printed_skill[card], printed_rank[card]
            elif kind == "trade":  # hand card ``card`` into faction b, faction card ``a`` into the hand
                factions[b].remove(a)
                skill[a], rank[a] = printed_skill[a], printed_rank[a]
                factions[b].append(card)
            elif kind == "swap":  # ``card`` and ``a`` change factions
                fa = 0 if card in factions[0] else 1
                factions[fa].remove(card)
                factions[1 - fa].remove(a)
                factions[1 - fa].append(card)
                factions[fa].append(a)
            elif kind == "round_end":
                winner, reason = player, a
                seen = [False] * NUM_CARDS
                for p, c, m in plays:
                    i = c * NUM_MODES + m
                    card_plays[i] += 1
                    if p == winner:
                        card_wins[i] += 1
                    if not seen[c]:
                        seen[c] = True
                        tally.card_rounds_played[c] += 1
                declared = tally.goal_rounds_declared
                for g in set(goals):
                    declared[g] += 1
                tally.rounds += 1
                tally.ends[reason] += 1
                if winner == holder:
                    tally.holder_wins += 1
                    tally.holder_wins_by_end[reason] += 1
                tally.seat0_round_wins += winner == 0
                tally.round_turns[turns] = tally.round_turns.get(turns, 0) + 1
                out.append(RoundFacts(holder, winner, reason, turns, len(plays), last))
            elif kind == "round_start":
                holder = player
                skill, rank = printed_skill[:], printed_rank[:]
                factions = ([], [])
                goals = []
                plays = []
                turns = 0
                last = (0, 0)
        return out

    def _score(self, goals: list[int], factions: tuple[list[int], list[int]], skill: list[int], rank: list[int],
               tally: PlaysetTally, s0: int, s1: int) -> None:
        """One end of turn: every goal of the playset against both factions, the declared ones scored."""
        f0, f1 = factions
        st0, st1 = _faction_stats(f0, skill, rank), _faction_stats(f1, skill, rank)
        n0, n1 = len(f0), len(f1)
        codes, args, stars = self.goal_code, self.goal_arg, self.goal_stars
        won0 = [False] * NUM_CARDS
        won1 = [False] * NUM_CARDS
        potential = tally.goal_potential
        for g in range(NUM_CARDS):
            code, arg = codes[g], args[g]
            v0, v1 = goal_value(code, arg, st0, n0), goal_value(code, arg, st1, n1)
            if code <= _LAST_SINGLE_WINNER:
                w0, w1 = v0 > v1, v1 > v0
            else:
                w0, w1 = v0 > 0, v1 > 0
            won0[g], won1[g] = w0, w1
            potential[g] += w0 + w1
        tally.turn_ends += 1
        t0 = t1 = 0
        for g in goals:
            w0, w1 = won0[g], won1[g]
            tally.goal_turns[g] += 1
            tally.goal_fulfilled[g] += w0 + w1
            tally.goal_any[g] += w0 or w1
            t0 += stars[g] * w0
            t1 += stars[g] * w1
        if (t0, t1) != (s0, s1):
            raise ScoringMismatch(f"goals rebuilt from the event log score {t0}-{t1}, the engine scored {s0}-{s1}")


__all__ = ["END_REASONS", "MODES", "ROUND_COLUMNS", "ROUND_TYPES", "MatchReader", "PlaysetTally", "RoundFacts",
           "RoundRow", "ScoringMismatch", "goal_value"]
