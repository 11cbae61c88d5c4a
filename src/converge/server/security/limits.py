"""Rate limits and counts of open connections, per client address.

Each WebSocket connection has a token bucket (messages over the limit get an error and do nothing); the HTTP
API's writes and match creation have one per client address (:class:`KeyedRateLimit`), and open connections
are counted per address and in all (:class:`OpenCount`).
"""

from __future__ import annotations

import ipaddress
import time
from collections import Counter
from collections.abc import Sequence


class TokenBucket:
    """``rate`` messages per second on average, bursts of up to ``burst``."""

    __slots__ = ("burst", "last", "rate", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = time.monotonic()

    def refill(self) -> float:
        """The tokens there are now."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        return self.tokens

    def allow(self) -> bool:
        if self.refill() >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class KeyedRateLimit:
    """A token bucket per key (e.g. per client address), for the HTTP API's writes and match creation."""

    def __init__(self, rate: float, burst: float, max_keys: int = 10000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self.buckets: dict[str, TokenBucket] = {}

    def _bucket(self, key: str) -> TokenBucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self._prune()
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst)
        return bucket

    def allow(self, key: str) -> bool:
        return self._bucket(key).allow()

    def available(self, key: str) -> bool:
        """Whether ``key`` could take a token now (none is taken)."""
        bucket = self.buckets.get(key)
        return bucket is None or bucket.refill() >= 1.0

    def take(self, keys: Sequence[str]) -> list[str]:
        """A token from each of ``keys`` (a key named twice gives two), all or none: returns the keys that
        have too few, and then takes nothing (one refused side of a pairing costs the other side nothing)."""
        need = Counter(keys)
        buckets = {key: self._bucket(key) for key in need}
        short = [key for key, n in need.items() if buckets[key].refill() < n]
        if not short:
            for key, n in need.items():
                buckets[key].tokens -= n
        return short

    def give_back(self, keys: Sequence[str]) -> None:
        """Return the tokens :meth:`take` took for ``keys`` (what they paid for did not happen)."""
        for key, n in Counter(keys).items():
            bucket = self._bucket(key)
            bucket.tokens = min(bucket.burst, bucket.refill() + n)

    def _prune(self) -> None:
        """Forget the buckets that have filled up again (a new one would be the same); only if that frees
        nothing, forget them all."""
        now = time.monotonic()
        full = [k for k, b in self.buckets.items() if b.tokens + (now - b.last) * b.rate >= b.burst]
        for k in full:
            del self.buckets[k]
        if len(self.buckets) >= self.max_keys:
            self.buckets.clear()


def address_key(host: str | None) -> str:
    """The key a client address is limited by: the address itself, but an IPv6 address's /64 network
    (one subscriber usually has a whole /64), and an IPv4-mapped IPv6 address as the IPv4 one."""
    if not host:
        return "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return f"{ipaddress.IPv6Network((int(ip) >> 64 << 64, 64))}"
    return str(ip)


class OpenCount:
    """Open connections per key (a client address, :func:`address_key`) and in all, against two limits
    (``total`` 0: none). The caller counts a connection in with :meth:`add` once :meth:`over` let it in,
    and out with :meth:`discard` when it closes, whatever happened in between."""

    def __init__(self, per_key: int, total: int = 0) -> None:
        self.per_key, self.total = per_key, total
        self.counts: dict[str, int] = {}
        self.open = 0

    def over(self, key: str) -> str | None:
        """Which limit one more connection of ``key`` would pass: ``"key"``, ``"total"``, or None."""
        if self.counts.get(key, 0) >= self.per_key:
            return "key"
        if self.total and self.open >= self.total:
            return "total"
        return None

    def add(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1
        self.open += 1

    def discard(self, key: str) -> None:
        left = self.counts.get(key, 0) - 1
        if left < 0:
            return
        self.open -= 1
        if left:
            self.counts[key] = left
        else:
            del self.counts[key]
