"""People around the table (:mod:`converge.server.people`): a player's chat choices::

    GET    /api/me/chat                   my chat: on or off, and whom I muted ->
                                          {"on", "muted": [{"key", "name"}]}
    PUT    /api/me/chat                   {"on": true|false}: typed chat on or off for me (quick messages stay)
    POST   /api/me/mutes                  {"line": id}: mute the sender of a chat line I read
    DELETE /api/me/mutes/{key}            unmute them

Chat itself goes through the sockets (``{"type": "chat"}``: :mod:`converge.server.protocol.messages`).
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from converge.server.api.deps import ClientAddress, LobbyService, PlayerCookie, Server, json_response
from converge.server.api.models import ERRORS, ChatSetting, MuteIn
from converge.server.people.chat import Chat
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.people_answers import ChatSettings
from converge.server.storage import lobby_store as store

router = APIRouter(tags=["people"], responses=ERRORS)


async def _settings(chat: Chat, player: store.Player) -> JSONResponse:
    on, _muted = await chat.reader(player.id)
    muted = await chat.mutes(player.id)
    doc: ChatSettings = {"on": on, "muted": [{"key": key, "name": name} for key, name in muted]}
    return json_response(doc)


@router.get("/api/me/chat", response_model=ChatSettings)
async def chat_settings(srv: Server, lobby: LobbyService, cookie: PlayerCookie = None) -> JSONResponse:
    """Whether my typed chat is on (by default: once I have a name), and whom I muted; a visitor who is no
    player yet reads with chat off (a page asks on its first visit: no refusal to log there)."""
    player = await lobby.players.player_of(cookie)
    if player is None:
        doc: ChatSettings = {"on": False, "muted": []}
        return json_response(doc)
    return await _settings(srv.chat, player)


@router.put("/api/me/chat", response_model=ChatSettings)
async def set_chat(body: ChatSetting, srv: Server, lobby: LobbyService, address: ClientAddress,
                   cookie: PlayerCookie = None) -> JSONResponse:
    """Typed chat on or off for me: off, I read and send the quick messages only."""
    await srv.limit_write(address, cookie)
    player = await lobby.players.need_player(cookie)
    await srv.chat.set_chat(player.id, body.on)
    return await _settings(srv.chat, player)


@router.post("/api/me/mutes", response_model=ChatSettings)
async def mute(body: MuteIn, srv: Server, lobby: LobbyService, address: ClientAddress,
               cookie: PlayerCookie = None) -> JSONResponse:
    """Mute the sender of a chat line: none of their lines reach me again, anywhere."""
    await srv.limit_write(address, cookie)
    player = await lobby.players.need_player(cookie)
    await srv.chat.mute_sender(player.id, body.line)
    return await _settings(srv.chat, player)


@router.delete("/api/me/mutes/{key}", response_model=ChatSettings)
async def unmute(key: str, srv: Server, lobby: LobbyService, address: ClientAddress,
                 cookie: PlayerCookie = None) -> JSONResponse:
    await srv.limit_write(address, cookie)
    player = await lobby.players.need_player(cookie)
    if not 1 <= len(key) <= 64 or not key.isalnum():
        raise ProtocolError("not_found", "you have not muted such a player")
    await srv.chat.unmute(player.id, key)
    return await _settings(srv.chat, player)
