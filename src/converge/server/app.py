"""The web server: a FastAPI application serving the browser client, a JSON API and a WebSocket. This
module assembles it; the routes live per resource in :mod:`converge.server.api.routes`, their bodies in
:mod:`converge.server.api.models` (``/openapi.json`` documents them when ``docs`` is on).

HTTP API (JSON; a seat is named by its token in ``Authorization: Bearer <token>``)::

    GET  /api/options                    bots, skillsets, sets, clock limits
    GET  /api/status                     this process's load: matches and connections held, its bots' queue
                                         and thinking times (for operators; nothing about any match)
    GET  /api/rules                      the rules for players: {"markdown", "html", "glossary"}
    GET  /api/rules/developer            the developer rulebook (every ruling, its code and test)
    GET  /api/tutorial                   the tutorial's script (converge.server.learning.tutorial)
    POST /api/matches                    {"opponent": "bot"|"friend", "bot": "medium",
                                          "playset": [...]|"catalysts"|"random",
                                          "seat": 0|1|"random", "clock": seconds|null}
                                         -> {"match_id", "seat", "token", "url", "invite_url", "watch_url"}
    GET  /api/matches/{id}               the caller's view (spectator's without a token)
    POST /api/matches/{id}/actions       {"action": id|name, "seq": n}
    POST /api/matches/{id}/hint          the strong bot's options for the caller's decision, each with
                                         its estimated chance to win the round (from the caller's view)
    POST /api/matches/{id}/hints         {"allow": true|false}: allow hints (a friend match: both must)
    POST /api/matches/{id}/rematch       -> {"match_id", "url"}
    GET  /api/matches/{id}/record        once the match is over
    GET  /api/matches/{id}/replay?step=k&view=v   once the match is over
    WS   /ws/{id}                        see :mod:`converge.server.protocol`

Every error, of every endpoint (a bad query parameter, an unknown path or method included), is
``{"error": {"code": "...", "message": "..."}}`` with the HTTP status of its code
(:data:`converge.server.protocol.errors.ERROR_STATUS`).

Pages (GET and HEAD): ``/`` (create a match), ``/m/{id}`` (play, watch, replay), ``/tutorial``, and
``/rules`` and ``/rules/developer`` (rendered on the server); the seat token travels in the URL fragment
(``/m/{id}#token=...``), which browsers never send to the server.

Limits (:class:`~converge.server.config.ServerConfig`): matches created per client address (per second
and per hour, rematches included); per-connection message rates; spectators per match and per address,
counted apart from the seats, which can always connect; lobby connections per address and in all; the
size of request heads and bodies. WebSocket handshakes and writes from pages of other origins are refused
(:class:`~converge.server.security.origins.OriginPolicy`). Finished and abandoned matches are deleted as the
retention settings say, by a clean-up that runs at start-up and then periodically.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from converge.server.api.deps import ServerState
from converge.server.api.routes import match_ws, matches, pages, site
from converge.server.api.routes.lobby import lobby_router
from converge.server.api.routes.pages import web_dir
from converge.server.config import ServerConfig
from converge.server.play.hub import Hub
from converge.server.protocol.errors import ErrorCode, ProtocolError
from converge.server.security.middleware import SecurityMiddleware
from converge.server.security.origins import OriginPolicy
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Writer
from converge.server.transport.serving import ForwardedHeaders

log = logging.getLogger("converge.server")


def _error(exc: ProtocolError, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(exc.to_body(), status_code=exc.status,
                        headers={"cache-control": "no-store", **(headers or {})})


_PLACES = {"query": "query parameter", "path": "path parameter", "header": "header", "cookie": "cookie",
           "body": "request body field"}


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


#: The error codes of HTTP errors raised outside the application's own checks (routing, static files).
_HTTP_CODES: dict[int, ErrorCode] = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
                                     413: "too_large", 429: "rate_limited", 503: "busy"}


def create_app(db_url: str | None = None, config: ServerConfig | None = None, **settings: Any) -> FastAPI:
    """The ASGI application. ``db_url``: an SQLAlchemy URL or an SQLite file path (default: the user's data
    directory); ``settings`` override fields of :class:`ServerConfig` (e.g. ``bot_delay=0``)."""
    cfg = replace(config or ServerConfig(), **settings)
    if db_url is not None:
        cfg.db_url = db_url
    storage = Storage(cfg.resolved_db_url(), cfg.sqlite_sync, exclusive=True)
    writer = Writer(storage)
    hub = Hub(cfg, storage, writer)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The libraries' objects live as long as the process: keep them out of the garbage collector's full
        # collections, whose pauses would otherwise stall every match for 100-200 ms now and then.
        if cfg.gc_freeze:
            gc.collect()
            gc.freeze()
        await hub.start()
        try:
            yield
        finally:
            await hub.close()
            await asyncio.to_thread(writer.close)
            storage.close()

    app = FastAPI(title="Converge", summary="Play Converge in the browser: the match API and its WebSocket",
                  lifespan=lifespan, docs_url="/docs" if cfg.docs else None, redoc_url=None,
                  openapi_url="/openapi.json" if cfg.docs else None,
                  strict_content_type=False)  # a JSON body without a Content-Type (curl -d) is still JSON
    app.state.hub = hub
    app.state.config = cfg
    app.state.server = ServerState.build(hub, cfg)
    app.add_middleware(SecurityMiddleware, max_body=cfg.max_body, origins=OriginPolicy(cfg.allowed_origins))
    if cfg.proxy_headers:  # outside the origin check: it reads the host the proxy says the browser used
        app.add_middleware(ForwardedHeaders, trusted=cfg.forwarded_allow_ips)

    @app.exception_handler(ProtocolError)
    async def _protocol_error(_request: Request, exc: ProtocolError) -> JSONResponse:
        return _error(exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(ProtocolError("malformed", validation_message(exc)))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "malformed")
        message = {"not_found": "no such page or API endpoint",
                   "method_not_allowed": "this method is not allowed here"}.get(code, str(exc.detail)[:120])
        response = _error(ProtocolError(code, message), dict(exc.headers or {}))
        response.status_code = exc.status_code
        return response

    # the lobby first: its /ws/lobby before the matches' /ws/{match_id}
    app.include_router(lobby_router(hub))  # names, the lobby, quick match, ratings, history (routes/lobby.py)
    for router in (pages.router, site.router, matches.router, match_ws.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=web_dir()), name="static")
    return app


__all__ = ["create_app", "web_dir"]
