"""Bots think in worker processes: a decision comes back legal, within its budget, and the same for the
same seed; a pool says when it is full."""

from __future__ import annotations

import asyncio
import random

import pytest

pytest.importorskip("fastapi")

from converge import Match
from converge.bots import make_bot
from converge.server.play import botpool
from converge.server.play.botpool import QUEUE_PER_WORKER, BotPool, budget, decide


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
    readiness check, then starts new workers with the next decision, which is made as if nothing happened."""
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
            for _ in range(200):  # (the executor notices within a moment)
                if pool.trouble() is not None:
                    break
                await asyncio.sleep(0.02)
            hurt = pool.trouble()
            after = await pool.decide(match, seat, "easy", 4)
            assert pool._executor is not executor
            return before, after, hurt, pool.trouble()
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


def test_a_levels_budget_is_its_time_limit_and_a_margin() -> None:
    assert budget("hard") == pytest.approx(1.2 + 1.0)
    assert budget("easy") == pytest.approx(2.0)
