"""Readiness: whether this process can serve players now, as a list of named checks (``GET /readyz``).

A check is a function of no argument, plain or ``async``, that returns None when all is well and otherwise
a short reason (``"a worker process died"``); one that raises fails with the exception's type, one that
takes more than :data:`TIMEOUT` seconds fails with ``"no answer in 2 s"``. The server's own are the
database (:class:`DatabasePing`), the bot workers and the background jobs (:mod:`converge.server.ops.jobs`);
more are added with :meth:`Readiness.add` (e.g. a process that is shutting down says so)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable

from sqlalchemy import Engine

#: Seconds a check may take before it counts as failed.
TIMEOUT = 2.0

#: A check: None when all is well, else why not (a coroutine function may be given).
Check = Callable[[], "Awaitable[str | None] | str | None"]


class Readiness:
    """The named checks of one application (``app.state.readiness``)."""

    def __init__(self) -> None:
        self.checks: dict[str, Check] = {}

    def add(self, name: str, check: Check) -> None:
        """Check ``check`` too, under ``name`` (a name given again replaces its check)."""
        self.checks[name] = check

    async def run(self) -> tuple[bool, dict[str, str]]:
        """Run every check at once: whether all passed, and each one's ``"ok"`` or reason."""
        names = list(self.checks)
        results = await asyncio.gather(*(_run_one(self.checks[name]) for name in names))
        return all(r is None for r in results), {n: r or "ok" for n, r in zip(names, results, strict=True)}


async def _run_one(check: Check) -> str | None:
    try:
        got = check()
        if inspect.isawaitable(got):
            got = await asyncio.wait_for(got, TIMEOUT)
    except TimeoutError:
        return f"no answer in {TIMEOUT:g} s"
    except Exception as exc:
        return f"failed ({type(exc).__name__})"  # (its message may name a host or a path: not shown)
    return got


class DatabasePing:
    """The database check: a trivial query, in a thread (never on the event loop). A query that hangs is
    waited for by the next checks rather than joined by more threads: one at a time."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._running: asyncio.Future[None] | None = None

    def _ping(self) -> None:
        with self.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    async def __call__(self) -> str | None:
        if self._running is None or self._running.done():
            self._running = asyncio.ensure_future(asyncio.to_thread(self._ping))
        try:
            await asyncio.shield(self._running)  # (the caller's timeout leaves the query running)
        except Exception as exc:
            return f"unreachable ({type(exc).__name__})"
        return None
