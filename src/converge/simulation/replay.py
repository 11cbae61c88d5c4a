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

# Final: compiled, these are constants rather than names looked up at run time.
NUM_CARDS: Final = 18
NUM_MODES: Final = 4
DISCARD: Final = 18  # the action ids of the modes (converge.engine.actions)
DECLARE: Final = 19
CANNOT_WIN: Final = -1000
LAST_SINGLE_WINNER: Final = 8

# Indexes of the counter lists handed to replay_events, in this order.
CARD_PLAYS: Final = 0
CARD_WINS: Final = 1
CARD_ROUNDS_PLAYED: Final = 2
GOAL_TURNS: Final = 3
GOAL_FULFILLED: Final = 4
GOAL_ANY: Final = 5
GOAL_ROUNDS_DECLARED: Final = 6
GOAL_POTENTIAL: Final = 7

Stats = tuple[list[int], list[int], list[int], list[int], int]


def faction_stats(faction: list[int], skill: list[int], rank: list[int]) -> Stats:
    """Per skillset index: count, highest and lowest rank; cards per rank (1..6); rank total."""
    count = [0, 0, 0]
    high = [0, 0, 0]
    low = [7, 7, 7]
    per_rank = [0, 0, 0, 0, 0, 0, 0]
    total = 0
    for c in faction:
        s = skill[c]
        r = rank[c]
        count[s] += 1
        total += r
        per_rank[r] += 1
        if r > high[s]:
            high[s] = r
        if r < low[s]:
            low[s] = r
    return count, high, low, per_rank, total


def longest_run(per_rank: list[int]) -> int:
    run = 0
    best = 0
    for r in range(1, 7):
        run = run + 1 if per_rank[r] else 0
        if run > best:
            best = run
    return best


def goal_value(code: int, arg: int, st: Stats, size: int) -> int:
    """How well one faction does at a goal (RULES.md section 6, T5).

    For a single-winner goal (codes 0..8: highest / lowest / most / fewest ...) a number where higher is
    better, or a very low one when the faction cannot win it; for the others (9..14) 1 if the faction
    fulfils it, else 0.
    """
    count, high, low, per_rank, total = st
    if code == 0:  # highest X: a faction without X cannot win it
        return high[arg] if arg >= 0 and count[arg] else CANNOT_WIN
    if code == 1:  # lowest X
        return -low[arg] if arg >= 0 and count[arg] else CANNOT_WIN
    if code == 2:  # most X
        return count[arg] if arg >= 0 else 0
    if code == 3:  # fewest X: none counts as zero
        return -count[arg] if arg >= 0 else 0
    if code == 4:  # most different skillsets
        return int(count[0] > 0) + int(count[1] > 0) + int(count[2] > 0)
    if code == 5:  # highest rank total
        return total
    if code == 6:  # lowest rank total: an empty faction cannot win it (P4)
        return -total if size else CANNOT_WIN
    if code == 7:  # most cards
        return size
    if code == 8:  # fewest cards
        return -size
    if code == 9:  # N consecutive ranks
        return int(longest_run(per_rank) >= arg)
    if code == 10:  # N different ranks
        n = 0
        for r in range(1, 7):
            if per_rank[r]:
                n += 1
        return int(n >= arg)
    if code == 11:  # N of the same rank
        return int(max(per_rank) >= arg)
    if code == 12:  # N of one skillset
        return int(max(count) >= arg)
    if code == 13:  # one of each skillset of the playset
        return int(count[0] > 0 and count[1] > 0 and count[2] > 0)
    return int(total >= arg)  # 14: rank total of at least T


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
