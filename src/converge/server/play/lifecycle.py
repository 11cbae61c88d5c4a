"""Whether the server is shutting down, and the chores it runs beside requests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger("converge.server")


class Lifecycle:
    """One server process's life: :attr:`closing` once it shuts down; chores (presence, releases) run beside
    the callers that start them."""

    def __init__(self) -> None:
        self._closing = False
        self._chores: set[asyncio.Task[None]] = set()

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
