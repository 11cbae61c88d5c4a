"""The headers every response carries (the content security policy and its companions), and those of an
error the server writes itself, before or outside the application (the middleware's refusals, the HTTP
protocol's own: :mod:`converge.server.transport.serving`)."""

from __future__ import annotations

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


def error_head(body: bytes) -> list[tuple[bytes, bytes]]:
    """The headers of an error response the server writes itself, before or outside the application."""
    return [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"), *SECURITY_HEADERS]
