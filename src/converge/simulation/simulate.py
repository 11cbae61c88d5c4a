"""The balance simulator: N bot-vs-bot matches per playset, reproducible, streamed, on any backend.

The matches of a :class:`~converge.simulation.jobs.SimulationSpec` are cut into chunks (one playset, a
run of match indexes; :mod:`converge.simulation.jobs`). A backend (:mod:`converge.simulation.backends`)
plays the chunks and hands back their results *in chunk order* while only a bounded window of chunks is
in flight; :func:`simulate` streams each chunk's table rows to a writer and adds its counters to one
:class:`~converge.simulation.stats.PlaysetTally` per playset. Memory therefore stays flat however many
matches are played, and the results do not depend on the backend, the workers or the chunk size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from converge.simulation.backends import make_backend
from converge.simulation.jobs import DEFAULT_CHUNK, ChunkResult, SimulationSpec, plan_chunks, playset_key
from converge.simulation.stats import PlaysetTally, RoundRow

if TYPE_CHECKING:
    from converge.simulation.summary_doc import RunInfo

RowSink = Callable[[list[RoundRow]], None]
Progress = Callable[[int, int], None]  # (matches done, matches in all)


@dataclass
class SimulationResult:
    spec: SimulationSpec
    tallies: dict[str, PlaysetTally]  # playset key -> counters, in the spec's playset order
    seconds: float
    backend: str
    workers: int

    @property
    def matches(self) -> int:
        return sum(t.matches for t in self.tallies.values())

    def run_info(self) -> RunInfo:
        """How the job ran (not part of the results: it differs from run to run)."""
        rate = self.matches / self.seconds if self.seconds > 0 else 0.0
        return {"backend": self.backend, "workers": self.workers, "seconds": round(self.seconds, 2),
                "matches_per_second": round(rate, 1) if rate >= 10 else float(f"{rate:.2g}")}


def simulate(spec: SimulationSpec, backend: str = "local", workers: int | None = None, address: str | None = None,
             chunk_size: int = DEFAULT_CHUNK, sink: RowSink | None = None,
             progress: Progress | None = None) -> SimulationResult:
    """Play every match of ``spec`` and return the counters; table rows go to ``sink`` as chunks finish.

    ``backend`` is ``"local"`` (``workers`` processes, all cores by default; 1 plays in this process) or
    ``"ray"`` (a Ray cluster at ``address``, or a local Ray instance). Results are the same for every
    backend, worker count and chunk size.
    """
    chunks = plan_chunks(spec, chunk_size)
    runner = make_backend(backend, workers, address)
    tallies = {playset_key(names): PlaysetTally() for names in spec.playsets}
    keys = list(tallies)
    done = 0
    begin = time.perf_counter()
    if progress is not None:
        progress(0, spec.total)
    try:
        results: Iterator[ChunkResult] = runner.map(spec, chunks)
        for result in results:
            tallies[keys[result.chunk.playset]].merge(result.tally)
            if sink is not None:
                sink(result.rows)
            done += result.chunk.count
            if progress is not None:
                progress(done, spec.total)
    finally:
        runner.close()
    return SimulationResult(spec, tallies, time.perf_counter() - begin, runner.name, runner.workers)


__all__ = ["Progress", "RowSink", "SimulationResult", "simulate"]
