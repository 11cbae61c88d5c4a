"""Where the simulator's chunks are played: this process, local worker processes, or a Ray cluster.

Every backend returns the chunk results *in chunk order* and keeps only a bounded window of chunks in
flight (a few per worker), so memory does not grow with the job. Each chunk's result depends only on the
spec and the chunk (:func:`~converge.simulation.jobs.run_chunk`), so every backend gives the same
results.

* ``local`` — ``workers`` processes started with the ``spawn`` method (safe on every platform, and with
  threads around); ``workers=1`` plays in the calling process.
* ``ray`` — Ray tasks (``pip install 'converge-game[ray]'``): on the cluster at ``address`` (``ray://host:10001``
  or ``host:6379``, or ``auto``), or on a local Ray instance started for the job (and stopped after it). If
  the program has already called ``ray.init``, that connection is used. The nodes need ``converge``
  installed, and the extensions the decks need; the deck files and the names of the extension modules travel
  with the job.

Every worker loads the extensions (:mod:`converge.extensions`) before it reads the decks: the installed ones it
finds itself, the modules named by the user from the job (``SimulationSpec.plugins``).
"""

from __future__ import annotations

import ctypes
import importlib
import logging
import multiprocessing
import os
import signal
import socket
import sys
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol

from converge import install_command
from converge.extensions import load_extensions
from converge.simulation.jobs import Chunk, ChunkResult, SimulationSpec, run_chunk

if TYPE_CHECKING:
    from ray import ObjectRef

BACKENDS = ("local", "ray")
#: Chunks in flight per worker: enough to keep every worker busy, few enough to bound memory.
WINDOW_PER_WORKER = 3


class BackendError(RuntimeError):
    """A backend cannot be used (Ray missing, no cluster at the address...): a one-line message."""


class Backend(Protocol):
    name: str
    workers: int

    def map(self, spec: SimulationSpec, chunks: Sequence[Chunk]) -> Iterator[ChunkResult]:
        """Play the chunks; yield their results in chunk order."""
        ...

    def close(self) -> None:
        ...


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


class InProcess:
    """Plays the chunks one after the other in this process."""

    name = "local"
    workers = 1

    def map(self, spec: SimulationSpec, chunks: Sequence[Chunk]) -> Iterator[ChunkResult]:
        for chunk in chunks:
            yield run_chunk(spec, chunk)

    def close(self) -> None:
        pass


_WORKER_SPEC: list[SimulationSpec] = []


def die_with_parent() -> None:
    """In a worker process: end when the process that started it ends (Linux: the kernel sends SIGTERM).
    Without it, a run stopped by ``kill`` (a scheduler's, say), not by Ctrl-C, left its workers playing
    their chunks on. Elsewhere nothing is done."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent already ended before the call took effect
        os._exit(1)


#: prctl(2)'s option to be signalled when the parent ends.
PR_SET_PDEATHSIG = 1


def start_worker(plugins: Sequence[str]) -> None:
    """A worker process's start: it ends with its parent (:func:`die_with_parent`) and loads the extensions
    its parent loaded (``plugins``: the modules named by the user; the installed ones it finds itself)."""
    die_with_parent()
    load_extensions(plugins)


def _init_worker(spec: SimulationSpec) -> None:
    start_worker(spec.plugins)
    _WORKER_SPEC[:] = [spec]


def _worker_chunk(chunk: Chunk) -> ChunkResult:
    return run_chunk(_WORKER_SPEC[0], chunk)


class LocalProcesses:
    """Plays the chunks on ``workers`` local processes (spawned; the spec is sent once to each)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def map(self, spec: SimulationSpec, chunks: Sequence[Chunk]) -> Iterator[ChunkResult]:
        self._pool = pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                initializer=_init_worker, initargs=(spec,))
        window: deque[Future[ChunkResult]] = deque()
        todo = iter(chunks)
        limit = self.workers * WINDOW_PER_WORKER
        for chunk in todo:
            window.append(pool.submit(_worker_chunk, chunk))
            if len(window) >= limit:
                break
        while window:
            result = window.popleft().result()
            nxt = next(todo, None)
            if nxt is not None:
                window.append(pool.submit(_worker_chunk, nxt))
            yield result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast, with one line, when nothing listens at a Ray address (Ray itself waits for minutes)."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise BackendError(f"a Ray address is HOST:PORT or ray://HOST:PORT (or auto), got {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise BackendError(f"cannot connect to the Ray cluster at {address}: {exc.strerror or exc}") from None


def _ray_chunk(spec: SimulationSpec, chunk: Chunk) -> ChunkResult:
    return run_chunk(spec, chunk)


class RayTasks:
    """Plays the chunks as Ray tasks, one CPU each."""

    name = "ray"

    def __init__(self, workers: int | None, address: str | None) -> None:
        try:
            ray: Any = importlib.import_module("ray")
        except ImportError:
            raise BackendError(f"the Ray backend needs Ray: {install_command('ray')} "
                               "(or pip install ray)") from None
        self._ray: Any = ray
        self._started = False
        if not ray.is_initialized():
            kwargs: dict[str, object] = {"include_dashboard": False, "logging_level": logging.WARNING}
            if address:
                check_reachable(address)
                kwargs["address"] = address
            elif workers:
                kwargs["num_cpus"] = workers
            try:
                ray.init(**kwargs)
            except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
                where = f"the Ray cluster at {address}" if address else "a local Ray instance"
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise BackendError(f"cannot connect to {where}: {first}") from None
            self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, workers or cpus)
        self._remote = ray.remote(num_cpus=1)(_ray_chunk)

    def map(self, spec: SimulationSpec, chunks: Sequence[Chunk]) -> Iterator[ChunkResult]:
        ray = self._ray
        spec_ref = ray.put(spec)
        window: deque[ObjectRef[ChunkResult]] = deque()
        todo = iter(chunks)
        limit = self.workers * WINDOW_PER_WORKER
        for chunk in todo:
            window.append(self._remote.remote(spec_ref, chunk))
            if len(window) >= limit:
                break
        while window:
            result: ChunkResult = ray.get(window.popleft())
            nxt = next(todo, None)
            if nxt is not None:
                window.append(self._remote.remote(spec_ref, nxt))
            yield result

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()
            self._started = False


def make_backend(name: str, workers: int | None = None, address: str | None = None) -> Backend:
    """A backend by name; ``workers`` None means all local cores (local) or the cluster's CPUs (ray)."""
    if workers is not None and workers < 1:
        raise BackendError(f"the number of workers must be at least 1, got {workers}")
    if name == "local":
        if address:
            raise BackendError("--address is for the Ray backend (--backend ray)")
        n = workers or default_workers()
        return InProcess() if n == 1 else LocalProcesses(n)
    if name == "ray":
        return RayTasks(workers, address)
    raise BackendError(f"unknown backend {name!r} (known: {', '.join(BACKENDS)})")


__all__ = ["BACKENDS", "Backend", "BackendError", "InProcess", "LocalProcesses", "RayTasks", "check_reachable",
           "default_workers", "make_backend"]
