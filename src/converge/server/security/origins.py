"""Which pages may use the server: its own origin's, or the operator's extra ones (:class:`OriginPolicy`).

Pages of other origins may not use the server: a browser's WebSocket handshake or write (any method but GET,
HEAD and OPTIONS) that says it comes from elsewhere is refused before any route runs. The player cookie is
``SameSite=Lax``, which keeps it from other *sites* but not from another port of the same host: this check is
what keeps such a page from acting as the player.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

from converge.server.transport.asgi import Scope

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
    X-Forwarded-Host and -Proto are already in them:
    :class:`converge.server.transport.serving.ForwardedHeaders`), or None when the Host header is missing or is
    not a host."""
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
