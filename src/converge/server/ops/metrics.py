"""The server's Prometheus metrics: every series is defined here, in one registry per application (never the
library's global one: a process may hold several applications, as the tests do).

What happens is counted as it happens (:class:`Metrics` is the hub's :class:`~converge.server.ops.meter.Meter`,
and refusals are counted where they are made: the error handlers, the security middleware, a socket's
``Connection.refuse``); what is held — matches, connections, the bots' queue, the quick-match queue — is read
when Prometheus scrapes (:class:`_Held`).
No label names a match, a player, a token or an address: their values come from small fixed sets (the
action's source and decision kind, the error codes of :data:`~converge.server.protocol.errors.ERROR_STATUS`,
the kinds of connection, the background jobs' names). No label is called ``job`` or ``instance``: Prometheus
gives every scraped series those two itself (and would rename ours to ``exported_job``).
No counter or histogram has a ``_created`` series (the time it was made, one more series beside each labelled
one, which no dashboard or alert here reads).

Two ways out: ``GET /metrics`` on the server's own port with ``Authorization: Bearer <metrics_token>``
(:mod:`converge.server.api.routes.ops`), and a listener of its own at ``metrics_bind``
(:meth:`Metrics.listen`), started and stopped with the application."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import choose_encoder, start_http_server

from converge.engine.turn import DECISION_KINDS
from converge.server.config import parse_bind
from converge.server.ops.meter import Meter
from converge.server.protocol.errors import ERROR_STATUS

if TYPE_CHECKING:
    from converge.server.lobby.service import Lobby
    from converge.server.play.hub import Hub

log = logging.getLogger("converge.server")

# The library's switch is for the whole process (read at each scrape): the server's process is the server's.
disable_created_metrics()  # type: ignore[no-untyped-call]  # (the library leaves it unannotated)

#: Seconds: from a millisecond (an action in memory) to seconds (a slow disk, a bot thinking hard).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
THINK_BUCKETS = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
SOURCES = ("player", "bot")
CONNECTION_KINDS = ("seat", "spectator", "lobby")


class Metrics(Meter):
    """Every series of one application, and what feeds them (see the module doc)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        reg = self.registry
        self.actions = Counter("converge_actions", "Actions committed and sent, by who made them and the "
                               "kind of decision they answered", ["source", "kind"], registry=reg)
        self.action_seconds = Histogram("converge_action_seconds", "Seconds from an action's arrival (a "
                                        "player's message, a bot's decision) to its commit and broadcast",
                                        ["source"], buckets=LATENCY_BUCKETS, registry=reg)
        self.commit_seconds = Histogram("converge_db_commit_seconds", "Seconds each database commit took (one "
                                        "commit holds the writes that arrived together)",
                                        buckets=LATENCY_BUCKETS, registry=reg)
        self.writes = Counter("converge_db_writes", "Writes committed to the database", registry=reg)
        self.commit_failures = Counter("converge_db_commit_failures", "Database commits that failed",
                                       registry=reg)
        self.think_seconds = Histogram("converge_bot_think_seconds", "Seconds each bot decision took to think",
                                       buckets=THINK_BUCKETS, registry=reg)
        self.wait_seconds = Histogram("converge_bot_wait_seconds", "Seconds each bot decision waited for a "
                                      "worker", buckets=THINK_BUCKETS, registry=reg)
        self.errors = Counter("converge_errors", "Refusals answered (HTTP errors and sockets' error "
                              "messages), by error code", ["code"], registry=reg)
        for source in SOURCES:
            self.action_seconds.labels(source)
        for code in ERROR_STATUS:
            self.errors.labels(code)
        ProcessCollector(namespace="converge", registry=reg)
        #: The children of an action's two series by (source, kind), each looked up once: ``labels()`` takes a
        #: lock and checks its values on every call, and an action's report is on the hottest path.
        self._action_series: dict[tuple[str, str], tuple[Counter, Histogram]] = {}
        self._server: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def watch(self, hub: Hub, lobby: Lobby) -> None:
        """Read what ``hub`` and ``lobby`` hold at each scrape."""
        self.registry.register(_Held(hub, lobby))

    # ------------------------------------------------------------------ the meter

    def action(self, source: str, kind: str, seconds: float) -> None:
        series = self._action_series.get((source, kind))
        if series is None:
            shown = source if source in SOURCES else "player"
            series = (self.actions.labels(shown, kind if kind in DECISION_KINDS else "other"),
                      self.action_seconds.labels(shown))
            if source in SOURCES and kind in DECISION_KINDS:  # (only the fixed sets are kept: a bounded map)
                self._action_series[(source, kind)] = series
        count, latency = series
        count.inc()
        latency.observe(seconds)

    def commit(self, seconds: float, writes: int, ok: bool) -> None:
        if ok:
            self.commit_seconds.observe(seconds)
            self.writes.inc(writes)
        else:
            self.commit_failures.inc()

    def decision(self, think: float, wait: float) -> None:
        self.think_seconds.observe(think)
        self.wait_seconds.observe(wait)

    def error(self, code: str) -> None:
        """A refusal with ``code`` was answered (any other value is not one of ours: not counted)."""
        if code in ERROR_STATUS:
            self.errors.labels(code).inc()

    # ------------------------------------------------------------------ exposure

    def render(self, accept: str | None = None) -> tuple[bytes, str]:
        """The text a scrape gets and its content type, in the format the scraper asks for (``Accept``)."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type

    def listen(self, bind: str) -> None:
        """Serve the metrics at ``bind`` (``host:port``), from a thread of their own, until :meth:`close`."""
        host, port = parse_bind(bind)
        try:
            self._server, self._thread = start_http_server(port, host, registry=self.registry)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot serve metrics at {bind}: {exc.strerror or exc}") from None
        log.info("metrics served at http://%s/metrics", bind)

    def close(self) -> None:
        """Stop the listener (if any)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


class _Held:
    """The series read at scrape time, from the hub and the lobby (possibly from the listener's thread: only
    copies and counts are taken of what the event loop changes)."""

    def __init__(self, hub: Hub, lobby: Lobby) -> None:
        self.hub = hub
        self.lobby = lobby

    def collect(self) -> Iterator[Metric]:
        for attempt in range(3):
            try:
                yield from self._read()
                return
            except RuntimeError:  # (a set changed size while it was copied: read again)
                if attempt == 2:
                    raise
                time.sleep(0)

    def _read(self) -> Iterator[Metric]:
        hub, pool = self.hub, self.hub.pool
        sessions = list(hub.sessions)
        held = GaugeMetricFamily("converge_matches_held", "Matches held in this process's memory")
        held.add_metric([], len(sessions))
        owned = GaugeMetricFamily("converge_matches_owned", "Matches this process plays (clocks, bots)")
        owned.add_metric([], sum(1 for s in sessions if s.owned))
        seats = spectators = 0
        for session in sessions:
            for conn in list(session.presence.conns):
                if conn.closed:
                    continue
                if conn.view >= 0:
                    seats += 1
                else:
                    spectators += 1
        conns = GaugeMetricFamily("converge_connections", "Open WebSocket connections, by kind", labels=["kind"])
        for kind, count in zip(CONNECTION_KINDS, (seats, spectators, self.lobby.room.sockets.open), strict=True):
            conns.add_metric([kind], count)
        queued = GaugeMetricFamily("converge_bot_decisions_queued", "Bot decisions waiting or being thought")
        queued.add_metric([], pool.pending)
        workers = GaugeMetricFamily("converge_bot_workers", "Bot worker processes (0: a thread of this process)")
        workers.add_metric([], pool.workers)
        missed = CounterMetricFamily("converge_bot_decisions_missed", "Bot decisions that took longer than "
                                     "their budget (the server played a random legal action for some)")
        missed.add_metric([], pool.missed)
        waiting = GaugeMetricFamily("converge_quick_match_waiting", "Players waiting in the quick-match queue")
        waiting.add_metric([], len(self.lobby.quick.queue))
        failing = GaugeMetricFamily("converge_job_failing", "1 while a background job fails (its runs are tried "
                                    "again with a backoff), else 0", labels=["job_name"])
        failures = CounterMetricFamily("converge_job_failures", "Failed runs of each background job",
                                       labels=["job_name"])
        for job in hub.life.jobs:
            failing.add_metric([job.name], 1 if job.failing else 0)
            failures.add_metric([job.name], job.failures_total)
        yield from (held, owned, conns, queued, workers, missed, waiting, failing, failures)
