"""Seat tokens, rate limits and the HTTP security headers (a strict Content-Security-Policy).

* A seat token is 256 random bits (``secrets.token_urlsafe(32)``). The server keeps only its SHA-256
  hash and derives the seat from the token: a client never says which seat it is.
* Each WebSocket connection has a token bucket; messages over the limit get an error and do nothing.
* Every HTTP response carries a strict CSP (no inline script or style, nothing from other origins), and
  request bodies are limited in size.
* Pages of other origins may not use the server (:class:`OriginPolicy`): a browser's WebSocket handshake or
  write (any method but GET, HEAD and OPTIONS) that says it comes from elsewhere is refused before any
  route runs. The player cookie is ``SameSite=Lax``, which keeps it from other *sites* but not from another
  port of the same host: this check is what keeps such a page from acting as the player.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
import time
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from typing import Any

from converge.server.protocol import ProtocolError

TOKEN_BYTES = 32  # 256 bits
MATCH_ID_BYTES = 9  # 72 bits: match ids are not secret (spectators use them), only unguessable-ish
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
MATCH_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")

#: The WebSocket close code of a connection that broke the rules (the standard "policy violation").
CLOSE_POLICY = 1008

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


DEFAULT_PORTS = {"http": 80, "https": 443}
#: A host as an origin may name it (urlsplit gives it in lower case, an IPv6 address without its brackets).
_HOST_RE = re.compile(r"^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|[0-9a-f:.]+)$")
#: The methods that change nothing: the only ones other origins' pages may send (their answers stay
#: unreadable to them: the server sends no CORS headers).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _origin(scheme: str, host: str, port: int | None) -> str:
    host = host.lower()
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"{scheme}://{host}" if port is None or port == DEFAULT_PORTS.get(scheme) else f"{scheme}://{host}:{port}"


def normalize_origin(text: str) -> str:
    """``text`` as browsers write an Origin header: ``scheme://host[:port]``, in lower case, without the
    scheme's default port; a ValueError that says what is wrong for anything else (a path, a query, another
    scheme than http or https, no host)."""
    if not text.isascii() or not text.isprintable() or len(text) > 300:
        raise ValueError("an origin is scheme://host[:port] in printable ASCII")
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError:  # "https://[::1"
        raise ValueError("an origin is scheme://host[:port]") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise ValueError("an origin starts with http:// or https://")
    if parts.path not in ("", "/") or parts.query or parts.fragment or "?" in text or "#" in text:
        raise ValueError("an origin is scheme://host[:port], without a path, query or fragment")
    if parts.username is not None or parts.password is not None or not parts.hostname:
        raise ValueError("an origin names a host, and no user")
    if not _HOST_RE.match(parts.hostname):
        raise ValueError("an origin's host is a domain name or an IP address")
    try:
        port = parts.port
    except ValueError:
        raise ValueError("an origin's port is a number from 0 to 65535") from None
    return _origin(scheme, parts.hostname, port)


def own_origin(scope: Scope) -> str | None:
    """The origin a request was sent to, as its Host header and its scheme say (a trusted proxy's
    X-Forwarded-Host and -Proto are already in them: :class:`converge.server.serving.ForwardedHeaders`), or
    None when the Host header is missing or is not a host."""
    host = None
    for key, value in scope.get("headers") or ():
        if key == b"host":
            host = value.decode("latin-1")
            break
    if not host or any(c in host for c in "/?#@\\ \t"):
        return None
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme") or "http", scope.get("scheme") or "http")
    try:
        parts = urllib.parse.urlsplit(f"//{host}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname or scheme not in DEFAULT_PORTS:
        return None
    return _origin(scheme, parts.hostname, port)


class OriginPolicy:
    """Which browsers' requests come from a page the server may serve: its own origin's, or one of
    ``allowed`` (the operator's extra origins, e.g. behind an unusual proxy).

    A browser names the page a WebSocket handshake or a write comes from in ``Origin``; when it hides the
    origin but says ``Sec-Fetch-Site: cross-site`` or ``same-site`` (another port is the same site), that is
    refused too. A request with neither header (curl, programs, which could send anything anyway) is let
    through: the check is there against pages the player visits, which cannot leave both out."""

    def __init__(self, allowed: Iterable[str] = ()) -> None:
        self.allowed = frozenset(normalize_origin(o) for o in allowed)

    def foreign(self, scope: Scope) -> bool:
        """Whether a browser says this request comes from a page of an origin that is neither the server's
        own nor allowed."""
        origins: list[bytes] = []
        site = None
        for key, value in scope.get("headers") or ():
            if key == b"origin":
                origins.append(value)
            elif key == b"sec-fetch-site":
                site = value
        if not origins:
            return site in (b"cross-site", b"same-site")
        if len(origins) > 1:  # no browser sends two
            return True
        own = own_origin(scope)
        text = origins[0].decode("latin-1")
        if own is not None and text == own:  # the usual case: the server's own page
            return False
        try:
            origin = normalize_origin(text)
        except ValueError:  # "null" (a sandboxed frame, a file), or not an origin at all
            return True
        return origin != own and origin not in self.allowed


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SecurityMiddleware:
    """Pure ASGI middleware, in front of every route: WebSocket handshakes and HTTP writes from pages of other
    origins (:class:`OriginPolicy`) are refused, a handshake with a 403 (the connection is never accepted);
    bodies over ``max_body`` bytes, or without a length, with 413 / 411; and every HTTP response gets the
    security headers."""

    def __init__(self, app: ASGIApp, max_body: int = 16384, origins: OriginPolicy | None = None) -> None:
        self.app = app
        self.max_body = max_body
        self.origins = origins or OriginPolicy()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if self.origins.foreign(scope):
                await _refuse_websocket(receive, send, scope, _bad_origin())
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS and self.origins.foreign(scope):
            await _error(send, _bad_origin())
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


def _bad_origin() -> ProtocolError:
    return ProtocolError("bad_origin", "this server takes WebSocket connections and changes only from its own "
                                       "pages, not from pages of another origin")


def error_head(body: bytes) -> list[tuple[bytes, bytes]]:
    """The headers of an error response the server writes itself, before or outside the application."""
    return [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"), *SECURITY_HEADERS]


async def _error(send: Send, error: ProtocolError, kind: str = "http") -> None:
    """Answer ``error`` with its status from the one table (:data:`converge.server.protocol.ERROR_STATUS`);
    ``kind`` "websocket.http" answers a WebSocket handshake (the ASGI denial response)."""
    body = error.http_body()
    await send({"type": f"{kind}.response.start", "status": error.status, "headers": error_head(body)})
    await send({"type": f"{kind}.response.body", "body": body})


async def _refuse_websocket(receive: Receive, send: Send, scope: Scope, error: ProtocolError) -> None:
    """Refuse a WebSocket handshake before accepting it: an HTTP error response with the JSON body where the
    server can send one (the ASGI denial-response extension: uvicorn, the test client), else a close before
    the accept, which servers answer with a bare 403. Nothing the client sends is read."""
    await receive()  # the websocket.connect
    if "websocket.http.response" in (scope.get("extensions") or {}):
        await _error(send, error, "websocket.http")
    else:
        await send({"type": "websocket.close", "code": CLOSE_POLICY})
