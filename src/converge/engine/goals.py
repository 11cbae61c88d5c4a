"""Goal evaluation (T5): how one faction does at each goal kind, from a few per-faction counts.

Plain functions over plain lists, compiled with the engine by mypyc; the engine's scoring and the
simulator's event replay both use them, so the scoring rules live in one place.
"""

from __future__ import annotations

from typing import Final

#: The value of a single-winner goal for a faction that cannot win it (T5: no card of the skillset).
CANNOT_WIN: Final = -1000
#: Goal codes 0..8 (highest / lowest / most / fewest ...) give their stars only to a single strict winner.
LAST_SINGLE_WINNER: Final = 8

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
