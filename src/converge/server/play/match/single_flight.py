"""Work done once per key at a time: whoever asks for a key while its work runs waits for that work's answer
instead of starting it again (a hint being searched, a match being loaded)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SingleFlight(Generic[K, V]):
    """The work running now, per key."""

    def __init__(self) -> None:
        self._running: dict[K, asyncio.Future[V]] = {}

    def running(self) -> set[K]:
        """The keys whose work runs now."""
        return set(self._running)

    async def run(self, key: K, work: Callable[[], Awaitable[V]]) -> V:
        """``work()``'s answer, or the answer of the work for ``key`` that runs already. Its failure is every
        waiter's; a waiter cancelled does not cancel the work for the others (they wait through a shield)."""
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            answer = await work()
            future.set_result(answer)
            return answer
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # (marked retrieved: nobody may be waiting)
            raise
        finally:
            del self._running[key]
