"""The error codes of every refusal, with the HTTP status of each, and the error a refusal raises."""

from __future__ import annotations

from typing import Any

import orjson

#: Error codes, with the HTTP status the REST API uses for each.
ERROR_STATUS = {
    "malformed": 400,
    "too_large": 413,
    "rate_limited": 429,
    "unauthorized": 401,
    "hello_required": 400,
    "spectator": 403,
    "not_your_turn": 409,
    "stale": 409,
    "illegal": 422,
    "over": 409,
    "not_over": 409,
    "not_found": 404,
    "storage": 503,
    "busy": 503,
    "replaced": 409,
    "hints_off": 403,
    "method_not_allowed": 405,
    "length_required": 411,
    # refused before any route runs (converge.server.security.middleware, converge.server.transport.serving)
    "bad_origin": 403,
    "bad_request": 400,
    "uri_too_long": 414,
    "headers_too_large": 431,
}


class ProtocolError(Exception):
    """A message or request that is refused: ``code`` is one of :data:`ERROR_STATUS`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        return ERROR_STATUS.get(self.code, 400)

    def to_message(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.message}

    def http_body(self) -> bytes:
        """The body of an HTTP error, as every refusal of the server has it: ``{"error": {"code", "message"}}``."""
        return orjson.dumps({"error": {"code": self.code, "message": self.message}})
