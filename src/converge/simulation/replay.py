"""The simulator's hot loop: replay a finished match's public events into per-card and per-goal counters.

Plain functions over plain lists, so that the build can compile this module with mypyc like the engine
(:mod:`converge.simulation.stats` wraps it with its tallies). From the public events it rebuilds the goal
area and both factions — plays, Assemble, Recall from a faction, Trade, swaps, Expand, Heal,
conversions and their reverts, C7 when a card leaves play — and at every end of turn (the ``score``
event) evaluates every goal of the playset against both factions as RULES.md section 6 says. The goals
in the goal area must add up to the engine's own score; a mismatch raises ``ValueError``.
"""

from __future__ import annotations

from typing import Final

from converge.engine.goals import LAST_SINGLE_WINNER, faction_stats, goal_value

# Final: compiled, these are constants rather than names looked up at run time.
NUM_CARDS: Final = 18
NUM_MODES: Final = 4
DISCARD: Final = 18  # the action ids of the modes (converge.engine.actions)
DECLARE: Final = 19

# Indexes of the counter lists handed to replay_events, in this order.
CARD_PLAYS: Final = 0
CARD_WINS: Final = 1
CARD_ROUNDS_PLAYED: Final = 2
GOAL_TURNS: Final = 3
GOAL_FULFILLED: Final = 4
GOAL_ANY: Final = 5
GOAL_ROUNDS_DECLARED: Final = 6
GOAL_POTENTIAL: Final = 7

def score_turn(goals: list[int], f0: list[int], f1: list[int], skill: list[int], rank: list[int],
               codes: list[int], args: list[int], stars: list[int], counters: list[list[int]]) -> tuple[int, int]:
    """One end of turn: every goal of the playset against both factions (potential fulfilment), and the
    goals in the goal area scored. Returns the two players' points."""
    st0 = faction_stats(f0, skill, rank)
    st1 = faction_stats(f1, skill, rank)
    n0 = len(f0)
    n1 = len(f1)
    won = [0] * (2 * NUM_CARDS)
    potential = counters[GOAL_POTENTIAL]
    for g in range(NUM_CARDS):
        code = codes[g]
        arg = args[g]
        v0 = goal_value(code, arg, st0, n0)
        v1 = goal_value(code, arg, st1, n1)
        if code <= LAST_SINGLE_WINNER:
            w0 = int(v0 > v1)
            w1 = int(v1 > v0)
        else:
            w0 = int(v0 > 0)
            w1 = int(v1 > 0)
        won[2 * g] = w0
        won[2 * g + 1] = w1
        potential[g] += w0 + w1
    t0 = 0
    t1 = 0
    turns, fulfilled, anyone = counters[GOAL_TURNS], counters[GOAL_FULFILLED], counters[GOAL_ANY]
    for g in goals:
        w0 = won[2 * g]
        w1 = won[2 * g + 1]
        turns[g] += 1
        fulfilled[g] += w0 + w1
        if w0 or w1:
            anyone[g] += 1
        t0 += stars[g] * w0
        t1 += stars[g] * w1
    return t0, t1


def replay_events(events: list[tuple[str, int, int, int, int, int]], printed_skill: list[int],
                  printed_rank: list[int], codes: list[int], args: list[int], stars: list[int],
                  counters: list[list[int]]) -> list[tuple[int, int, int, int, int, int, int]]:
    """Replay the public events of a finished match; add to ``counters`` (the lists named by the index
    constants above). Returns one ``(start holder, winner, end reason, turns, plays, score 0, score 1)``
    per round."""
    skill = printed_skill[:]
    rank = printed_rank[:]
    f0: list[int] = []
    f1: list[int] = []
    goals: list[int] = []
    plays: list[int] = []  # player, card, mode index: three entries per play this round
    out: list[tuple[int, int, int, int, int, int, int]] = []
    holder = -1
    turns = 0
    s0 = 0
    s1 = 0
    card_plays, card_wins = counters[CARD_PLAYS], counters[CARD_WINS]
    rounds_played, declared = counters[CARD_ROUNDS_PLAYED], counters[GOAL_ROUNDS_DECLARED]
    for kind, vis, player, card, a, b in events:
        if vis != -1:
            continue
        if kind == "play":
            if a == DECLARE:
                goals.append(card)
            elif a != DISCARD:
                (f0 if b == 0 else f1).append(card)
            plays.append(player)
            plays.append(card)
            plays.append(a - DISCARD)
        elif kind == "score":
            turns += 1
            s0 = a
            s1 = b
            t0, t1 = score_turn(goals, f0, f1, skill, rank, codes, args, stars, counters)
            if t0 != a or t1 != b:
                raise ValueError(f"goals rebuilt from the event log score {t0}-{t1}, the engine scored {a}-{b}")
        elif kind == "assemble" or kind == "expand" or kind == "heal":
            (f0 if a == 0 else f1).append(card)
        elif kind == "convert" or kind == "revert":
            skill[card] = a
            rank[card] = b
        elif kind == "recall":
            if a == 1:  # from faction b: the card returns to its printed self (C7)
                (f0 if b == 0 else f1).remove(card)
                skill[card] = printed_skill[card]
                rank[card] = printed_rank[card]
        elif kind == "trade":  # hand card ``card`` into faction b, faction card ``a`` into the hand
            fb = f0 if b == 0 else f1
            fb.remove(a)
            skill[a] = printed_skill[a]
            rank[a] = printed_rank[a]
            fb.append(card)
        elif kind == "swap":  # ``card`` and ``a`` change factions
            if card in f0:
                f0.remove(card)
                f1.remove(a)
                f1.append(card)
                f0.append(a)
            else:
                f1.remove(card)
                f0.remove(a)
                f0.append(card)
                f1.append(a)
        elif kind == "round_end":
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
            for g in set(goals):
                declared[g] += 1
            out.append((holder, winner, a, turns, len(plays) // 3, s0, s1))
        elif kind == "round_start":
            holder = player
            skill = printed_skill[:]
            rank = printed_rank[:]
            f0 = []
            f1 = []
            goals = []
            plays = []
            turns = 0
            s0 = 0
            s1 = 0
    return out
