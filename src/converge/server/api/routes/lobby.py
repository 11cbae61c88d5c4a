"""The lobby's HTTP API, pages and WebSocket (an ``APIRouter`` that ``create_app`` includes).

HTTP (JSON; the player is named by the ``converge_player`` cookie, see :mod:`converge.server.lobby.identity`)::

    GET    /api/me                        {"player": {"name", "rating", "rd", "games", "provisional"} | null,
                                           "tables": [my open tables]}
    PUT    /api/me                        {"name": "Ada" | null}: choose or change a name (null: anonymous);
                                          makes the caller a player (and sets the cookie) on first use
    GET    /api/me/history                my finished matches: opponent, result, rating change, replay link
    GET    /api/leaderboard               named players with a rated match, best first; the bots' ratings
    GET    /api/lobby                     {"tables": [...]}: the open public tables
    POST   /api/lobby/tables              {"playset", "clock", "seat", "private", "rated"} -> the host's
                                          {"table_id", "match_id", "seat", "token", "url", "invite_url"}
    DELETE /api/lobby/tables/{id}         close my open table
    POST   /api/lobby/tables/{id}/join    -> {"match_id", "seat", "token", "url"}: the match starts
    POST   /api/matches/{id}/players      (Authorization: Bearer <seat token>) record that I play that seat
                                          (a friend match reached by an invite link: my history lists it)

WebSocket ``/ws/lobby`` (the cookie says who is there; without one, the lobby is watched only; at most
``max_lobby_connections_per_address`` from one client address and ``max_lobby_connections`` in all, counted
from the moment they open: one more gets a ``busy`` error and the close 1008)::

    client: {"type": "hello"}  {"type": "queue", "clock": null | seconds}  {"type": "unqueue"}
            {"type": "accept_bot"}  {"type": "ping"}
    server: {"type": "welcome", "player": {...} | null, "tables": [...], "queue": {"bot_after_s"}}
            {"type": "tables", "tables": [...]}          whenever the open tables change
            {"type": "queued", "clock_s", "rating", "bot_after_s", "waited_s"}
            {"type": "unqueued"}
            {"type": "bot_offer", "bot", "bot_rating", "waited_s"}
            {"type": "matched", "match_id", "seat", "token", "url", "opponent"}   quick match: to each of
                                                         the two players, each with their own token only
            {"type": "table_started", "table_id", "match_id", "url", "opponent"}  to a table's host
            {"type": "error", "code", "message"}  {"type": "pong"}

Errors are ``{"error": {"code", "message"}}`` as everywhere, with the statuses of
:data:`converge.server.protocol.errors.ERROR_STATUS` (the lobby's codes among them).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response, WebSocket
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from converge.server.lobby.identity import COOKIE, COOKIE_MAX_AGE
from converge.server.lobby.quick import UNQUEUED
from converge.server.lobby.ratings import BOT_RATINGS, OFFERED_BOTS
from converge.server.lobby.room import LobbyConnection
from converge.server.lobby.service import Lobby
from converge.server.play.hub import Hub
from converge.server.protocol.errors import CLOSE_HELLO, CLOSE_POLICY, ProtocolError
from converge.server.protocol.parse import parse_lobby_message
from converge.server.security.limits import address_key
from converge.server.security.tokens import MATCH_ID_RE, seat_of
from converge.server.storage import lobby_store as store


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NameIn(Strict):
    name: Annotated[StrictStr, Field(max_length=200)] | None


class PlayerOut(BaseModel):
    name: str | None
    rating: int
    rd: int
    games: int
    provisional: bool


class MyTable(BaseModel):
    id: str
    status: str
    private: bool


class MeOut(BaseModel):
    player: PlayerOut | None
    tables: list[MyTable] = []


Name32 = Annotated[StrictStr, Field(max_length=32)]


class TableIn(Strict):
    playset: list[Name32] | Name32 | None = "random"
    clock: StrictInt | None = None
    seat: Literal[0, 1, "random"] = "random"
    private: StrictBool = False
    rated: StrictBool = True


class TableOut(BaseModel):
    table_id: str
    match_id: str
    seat: int
    token: str
    url: str
    invite_url: str | None
    private: bool
    rated: bool


class ReadyOut(BaseModel):
    match_id: str
    seat: int
    token: str
    url: str


class HostOut(BaseModel):
    name: str | None
    rating: int
    provisional: bool


class TableInfo(BaseModel):
    id: str
    playset: list[str]
    clock_s: int | None
    rated: bool
    host: HostOut
    created_at: float


class LobbyOut(BaseModel):
    tables: list[TableInfo]


class Ranked(BaseModel):
    rank: int
    name: str
    rating: int
    rd: int
    games: int
    provisional: bool


class BotRating(BaseModel):
    name: str
    rating: int


class LeaderboardOut(BaseModel):
    players: list[Ranked]
    bots: list[BotRating]


class Opponent(BaseModel):
    kind: Literal["human", "bot"]
    name: str | None


class Played(BaseModel):
    match_id: str
    finished_at: float
    seat: int
    playset: list[str]
    opponent: Opponent
    result: Literal["won", "lost"]
    reason: str | None
    rated: bool
    kind: str
    rating_before: int | None
    rating_after: int | None
    rating_change: int | None
    replay_url: str


class HistoryOut(BaseModel):
    player: PlayerOut
    matches: list[Played]


class Linked(BaseModel):
    linked: bool


def _address(request: Request | WebSocket) -> str:
    return address_key(request.client.host if request.client else None)


def _index() -> Path:
    return Path(str(resources.files("converge").joinpath("web"))) / "index.html"


def lobby_router(hub: Hub) -> APIRouter:
    """The lobby's routes, on a :class:`~converge.server.lobby.service.Lobby` made for ``hub``."""
    lobby = Lobby(hub)
    router = APIRouter()
    hub.lobby = lobby  # type: ignore[attr-defined]  # for tests: the hub's app reaches its lobby

    def cookie(request: Request | WebSocket) -> str | None:
        return request.cookies.get(COOKIE)

    def me_out(player: store.Player | None, tables: list[dict[str, Any]] | None = None) -> MeOut:
        return MeOut(player=PlayerOut(**player.public()) if player else None,
                     tables=[MyTable(id=t["id"], status=t["status"], private=t["private"]) for t in tables or []])

    # ------------------------------------------------------------------ pages (the client draws them)

    for path in ("/leaderboard", "/history"):
        @router.api_route(path, methods=["GET", "HEAD"], include_in_schema=False)
        async def page() -> FileResponse:
            return FileResponse(_index(), headers={"cache-control": "no-cache"})

    # ------------------------------------------------------------------ players

    @router.get("/api/me", response_model=MeOut)
    async def get_me(request: Request) -> MeOut:
        player = await lobby.players.player_of(cookie(request))
        tables = (await asyncio.to_thread(store.tables_of, lobby.players.engine, player.id)) if player else []
        return me_out(player, [t for t in tables if t["status"] == "open"])

    @router.put("/api/me", response_model=MeOut)
    async def put_me(body: NameIn, request: Request, response: Response) -> MeOut:
        player, fresh = await lobby.players.set_name(cookie(request), body.name, _address(request))
        if fresh is not None:
            response.set_cookie(COOKIE, fresh, max_age=COOKIE_MAX_AGE, path="/", httponly=True, samesite="lax",
                                secure=request.url.scheme == "https")
        response.headers["cache-control"] = "no-store"
        return me_out(player)

    @router.get("/api/me/history", response_model=HistoryOut)
    async def my_history(request: Request) -> HistoryOut:
        player = await lobby.players.need_player(cookie(request))
        rows = await asyncio.to_thread(store.history, lobby.players.engine, player.id)
        return HistoryOut(player=PlayerOut(**player.public()), matches=[Played.model_validate(r) for r in rows])

    @router.get("/api/leaderboard", response_model=LeaderboardOut)
    async def leaderboard() -> LeaderboardOut:
        rows = await asyncio.to_thread(store.leaderboard, lobby.players.engine)
        return LeaderboardOut(players=[Ranked(**r) for r in rows],
                              bots=[BotRating(name=b, rating=round(BOT_RATINGS[b])) for b in OFFERED_BOTS])

    # ------------------------------------------------------------------ tables

    @router.get("/api/lobby", response_model=LobbyOut)
    async def tables() -> LobbyOut:
        return LobbyOut(tables=[TableInfo.model_validate(t) for t in await lobby.room.tables()])

    @router.post("/api/lobby/tables", response_model=TableOut, status_code=201)
    async def open_table(body: TableIn, request: Request) -> TableOut:
        player = await lobby.players.need_player(cookie(request))
        out = await lobby.tables.open(player, _address(request), playset=body.playset, clock=body.clock,
                                     seat=body.seat, private=body.private, rated=body.rated)
        return TableOut(**out)

    @router.delete("/api/lobby/tables/{table_id}")
    async def close_table(table_id: str, request: Request) -> JSONResponse:
        player = await lobby.players.need_player(cookie(request))
        if not MATCH_ID_RE.match(table_id):
            raise ProtocolError("table_gone", "you have no open table with that id")
        await lobby.tables.close(player, table_id)
        return JSONResponse({"closed": table_id}, headers={"cache-control": "no-store"})

    @router.post("/api/lobby/tables/{table_id}/join", response_model=ReadyOut, status_code=201)
    async def join_table(table_id: str, request: Request) -> ReadyOut:
        player = await lobby.players.need_player(cookie(request))
        if not MATCH_ID_RE.match(table_id):
            raise ProtocolError("table_gone", "no such table")
        ready = await lobby.tables.join(player, table_id, _address(request))
        return ReadyOut(match_id=ready.match_id, seat=ready.seat, token=ready.token, url=f"/m/{ready.match_id}")

    @router.post("/api/matches/{match_id}/players", response_model=Linked)
    async def link_seat(match_id: str, request: Request) -> Linked:
        player = await lobby.players.need_player(cookie(request))
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ProtocolError("unauthorized", "this needs a seat token (Authorization: Bearer <token>)")
        session = await hub.matches.get(match_id) if MATCH_ID_RE.match(match_id) else None
        if session is None:
            raise ProtocolError("not_found", "no such match")
        seat = seat_of(token.strip(), [s.token_hash for s in session.row.seats])
        if seat is None:
            raise ProtocolError("unauthorized", "the token does not hold a seat in this match")
        return Linked(linked=await lobby.seating.claim_seat(player, session, seat))

    # ------------------------------------------------------------------ the lobby's WebSocket

    @router.websocket("/ws/lobby")
    async def lobby_ws(ws: WebSocket) -> None:
        address = _address(ws)
        try:
            lobby.room.admit(address)  # counted from now on, before its hello: a silent socket holds a place too
        except ProtocolError as exc:
            await ws.accept()
            await _refuse(ws, exc, CLOSE_POLICY)
            return
        try:
            await ws.accept()
            await _connected(ws, address)
        finally:
            lobby.room.let_out(address)

    async def _refuse(ws: WebSocket, exc: ProtocolError, close: int) -> None:
        with contextlib.suppress(Exception):
            await ws.send_text(json.dumps(exc.to_message()))
            await ws.close(close)

    async def _connected(ws: WebSocket, address: str) -> None:
        """An accepted lobby socket: its hello, then its messages until it closes."""
        cfg = hub.config
        try:
            raw = await asyncio.wait_for(ws.receive(), cfg.hello_timeout)
        except Exception:
            with contextlib.suppress(Exception):
                await ws.close(CLOSE_HELLO)
            return
        if raw["type"] == "websocket.disconnect":
            return
        try:
            msg = parse_lobby_message(raw.get("text"), cfg.max_message)
            if msg["type"] != "hello":
                raise ProtocolError("hello_required", "the first message must be {\"type\": \"hello\"}")
            player = await lobby.players.player_of(cookie(ws))
        except ProtocolError as exc:
            await _refuse(ws, exc, CLOSE_HELLO)
            return
        conn = LobbyConnection(ws, cfg, address, player)
        conn.start()
        try:
            await lobby.room.welcome(conn)
            await _serve(ws, conn)
        finally:
            lobby.leave(conn)
            await conn.drain()

    async def _serve(ws: WebSocket, conn: LobbyConnection) -> None:
        cfg = hub.config
        while not conn.closed:
            raw = await ws.receive()
            if raw["type"] == "websocket.disconnect":
                return
            if conn.over_limit(cfg.rate, cfg.max_strikes):
                continue
            try:
                msg = parse_lobby_message(raw.get("text"), cfg.max_message)
                if msg["type"] == "ping":
                    conn.send({"type": "pong"})
                elif msg["type"] == "hello":
                    raise ProtocolError("malformed", "hello was already said on this connection")
                elif msg["type"] == "queue":
                    conn.send(lobby.quick.join(conn, msg.get("clock")))
                elif msg["type"] == "unqueue":
                    lobby.quick.leave(conn)
                    conn.send(UNQUEUED)
                elif msg["type"] == "accept_bot":
                    ready = await lobby.quick.accept_bot(conn)
                    conn.send(ready.message({"name": None, "bot": True}))
            except ProtocolError as exc:
                conn.send(exc.to_message())

    return router


__all__ = ["lobby_router"]
