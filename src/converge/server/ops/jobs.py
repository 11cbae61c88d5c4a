"""The background jobs' health: whether each job a server process runs beside requests — the turn-based time
check, the "your turn" mails, the retention clean-up, the coordination with other processes, the lobby's
refresh — works now, for the log, ``/readyz`` and the metrics.

A job that fails, whatever the error (the project's own, or the database driver's when the database is
away), is tried again with a backoff (:class:`Backoff`): soon, then less and less often, never later than its
own next run. Its first failure in a row is logged once, with the exception in the line's ``exception``
field; each further try that fails is only counted; the try that works again is logged once more. While a
job fails, :meth:`Jobs.trouble` names it (``/readyz`` answers 503 with the reason) and its
``converge_job_failing`` gauge is 1.

>>> Backoff(first_s=1, longest_s=30).delay(1, every_s=60), Backoff(1, 30).delay(6, 60), Backoff(1, 30).delay(9, 5)
(1.0, 30.0, 5.0)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass

log = logging.getLogger("converge.server.jobs")


@dataclass(frozen=True)
class Backoff:
    """The waits before a failed job's next tries: ``first_s``, doubling each time, at most ``longest_s``."""

    first_s: float = 1.0
    longest_s: float = 30.0

    def delay(self, failures: int, every_s: float) -> float:
        """Seconds before the next try after ``failures`` failed tries in a row, never more than the job's own
        period ``every_s`` (a job that runs every second is tried again every second)."""
        wait = self.first_s * 2.0 ** max(0, min(failures - 1, 60))
        return float(max(0.0, min(wait, self.longest_s, every_s)))


def _seconds(s: float) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.1f} s"


class JobHealth:
    """One background job's health (made by :meth:`Jobs.add`): told of each run's outcome by the job's loop,
    read by the readiness check and the metrics (possibly from another thread: plain values only)."""

    def __init__(self, name: str, what: str, backoff: Backoff) -> None:
        #: The metrics' label (a fixed word: ``turn_mails``) and what it is for people ("turn mails").
        self.name = name
        self.what = what
        self.backoff = backoff
        #: Failed tries in a row (0: it works), and in all since the process started.
        self.failures = 0
        self.failures_total = 0
        self.since: float | None = None  # (monotonic) the first failure of the current run of them
        self.reason = ""

    @property
    def failing(self) -> bool:
        return self.failures > 0

    def failed(self, exc: BaseException, every_s: float) -> float:
        """A run failed with ``exc``: logged if it is the first of a run of failures; returns the seconds to
        wait before the next try."""
        self.failures += 1
        self.failures_total += 1
        self.reason = type(exc).__name__  # (its text may name a host or a path: the log has it, not /readyz)
        delay = self.backoff.delay(self.failures, every_s)
        if self.failures == 1:
            self.since = time.monotonic()
            log.error("%s: failed (%s); trying again in %s, then less and less often (at least every %s) "
                      "until it works, which will be logged", self.what, self.reason, _seconds(delay),
                      _seconds(min(self.backoff.longest_s, every_s)), exc_info=exc)
        return delay

    def worked(self) -> None:
        """A run worked: a job that was failing is logged as working again."""
        if self.failures:
            lasted = time.monotonic() - (self.since or time.monotonic())
            log.warning("%s: working again, after %d failed tr%s over %s", self.what, self.failures,
                        "y" if self.failures == 1 else "ies", _seconds(lasted))
        self.idle()

    def idle(self) -> None:
        """The job stopped, having nothing to do (the lobby's refresh, with no page open): not failing."""
        self.failures = 0
        self.since = None
        self.reason = ""

    def trouble(self) -> str | None:
        """None while it works; else what fails, since when, and the error's kind."""
        if not self.failures:
            return None
        lasted = time.monotonic() - (self.since or time.monotonic())
        return f"{self.what} failing for {_seconds(lasted)} ({self.reason})"


class Jobs:
    """The background jobs of one server process (``hub.life.jobs``): each registers once, by name."""

    def __init__(self, backoff: Backoff | None = None) -> None:
        self.backoff = backoff or Backoff()
        self._jobs: dict[str, JobHealth] = {}

    def add(self, name: str, what: str) -> JobHealth:
        """The health of the job ``name`` (made on first use: a job made again shares it)."""
        if name not in self._jobs:
            self._jobs[name] = JobHealth(name, what, self.backoff)
        return self._jobs[name]

    def __iter__(self) -> Iterator[JobHealth]:
        return iter(list(self._jobs.values()))

    def trouble(self) -> str | None:
        """The readiness check: None while every job works, else each failing one's trouble."""
        failing = [t for job in self for t in [job.trouble()] if t is not None]
        return "; ".join(failing) or None
