"""The HTTP security headers (a strict Content-Security-Policy) and the middleware in front of every route.

* Every HTTP response carries a strict CSP (no inline script or style, nothing from other origins), and
  request bodies are limited in size.
* WebSocket handshakes and writes from pages of other origins are refused before any route runs
  (:class:`~converge.server.security.origins.OriginPolicy`).
"""

from __future__ import annotations

from converge.server.ops.meter import Meter
from converge.server.protocol.errors import CLOSE_POLICY, ProtocolError
from converge.server.security.headers import SECURITY_HEADERS, error_head
from converge.server.security.origins import SAFE_METHODS, OriginPolicy
from converge.server.transport.asgi import ASGIApp, Message, Receive, Scope, Send


class SecurityMiddleware:
    """Pure ASGI middleware, in front of every route: WebSocket handshakes and HTTP writes from pages of other
    origins (:class:`OriginPolicy`) are refused, a handshake with a 403 (the connection is never accepted);
    bodies over ``max_body`` bytes, or without a length, with 413 / 411; and every HTTP response gets the
    security headers."""

    def __init__(self, app: ASGIApp, max_body: int = 16384, origins: OriginPolicy | None = None,
                 meter: Meter | None = None) -> None:
        self.app = app
        self.max_body = max_body
        self.origins = origins or OriginPolicy()
        #: Counts the refusals this middleware answers.
        self.meter = meter or Meter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            if self.origins.foreign(scope):
                await _refuse_websocket(receive, send, scope, self._refused(_bad_origin()))
                return
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS and self.origins.foreign(scope):
            await _error(send, self._refused(_bad_origin()))
            return
        if scope["method"] in ("POST", "PUT", "PATCH"):
            headers = dict(scope.get("headers") or [])
            length = headers.get(b"content-length")
            if length is None:
                if headers.get(b"transfer-encoding"):
                    await _error(send, self._refused(ProtocolError("length_required",
                                                                   "send the body with a Content-Length")))
                    return
            else:
                try:
                    size = int(length)
                except ValueError:
                    size = -1
                if size < 0 or size > self.max_body:
                    await _error(send, self._refused(ProtocolError(
                        "too_large", f"the request body is limited to {self.max_body} bytes")))
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

    def _refused(self, error: ProtocolError) -> ProtocolError:
        self.meter.error(error.code)
        return error


def _bad_origin() -> ProtocolError:
    return ProtocolError("bad_origin", "this server takes WebSocket connections and changes only from its own "
                                       "pages, not from pages of another origin")


async def _error(send: Send, error: ProtocolError, kind: str = "http") -> None:
    """Answer ``error`` with its status from the one table (:data:`converge.server.protocol.errors.ERROR_STATUS`);
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
