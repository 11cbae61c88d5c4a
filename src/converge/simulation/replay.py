"""The simulator's hot loop: replay a finished match's public events into per-card and per-goal counters.

Plain functions over plain lists, so that the build can compile this module with mypyc like the engine
(:mod:`converge.simulation.stats` wraps it with its tallies). The public events are followed by the
engine's one interpreter of them (:class:`~converge.engine.events.PublicTracker`), and at every end of turn
(the ``score`` event) every goal of the playset is judged against both factions by the engine's own
:func:`~converge.engine.goals.goal_winners`. The goals in the goal area must add up to the engine's own
score; a mismatch raises ``ValueError``.
"""

from __future__ import annotations

from typing import Final

from converge.engine.actions import DISCARD
from converge.engine.events import DEALT, PLAY, ROUND_END, ROUND_START, SCORE, Event, PublicTracker
from converge.engine.goals import FactionStats, GoalKind, goal_winners
from converge.engine.sizes import NUM_CARDS

# Final: compiled, these are constants rather than names looked up at run time.
NUM_MODES: Final = 4

# Indexes of the counter lists handed to replay_events, in this order.
CARD_PLAYS: Final = 0
CARD_WINS: Final = 1
CARD_ROUNDS_PLAYED: Final = 2
GOAL_TURNS: Final = 3
GOAL_FULFILLED: Final = 4
GOAL_ANY: Final = 5
GOAL_ROUNDS_DECLARED: Final = 6
GOAL_POTENTIAL: Final = 7
CARD_DEALT: Final = 8
CARD_DEALT_WINS: Final = 9


def score_turn(tracker: PublicTracker, kinds: tuple[GoalKind, ...], args: tuple[int, ...],
               stars: tuple[int, ...], counters: list[list[int]]) -> tuple[int, int]:
    """One end of turn: every goal of the playset against both factions (potential fulfilment), and the
    goals in the goal area scored. Returns the two players' points."""
    z = tracker.zones
    st0 = FactionStats(z.factions[0], z.skill, z.rank)
    st1 = FactionStats(z.factions[1], z.skill, z.rank)
    won = [0] * (2 * NUM_CARDS)
    potential = counters[GOAL_POTENTIAL]
    for g in range(len(kinds)):  # the playset's cards: 18, or a smaller variant's
        w0, w1 = goal_winners(kinds[g], args[g], st0, st1)
        won[2 * g] = w0
        won[2 * g + 1] = w1
        potential[g] += w0 + w1
    t0 = 0
    t1 = 0
    turns, fulfilled, anyone = counters[GOAL_TURNS], counters[GOAL_FULFILLED], counters[GOAL_ANY]
    for g in z.goals:
        w0 = won[2 * g]
        w1 = won[2 * g + 1]
        turns[g] += 1
        fulfilled[g] += w0 + w1
        if w0 or w1:
            anyone[g] += 1
        t0 += stars[g] * w0
        t1 += stars[g] * w1
    return t0, t1


def replay_events(events: list[Event], printed_skill: tuple[int, ...], printed_rank: tuple[int, ...],
                  kinds: tuple[GoalKind, ...], args: tuple[int, ...], stars: tuple[int, ...],
                  counters: list[list[int]]) -> list[tuple[int, int, int, int, int, int, int]]:
    """Replay the public events of a finished match; add to ``counters`` (the lists named by the index
    constants above). Returns one ``(start holder, winner, end reason, turns, plays, score 0, score 1)``
    per round.

    The one private event read is the deal, and only to count, per card, the rounds it was dealt in and
    those its player won (a card's value to its holder, ``balance --value``): the match is over, so the
    deal is no longer anyone's secret, and nothing else here depends on it."""
    tracker = PublicTracker(printed_skill, printed_rank)
    plays: list[int] = []  # player, card, mode index: three entries per play this round
    dealt: list[int] = []  # player, card: two entries per card dealt this round
    out: list[tuple[int, int, int, int, int, int, int]] = []
    holder = -1
    turns = 0
    s0 = 0
    s1 = 0
    card_plays, card_wins = counters[CARD_PLAYS], counters[CARD_WINS]
    rounds_played, declared = counters[CARD_ROUNDS_PLAYED], counters[GOAL_ROUNDS_DECLARED]
    card_dealt, card_dealt_wins = counters[CARD_DEALT], counters[CARD_DEALT_WINS]
    for event in events:
        if event[1] != -1:
            if event[0] == DEALT:
                dealt.append(event[2])
                dealt.append(event[3])
            continue
        tracker.step(event)
        kind, _vis, player, card, a, b = event
        if kind == PLAY:
            plays.append(player)
            plays.append(card)
            plays.append(a - DISCARD)
        elif kind == SCORE:
            turns += 1
            s0 = a
            s1 = b
            t0, t1 = score_turn(tracker, kinds, args, stars, counters)
            if t0 != a or t1 != b:
                raise ValueError(f"goals rebuilt from the event log score {t0}-{t1}, the engine scored {a}-{b}")
        elif kind == ROUND_END:
            winner = player
            seen = [False] * NUM_CARDS
            for i in range(0, len(plays), 3):
                c = plays[i + 1]
                k = c * NUM_MODES + plays[i + 2]
                card_plays[k] += 1
                if plays[i] == winner:
                    card_wins[k] += 1
                if not seen[c]:
                    seen[c] = True
                    rounds_played[c] += 1
            for g in set(tracker.zones.goals):
                declared[g] += 1
            for i in range(0, len(dealt), 2):
                c = dealt[i + 1]
                card_dealt[c] += 1
                if dealt[i] == winner:
                    card_dealt_wins[c] += 1
            out.append((holder, winner, a, turns, len(plays) // 3, s0, s1))
        elif kind == ROUND_START:
            holder = player
            plays = []
            dealt = []
            turns = 0
            s0 = 0
            s1 = 0
    return out
