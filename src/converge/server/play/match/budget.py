"""The matches each client address may still store this hour (``matches_per_hour``), whatever the door: a
match created, a rematch, a private table, a table opened or joined, a quick match, a bot offer."""

from __future__ import annotations

from collections.abc import Sequence

from converge.server.protocol.errors import ProtocolError
from converge.server.security.limits import KeyedRateLimit


class BudgetExceeded(ProtocolError):
    """Some of the addresses that would pay for a new match have none left this hour (``refused``)."""

    def __init__(self, message: str, refused: list[str]) -> None:
        super().__init__("rate_limited", message)
        self.refused = refused


class MatchBudget:
    """An hourly budget of matches per client address (``per_hour`` 0: no limit)."""

    def __init__(self, per_hour: int) -> None:
        self.per_hour = per_hour
        self._limit = KeyedRateLimit(per_hour / 3600, per_hour, max_keys=100_000) if per_hour > 0 else None

    def check(self, payer: str) -> None:
        """Refuse (:class:`BudgetExceeded`) an address that may store no more match now; nothing is charged."""
        if self._limit is not None and not self._limit.available(payer):
            raise self._exceeded([payer])

    def charge(self, payers: Sequence[str]) -> None:
        """Take one match from the budget of each address of ``payers`` (one named twice pays twice), all or
        none: :class:`BudgetExceeded` names those that have none left, and then nothing is taken."""
        if self._limit is not None:
            refused = self._limit.take(payers)
            if refused:
                raise self._exceeded(refused)

    def give_back(self, payers: Sequence[str]) -> None:
        """Undo :meth:`charge`: what was paid for was not stored."""
        if self._limit is not None:
            self._limit.give_back(payers)

    def _exceeded(self, refused: list[str]) -> BudgetExceeded:
        return BudgetExceeded(f"at most {self.per_hour} matches an hour may be created from one address; try "
                              "again later", refused)
