"""The web server: a FastAPI application serving the browser client, a JSON API and a WebSocket.

HTTP API (JSON; a seat is named by its token in ``Authorization: Bearer <token>``)::

    GET  /api/options                    bots, skillsets, sets, clock limits
    GET  /api/rules                      the rules for players: {"markdown", "html", "glossary"}
    GET  /api/rules/developer            the developer rulebook (every ruling, its code and test)
    GET  /api/tutorial                   the tutorial's script (converge.server.tutorial)
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
(:data:`converge.server.protocol.ERROR_STATUS`).

Pages (GET and HEAD): ``/`` (create a match), ``/m/{id}`` (play, watch, replay), ``/tutorial``, and
``/rules`` and ``/rules/developer`` (rendered on the server); the seat token travels in the URL fragment
(``/m/{id}#token=...``), which browsers never send to the server.

Limits (:class:`~converge.server.config.ServerConfig`): matches created per client address (per second
and per hour, rematches included); per-connection message rates; spectators per match and per address,
counted apart from the seats, which can always connect. Finished and abandoned matches are deleted as the
retention settings say, by a clean-up that runs at start-up and then periodically.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from converge.server import pages as rendered
from converge.server import tutorial as tutorial_script
from converge.server.config import ServerConfig
from converge.server.hub import Connection, Hub, Session
from converge.server.protocol import ProtocolError, check_action, check_seq, field_names, parse_message
from converge.server.routes_lobby import lobby_router
from converge.server.security import MATCH_ID_RE, KeyedRateLimit, SecurityMiddleware, address_key, seat_of
from converge.server.storage import Storage, Writer

log = logging.getLogger("converge.server")

#: WebSocket close codes (4000-4999 are the application's).
CLOSE_POLICY = 1008
CLOSE_UNAUTHORIZED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_HELLO = 4400


def web_dir() -> Path:
    """The browser client's files (index.html, app.js, style.css), shipped in the package."""
    return Path(str(resources.files("converge").joinpath("web")))


def _error(exc: ProtocolError, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status,
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
    name = loc[-1][:40] if len(loc) > 1 else ""
    kind = str(first.get("type", ""))
    if kind.startswith("int_"):
        expected = "must be a whole number"
    elif kind == "missing":
        expected = "is missing"
    else:
        expected = str(first.get("msg", "is not valid"))[:120]
        expected = expected[0].lower() + expected[1:] if expected else "is not valid"
    more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return f"{place} {name!r} {expected}{more}" if name else f"{place} {expected}{more}"


#: The error codes of HTTP errors raised outside the application's own checks (routing, static files).
_HTTP_CODES = {401: "unauthorized", 404: "not_found", 405: "method_not_allowed", 413: "too_large",
               429: "rate_limited", 503: "busy"}


def _json(doc: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(doc, status_code=status, headers={"cache-control": "no-store"})


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise ProtocolError("unauthorized", "use the header \"Authorization: Bearer <seat token>\"")
    return value.strip()


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        doc = json.loads(raw) if raw else {}
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", "the request body must be a JSON object") from None
    if not isinstance(doc, dict):
        raise ProtocolError("malformed", "the request body must be a JSON object")
    return doc


def _allowed(doc: dict[str, Any], fields: set[str]) -> None:
    extra = set(doc) - fields
    if extra:
        raise ProtocolError("malformed", f"unexpected field(s): {field_names(extra)}")


def create_app(db_url: str | None = None, config: ServerConfig | None = None, **settings: Any) -> FastAPI:
    """The ASGI application. ``db_url``: an SQLAlchemy URL or an SQLite file path (default: the user's data
    directory); ``settings`` override fields of :class:`ServerConfig` (e.g. ``bot_delay=0``)."""
    cfg = replace(config or ServerConfig(), **settings)
    if db_url is not None:
        cfg.db_url = db_url
    storage = Storage(cfg.resolved_db_url(), cfg.sqlite_sync)
    writer = Writer(storage)
    hub = Hub(cfg, storage, writer)
    create_limit = KeyedRateLimit(cfg.create_rate, cfg.create_burst)
    post_limit = KeyedRateLimit(cfg.rate, cfg.burst)  # HTTP actions and rematches, per client address
    # Matches created per address per hour (rematches too): what bounds the storage one address takes.
    hourly_limit = (KeyedRateLimit(cfg.matches_per_hour / 3600, cfg.matches_per_hour, max_keys=100_000)
                    if cfg.matches_per_hour > 0 else None)

    def address_of(request: Request | WebSocket) -> str:
        return address_key(request.client.host if request.client else None)

    def limit(request: Request, limiter: KeyedRateLimit, what: str) -> None:
        if not limiter.allow(address_of(request)):
            raise ProtocolError("rate_limited", f"too many {what}; wait a little")

    def creation_allowed(address: str) -> None:
        if hourly_limit is not None and not hourly_limit.allow(address):
            raise ProtocolError("rate_limited", f"at most {cfg.matches_per_hour} matches an hour may be created "
                                                "from one address; try again later")

    static = web_dir()

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # The libraries' objects live as long as the process: keep them out of the garbage collector's full
        # collections, whose pauses would otherwise stall every match for 100-200 ms now and then.
        if cfg.gc_freeze:
            gc.collect()
            gc.freeze()
        hub.start_retention()
        try:
            yield
        finally:
            await hub.close()
            await asyncio.to_thread(writer.close)
            storage.close()

    app = FastAPI(title="Converge", lifespan=lifespan, docs_url="/docs" if cfg.docs else None, redoc_url=None,
                  openapi_url="/openapi.json" if cfg.docs else None)
    app.state.hub = hub
    app.state.config = cfg
    app.add_middleware(SecurityMiddleware, max_body=cfg.max_body)

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

    async def session_of(match_id: str) -> Session:
        if not MATCH_ID_RE.match(match_id):
            raise ProtocolError("not_found", "no such match")
        session = await hub.get(match_id)
        if session is None:
            raise ProtocolError("not_found", "no such match")
        return session

    def seat_from(request: Request, session: Session, required: bool) -> int:
        token = _bearer(request)
        if token is None:
            if required:
                raise ProtocolError("unauthorized", "this needs a seat token (Authorization: Bearer <token>)")
            return -1
        seat = seat_of(token, [s.token_hash for s in session.row.seats])
        if seat is None:
            raise ProtocolError("unauthorized", "the token does not hold a seat in this match")
        return seat

    # ------------------------------------------------------------------ pages

    def page() -> FileResponse:
        return FileResponse(static / "index.html", headers={"cache-control": "no-cache"})

    pages = app.api_route  # the pages answer HEAD as well as GET (monitors, link checkers...)

    @pages("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index() -> FileResponse:
        return page()

    @pages("/m/{match_id}", methods=["GET", "HEAD"], include_in_schema=False)
    async def match_page(match_id: str) -> FileResponse:
        return page()

    @pages("/tutorial", methods=["GET", "HEAD"], include_in_schema=False)
    async def tutorial_page() -> FileResponse:
        return page()

    def html_page(text: str) -> HTMLResponse:
        return HTMLResponse(text, headers={"cache-control": "no-cache"})

    @pages("/rules", methods=["GET", "HEAD"], include_in_schema=False)
    async def rules_page() -> HTMLResponse:
        return html_page(rendered.rules_page())

    @pages("/rules/developer", methods=["GET", "HEAD"], include_in_schema=False)
    async def developer_rules_page() -> HTMLResponse:
        return html_page(rendered.developer_page())

    @pages("/favicon.ico", methods=["GET", "HEAD"], include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(static / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=static), name="static")
    app.include_router(lobby_router(hub))  # names, the lobby, quick match, ratings, history (routes_lobby)

    # ------------------------------------------------------------------ API

    @app.get("/api/options")
    async def options() -> JSONResponse:
        return _json(hub.options())

    @app.get("/api/rules")
    async def rules() -> JSONResponse:
        return _json(rendered.rules_doc())

    @app.get("/api/rules/developer")
    async def developer_rules() -> JSONResponse:
        return _json({"markdown": rendered.developer_rules(), "html": rendered.developer_html()})

    @app.get("/api/tutorial")
    async def tutorial() -> JSONResponse:
        return _json(tutorial_script.script())

    @app.post("/api/matches")
    async def create(request: Request) -> JSONResponse:
        limit(request, create_limit, "matches created")
        doc = await _body(request)
        _allowed(doc, {"opponent", "bot", "playset", "seat", "clock"})
        hub.check_create(doc.get("opponent", "bot"), doc.get("playset"), doc.get("bot"), doc.get("seat", 0),
                         doc.get("clock"))  # a request that is refused anyway costs no creation
        creation_allowed(address_of(request))
        created = await hub.create(doc.get("opponent", "bot"), doc.get("playset"), doc.get("bot"),
                                   doc.get("seat", 0), doc.get("clock"))
        mid = created.session.id
        return _json({"match_id": mid, "seat": created.seat, "token": created.token,
                      "url": f"/m/{mid}#token={created.token}",
                      "invite_url": f"/m/{mid}#token={created.invite_token}" if created.invite_token else None,
                      "watch_url": f"/m/{mid}"}, 201)

    @app.get("/api/matches/{match_id}")
    async def view(match_id: str, request: Request) -> JSONResponse:
        session = await session_of(match_id)
        seat = seat_from(request, session, required=False)
        async with session.lock:
            return _json({"seat": seat, "match": session.meta(), "seq": session.seq, "cards": session.catalog,
                          "colors": session.colors, "observation": session.view(seat),
                          **session.table(seat, welcome=True)})

    @app.post("/api/matches/{match_id}/actions")
    async def act(match_id: str, request: Request) -> JSONResponse:
        limit(request, post_limit, "requests")
        session = await session_of(match_id)
        seat = seat_from(request, session, required=True)
        doc = await _body(request)
        _allowed(doc, {"action", "seq"})
        if "action" not in doc:
            raise ProtocolError("malformed", "the body needs \"action\" (an action id or name)")
        seq = await hub.act(session, seat, check_action(doc["action"]), check_seq(doc.get("seq")))
        async with session.lock:
            return _json({"seq": seq, "match": session.meta(), "observation": session.view(seat),
                          "next": session.table(seat)["next"]})

    @app.post("/api/matches/{match_id}/hint")
    async def hint(match_id: str, request: Request) -> JSONResponse:
        limit(request, post_limit, "requests")
        session = await session_of(match_id)
        seat = seat_from(request, session, required=True)
        _allowed(await _body(request), set())
        return _json(await hub.hint(session, seat))

    @app.post("/api/matches/{match_id}/hints")
    async def allow_hints(match_id: str, request: Request) -> JSONResponse:
        limit(request, post_limit, "requests")
        session = await session_of(match_id)
        seat = seat_from(request, session, required=True)
        doc = await _body(request)
        _allowed(doc, {"allow"})
        if not isinstance(doc.get("allow"), bool):
            raise ProtocolError("malformed", "the body needs \"allow\": true or false")
        await hub.allow_hints(session, seat, doc["allow"])
        return _json({"match": session.meta()})

    @app.post("/api/matches/{match_id}/rematch")
    async def rematch(match_id: str, request: Request) -> JSONResponse:
        limit(request, post_limit, "requests")
        session = await session_of(match_id)
        seat = seat_from(request, session, required=True)
        address = address_of(request)
        new, _created = await hub.rematch(session, seat, lambda: creation_allowed(address))
        return _json({"match_id": new.id, "url": f"/m/{new.id}"})

    @app.get("/api/matches/{match_id}/record")
    async def record(match_id: str) -> JSONResponse:
        session = await session_of(match_id)
        return _json(hub.record(session))

    @app.get("/api/matches/{match_id}/replay")
    async def replay(match_id: str, request: Request, step: int = 0, view: int | None = None) -> JSONResponse:
        session = await session_of(match_id)
        seat = seat_from(request, session, required=False)
        viewer = seat if view is None else view
        if viewer not in (-1, 0, 1):
            raise ProtocolError("malformed", "view is 0, 1 or -1 (a spectator)")
        return _json(hub.replay_step(session, step, viewer))

    # ------------------------------------------------------------------ WebSocket

    @app.websocket("/ws/{match_id}")
    async def websocket(ws: WebSocket, match_id: str) -> None:
        await ws.accept()
        session, view = await _hello(ws, match_id)
        if session is None:
            return
        conn = Connection(ws, view, cfg, address_of(ws))
        conn.start()
        try:
            await hub.welcome(session, conn)
        except ProtocolError as exc:
            conn.send(exc.to_message())
            conn.close(CLOSE_POLICY)
            await conn.drain()
            return
        try:
            await _serve(ws, session, conn)
        finally:
            hub.leave(session, conn)
            await conn.drain()

    async def _hello(ws: WebSocket, match_id: str) -> tuple[Session | None, int]:
        async def refuse(code: str, message: str, close: int) -> tuple[None, int]:
            with contextlib.suppress(Exception):
                await ws.send_text(json.dumps({"type": "error", "code": code, "message": message}))
                await ws.close(close)
            return None, -1

        try:
            raw = await asyncio.wait_for(ws.receive(), cfg.hello_timeout)
        except TimeoutError:
            return await refuse("hello_required", "say hello first: {\"type\": \"hello\", \"token\": ...}",
                                CLOSE_HELLO)
        except Exception:
            return None, -1
        if raw["type"] == "websocket.disconnect":
            return None, -1
        text = raw.get("text")
        if text is None:
            return await refuse("malformed", "messages are JSON text", CLOSE_HELLO)
        try:
            msg = parse_message(text, cfg.max_message)
        except ProtocolError as exc:
            return await refuse(exc.code, exc.message, CLOSE_HELLO)
        if msg.type != "hello":
            return await refuse("hello_required", "the first message must be {\"type\": \"hello\", ...}",
                                CLOSE_HELLO)
        if not MATCH_ID_RE.match(match_id):
            return await refuse("not_found", "no such match", CLOSE_NOT_FOUND)
        try:
            session = await hub.get(match_id)
        except ProtocolError as exc:
            return await refuse(exc.code, exc.message, CLOSE_POLICY)
        if session is None:
            return await refuse("not_found", "no such match", CLOSE_NOT_FOUND)
        if msg.token is None:
            return session, -1
        seat = seat_of(msg.token, [s.token_hash for s in session.row.seats])
        if seat is None:
            return await refuse("unauthorized", "the token does not hold a seat in this match", CLOSE_UNAUTHORIZED)
        return session, seat

    hint_tasks: set[asyncio.Task[None]] = set()

    async def _send_hint(session: Session, conn: Connection) -> None:
        """Search a hint without holding up the connection's other messages (its actions...)."""
        try:
            conn.send({"type": "hint", **await hub.hint(session, conn.view)})
        except ProtocolError as exc:
            conn.send(exc.to_message())
        except Exception as exc:  # the search failed: say so, never a traceback
            log.error("match %s: hint failed: %s", session.id, exc)
            conn.send({"type": "error", "code": "busy", "message": "no hint could be worked out; try again"})
        finally:
            conn.hinting = False

    async def _serve(ws: WebSocket, session: Session, conn: Connection) -> None:
        while not conn.closed:
            raw = await ws.receive()
            if raw["type"] == "websocket.disconnect":
                return
            if not conn.bucket.allow():
                # One error for a run of messages over the limit; the rest are dropped without a word (a
                # reply to each would be the flood the limit is there to stop), and too many close it.
                conn.strikes += 1
                if conn.strikes > cfg.max_strikes:
                    conn.close(CLOSE_POLICY, "too many messages")
                    return
                if not conn.throttled:
                    conn.throttled = True
                    conn.send({"type": "error", "code": "rate_limited",
                               "message": f"too many messages (at most {cfg.rate:g} a second): this one and "
                                          "the next ones over the limit are ignored, without a reply"})
                continue
            conn.throttled = False
            text = raw.get("text")
            try:
                if text is None:
                    raise ProtocolError("malformed", "messages are JSON text")
                msg = parse_message(text, cfg.max_message)
                if session.broken:  # evicted (storage trouble): the client reconnects to a fresh session
                    raise ProtocolError("storage", "the match is being reloaded; reconnect")
                if msg.type == "ping":
                    conn.send({"type": "pong"})
                elif msg.type == "hello":
                    raise ProtocolError("malformed", "hello was already said on this connection")
                elif conn.view < 0:
                    raise ProtocolError("spectator", "spectators cannot act")
                elif msg.type == "action":
                    assert msg.action is not None
                    await hub.act(session, conn.view, msg.action, msg.seq, source=conn)
                elif msg.type == "hint":
                    if conn.hinting:
                        raise ProtocolError("busy", "a hint is on its way")
                    conn.hinting = True
                    task = asyncio.get_running_loop().create_task(_send_hint(session, conn))
                    hint_tasks.add(task)
                    task.add_done_callback(hint_tasks.discard)
                elif msg.type == "hints":
                    await hub.allow_hints(session, conn.view, msg.allow)
                elif msg.type == "rematch":
                    new, created = await hub.rematch(session, conn.view, lambda: creation_allowed(conn.address))
                    if not created:
                        conn.send({"type": "rematch", "match_id": new.id})
            except ProtocolError as exc:
                conn.send(exc.to_message())

    return app


__all__ = ["create_app", "web_dir"]
