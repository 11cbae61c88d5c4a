"""Whether the server is shutting down, the chores it runs beside requests, and the jobs it runs now and then
(:class:`Periodic`, each with its health in :attr:`Lifecycle.jobs`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from converge.server.ops.jobs import Jobs

log = logging.getLogger("converge.server")


class Lifecycle:
    """One server process's life: :attr:`closing` once it shuts down; chores (presence, releases) run beside
    the callers that start them."""

    def __init__(self, jobs: Jobs | None = None) -> None:
        self._closing = False
        self._chores: set[asyncio.Task[None]] = set()
        #: The health of the background jobs (:mod:`converge.server.ops.jobs`), for /readyz and the metrics.
        self.jobs = jobs or Jobs()

    @property
    def closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """The server is shutting down: nothing new is scheduled."""
        self._closing = True

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a coordination chore beside the caller; a failure is logged, not raised (the next coordination
        round repairs what it left undone)."""

        async def chore() -> None:
            try:
                await coro
            except Exception as exc:
                if not self._closing:
                    log.warning("coordination chore failed: %s", exc)

        task = asyncio.get_running_loop().create_task(chore())
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)


class Periodic:
    """A job run every ``every_s`` seconds while the server runs (the retention clean-up, the turn-based time
    checks, the mail queue). A run that fails, whatever the error (a database that is away raises the driver's
    own), is tried again with a backoff, and the job's health (``name``: its metrics label; ``what``: for
    people) says so until a run works: the job never stops before the server does."""

    def __init__(self, name: str, what: str, every_s: float, job: Callable[[], Awaitable[object]],
                 life: Lifecycle) -> None:
        self.every_s = every_s
        self.job = job
        self.life = life
        self.health = life.jobs.add(name, what)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Run the job now, then every ``every_s`` seconds (never, for 0 or less; once started, it stays)."""
        if self.every_s <= 0 or self._task is not None:
            return

        async def run() -> None:
            while not self.life.closing:
                try:
                    await self.job()
                except Exception as exc:  # (not a cancellation: that is the server stopping it)
                    if self.life.closing:
                        return
                    delay = self.health.failed(exc, self.every_s)
                else:
                    self.health.worked()
                    delay = self.every_s
                await asyncio.sleep(delay)

        self._task = asyncio.get_running_loop().create_task(run())

    def stop(self) -> asyncio.Task[None] | None:
        """Stop the job; returns its task if it was still running (the caller awaits it)."""
        task, self._task = self._task, None
        if task is None or task.done():
            return None
        task.cancel()
        return task
