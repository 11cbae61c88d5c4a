"""How uvicorn serves the application: the headers of a trusted proxy.

* **A proxy's headers, from the proxy only.** With ``proxy_headers``, :class:`ForwardedHeaders` takes the
  client's address and scheme from X-Forwarded-For and -Proto (uvicorn's own middleware does that) and the
  host from X-Forwarded-Host, when the peer is one of ``forwarded_allow_ips``; the origin check
  (:class:`~converge.server.security.OriginPolicy`) then sees the origin the browser used.
"""

from __future__ import annotations

import ipaddress

from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from converge.server.security import ASGIApp, Receive, Scope, Send


def trusted_proxies(text: str) -> tuple[str, ...]:
    """A comma-separated list of addresses and networks (``*``: any peer) as :class:`ForwardedHeaders` trusts
    them; ValueError naming the first that is neither."""
    items = tuple(item.strip() for item in text.split(","))
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            shown = item if len(item) <= 60 else item[:60] + "…"
            raise ValueError(f"{shown!r} is not an IP address or network (e.g. 10.0.0.1, 10.0.0.0/8, ::1)") \
                from None
    return items


class ForwardedHeaders:
    """uvicorn's proxy-headers middleware (the client's address from X-Forwarded-For, the scheme from
    X-Forwarded-Proto, each from a trusted peer only), in front of which the Host is taken from a trusted
    peer's X-Forwarded-Host: a proxy that passes the browser's host there (deploy/nginx.conf does) may send
    its own in Host."""

    def __init__(self, app: ASGIApp, trusted: tuple[str, ...]) -> None:
        self.proxy = ProxyHeadersMiddleware(app, list(trusted))  # type: ignore[arg-type]  # (ASGI's types)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            client = scope.get("client")
            if client and client[0] in self.proxy.trusted_hosts:
                forwarded = [v for k, v in scope["headers"] if k == b"x-forwarded-host"]
                host = forwarded[-1].rsplit(b",", 1)[-1].strip() if forwarded else b""  # the nearest proxy's
                if host:
                    scope["headers"] = [(b"host", host), *((k, v) for k, v in scope["headers"] if k != b"host")]
        await self.proxy(scope, receive, send)  # type: ignore[arg-type]


__all__ = ["ForwardedHeaders", "trusted_proxies"]
