"""Seat tokens, rate limits and the HTTP security headers (a strict Content-Security-Policy).

* A seat token is 256 random bits (``secrets.token_urlsafe(32)``). The server keeps only its SHA-256
  hash and derives the seat from the token: a client never says which seat it is.
* Each WebSocket connection has a token bucket; messages over the limit get an error and do nothing.
* Every HTTP response carries a strict CSP (no inline script or style, nothing from other origins), and
  request bodies are limited in size.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from converge.server.protocol import ProtocolError

TOKEN_BYTES = 32  # 256 bits
MATCH_ID_BYTES = 9  # 72 bits: match ids are not secret (spectators use them), only unguessable-ish
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
MATCH_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
       "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]


def new_token() -> str:
    """A new seat token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_match_id() -> str:
    return secrets.token_urlsafe(MATCH_ID_BYTES)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest of a token: what the database stores."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def seat_of(token: object, hashes: list[str | None]) -> int | None:
    """The seat whose stored hash matches ``token`` (compared in constant time), or None."""
    if not isinstance(token, str) or not TOKEN_RE.match(token):
        return None
    digest = hash_token(token)
    found = None
    for seat, stored in enumerate(hashes):
        if stored is not None and hmac.compare_digest(digest, stored):
            found = seat
    return found


class TokenBucket:
    """``rate`` messages per second on average, bursts of up to ``burst``."""

    __slots__ = ("burst", "last", "rate", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class KeyedRateLimit:
    """A token bucket per key (e.g. per client address), for the HTTP API's writes and match creation."""

    def __init__(self, rate: float, burst: float, max_keys: int = 10000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self.buckets: dict[str, TokenBucket] = {}

    def allow(self, key: str) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self._prune()
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst)
        return bucket.allow()

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


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SecurityMiddleware:
    """Pure ASGI middleware: security headers on every HTTP response; bodies over ``max_body`` bytes, or
    without a length, are refused with 413 / 411 before the application sees them."""

    def __init__(self, app: ASGIApp, max_body: int = 16384) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] in ("POST", "PUT", "PATCH"):
            headers = dict(scope.get("headers") or [])
            length = headers.get(b"content-length")
            if length is None:
                if headers.get(b"transfer-encoding"):
                    await _error(send, ProtocolError("length_required", "send the body with a Content-Length"))
                    return
            else:
                try:
                    size = int(length)
                except ValueError:
                    size = -1
                if size < 0 or size > self.max_body:
                    await _error(send, ProtocolError("too_large",
                                                     f"the request body is limited to {self.max_body} bytes"))
                    return

        api = str(scope.get("path", "")).startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                if api and b"cache-control" not in present:  # views of a seat are never cached anywhere
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def error_head(body: bytes) -> list[tuple[bytes, bytes]]:
    """The headers of an error response the server writes itself, before or outside the application."""
    return [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"), *SECURITY_HEADERS]


async def _error(send: Send, error: ProtocolError) -> None:
    """Answer ``error`` with its status from the one table (:data:`converge.server.protocol.ERROR_STATUS`)."""
    body = error.http_body()
    await send({"type": "http.response.start", "status": error.status, "headers": error_head(body)})
    await send({"type": "http.response.body", "body": body})
