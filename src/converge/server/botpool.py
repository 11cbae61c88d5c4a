"""Bot decisions in worker processes, so that no one's action waits while a bot searches.

A bot's search holds the interpreter for as long as it thinks; in the server's own process it would stall
every other match's messages. The pool sends each decision — the match's record and the seat — to a worker
process, which replays the match, gives the bot its seat's view, and answers with the action. Each
decision has a time budget (the level's own limit and a margin): a decision that misses it is replaced by a
legal action the server draws itself. The pool says when it is full (more decisions waiting than its
workers can take in a few turns), so that the server can refuse new bot matches rather than slow every
bot down.

With ``workers=0`` bots think in a thread of the server's process (tests and the smallest machines).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
import os
from collections.abc import Sequence
from typing import Any

from converge.bots import make_bot
from converge.engine.state import Match

#: Decisions that may wait per worker before the pool calls itself full.
QUEUE_PER_WORKER = 4
#: Seconds added to a level's own time limit before a decision counts as missed.
MARGIN = 1.0


def default_workers() -> int:
    """One worker per core but one (the server's own process needs a core), and at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


def budget(bot: str) -> float:
    """Seconds a decision of the bot level ``bot`` may take before the server plays for it."""
    limit = getattr(make_bot(bot, 0), "seconds", None)
    return (limit or 1.0) + MARGIN


def decide(record: dict[str, Any], deck_dirs: Sequence[str], seat: int, bot: str, seed: int) -> int:
    """One bot decision, in a worker: replay the match and let the bot decide on its seat's view."""
    match = Match.replay(record, deck_dirs)
    return make_bot(bot, seed).decide(match.view(seat))


def _warm_up() -> None:
    """Import the engine and the bots once per worker, before the first decision."""
    make_bot("hard", 0)


class BotPool:
    """A pool of worker processes for bot decisions (see the module doc)."""

    def __init__(self, workers: int, deck_dirs: Sequence[str] = ()) -> None:
        self.workers = max(0, workers)
        self.deck_dirs = tuple(deck_dirs)
        self.capacity = max(1, self.workers) * QUEUE_PER_WORKER
        self.pending = 0
        self.missed = 0  # decisions that took longer than their budget
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None

    @property
    def full(self) -> bool:
        """Whether more decisions wait than the workers can take soon: no new bot match should start."""
        return self.pending >= self.capacity

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            # spawn, not fork: the server has threads (its database writer) that a fork would copy mid-step
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_warm_up)
        return self._executor

    async def decide(self, match: Match, seat: int, bot: str, seed: int) -> int:
        """The bot's decision for ``seat``; raises ``TimeoutError`` when it misses its budget."""
        self.pending += 1
        try:
            if self.workers == 0:
                view = match.view(seat)  # a copy holding what the seat may know: safe in a thread
                return await asyncio.to_thread(make_bot(bot, seed).decide, view)
            record = match.record(moves=False)
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self._pool(), decide, record, self.deck_dirs, seat, bot, seed)
            try:
                return await asyncio.wait_for(future, budget(bot))
            except TimeoutError:
                self.missed += 1
                raise
        finally:
            self.pending -= 1

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
