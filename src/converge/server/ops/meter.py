"""What the server's units report as they work — an action applied, a commit, a bot's decision — for the
metrics (:class:`~converge.server.ops.metrics.Metrics`). This base records nothing, so that a unit made
without metrics (a test's writer, a bot pool of its own) needs no check before it reports."""

from __future__ import annotations


class Meter:
    """The reports, each a no-op here; :class:`~converge.server.ops.metrics.Metrics` counts them."""

    def action(self, source: str, kind: str, seconds: float) -> None:
        """An action was committed and sent: ``source`` "player" or "bot", ``kind`` the decision it answered
        (:data:`converge.engine.turn.DECISION_KINDS`), ``seconds`` from its arrival to its broadcast."""

    def commit(self, seconds: float, writes: int, ok: bool) -> None:
        """The database writer committed (or failed to commit) a group of ``writes`` in ``seconds``
        (called from the writer's thread)."""

    def decision(self, think: float, wait: float) -> None:
        """A bot decided after ``wait`` seconds waiting for a worker and ``think`` seconds thinking."""

    def error(self, code: str) -> None:
        """A refusal with ``code`` was answered: an HTTP error, a socket's error message (counted where it is
        made: the exception handlers, the middleware, :meth:`Connection.refuse
        <converge.server.transport.connections.Connection.refuse>`)."""
