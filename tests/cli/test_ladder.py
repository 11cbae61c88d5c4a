"""The strength ladder: reproducible round-robins, Elo ratings, and OpenSpiel's ISMCTS as a contestant."""

from __future__ import annotations

import json
from pathlib import Path

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


# ---------------------------------------------------------------------- your agent on the ladder

ROOT = Path(__file__).resolve().parents[2]


def test_your_agent_enters_the_ladder_by_its_import_path(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue's bar, as docs/bots.md writes it: `converge ladder --bots greedy,examples.agents:RandomAgent
    -n 50` from the checkout. The agent plays random moves, so greedy beats it nearly always (the ladder is
    seeded: the same count every run), on two workers as on one."""
    monkeypatch.chdir(ROOT)
    code = main(["ladder", "--bots", "greedy,examples.agents:RandomAgent", "-n", "50", "--workers", "2", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    pair = doc["pairings"][0]
    assert (pair["a"], pair["b"], pair["matches"]) == ("greedy", "examples.agents:RandomAgent", 50)
    assert pair["a_wins"] >= 45
    one = run_ladder(["greedy", "examples.agents:RandomAgent"], 4, seed=2, workers=1)
    two = run_ladder(["greedy", "examples.agents:RandomAgent"], 4, seed=2, workers=2)
    assert [p.a_wins for p in one.pairings] == [p.a_wins for p in two.pairings]


def test_an_agent_without_a_seed_or_reset_plays_and_its_mistakes_are_one_line(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = tmp_path
    (folder / "myagents.py").write_text(
        "class First:\n"
        "    def decide(self, view):\n"
        "        return view.legal_actions()[0]\n"
        "class Mute:\n"
        "    pass\n"
        "def broken(seed):\n"
        "    raise RuntimeError('no weights file')\n"
        "def flat_policy(observation, legal_actions):\n"
        "    assert observation.shape == (507,) and observation.dtype.name == 'float32'\n"
        "    assert observation[-26:].nonzero()[0].tolist() == legal_actions  # the mask is the tensor's end\n"
        "    return legal_actions[-1]\n", encoding="utf-8")
    (folder / "badimport.py").write_text("import not_installed_anywhere\n", encoding="utf-8")
    monkeypatch.chdir(folder)
    code = main(["ladder", "--bots", "random,myagents:First,myagents:flat_policy", "-n", "2", "--workers", "1"])
    out, err = capsys.readouterr()
    assert code == 0 and "myagents:First" in out and "myagents:flat_policy" in out, err
    for bots, said in (("random,myagents:Mute", "has no decide(view) method (a Mute was made)"),
                       ("random,myagents:Nobody", "myagents has no class or function 'Nobody'"),
                       ("random,myagents:broken", "could not be made: RuntimeError: no weights file"),
                       ("random,badimport:X", "cannot import 'badimport'"),
                       ("random,Not-A-Path", "unknown bot")):
        code = main(["ladder", "--bots", bots, "-n", "2", "--workers", "1"])
        _, err = capsys.readouterr()
        assert code == 2 and said in err and "Traceback" not in err, (bots, err)
        assert [line for line in err.splitlines() if line.startswith("converge: error:")] == [
            err[err.index("converge: error:"):].strip()]  # one line of error, after argparse's usage at most


def test_the_servers_bot_names_never_import_a_module() -> None:
    """Only the ladder takes import paths: a bot name from anywhere else (the server's lobby takes names from
    players) is refused, never imported."""
    from converge.bots import is_bot_name, make_bot

    assert not is_bot_name("examples.agents:RandomAgent")
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("os:system")
