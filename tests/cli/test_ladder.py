"""The strength ladder: reproducible round-robins, Elo ratings, and OpenSpiel's ISMCTS as a contestant."""

from __future__ import annotations

import json

import pytest

from converge.cli.main import main
from converge.simulation.ladder import elo_ratings, plan, run_ladder


def test_elo_orders_by_strength_and_is_anchored() -> None:
    r = elo_ratings(["random", "greedy", "hard"],
                    [("greedy", "random", 95, 100), ("hard", "random", 99, 100), ("hard", "greedy", 80, 100)])
    assert r["random"] == 1000
    assert r["random"] < r["greedy"] < r["hard"]


def test_elo_of_even_results_is_even() -> None:
    r = elo_ratings(["a", "b"], [("a", "b", 50, 100)], anchor="a")
    assert r["a"] == pytest.approx(r["b"])


def test_plan_is_fixed_by_the_seed_and_alternates_seats() -> None:
    tasks = plan(["random", "greedy", "medium"], 6, seed=3)
    assert tasks == plan(["random", "greedy", "medium"], 6, seed=3)
    assert tasks != plan(["random", "greedy", "medium"], 6, seed=4)
    assert len(tasks) == 3 * 6
    assert [t.a_seat for t in tasks[:6]] == [0, 1, 0, 1, 0, 1]


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    one = run_ladder(["random", "greedy", "medium"], 2, seed=5, workers=1)
    two = run_ladder(["random", "greedy", "medium"], 2, seed=5, workers=2)
    assert [(p.a, p.b, p.a_wins) for p in one.pairings] == [(p.a, p.b, p.a_wins) for p in two.pairings]
    assert sum(p.matches for p in one.pairings) == 6
    assert set(one.times) == {"random", "greedy", "medium"}


def test_ladder_command_prints_rates_intervals_and_elo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--bots", "random,greedy", "-n", "6", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "random vs greedy" in out and "95% CI [" in out and "Elo" in out
    assert main(["ladder", "--bots", "random,greedy", "-n", "4", "--workers", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairings"][0]["matches"] == 4 and set(doc["elo"]) == {"random", "greedy"}


def test_a_ladder_takes_the_ismcts_bot_at_a_fixed_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--bots", "ismcts:30,random", "-n", "2", "--workers", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["pairings"][0]["a"] == "ismcts:30" and set(doc["elo"]) == {"ismcts:30", "random"}


@pytest.mark.parametrize("bots", ["random", "random,wizard", "random,random", "random,ismcts:0",
                                  "ismcts:x,random"])
def test_ladder_rejects_bad_contestants(capsys: pytest.CaptureFixture[str], bots: str) -> None:
    assert main(["ladder", "--bots", bots]) == 2
    assert "converge: error:" in capsys.readouterr().err


def test_openspiel_ismcts_is_a_contestant() -> None:
    result = run_ladder(["greedy", "openspiel"], 2, seed=2, workers=1, openspiel_seconds=0.02)
    assert result.pairings[0].matches == 2
    assert result.times["openspiel"] and max(result.times["openspiel"]) < 5
