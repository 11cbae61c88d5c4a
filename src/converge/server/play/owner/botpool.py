"""Bot decisions in worker processes, so that no one's action waits while a bot searches.

A bot's search holds the interpreter for as long as it thinks; in the server's own process it would stall
every other match's messages. The pool sends each decision — the match's record and the seat — to a worker
process, which replays the match, gives the bot its seat's view, and answers with the action. Each
decision has a time budget (the level's own limit and a margin): a decision that misses it is replaced by a
legal action the server draws itself. The pool says when it is full (more decisions waiting than its
workers can take in a few turns), so that the server can refuse new bot matches rather than slow every
bot down.

Hints (the strong bot's suggestion to a player) are searched by the same workers, on the asking seat's
view only; so are the reviews of finished matches, decision by decision from the reviewed seat's view then.

With ``workers=0`` bots think in a thread of the server's process (tests and the smallest machines).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import logging
import multiprocessing
import os
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from converge.bots import make_bot
from converge.bots.hint import HintAnswer
from converge.bots.hint import answer as hint_answer
from converge.bots.review import ReviewDoc, review
from converge.engine.schema import RecordDoc
from converge.engine.state import Match
from converge.extensions import load_extensions, named_plugins
from converge.server.ops.meter import Meter
from converge.server.protocol.answers import BotStats, Percentiles

log = logging.getLogger("converge.server")

T = TypeVar("T")

#: Decisions that may wait per worker before the pool calls itself full.
QUEUE_PER_WORKER = 4
#: Seconds added to a level's own time before a decision counts as missed.
MARGIN = 1.0
#: The strong search's simulations per second on a slow or busy machine (a quiet core of this project's does
#: three to four times as many): a level's own time is its budget at this rate.
SLOW_RATE = 100_000


def budget(bot: str) -> float:
    """Seconds a decision of the bot level ``bot`` may take before the server plays for it: a second, and its
    search's budget at a slow machine's rate (hard: 2 s; expert: 5 s), and the margin."""
    iterations = getattr(make_bot(bot, 0), "iterations", 0)
    return 1.0 + iterations / SLOW_RATE + MARGIN


def decide(record: RecordDoc, deck_dirs: Sequence[str], seat: int, bot: str, seed: int) -> tuple[int, float]:
    """One bot decision, in a worker: replay the match and let the bot decide on its seat's view. Returns
    the action and the seconds the bot thought."""
    match = Match.replay(record, deck_dirs)
    view = match.view(seat)
    start = time.perf_counter()
    return make_bot(bot, seed).decide(view), time.perf_counter() - start


def hint_options(record: RecordDoc, deck_dirs: Sequence[str], seat: int, simulations: int | None,
                 seed: int) -> HintAnswer:
    """The strong bot's options for ``seat``'s decision, searched on that seat's view alone (``simulations``:
    None, the hint's budget)."""
    return hint_answer(Match.replay(record, deck_dirs).view(seat), simulations, seed)


def review_match(record: RecordDoc, deck_dirs: Sequence[str], seat: int, simulations: int | None, seconds: float,
                 seed: int) -> ReviewDoc:
    """``seat``'s decisions in a finished match, each judged by the hint from that seat's view at the time,
    within ``seconds`` in all (:func:`converge.bots.review.review`)."""
    start = Match.replay(record, deck_dirs, upto=0)
    return review(start, record["actions"], seat, simulations=simulations, seed=seed, seconds=seconds).to_dict()


def _summary(values: deque[float], scale: float = 1.0) -> Percentiles:
    """The median, 99th percentile and largest of ``values``, times ``scale``."""
    if not values:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(values)
    return {"p50": statistics.median(ordered) * scale,
            "p99": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * scale, "max": ordered[-1] * scale}


def _warm_up() -> None:
    """Import the engine and the bots once per worker, before the first decision."""
    make_bot("hard", 0)


#: Seconds between a worker's looks at whether its server process still lives.
PARENT_CHECK_S = 0.5


def _worker_start(server_pid: int, plugins: Sequence[str]) -> None:
    """A worker's start: it ends with its server, however the server ends (a ``kill -9`` included, which runs
    no clean-up of the server's), by watching, from a thread of its own, that its parent is still the server;
    it loads the extensions the server loaded (``plugins``: those named by the user; a deck of the server's may
    name their kinds), then it warms up."""

    def watch() -> None:
        while os.getppid() == server_pid:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)  # (orphaned: nobody will ever ask this worker anything)

    threading.Thread(target=watch, name="converge-bot-worker-parent", daemon=True).start()
    load_extensions(plugins)
    _warm_up()


class BotPool:
    """A pool of worker processes for bot decisions (see the module doc)."""

    def __init__(self, workers: int, deck_dirs: Sequence[str] = (),
                 queue_per_worker: int = QUEUE_PER_WORKER, meter: Meter | None = None) -> None:
        self.workers = max(0, workers)
        self.meter = meter or Meter()
        self.closed = False
        self.deck_dirs = tuple(deck_dirs)
        self.capacity = max(1, self.workers) * max(1, queue_per_worker)
        self.pending = 0
        self.decisions = 0
        self.missed = 0  # decisions that took longer than their budget
        self.longest_budget = 0.0
        #: Recent decisions: seconds thinking, and seconds waiting for a worker.
        self.think: deque[float] = deque(maxlen=10_000)
        self.wait: deque[float] = deque(maxlen=10_000)
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None

    @property
    def full(self) -> bool:
        """Whether more decisions wait than the workers can take soon: no new bot match should start."""
        return self.pending >= self.capacity

    def start(self) -> None:
        """Start the workers now (each imports the bots once), so that the first decisions do not wait."""
        if self.workers > 0:
            pool = self._pool()
            for _ in range(self.workers):
                pool.submit(_warm_up)

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            # spawn, not fork: the server has threads (its database writer) that a fork would copy mid-step
            self._executor = concurrent.futures.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_start, initargs=(os.getpid(), named_plugins()))
        return self._executor

    async def decide(self, match: Match, seat: int, bot: str, seed: int) -> int:
        """The bot's decision for ``seat``. Its thinking has the level's budget (:func:`budget`); waiting for
        a free worker does not count against it, but a decision that has not come back within the budget
        times the decisions ahead of it raises ``TimeoutError``."""
        limit = budget(bot)
        self.longest_budget = max(self.longest_budget, limit)
        ahead = self.pending // max(1, self.workers)
        self.pending += 1
        start = time.perf_counter()
        try:
            if self.workers == 0:
                view = match.view(seat)  # a copy holding what the seat may know: safe in a thread
                action = await asyncio.to_thread(make_bot(bot, seed).decide, view)
                thought = time.perf_counter() - start
            else:
                record = match.record(moves=False)
                future = self._run(decide, record, self.deck_dirs, seat, bot, seed)
                try:
                    action, thought = await asyncio.wait_for(future, limit * (1 + ahead))
                except TimeoutError:
                    self.missed += 1
                    raise
            self.decisions += 1
            waited = max(0.0, time.perf_counter() - start - thought)
            self.think.append(thought)
            self.wait.append(waited)
            self.meter.decision(thought, waited)
            if thought > limit:
                self.missed += 1
            return action
        finally:
            self.pending -= 1

    async def hint(self, match: Match, seat: int, simulations: int | None, seed: int) -> HintAnswer:
        """The strong bot's options for ``seat``'s decision (:func:`converge.bots.hint.answer`), searched in a
        worker on that seat's view (``simulations``: None, the hint's budget)."""
        if self.workers == 0:
            return await asyncio.to_thread(hint_answer, match.view(seat), simulations, seed)
        record = match.record(moves=False)
        return await self._run(hint_options, record, self.deck_dirs, seat, simulations, seed)

    async def review(self, record: RecordDoc, seat: int, simulations: int | None, seconds: float,
                     seed: int) -> ReviewDoc:
        """The review of ``seat``'s decisions in a finished match (:func:`review_match`), in a worker."""
        if self.workers == 0:
            return await asyncio.to_thread(review_match, record, self.deck_dirs, seat, simulations, seconds, seed)
        return await self._run(review_match, record, self.deck_dirs, seat, simulations, seconds, seed)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker. A worker that died (killed, out of memory) breaks the whole executor: every
        call in its hands fails, and it refuses new ones. It is then replaced by new workers, once (however many
        calls met it), and the call is made again there, so the bots play on."""
        loop = asyncio.get_running_loop()
        executor = self._pool()
        try:
            return await loop.run_in_executor(executor, fn, *args)
        except concurrent.futures.process.BrokenProcessPool:
            if self.closed:
                raise
            self._replace(executor)
        return await loop.run_in_executor(self._pool(), fn, *args)

    def _replace(self, executor: concurrent.futures.ProcessPoolExecutor) -> None:
        """Let a broken executor go, once (whoever meets it first: a call, or the readiness check); new workers
        start with the next call."""
        if self._executor is executor:
            log.warning("a bot worker process died: starting new ones")
            executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
            self._pool()

    def stats(self) -> BotStats:
        """Figures for operators (``GET /api/status``): nothing about any match."""
        ms = 1000.0
        return {"workers": self.workers, "pending": self.pending, "full": self.full, "decisions": self.decisions,
                "missed": self.missed, "budget_ms": self.longest_budget * ms,
                "think_ms": _summary(self.think, ms), "wait_ms": _summary(self.wait, ms)}

    def trouble(self) -> str | None:
        """What keeps the pool from deciding, for the readiness check (None: nothing). With no worker
        process, bots think in a thread of the server's process, which runs as long as the pool is open."""
        if self.closed:
            return "stopped"
        if self.workers == 0:
            return None
        executor = self._executor
        if executor is None:
            return "not started"
        # (a worker that died breaks the whole executor: no decision is taken any more, by any worker). It is
        # replaced here too, not only by the next decision's call: a process out of the load balancer's pool
        # for this very answer may get no decision to make, and would stay unready for good.
        processes = list((getattr(executor, "_processes", None) or {}).values())
        if getattr(executor, "_broken", False) or not all(p.is_alive() for p in processes):
            self._replace(executor)
            return "a worker process died (new ones are starting)"
        return None

    def close(self) -> None:
        """Stop the workers, now: what they were thinking about is not needed any more (a review may think for
        a minute, past the server's drain), and wait until the executor has let go of its processes and of
        its queues' semaphores (left to the interpreter's exit, they are reported leaked, on stderr)."""
        self.closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)
