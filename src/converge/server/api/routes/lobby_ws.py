"""The lobby's WebSocket (``/ws/lobby``): the cookie says who is there (without one, the lobby is watched
only); at most ``max_lobby_connections_per_address`` from one client address and ``max_lobby_connections``
in all, counted from the moment they open: one more gets a ``busy`` error and the close 1008. Its messages
(declared in :mod:`converge.server.protocol.messages`)::

    client: {"type": "hello"}  {"type": "queue", "clock": null | seconds}  {"type": "unqueue"}
            {"type": "accept_bot"}  {"type": "chat", "text" | "quick"}  {"type": "ping"}
    server: {"type": "welcome", "player": {...} | null, "tables": [...], "queue": {"bot_after_s"}}
            {"type": "tables", "tables": [...]}          whenever the open tables change
            {"type": "queued", "clock_s", "rating", "bot_after_s", "waited_s"}
            {"type": "unqueued"}
            {"type": "bot_offer", "bot", "bot_rating", "waited_s"}
            {"type": "matched", "match_id", "seat", "token", "url", "opponent"}   quick match: to each of
                                                         the two players, each with their own token only
            {"type": "table_started", "table_id", "match_id", "url", "opponent"}  to a table's host
            {"type": "chat", "room": "lobby", "line"}  {"type": "chat_lines", "room": "lobby", "lines"}
            {"type": "error", "code", "message"}  {"type": "pong"}
"""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import APIRouter, WebSocket

from converge.server.api.deps import PlayerCookie, Server, address_of
from converge.server.lobby.identity import token_hash_of
from converge.server.lobby.quick import UNQUEUED
from converge.server.lobby.room import LobbyConnection
from converge.server.lobby.service import Lobby
from converge.server.ops.meter import Meter
from converge.server.people.chat import Chat, room_of
from converge.server.protocol.errors import CLOSE_HELLO, CLOSE_POLICY, ProtocolError
from converge.server.protocol.messages import Pong
from converge.server.protocol.parse import parse_lobby_message
from converge.server.transport.connections import refuse_before_connected

PONG: Pong = {"type": "pong"}
#: The lobby's chat room.
LOBBY = room_of(None)

router = APIRouter()


@router.websocket("/ws/lobby")
async def lobby_ws(ws: WebSocket, srv: Server, cookie: PlayerCookie = None) -> None:
    """A lobby page's live connection: the tables as they change, the quick-match queue, its match ready."""
    lobby, address = srv.lobby, address_of(ws)
    try:
        lobby.room.admit(address)  # counted from now on, before its hello: a silent socket holds a place too
    except ProtocolError as exc:
        await ws.accept()
        await refuse_before_connected(ws, exc, CLOSE_POLICY, srv.meter)
        return
    try:
        await ws.accept()
        await _connected(ws, lobby, address, cookie, srv.meter, srv.chat)
    finally:
        lobby.room.let_out(address)


async def _connected(ws: WebSocket, lobby: Lobby, address: str, cookie: str | None, meter: Meter,
                     chat: Chat) -> None:
    """An accepted lobby socket: its hello, then its messages until it closes."""
    cfg = lobby.room.config
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
        player = await lobby.players.player_of(cookie)
    except ProtocolError as exc:
        await refuse_before_connected(ws, exc, CLOSE_HELLO, meter)
        return
    conn = LobbyConnection(ws, cfg, address, player, token_hash_of(cookie), meter)
    conn.start()
    try:
        await lobby.room.welcome(conn)
        await chat.join(LOBBY, conn, None if player is None else player.id)
        await _serve(ws, lobby, conn, chat)
    finally:
        chat.leave(LOBBY, conn)
        lobby.leave(conn)
        await conn.drain()


async def _serve(ws: WebSocket, lobby: Lobby, conn: LobbyConnection, chat: Chat) -> None:
    cfg = lobby.room.config
    while not conn.closed:
        raw = await ws.receive()
        if raw["type"] == "websocket.disconnect":
            return
        if conn.over_limit(cfg.rate, cfg.max_strikes):
            continue
        try:
            msg = parse_lobby_message(raw.get("text"), cfg.max_message)
            if msg["type"] == "ping":
                conn.send(PONG)
            elif msg["type"] == "hello":
                raise ProtocolError("malformed", "hello was already said on this connection")
            elif msg["type"] == "chat":
                await chat.say(LOBBY, None, conn.cookie_hash, conn.address, text=msg.get("text"),
                               quick=msg.get("quick"))
            elif msg["type"] == "queue":
                if conn.player is not None:
                    await lobby.players.still_allowed(conn.player, conn.cookie_hash)
                conn.send(lobby.quick.join(conn, msg.get("clock")))
            elif msg["type"] == "unqueue":
                lobby.quick.leave(conn)
                conn.send(UNQUEUED)
            elif msg["type"] == "accept_bot":
                if conn.player is not None:
                    await lobby.players.still_allowed(conn.player, conn.cookie_hash)
                ready = await lobby.quick.accept_bot(conn)
                conn.send(ready.message({"name": None, "bot": True}))
        except ProtocolError as exc:
            conn.refuse(exc)
