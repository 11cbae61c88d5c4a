"""Standings: points first, then each format's tie-breaks, always recomputed from the games (never kept apart
from them, so the table cannot drift from the results).

* Swiss: Buchholz (the sum of the scores of everyone the player met), then Sonneborn–Berger (each opponent's
  score, counted in full for a win and half for a drawn game), then the direct encounter (the points among the
  players still tied, when they all met one another), then rating.
* Round robin: the direct encounter, then Sonneborn–Berger, then rating (everyone met everyone: a Buchholz
  would be the same for all).
* Arena: the arena's points (:mod:`.arena`), then games won, then rating.

A bye counts in a player's points but brings no opponent to their Buchholz or Sonneborn–Berger; a forfeit
counts its opponent as met."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from converge.tournament import arena
from converge.tournament.games import Entrant, Game, scores, seeded

Format = Literal["swiss", "round_robin", "arena"]


@dataclass(frozen=True)
class Standing:
    """One line of the table: ``rank`` (from 1; tied players share it only when every tie-break is equal)."""

    rank: int
    ident: str
    points: float
    played: int
    won: int
    buchholz: float
    sonneborn_berger: float
    direct: float


def standings(fmt: Format, entrants: Sequence[Entrant], games: Sequence[Game]) -> list[Standing]:
    """The table of ``entrants`` after ``games`` (pending games count nothing yet)."""
    done = [g for g in games if g.outcome != "pending" or g.bye]
    score = scores(entrants, done)
    points = ({e.ident: float(arena.points(e.ident, done)) for e in entrants} if fmt == "arena" else score)
    met: dict[str, list[Game]] = {e.ident: [] for e in entrants}
    for game in done:
        for who in (game.first, game.second):
            if who in met:
                met[who].append(game)
    rating = {e.ident: e.rating for e in entrants}
    order = {e.ident: n for n, e in enumerate(seeded(entrants))}

    def buchholz(who: str) -> float:
        return sum(score.get(o, 0.0) for g in met[who] if (o := g.opponent(who)) is not None)

    def berger(who: str) -> float:
        return sum(score.get(o, 0.0) * g.points(who) for g in met[who] if (o := g.opponent(who)) is not None)

    def won(who: str) -> int:
        return sum(1 for g in met[who] if not g.bye and g.points(who) >= 1.0)

    rows = {who: (points[who], buchholz(who), berger(who)) for who in met}
    ties: dict[str, tuple[float, ...]] = dict(rows) if fmt == "swiss" else {w: row[:1] for w, row in rows.items()}
    direct = _direct(ties, done)
    if fmt == "swiss":
        key = {w: (rows[w][0], rows[w][1], rows[w][2], direct[w], rating[w]) for w in met}
    elif fmt == "round_robin":
        key = {w: (rows[w][0], direct[w], rows[w][2], 0.0, rating[w]) for w in met}
    else:
        key = {w: (rows[w][0], float(won(w)), 0.0, 0.0, rating[w]) for w in met}
    ranked = sorted(met, key=lambda w: (tuple(-k for k in key[w]), order[w]))
    table: list[Standing] = []
    for n, who in enumerate(ranked, 1):
        rank = table[-1].rank if table and key[table[-1].ident] == key[who] else n
        table.append(Standing(rank, who, points[who], sum(1 for g in met[who] if g.played), won(who),
                              rows[who][1], rows[who][2], direct[who]))
    return table


def _direct(ties: dict[str, tuple[float, ...]], games: Sequence[Game]) -> dict[str, float]:
    """Per player, the points they scored against the others of their tie (the same ``ties`` value: points,
    and in a Swiss the same Buchholz and Sonneborn–Berger), when every pair of that tie met; else 0."""
    groups: dict[tuple[float, ...], list[str]] = {}
    for who, row in ties.items():
        groups.setdefault(row, []).append(who)
    direct = dict.fromkeys(ties, 0.0)
    for tied in groups.values():
        if len(tied) < 2:
            continue
        among = [g for g in games if g.first in tied and g.second in tied]
        pairs = {frozenset((g.first, g.second)) for g in among if g.second is not None}
        if len(pairs) < len(tied) * (len(tied) - 1) // 2:
            continue
        for who in tied:
            direct[who] = sum(g.points(who) for g in among if who in (g.first, g.second))
    return direct
