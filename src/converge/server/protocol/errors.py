"""The error codes of every refusal, with the HTTP status of each (one table: the match API's, the lobby's and
those refused before any route runs), the error a refusal raises — which builds the error message of every
socket and the body of every HTTP error — and the WebSocket close codes."""

# (no `from __future__ import annotations`: pydantic reads the TypedDicts' annotations as they are)

from typing import Final, Literal

import orjson
from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

ErrorCode = Literal[
    "malformed", "too_large", "rate_limited", "unauthorized", "hello_required", "spectator", "not_your_turn",
    "stale", "illegal", "over", "not_over", "not_found", "storage", "busy", "replaced", "hints_off",
    "method_not_allowed", "length_required", "bad_origin", "bad_request", "uri_too_long", "headers_too_large",
    "request_timeout", "bad_name", "name_taken", "no_player", "table_gone", "own_table", "too_many_tables",
    "no_offer", "bad_email", "bad_sign_in", "restarting", "banned", "would_leave", "signed_out", "not_host",
    "tournament_closed", "tournament_full", "chat_off", "friends_only", "challenge_closed",
]

#: Every error code, with the HTTP status the API answers it with.
ERROR_STATUS: Final[dict[ErrorCode, int]] = {
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
    "restarting": 503,
    "replaced": 409,
    "hints_off": 403,
    "method_not_allowed": 405,
    "length_required": 411,
    # refused before any route runs (converge.server.security.middleware, converge.server.transport.serving)
    "bad_origin": 403,
    "bad_request": 400,
    "uri_too_long": 414,
    "headers_too_large": 431,
    "request_timeout": 408,
    # the lobby's (converge.server.lobby)
    "bad_name": 400,
    "name_taken": 409,
    "no_player": 401,
    "table_gone": 409,
    "own_table": 409,
    "too_many_tables": 429,
    "no_offer": 409,
    # accounts (converge.server.accounts)
    "bad_email": 400,
    "bad_sign_in": 400,
    "would_leave": 409,
    "signed_out": 401,
    # moderation (converge.server.moderation)
    "banned": 403,
    # tournaments (converge.server.tournaments)
    "not_host": 403,
    "tournament_closed": 409,
    "tournament_full": 409,
    # people around the table (converge.server.people)
    "chat_off": 403,
    "friends_only": 403,
    "challenge_closed": 409,
}


#: The WebSocket close codes the server uses: the standard ones, and the application's (4000-4999), named
#: after the HTTP status they stand for.
CLOSE_GOING_AWAY: Final = 1001  #: the server shuts down
CLOSE_POLICY: Final = 1008  #: the connection broke the rules (too many messages, over a limit)
CLOSE_RECONNECT: Final = 1012  #: reconnect: the match is being reloaded, or this server process is restarting
CLOSE_TRY_AGAIN: Final = 1013  #: the connection fell too far behind what it is sent (reconnect)
CLOSE_HELLO: Final = 4400  #: the first message was not a valid hello
CLOSE_UNAUTHORIZED: Final = 4401  #: the token does not hold a seat in this match (or no longer: signed out)
CLOSE_FORBIDDEN: Final = 4403  #: this player may not play on this server (banned): do not reconnect
CLOSE_NOT_FOUND: Final = 4404  #: no such match
CLOSE_REPLACED: Final = 4409  #: a newer connection of the same seat took over (do not reconnect by itself)


class ErrorMessage(TypedDict):
    """A socket's error message (a refused message changes nothing)."""

    type: Literal["error"]
    code: ErrorCode
    message: str


class ErrorDetail(TypedDict):
    code: ErrorCode  #: a stable code, e.g. malformed, not_found, stale, rate_limited
    message: str  #: what was wrong, for people


class ErrorResponse(TypedDict):
    """Every error of every HTTP endpoint, with the HTTP status of its code."""

    error: ErrorDetail


class ProtocolError(Exception):
    """A message or request that is refused, and why: ``code`` (its HTTP status from :data:`ERROR_STATUS`) and a
    message for people, which names only what the receiver may know."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message

    @property
    def status(self) -> int:
        return ERROR_STATUS[self.code]

    def to_message(self) -> ErrorMessage:
        """The error message of a socket: ``{"type": "error", "code", "message"}``."""
        return {"type": "error", "code": self.code, "message": self.message}

    def to_body(self) -> ErrorResponse:
        """The body of an HTTP error, as every refusal of the server has it: ``{"error": {"code", "message"}}``."""
        return {"error": {"code": self.code, "message": self.message}}

    def http_body(self) -> bytes:
        """:meth:`to_body` as JSON, for the refusals written outside the application."""
        return orjson.dumps(self.to_body())


def restarting() -> ProtocolError:
    """The refusal of whatever would change a match while this server process drains for a restart
    (:meth:`converge.server.play.hub.Hub.drain`): nothing was done, and the client carries on elsewhere."""
    return ProtocolError("restarting", "the server is restarting: nothing was done; reconnect to play on")
