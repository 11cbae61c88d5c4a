"""Explaining a score: per goal, who fulfils it and why (T5), in words a player reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from converge.engine.goals import faction_stats, goal_value, longest_run

if TYPE_CHECKING:
    from converge.engine.state import Match


def _shown(code: int, arg: int, st: tuple[list[int], list[int], list[int], list[int], int], size: int) -> str:
    count, high, low, per_rank, total = st
    if code == 0:
        return str(high[arg]) if arg >= 0 and count[arg] else "none"
    if code == 1:
        return str(low[arg]) if arg >= 0 and count[arg] else "none"
    if code in (2, 3):
        return str(count[arg] if arg >= 0 else 0)
    if code in (4, 13):
        return str(sum(1 for c in count if c))
    if code in (5, 14):
        return str(total)
    if code == 6:
        return str(total) if size else "no cards"
    if code in (7, 8):
        return str(size)
    if code == 9:
        return str(longest_run(per_rank))
    if code == 10:
        return str(sum(1 for r in per_rank if r))
    if code == 11:
        return str(max(per_rank))
    return str(max(count))


def breakdown(match: Match, player: int) -> list[dict[str, Any]]:
    """Per goal in the goal area: ``{"goal", "text", "stars", "winners", "why"}``.

    ``player`` (0/1) is "you" in the explanation; -1 names the players P0 and P1.
    """
    ps = match.playset
    f0, f1 = match.factions
    st0, st1 = faction_stats(f0, match.skill, match.rank), faction_stats(f1, match.skill, match.rank)
    if player in (0, 1):
        names = ("you", "them") if player == 0 else ("them", "you")
    else:
        names = ("P0", "P1")
    out = []
    for g in match.goals:
        code, arg, stars = ps.goal_code[g], ps.goal_arg[g], ps.goal_stars[g]
        v0 = goal_value(code, arg, st0, len(f0))
        v1 = goal_value(code, arg, st1, len(f1))
        if code <= 8:
            winners = [0] if v0 > v1 else [1] if v1 > v0 else []
        else:
            winners = [p for p, v in ((0, v0), (1, v1)) if v]
        a, b = _shown(code, arg, st0, len(f0)), _shown(code, arg, st1, len(f1))
        first, second = ((names[0], a), (names[1], b)) if player != 1 else ((names[1], b), (names[0], a))
        why = f"{first[0]} {first[1]} vs {second[0]} {second[1]}"
        if code <= 8 and not winners:
            why += " (no single winner)"
        out.append({"goal": ps.card_ids[g], "text": ps.cards[g].goal.text, "stars": stars,
                    "winners": winners, "why": why})
    return out
