"""docs/baselines.md is what its command makes: benchmarks/baselines.py writes every pair with its interval and
the command that made it, and the committed page agrees with the command it names (its cheap pairs are played
again from the seed and give the same wins)."""

from __future__ import annotations

import argparse
import re
import runpy
import shlex
from pathlib import Path
from typing import Any

import pytest

from converge.simulation.ladder import run_ladder
from converge.simulation.runner import wilson_interval
from tests.helpers import ROOT

PAGE = ROOT / "docs" / "baselines.md"
SCRIPT = ROOT / "benchmarks" / "baselines.py"
ROW = re.compile(r"^\| (\S+) \| (\S+) \| (\d+)/(\d+) \| ([\d.]+)% \| ([\d.]+)%–([\d.]+)% \| ([\d.]+) \|$")
#: Pairs cheap enough to play again in a test (each of their decisions takes a few milliseconds at most).
CHEAP = {"random", "greedy", "medium"}


def baselines() -> dict[str, Any]:
    return runpy.run_path(str(SCRIPT), run_name="baselines")


def parse(text: str) -> dict[str, Any]:
    """The page's command (as arguments), settings line, pairs and Elo table."""
    command = re.search(r"^Command: `(.+)`$", text, re.M)
    settings = re.search(r"^Settings: .+$", text, re.M)
    assert command and settings, "the page names its command and its settings"
    words = shlex.split(command[1])
    assert words[:2] == ["python", "benchmarks/baselines.py"], words
    pairs = [ROW.match(line) for line in text.splitlines()]
    elo = re.findall(r"^\| (\S+) \| (\d+) \| (\d+) \|$", text.split("## Elo", 1)[1], re.M)
    return {"argv": words[2:], "settings": settings[0],
            "pairs": [(m[1], m[2], int(m[3]), int(m[4]), float(m[5]), float(m[6]), float(m[7]), float(m[8]))
                      for m in pairs if m],
            "elo": [name for name, _, _ in elo]}


def check_pairs(page: dict[str, Any], bots: list[str], per_pair: int) -> None:
    """Every pair of ``bots`` once, in the ladder's order, with ``per_pair`` matches, its rate and its 95%
    interval as computed from its wins, the rate inside the interval."""
    assert [(a, b) for a, b, *_ in page["pairs"]] == [(a, b) for i, a in enumerate(bots) for b in bots[i + 1:]]
    for a, b, wins, matches, rate, lo, hi, cpu in page["pairs"]:
        assert matches == per_pair, (a, b)
        assert rate == pytest.approx(round(100 * wins / matches, 1)), (a, b)
        assert (lo, hi) == pytest.approx(tuple(round(100 * x, 1) for x in wilson_interval(wins, matches))), (a, b)
        assert lo <= rate <= hi and cpu >= 0, (a, b)
    assert sorted(page["elo"]) == sorted(bots)


def test_the_command_writes_every_pair_with_its_interval_and_the_command_line_it_ran(tmp_path: Path) -> None:
    script = baselines()
    out = tmp_path / "baselines.md"
    argv = ["--bots", "random,greedy,medium", "--per-pair", "3", "--seed", "4", "--workers", "1",
            "--out", str(out)]
    assert script["main"](argv) == 0
    page = parse(out.read_text())
    assert page["argv"] == argv
    args = script["parser"]().parse_args(page["argv"])
    assert page["settings"] == script["settings_line"](args)
    check_pairs(page, ["random", "greedy", "medium"], 3)
    assert sum(wins for _, _, wins, *_ in page["pairs"]) < 9  # (random won no pair outright: the table is read)


def test_an_unknown_bot_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--bots takes two or more different names of random, greedy"):
        baselines()["main"](["--bots", "random,grumpy", "--out", str(tmp_path / "x.md")])


def test_the_committed_page_is_what_its_command_makes() -> None:
    script = baselines()
    text = PAGE.read_text()
    page = parse(text)
    args: argparse.Namespace = script["parser"]().parse_args(page["argv"])
    assert args.out == "docs/baselines.md"
    assert page["settings"] == script["settings_line"](args)
    asked = args.bots.split(",")
    left_out = [name for name in asked if re.search(rf"^- {name}: not installed here", text, re.M)]
    bots = [name for name in asked if name not in left_out]
    check_pairs(page, bots, args.per_pair)
    # the cheap pairs again, from the page's seed: the same wins (the ladder draws each pair's matches from
    # the seed and the two names alone)
    cheap = [name for name in bots if name in CHEAP]
    assert len(cheap) >= 2
    again = run_ladder(cheap, args.per_pair, seed=args.seed, workers=1)
    wins = {(a, b): w for a, b, w, *_ in page["pairs"]}
    assert {(p.a, p.b): p.a_wins for p in again.pairings} == {pair: wins[pair] for pair in wins
                                                               if set(pair) <= CHEAP}
