"""Standings (:mod:`converge.tournament.standings`): points, then each format's tie-breaks, worked by hand."""

from __future__ import annotations

from converge.tournament.games import Entrant, Game
from converge.tournament.standings import standings


def _order(rows: list) -> list[str]:  # type: ignore[type-arg]
    return [r.ident for r in rows]


def test_swiss_ties_are_broken_by_buchholz_then_sonneborn_berger_whatever_the_ratings() -> None:
    entrants = [Entrant("a", 1500), Entrant("b", 1400), Entrant("c", 1300), Entrant("d", 2000), Entrant("e", 1)]
    games = [Game(1, "a", "b", "first"), Game(1, "c", "d", "first"), Game(1, "e", None),
             Game(2, "a", "c", "first"), Game(2, "d", "b", "first"), Game(2, "e", None, bye_points=0.0)]
    rows = standings("swiss", entrants, games)
    assert _order(rows) == ["a", "c", "d", "e", "b"]  # c and d: 1 point; c met a (2) and d (1), d met c and b (0)
    by = {r.ident: r for r in rows}
    assert (by["c"].buchholz, by["d"].buchholz) == (3.0, 1.0)
    assert (by["c"].sonneborn_berger, by["d"].sonneborn_berger) == (1.0, 0.0)
    assert by["e"].points == 1.0 and by["e"].buchholz == 0.0 and by["e"].played == 0  # a bye: no opponent
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5]


def test_round_robin_ties_are_broken_by_the_direct_encounter_first() -> None:
    entrants = [Entrant("a", 1000), Entrant("b", 2000), Entrant("c", 1000), Entrant("d", 2000)]
    games = [Game(1, "a", "b", "first"), Game(1, "c", "d", "first"), Game(2, "a", "c", "first"),
             Game(2, "b", "d", "first"), Game(3, "d", "a", "first"), Game(3, "b", "c", "first")]
    rows = standings("round_robin", entrants, games)
    assert _order(rows) == ["a", "b", "c", "d"]  # a and b: 2 points, a beat b; c and d: 1, c beat d
    assert [r.direct for r in rows] == [1.0, 0.0, 1.0, 0.0]


def test_a_forfeit_counts_as_a_win_and_its_opponent_as_met_but_not_as_a_game_played() -> None:
    entrants = [Entrant("a", 1), Entrant("b", 2)]
    rows = standings("swiss", entrants, [Game(1, "a", "b", "first", forfeit=True)])
    by = {r.ident: r for r in rows}
    assert _order(rows) == ["a", "b"] and by["a"].points == 1.0 and by["a"].played == 0
    assert by["b"].buchholz == 1.0


def test_arena_ranks_by_arena_points_with_the_streak_and_pending_games_count_nothing() -> None:
    entrants = [Entrant("a", 1000), Entrant("b", 1500), Entrant("c", 2000)]
    games = [Game(1, "a", "b", "first"), Game(2, "a", "c", "first"), Game(3, "a", "b", "first"),
             Game(4, "c", "b", "first"), Game(5, "b", "c", "pending")]
    rows = standings("arena", entrants, games)
    assert [(r.ident, r.points) for r in rows] == [("a", 8.0), ("c", 2.0), ("b", 0.0)]
    assert rows[0].won == 3
