"""The server's wall clock: seconds since the epoch, for what is counted in hours and days — a turn-based
match's deadline runs from the time its last move was stored. One per server process (the hub's), so a test
can move it on by a week and every unit sees the same time."""

from __future__ import annotations

import time


class WallClock:
    """``time.time()``, plus however far it was moved on.

    >>> wall = WallClock()
    >>> wall.advance(86400)
    >>> 86399 < wall() - time.time() < 86401
    True
    """

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds`` (tests: a simulated week)."""
        self.offset += seconds
