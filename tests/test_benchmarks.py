"""The benchmark scripts the docs quote (docs/benchmarks.md, docs/capacity.md) still run and measure something
(small runs; no timing is asserted)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

BENCHMARKS = ROOT / "benchmarks"


def test_hub_cpu_plays_the_actions_it_is_asked_for_and_reports_the_writer_thread() -> None:
    hub_cpu = runpy.run_path(str(BENCHMARKS / "hub_cpu.py"))
    result = asyncio.run(hub_cpu["run"](12, 300, 3))  # (enough work for the clock's 10 ms ticks)
    assert result["user_ms_per_action"] + result["system_ms_per_action"] > 0
    assert 0 < result["writer_ms_per_action"] < result["user_ms_per_action"] + result["system_ms_per_action"]


def test_hub_cpu_says_when_its_matches_run_out() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "hub_cpu.py"), "--matches", "1", "--actions", "5000"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "every match ended after" in done.stderr and "give more --matches" in done.stderr


def test_ws_floor_answers_every_exchange() -> None:
    command = [sys.executable, str(BENCHMARKS / "ws_floor.py"), "--connections", "3", "--exchanges", "2"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "of server CPU per message in and two of 2400 bytes out (6 exchanges" in done.stdout


def test_level_times_times_the_levels_decisions_with_a_choice() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "level_times.py"), "medium", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert re.match(r"medium: [1-9]\d* decisions with a choice over 2 matches; CPU median", done.stdout), \
        done.stdout


def test_hint_then_review_reviews_the_decisions_it_followed_the_hint_at() -> None:
    command = [sys.executable, str(BENCHMARKS / "hint_then_review.py"), "-n", "1", "--simulations", "300"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    judged = re.match(r"1 matches following the hint against medium: (\d+) decisions with a choice judged by the "
                      r"review, (\d+) marked", done.stdout)
    assert judged and int(judged[1]) > 0 and int(judged[2]) <= int(judged[1]), done.stdout


def test_http_cpu_makes_every_request_it_reports() -> None:
    done = subprocess.run([sys.executable, str(BENCHMARKS / "http_cpu.py"), "--requests", "40"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "ms (40 requests, /api/options and /api/status in turn)" in done.stdout


def test_gym_vector_measures_sync_and_the_vector_entry_point_side_by_side() -> None:
    pytest.importorskip("gymnasium")
    command = [sys.executable, str(BENCHMARKS / "gym_vector.py"), "--num-envs", "4", "--steps", "200",
               "--repeats", "1", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["clock"] == "cpu"  # this process's CPU time unless told (a shared machine)
    assert set(result["steps_per_second"]) == {"sync", "vector_entry_point"}
    assert all(rate > 0 for rate in result["steps_per_second"].values())
    assert result["empty_masks"] == {"sync": 0, "vector_entry_point": 0}  # masked sampling never stalls


def test_gym_vector_refuses_to_count_async_envs_by_this_processs_cpu_time() -> None:
    pytest.importorskip("gymnasium")
    command = [sys.executable, str(BENCHMARKS / "gym_vector.py"), "--async", "--clock", "cpu"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "--async needs --clock wall" in done.stderr


def test_openspiel_rates_measures_every_read_of_every_game() -> None:
    pytest.importorskip("pyspiel")
    command = [sys.executable, str(BENCHMARKS / "openspiel_rates.py"), "--decisions", "200", "--repeats", "1",
               "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    reads = {"nothing", "observer (perfect recall)", "observer (observation)", "information_state_string",
             "information_state_tensor", "observation_tensor", "rl_environment (information state)",
             "rl_environment (observation)"}
    assert set(result) == {"python_converge", "python_kuhn_poker", "leduc_poker (C++)"}
    assert all(set(by_read) == reads and min(by_read.values()) > 0 for by_read in result.values())


@pytest.mark.skipif(not Path(os.environ.get("CONVERGE_CHROMIUM", "/usr/bin/chromium")).exists(),
                    reason="no Chromium (apt-get install chromium)")
def test_browser_latency_times_each_click_to_the_next_decision_of_a_whole_match() -> None:
    command = [sys.executable, str(BENCHMARKS / "browser_latency.py"), "--bot", "easy", "--matches", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = re.search(r"against easy, after the bot played: (\d+) clicks, median ([\d.]+) s", done.stdout)
    every = re.search(r"every click sent: (\d+) clicks, median ([\d.]+) s", done.stdout)
    assert after and every and 0 < int(after[1]) <= int(every[1]), done.stdout
    assert float(after[2]) > 0, done.stdout


def test_versus_previous_keeps_each_match_and_plays_only_the_missing_ones_when_run_again(tmp_path: Path) -> None:
    """A long series survives a kill: the log keeps each match as it ends, and a second run of the same series
    plays only what is not in it (here this Python stands in for the previous release)."""
    log = tmp_path / "series.jsonl"
    command = [sys.executable, str(BENCHMARKS / "versus_previous.py"), "--previous", sys.executable,
               "--bot", "random", "--log", str(log), "--seed", "3"]
    first = subprocess.run([*command, "-n", "2"], capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert [json.loads(line)["match"] for line in log.read_text().splitlines()] == [0, 1]
    again = subprocess.run([*command, "-n", "4"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert sorted(json.loads(line)["match"] for line in log.read_text().splitlines()) == [0, 1, 2, 3]
    wins = sum(json.loads(line)["won"] for line in log.read_text().splitlines())
    assert f"random (this version) vs random (previous): {wins}/4 = " in again.stdout


def test_side_by_side_measures_every_subject_in_both_versions() -> None:
    """The script docs/benchmarks.md takes its ratios from, run small against this version as its own previous
    release: every subject measured in both, ratios of one."""
    command = [sys.executable, str(BENCHMARKS / "side_by_side.py"), "--previous", sys.executable, "--repeats", "1",
               "--rounds", "30", "--steps", "200", "--simulations", "40"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert {row.split(" | ")[0][2:] for row in rows} >= {"search simulations/s", "pettingzoo", "gymnasium"}
    assert all(float(row.split(" | ")[1].replace(",", "")) > 0 for row in rows), done.stdout
