"""The WebSocket of a seat or a spectator (``/ws/{match_id}``): a hello, then actions, hints and rematches
in, the match's views out. The messages are declared in :mod:`converge.server.protocol.messages`."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, WebSocket

from converge.server.api.deps import PlayerCookie, Server, ServerState, address_of
from converge.server.lobby.identity import token_hash_of
from converge.server.people.chat import room_of
from converge.server.play.hub import Hub
from converge.server.play.match.session import Session
from converge.server.protocol.errors import (
    CLOSE_FORBIDDEN,
    CLOSE_HELLO,
    CLOSE_NOT_FOUND,
    CLOSE_POLICY,
    CLOSE_RECONNECT,
    CLOSE_UNAUTHORIZED,
    ErrorCode,
    ProtocolError,
)
from converge.server.protocol.messages import HintMessage, Pong, RematchMade
from converge.server.protocol.parse import parse_message
from converge.server.security.tokens import MATCH_ID_RE, hash_token, seat_of
from converge.server.storage.lobby_store import Player
from converge.server.transport.connections import Connection, refuse_before_connected

log = logging.getLogger("converge.server")

PONG: Pong = {"type": "pong"}

router = APIRouter()


@router.websocket("/ws/{match_id}")
async def websocket(ws: WebSocket, match_id: str, srv: Server, cookie: PlayerCookie = None) -> None:
    """The live connection of a seat or a spectator: see :mod:`converge.server.protocol.messages`."""
    cfg, hub = srv.config, srv.hub
    await ws.accept()
    session, view, acks, key = await _hello(srv, ws, match_id, cookie)
    if session is None:
        return
    conn = Connection(ws, view, cfg, address_of(ws), srv.meter)
    conn.acks, conn.key = acks, key
    conn.start()
    try:
        await hub.reception.welcome(session, conn)
    except ProtocolError as exc:
        conn.refuse(exc)
        # (the match is being reloaded, or this process restarts: the client comes back, here or elsewhere)
        conn.close(CLOSE_RECONNECT if exc.code in ("storage", "restarting") else CLOSE_POLICY)
        await conn.drain()
        return
    room = room_of(session.id, conn.view)
    player = await _player_or_none(srv, cookie)
    await srv.chat.join(room, conn, None if player is None else player.id)
    try:
        await _serve(srv, ws, session, conn, cookie)
    finally:
        srv.chat.leave(room, conn)
        hub.reception.leave(session, conn)
        await conn.drain()


async def _player_or_none(srv: ServerState, cookie: str | None) -> Player | None:
    """The player the connection's cookie names, as its chat reads it (None: none, or the database is away)."""
    try:
        return await srv.lobby.players.player_of(cookie)
    except Exception:
        return None


async def _hello(srv: ServerState, ws: WebSocket, match_id: str,
                 cookie: str | None) -> tuple[Session | None, int, bool, str | None]:
    """Read the first message (a hello, with a seat token or none): the session, the view it gets, whether
    it wants acknowledgements as messages of their own, and the hash of the seat's token it holds. A seat is
    refused to a player the hosts banned (the player cookie says who); watching is not."""
    cfg, hub = srv.config, srv.hub

    async def refuse(code: ErrorCode, message: str, close: int) -> tuple[None, int, bool, None]:
        await refuse_before_connected(ws, ProtocolError(code, message), close, srv.meter)
        return None, -1, True, None

    try:
        raw = await asyncio.wait_for(ws.receive(), cfg.hello_timeout)
    except TimeoutError:
        return await refuse("hello_required", "say hello first: {\"type\": \"hello\", \"token\": ...}",
                            CLOSE_HELLO)
    except Exception:
        return None, -1, True, None
    if raw["type"] == "websocket.disconnect":
        return None, -1, True, None
    text = raw.get("text")
    if text is None:
        return await refuse("malformed", "messages are JSON text", CLOSE_HELLO)
    try:
        msg = parse_message(text, cfg.max_message)
    except ProtocolError as exc:
        return await refuse(exc.code, exc.message, CLOSE_HELLO)
    if msg["type"] != "hello":
        return await refuse("hello_required", "the first message must be {\"type\": \"hello\", ...}",
                            CLOSE_HELLO)
    if not MATCH_ID_RE.match(match_id):
        return await refuse("not_found", "no such match", CLOSE_NOT_FOUND)
    try:
        session = await hub.live.get(match_id)
    except ProtocolError as exc:
        return await refuse(exc.code, exc.message, CLOSE_POLICY)
    if session is None:
        return await refuse("not_found", "no such match", CLOSE_NOT_FOUND)
    token, acks = msg.get("token"), msg.get("acks", True)
    if token is None:
        return session, -1, acks, None
    seat = seat_of(token, session.row.seat_hashes())
    if seat is None:
        return await refuse("unauthorized", "the token does not hold a seat in this match", CLOSE_UNAUTHORIZED)
    try:
        await srv.lobby.players.refuse_banned_cookie(cookie)
    except ProtocolError as exc:
        return await refuse(exc.code, exc.message, CLOSE_FORBIDDEN)
    return session, seat, acks, hash_token(token)


async def _send_hint(hub: Hub, session: Session, conn: Connection) -> None:
    """Search a hint without holding up the connection's other messages (its actions...)."""
    try:
        found = await hub.hints.hint(session, conn.view)
        message: HintMessage = {"type": "hint", **found}
        conn.send(message)
    except ProtocolError as exc:
        conn.refuse(exc)
    except Exception as exc:  # the search failed: say so, never a traceback
        log.error("match %s: hint failed: %s", session.id, exc)
        conn.refuse(ProtocolError("busy", "no hint could be worked out; try again"))
    finally:
        conn.hinting = False


async def _serve(srv: ServerState, ws: WebSocket, session: Session, conn: Connection, cookie: str | None) -> None:
    """Answer a connection's messages until it closes. (A seat's player banned meanwhile is shut out by the ban;
    a rematch, which starts a match, asks again.)"""
    cfg, hub = srv.config, srv.hub
    while not conn.closed:
        raw = await ws.receive()
        if raw["type"] == "websocket.disconnect":
            return
        if conn.over_limit(cfg.rate, cfg.max_strikes):
            continue
        text = raw.get("text")
        try:
            if text is None:
                raise ProtocolError("malformed", "messages are JSON text")
            msg = parse_message(text, cfg.max_message)
            if session.broken:  # evicted (storage trouble): the client reconnects to a fresh session
                raise ProtocolError("storage", "the match is being reloaded; reconnect")
            if msg["type"] == "ping":
                conn.send(PONG)
            elif msg["type"] == "hello":
                raise ProtocolError("malformed", "hello was already said on this connection")
            elif msg["type"] == "chat":
                await srv.chat.say(room_of(session.id, conn.view), session.id, token_hash_of(cookie), conn.address,
                                   text=msg.get("text"), quick=msg.get("quick"))
            elif conn.view < 0:
                raise ProtocolError("spectator", "spectators cannot act")
            elif msg["type"] == "action":
                await hub.matches.act(session, conn.view, msg["action"], msg.get("seq"), source=conn)
            elif msg["type"] == "hint":
                if conn.hinting:
                    raise ProtocolError("busy", "a hint is on its way")
                conn.hinting = True
                task = asyncio.get_running_loop().create_task(_send_hint(hub, session, conn))
                srv.tasks.add(task)
                task.add_done_callback(srv.tasks.discard)
            elif msg["type"] == "hints":
                await hub.hints.allow(session, conn.view, msg["allow"])
            elif msg["type"] == "resign":
                await hub.matches.resign(session, conn.view)
            elif msg["type"] == "rematch":
                await srv.lobby.players.refuse_banned_cookie(cookie)
                new, created = await hub.matches.rematch(session, conn.address)
                if not created:
                    made: RematchMade = {"type": "rematch", "match_id": new.id}
                    conn.send(made)
        except ProtocolError as exc:
            conn.refuse(exc)

