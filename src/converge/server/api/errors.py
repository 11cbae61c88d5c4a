"""Every error of every endpoint, a bad query parameter or an unknown path or method included, is
``{"error": {"code": "...", "message": "..."}}`` with the HTTP status of its code
(:data:`converge.server.protocol.errors.ERROR_STATUS`): the handlers that make it so."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from converge.server.ops.meter import Meter
from converge.server.protocol.errors import ErrorCode, ProtocolError

_PLACES = {"query": "query parameter", "path": "path parameter", "header": "header", "cookie": "cookie",
           "body": "request body field"}

#: The error codes of HTTP errors raised outside the application's own checks (routing, static files).
_HTTP_CODES: dict[int, ErrorCode] = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
                                     413: "too_large", 429: "rate_limited", 503: "busy"}


def error_response(exc: ProtocolError, headers: dict[str, str] | None = None) -> JSONResponse:
    """The answer to a refused request."""
    return JSONResponse(exc.to_body(), status_code=exc.status,
                        headers={"cache-control": "no-store", **(headers or {})})


def validation_message(exc: RequestValidationError) -> str:
    """What was wrong in a request FastAPI refused, in a line: where, and what was expected — never the
    value that was sent."""
    errors = exc.errors()
    if not errors:
        return "the request is not valid"
    first = errors[0]
    loc = [str(part) for part in first.get("loc", ())]
    place = _PLACES.get(loc[0], "field") if loc else "field"
    name = loc[1][:40] if len(loc) > 1 else ""  # the field itself (deeper parts name union members, items)
    kind = str(first.get("type", ""))
    if kind.startswith("int_"):
        expected = "must be a whole number"
    elif kind == "extra_forbidden":
        expected = "is unexpected here"
    elif kind in ("model_attributes_type", "dict_type"):
        expected = "must be a JSON object"
    elif kind == "json_invalid":
        expected = "is not valid JSON"
    elif kind == "missing":
        expected = "is missing"
    else:
        expected = str(first.get("msg", "is not valid"))[:120]
        expected = expected[0].lower() + expected[1:] if expected else "is not valid"
    others = len({tuple(e.get("loc", ())[:2]) for e in errors}) - 1
    more = f" (and {others} more problem{'s' if others > 1 else ''})" if others > 0 else ""
    return f"{place} {name!r} {expected}{more}" if name else f"{place} {expected}{more}"


def install(app: FastAPI, meter: Meter) -> None:
    """Answer every error of ``app`` in the API's shape, each counted by ``meter``."""

    @app.exception_handler(ProtocolError)
    async def _protocol_error(_request: Request, exc: ProtocolError) -> JSONResponse:
        meter.error(exc.code)
        return error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        meter.error("malformed")
        return error_response(ProtocolError("malformed", validation_message(exc)))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "malformed")
        meter.error(code)
        message = {"not_found": "no such page or API endpoint",
                   "method_not_allowed": "this method is not allowed here"}.get(code, str(exc.detail)[:120])
        response = error_response(ProtocolError(code, message), dict(exc.headers or {}))
        response.status_code = exc.status_code
        return response
