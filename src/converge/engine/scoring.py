"""Explaining a score: per goal, who fulfils it and why (T5), in words a player reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from converge.engine.goals import FactionStats, goal_winners
from converge.engine.schema import GoalScore

if TYPE_CHECKING:
    from converge.engine.playset import Playset
    from converge.engine.state import Match


def breakdown(match: Match, player: int) -> list[GoalScore]:
    """Per goal in the goal area: ``{"goal", "text", "stars", "winners", "why"}``.

    ``player`` (0/1) is "you" in the explanation; -1 names the players P0 and P1.
    """
    z = match.zones
    return board_breakdown(match.playset, z.goals, z.factions, z.skill, z.rank, player)


def board_breakdown(ps: Playset, goals: list[int], factions: list[list[int]], skill: list[int], rank: list[int],
                    player: int) -> list[GoalScore]:
    """:func:`breakdown` of a board given by its goals, both factions and every card's current skillset
    index and rank (indexed by card): for explaining a board that is no longer on the table."""
    st = (FactionStats(factions[0], skill, rank), FactionStats(factions[1], skill, rank))
    names = ("you", "them") if player == 0 else ("them", "you") if player == 1 else ("P0", "P1")
    order = (1, 0) if player == 1 else (0, 1)  # the viewer first
    out: list[GoalScore] = []
    for g in goals:
        kind, arg = ps.goal_kind[g], ps.goal_arg[g]
        w0, w1 = goal_winners(kind, arg, st[0], st[1])
        winners = [p for p, w in ((0, w0), (1, w1)) if w]
        why = " vs ".join(f"{names[p]} {kind.shown(arg, st[p])}" for p in order)
        if kind.single_winner and not winners:
            why += " (no single winner)"
        out.append({"goal": ps.card_ids[g], "text": ps.goal_text[g], "stars": ps.goal_stars[g],
                    "winners": winners, "why": why})
    return out
