"""Bots think in worker processes: a decision comes back legal, within its budget, and the same for the
same seed; a pool says when it is full."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.server_support import Server

pytest.importorskip("fastapi")

from converge import Match
from converge.bots import make_bot
from converge.server.play.owner import botpool
from converge.server.play.owner.botpool import MARGIN, QUEUE_PER_WORKER, SLOW_RATE, BotPool, budget, decide


def test_a_worker_decides_as_the_bot_would_on_its_view() -> None:
    rng = random.Random(3)
    match = Match.new(["delver", "astropath", "healer"], seed=5)
    for _ in range(9):
        match.apply(rng.choice(match.legal_actions()))
    seat = match.current_player
    action, thought = decide(match.record(moves=False), (), seat, "medium", 11)
    assert action == make_bot("medium", 11).decide(match.view(seat)) and thought >= 0.0
    assert action in match.legal_actions()


def test_the_pool_runs_decisions_in_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the first decision waits for its worker process to start: seconds on a busy machine, past the level's
    # budget, which is not what this test is about)
    monkeypatch.setattr(botpool, "budget", lambda bot: 120.0)

    async def run() -> list[int]:
        pool = BotPool(1)
        try:
            match = Match.new(["alchemist", "mechanist", "archivist"], seed=2)
            seat = match.current_player
            got = [await pool.decide(match, seat, "easy", 4) for _ in range(2)]
            assert pool.pending == 0 and pool._executor is not None
            return got
        finally:
            pool.close()

    first, second = asyncio.run(run())
    assert first == second  # same seed, same view: same decision


def test_a_worker_that_dies_is_replaced_and_the_next_decisions_are_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed (out of memory, by hand) breaks its executor for every call: the pool says so to the
    readiness check and replaces it there, with no decision needed (a process the load balancer took out of
    its pool may get none), and the next decision is made as if nothing happened."""
    monkeypatch.setattr(botpool, "budget", lambda bot: 120.0)  # (new workers start slowly on a busy machine)

    async def run() -> tuple[int, int, str | None, str | None]:
        pool = BotPool(1)
        try:
            pool.start()
            match = Match.new(["alchemist", "mechanist", "archivist"], seed=2)
            seat = match.current_player
            before = await pool.decide(match, seat, "easy", 4)
            assert pool.trouble() is None
            executor = pool._executor
            assert executor is not None
            for process in list(executor._processes.values()):  # type: ignore[attr-defined]
                process.kill()
                process.join()
            hurt = None
            for _ in range(200):  # (the executor notices within a moment)
                hurt = pool.trouble()
                if hurt is not None:
                    break
                await asyncio.sleep(0.02)
            assert pool._executor is not executor and pool._executor is not None
            healed = pool.trouble()  # (the next readiness probe, before any decision)
            after = await pool.decide(match, seat, "easy", 4)
            assert pool.trouble() is None
            return before, after, hurt, healed
        finally:
            pool.close()

    before, after, hurt, healed = asyncio.run(run())
    assert hurt is not None and "died" in hurt
    assert after == before and healed is None


def test_a_pool_is_full_when_more_decisions_wait_than_its_workers_take() -> None:
    pool = BotPool(2)
    assert not pool.full and pool.capacity == 2 * QUEUE_PER_WORKER
    pool.pending = pool.capacity
    assert pool.full


def test_a_levels_budget_is_a_second_its_search_at_a_slow_rate_and_a_margin() -> None:
    from converge.bots import budgets

    assert budget("hard") == pytest.approx(1.0 + budgets.HARD.simulations / SLOW_RATE + MARGIN)
    assert budget("expert") > budget("hard") > budget("medium") > budget("easy") == pytest.approx(1.0 + MARGIN)


# ------------------------------------------------------------------ the workers end with their server


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (its bot workers and multiprocessing's resource tracker)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (not gone, not a zombie waiting to be reaped)."""
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def _until(check: Callable[[], bool], seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "never happened"
        time.sleep(0.05)


def _server_with_workers(tmp_path: Path, *extra: str) -> tuple[Server, set[int]]:
    server = Server(tmp_path / "m.sqlite3", None, "--bot-workers", "2", "--bot-delay", "0", "--log-format", "json",
                    *extra)
    server.start()
    assert server.proc is not None
    pid = server.proc.pid
    _until(lambda: len(_children(pid)) >= 3)  # (two workers and the resource tracker)
    return server, _children(pid)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_bot_workers_die_with_their_server_killed_with_sigkill(tmp_path: Path) -> None:
    server, workers = _server_with_workers(tmp_path)
    server.kill()  # (no clean-up of any kind runs in the server)
    _until(lambda: not _running(workers))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_sigterm_stops_the_workers_mid_review_and_writes_only_json_lines(tmp_path: Path) -> None:
    """A review thinks in a worker for up to a minute; SIGTERM stops the server within its drain, the worker
    with it, and the log holds nothing but JSON (no "leaked semaphore objects" from multiprocessing)."""
    import httpx2

    server, workers = _server_with_workers(tmp_path, "--review-simulations", "1000000", "--review-seconds", "300",
                                           "--drain-seconds", "5", "--log-level", "info")
    try:
        base = server.base
        made = httpx2.post(f"{base}/api/matches", timeout=30,
                           json={"opponent": "bot", "bot": "random", "playset": "catalysts"}).json()
        bearer = {"Authorization": f"Bearer {made['token']}"}
        rng = random.Random(5)
        while (view := httpx2.get(f"{base}/api/matches/{made['match_id']}", headers=bearer,
                                  timeout=30).json())["match"]["status"] == "active":
            decision = view["observation"]["decision"]
            if decision is not None and decision["player"] == made["seat"]:
                action = rng.choice(decision["legal_actions"])["id"]
                httpx2.post(f"{base}/api/matches/{made['match_id']}/actions", headers=bearer, timeout=30,
                            json={"action": action, "seq": view["match"]["seq"]})
        asked = httpx2.post(f"{base}/api/matches/{made['match_id']}/review", headers=bearer, timeout=30)
        assert asked.json()["status"] == "running", asked.text
        assert server.proc is not None
        pid = server.proc.pid
        busy = _cpu_seconds(workers)
        _until(lambda: _cpu_seconds(workers) > busy + 0.5)  # (a worker is thinking about the review)
        workers = _children(pid)  # (the workers, the tracker: every process the server started)
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=30) in (0, -signal.SIGTERM)  # (uvicorn raises the signal again at its end)
        _until(lambda: not _running(workers), seconds=10)
    finally:
        server.stop()
    lines = [line for line in server.log_path.read_text().splitlines() if not line.startswith("Converge server:")]
    for line in lines:
        assert line.startswith("{") and json.loads(line)["message"] is not None, line
    assert any("drained in" in line for line in lines)


def _cpu_seconds(pids: set[int]) -> float:
    """The CPU time ``pids`` have used (user and system)."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")
