"""How uvicorn serves the application, the same wherever it runs (``converge serve``, serve-bench's server):
the HTTP protocol, the headers of a trusted proxy, and uvicorn's settings (:func:`uvicorn_options`).

* **Request heads are bounded.** uvicorn's httptools protocol reads a request head of any size (an 8 MB
  header was accepted); :class:`LimitedHttpProtocol` refuses a head over ``max_header_bytes`` in all or a
  line of it over ``max_header_line`` — 431, or 414 for the request line — holding at most one read of the
  socket beyond the limit, before the application or the WebSocket handshake sees anything.
* **In time.** uvicorn waits for a request's head without a bound (150 connections dribbling a header line
  each stayed open as long as they dribbled: an unproxied server's descriptors held by one client): a head
  not complete within ``header_timeout`` seconds of the connection, or of the request's first byte, is
  answered 408 and the connection closed; one that sent nothing by then is closed. (uvicorn's own
  ``timeout_keep_alive`` closes a connection idle between requests.)
* **Connections per client.** At most ``max_connections_per_client`` open connections, HTTP and WebSocket,
  from one client address (:class:`ClientConnections`; uvicorn's ``limit_concurrency`` counts all clients
  together, and only once a head is read): one more is answered 503 and closed at once. A trusted proxy's
  connections are not counted: the application's own limits count its clients.
* **Every refusal has the error shape of the API.** What uvicorn answers itself to a request that is not
  HTTP (``FOO / HTTP/1.1``, ``Content-Length: -5``) is a plain-text 400, and so is the websockets library's
  answer to a broken WebSocket handshake (no ``Sec-WebSocket-Key``); here both are
  ``{"error": {"code": "bad_request", "message": ...}}`` with the security headers, as every other error.
* **A proxy's headers, from the proxy only.** With ``proxy_headers``, :class:`ForwardedHeaders` takes the
  client's address and scheme from X-Forwarded-For and -Proto (uvicorn's own middleware does that) and the
  host from X-Forwarded-Host, when the peer is one of ``forwarded_allow_ips``; the origin check
  (:class:`~converge.server.security.origins.OriginPolicy`) then sees the origin the browser used.
"""

from __future__ import annotations

import asyncio
import email.utils
import http
import ipaddress
from typing import Any

from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.datastructures import Headers
from websockets.http11 import Response
from websockets.server import ServerProtocol
from websockets.typing import StatusLike

from converge.server.config import ServerConfig
from converge.server.protocol.errors import ErrorCode, ProtocolError
from converge.server.security.headers import error_head
from converge.server.security.limits import OpenCount, address_key
from converge.server.transport.asgi import ASGIApp, Receive, Scope, Send

#: The largest WebSocket message uvicorn takes (bytes); the server's own limit, ``max_message``, is lower.
WS_MAX_SIZE = 65536
#: The smallest line limit a server may be given: below it, ordinary browsers' requests would be refused.
MIN_HEADER_LINE = 1024
#: Seconds a refused connection stays open, its input dropped, for the client to read the answer.
LINGER_S = 2.0


class _Refused(Exception):
    """Raised in a parser callback: httptools stops and uvicorn answers with :meth:`send_400_response`."""


class ClientConnections:
    """The open connections of each client address (:func:`~converge.server.security.limits.address_key`),
    counted from their opening to their closing whatever protocol serves them by then (HTTP, or WebSocket after
    an upgrade), against ``per_client`` (0: no limit). The peers in ``trusted`` (a proxy's addresses and
    networks, ``*``: any) are not counted."""

    def __init__(self, per_client: int, trusted: tuple[str, ...] = ()) -> None:
        self.per_client = per_client
        self.open = OpenCount(per_client)
        self.trusted = [ipaddress.ip_network(t, strict=False) for t in trusted if t != "*"]
        self.trust_all = "*" in trusted
        self._held: dict[int, str] = {}  # id(transport) -> its key, while it is counted

    def _trusts(self, host: str) -> bool:
        if self.trust_all:
            return True
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Count in a new connection; False (nothing counted) when its address has as many as it may."""
        peer = transport.get_extra_info("peername")
        host = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        if self.per_client <= 0 or not host or self._trusts(host):
            return True
        key = address_key(host)
        if self.open.over(key):
            return False
        self.open.add(key)
        self._held[id(transport)] = key
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        """A connection closed (once counted out, however often it is said)."""
        key = self._held.pop(id(transport), None)
        if key is not None:
            self.open.discard(key)


class LimitedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the request head bounded and its refusals in the JSON error shape.

    The parser hands over the request line in pieces and each header whole; both are counted as they come.
    A header still incomplete is held by the parser, unseen: the bytes read while a head is incomplete are
    counted too, so that one endless line is refused within one read (a read that also held the end of an
    earlier pipelined request counts whole: such a head can be refused a little early, never late).

    (Why not uvicorn's h11 protocol and its ``h11_max_incomplete_event_size``: h11 bounds only a head still
    incomplete after a read — a 20 KB head that comes in one read passes — and answers in plain text too;
    it is also the slower parser. uvicorn[standard], which the web extra installs, brings httptools.)"""

    #: Set per server by :func:`http_protocol`.
    max_head = 16384
    max_line = 8192
    head_timeout = 10.0
    clients: ClientConnections | None = None

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.head_bytes = 0  # the request line and the headers counted so far
        self.url_bytes = 0
        self.in_head = False  # between a request's first byte and the end of its headers
        self.unseen = 0  # bytes read since the head began (-1: it began in the read being parsed)
        self.refusal: ProtocolError | None = None
        self.refused = False
        #: Runs out when the head now awaited (the first one, from the connection; any other, from its first
        #: byte) has not come whole in time.
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.clients is not None and not self.clients.admit(transport):
            self.refuse(ProtocolError("busy", f"too many connections from your address (at most "
                                              f"{self.clients.per_client}): close some, then try again"))
            return
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        if self.clients is not None:
            self.clients.release(self.transport)
        super().connection_lost(exc)

    def _await_head(self) -> None:
        if self.head_timer is None:
            self.head_timer = self.loop.call_later(self.head_timeout, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if self.refused or self.transport.is_closing():
            return
        if not self.in_head:  # (nothing asked since the connection opened)
            self.transport.close()
            return
        self.refuse(ProtocolError("request_timeout", f"the request's line and headers must come within "
                                                     f"{self.head_timeout:g} s"))

    def data_received(self, data: bytes) -> None:
        if self.refused:  # the answer is on its way: what else comes is dropped unread
            return
        super().data_received(data)
        if self.in_head and not self.transport.is_closing():
            self.unseen = len(data) if self.unseen < 0 else self.unseen + len(data)
            if self.unseen > self.max_head:
                self.refuse(self._too_large())

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.head_bytes = self.url_bytes = 0
        self.in_head, self.unseen = True, -1
        self._await_head()

    def on_url(self, url: bytes) -> None:
        self.url_bytes += len(url)
        self.head_bytes += len(url)
        if self.url_bytes > self.max_line:
            self.refusal = ProtocolError("uri_too_long", f"the request line is limited to {self.max_line} bytes")
            raise _Refused
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        line = len(name) + len(value) + 4  # "name: value\r\n"
        self.head_bytes += line
        if line > self.max_line:
            self.refusal = ProtocolError("headers_too_large", f"a header line is limited to {self.max_line} bytes")
            raise _Refused
        if self.head_bytes > self.max_head:
            self.refusal = self._too_large()
            raise _Refused
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self.in_head = False
        self._stop_head_timer()
        super().on_headers_complete()

    def _too_large(self) -> ProtocolError:
        return ProtocolError("headers_too_large", f"the request's headers are limited to {self.max_head} bytes")

    def send_400_response(self, msg: str) -> None:
        """What uvicorn calls for a request the parser refused (``msg`` is its own plain-text line)."""
        self.refuse(self.refusal or ProtocolError("bad_request", "the request is not valid HTTP/1.1"))

    def refuse(self, error: ProtocolError) -> None:
        """Answer ``error`` in the API's error shape and close the connection."""
        body = error.http_body()
        head = [*self.server_state.default_headers, *error_head(body), (b"connection", b"close")]
        self.transport.write(b"".join([STATUS_LINE[error.status], *(k + b": " + v + b"\r\n" for k, v in head),
                                       b"\r\n", body]))
        self.in_head, self.refused = False, True
        self._stop_head_timer()
        if self.transport.can_write_eof():
            # Closing now, with the client's bytes still coming, would reset the connection, and a reset can
            # lose the answer before the client reads it: end our side, drop what comes, close a little later.
            self.transport.write_eof()
            self.loop.call_later(LINGER_S, self.transport.close)
        else:
            self.transport.close()


#: The codes of the WebSocket handshakes the websockets library refuses, by its status (the rest are the
#: server's failures, not refusals: they keep the library's words).
_HANDSHAKE_CODES: dict[int, ErrorCode] = {400: "bad_request", 426: "bad_request", 505: "bad_request",
                                          405: "method_not_allowed"}


class _JsonHandshakeRefusals(ServerProtocol):
    """The websockets library's handshake, whose refusals (no Sec-WebSocket-Key, a POST...) have the API's
    JSON error shape instead of plain text."""

    def reject(self, status: StatusLike, text: str) -> Response:
        code = _HANDSHAKE_CODES.get(int(status))
        if code is None:
            return super().reject(status, text)
        why = text.strip().splitlines()[0].removeprefix("Failed to open a WebSocket connection: ").rstrip(".")
        why = "".join(c if c.isprintable() else "?" for c in why)[:160]
        error = ProtocolError(code, f"not a valid WebSocket handshake: {why}")
        body = error.http_body()
        headers = Headers([("Date", email.utils.formatdate(usegmt=True)), ("Connection", "close"),
                           *((k.decode(), v.decode()) for k, v in error_head(body))])
        response = Response(error.status, http.HTTPStatus(error.status).phrase, headers, body)
        if code == "method_not_allowed":
            response.headers["Allow"] = "GET"
        return response


class JsonWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the websockets library's, sans-I/O), whose handshake refusals are in the
    JSON error shape; the connection it took over from :class:`LimitedHttpProtocol` is counted out of its
    client's when it closes."""

    #: Set per server by :func:`uvicorn_options` (the HTTP protocol's).
    clients: ClientConnections | None = None

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        made = self.conn  # the same handshake, with the refusals above
        self.conn = _JsonHandshakeRefusals(extensions=made.available_extensions, max_size=config.ws_max_size,
                                           logger=made.logger)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.clients is not None:
            self.clients.release(self.transport)
        super().connection_lost(exc)


def http_protocol(cfg: ServerConfig,
                  clients: ClientConnections | None = None) -> type[LimitedHttpProtocol]:
    """:class:`LimitedHttpProtocol` with ``cfg``'s limits (uvicorn makes one per connection from the class),
    counting each client's connections in ``clients``."""
    if cfg.max_header_line < MIN_HEADER_LINE or cfg.max_header_bytes < cfg.max_header_line:
        raise ValueError(f"the longest header line is {MIN_HEADER_LINE} bytes or more, and the whole of the "
                         f"headers at least that (got {cfg.max_header_line} and {cfg.max_header_bytes})")
    if not cfg.header_timeout > 0:
        raise ValueError(f"the time to send a request's head is more than 0 seconds (got {cfg.header_timeout})")

    class Limited(LimitedHttpProtocol):
        max_head = cfg.max_header_bytes
        max_line = cfg.max_header_line
        head_timeout = cfg.header_timeout

    Limited.clients = clients
    return Limited


def uvicorn_options(cfg: ServerConfig) -> dict[str, Any]:
    """uvicorn's settings for serving the app ``create_app(config=cfg)`` builds: its HTTP protocol, no proxy
    headers of uvicorn's own (the app reads them itself when ``cfg.proxy_headers`` says so), no Server
    header; handshake refusals in the JSON shape too; each client's connections counted (a trusted proxy's
    not). ``converge serve`` and serve-bench's server pass these to
    :func:`~converge.server.transport.draining.serve`."""
    trusted = cfg.forwarded_allow_ips if cfg.proxy_headers else ()
    clients = ClientConnections(cfg.max_connections_per_client, trusted)

    class Counted(JsonWebSocketProtocol):
        pass

    Counted.clients = clients
    return {"http": http_protocol(cfg, clients), "ws": Counted, "proxy_headers": False,
            "server_header": False, "ws_max_size": WS_MAX_SIZE}


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


__all__ = ["ClientConnections", "ForwardedHeaders", "JsonWebSocketProtocol", "LimitedHttpProtocol",
           "http_protocol", "trusted_proxies", "uvicorn_options"]
