"""Graceful restarts: what a server process does between SIGTERM (or Ctrl-C) and its exit.

uvicorn alone, told to stop, closes its listening sockets, then closes every WebSocket at once with 1012
(a move still being committed is then stored but never acknowledged: its player cannot tell), waits for the
requests in flight without a bound, and runs the application's shutdown. :class:`DrainingServer` puts the
application's own drain first, and bounds the whole within ``drain_seconds``:

1. no new connection is taken (the listening sockets close; a load balancer's ``/readyz`` says
   ``draining`` on the connections it already holds);
2. the application drains (``app.state.drain``, :meth:`converge.server.play.hub.Hub.drain`): no new move,
   match or seat is taken (each is answered ``restarting``), each match's move in flight is committed and
   acknowledged, then every WebSocket — seats, spectators, lobby pages — is closed with 1012, which tells its
   client to reconnect: to another process behind the same proxy, or to this one once it is back;
3. uvicorn's own shutdown: the HTTP requests in flight answered (for what is left of ``drain_seconds``),
   then the application's shutdown (the database writer's last commits, the bot workers stopped).

``converge serve`` and serve-bench's server both run through :func:`serve`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

log = logging.getLogger("converge.server")

#: Seconds of ``drain_seconds`` kept for what follows the application's drain: uvicorn's closing of the
#: connections left and the application's shutdown (the writer's last commit, the bot workers).
AFTER_DRAIN_S = 1.5

#: The application's drain: returns how many connections it told to reconnect.
Drain = Callable[[], Awaitable[int]]


class DrainingServer(uvicorn.Server):
    """uvicorn's server whose shutdown drains the application first (see the module doc)."""

    def __init__(self, config: uvicorn.Config, drain: Drain | None, drain_seconds: float) -> None:
        super().__init__(config)
        self.drain = drain
        self.drain_seconds = drain_seconds

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        started = time.monotonic()
        for server in self.servers:  # (uvicorn closes them again: closing twice does nothing)
            server.close()
        for sock in sockets or []:
            sock.close()
        told = 0
        if self.drain is not None and not self.force_exit:
            budget = max(0.5, self.drain_seconds - AFTER_DRAIN_S)
            try:
                told = await asyncio.wait_for(self.drain(), budget)
            except TimeoutError:
                log.warning("draining took longer than %.1f s: stopping anyway", budget)
        left = self.drain_seconds - (time.monotonic() - started)
        # (uvicorn's type says whole seconds; it hands the value to asyncio.wait_for, which takes any)
        self.config.timeout_graceful_shutdown = max(1, round(left - AFTER_DRAIN_S / 2))
        log.info("drained in %.1f s: %d connection(s) told to reconnect", time.monotonic() - started, told)
        await super().shutdown(sockets)


def serve(app: Any, **options: Any) -> None:
    """Serve ``app`` (made by :func:`converge.server.app.create_app`) as ``uvicorn.run(app, **options)`` would,
    draining it on SIGTERM or Ctrl-C within its ``drain_seconds``."""
    server = DrainingServer(uvicorn.Config(app, **options), getattr(app.state, "drain", None),
                            app.state.config.drain_seconds)
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:  # (it could not listen: uvicorn logged why; its exit status, as uvicorn.run's)
        raise SystemExit(STARTUP_FAILURE)
