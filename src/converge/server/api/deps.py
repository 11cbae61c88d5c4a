"""What routes depend on, as ``Annotated`` types: the server's state (:data:`Server`), the lobby
(:data:`LobbyService`), the client's address (:data:`ClientAddress`), the player cookie (:data:`PlayerCookie`)
and the ``Authorization`` header (:data:`Authorization`), whose seat token names the seat a request speaks for
(:func:`seat_from`). None of them refuses a request: the routes check, in the order the API has always
checked (the body first, then the limits, the match, the seat)."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Cookie, Depends, Header
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from converge.server.accounts.service import AccountService
from converge.server.config import ServerConfig
from converge.server.lobby.identity import COOKIE
from converge.server.lobby.service import Lobby
from converge.server.ops.meter import Meter
from converge.server.people.chat import Chat
from converge.server.play.hub import Hub
from converge.server.play.match.session import Session
from converge.server.protocol.errors import ProtocolError
from converge.server.security.limits import KeyedRateLimit, address_key
from converge.server.security.tokens import MATCH_ID_RE, seat_of
from converge.server.tournaments.service import Tournaments

#: Wrong host tokens one client address may send in a row, then how many a second.
WRONG_SECRETS_BURST = 10
WRONG_SECRETS_RATE = 1 / 60


#: A player's writes of people around the table: 30 a minute, 20 at once.
PLAYER_WRITES_RATE, PLAYER_WRITES_BURST = 0.5, 20.0
#: A player's archives ("Download my data": every row that names them, and a replay of each match in
#: progress): 3 at once, then one every 10 minutes.
EXPORTS_RATE, EXPORTS_BURST = 1 / 600, 3.0

@dataclass
class ServerState:
    """The hub, the lobby, the accounts and the per-address limits of one server process
    (``app.state.server``)."""

    hub: Hub
    lobby: Lobby
    accounts: AccountService
    config: ServerConfig
    tournaments: Tournaments
    chat: Chat
    create_limit: KeyedRateLimit
    #: HTTP actions and rematches, per client address.
    post_limit: KeyedRateLimit
    #: Wrong host tokens (admin, metrics), per client address: a few, then one a minute; an address with none
    #: left is refused even the right token, so that guessing gets no faster for it.
    wrong_secrets: KeyedRateLimit = field(default_factory=lambda: KeyedRateLimit(WRONG_SECRETS_RATE,
                                                                                 WRONG_SECRETS_BURST))
    #: The writes of people around the table (chat choices, mutes, follows, challenges, a profile's switch),
    #: per player: each also pays its address's ``post_limit``.
    player_writes: KeyedRateLimit = field(default_factory=lambda: KeyedRateLimit(PLAYER_WRITES_RATE,
                                                                                 PLAYER_WRITES_BURST, 100_000))
    #: The players' archives, per player: each also pays its address's ``post_limit``.
    exports: KeyedRateLimit = field(default_factory=lambda: KeyedRateLimit(EXPORTS_RATE, EXPORTS_BURST, 100_000))
    #: The hints being worked out for the match sockets.
    tasks: set[Any] = field(default_factory=set)
    #: Counts the refusals where they are made (the sockets' connections, the error handlers).
    meter: Meter = field(default_factory=Meter)

    @classmethod
    def build(cls, hub: Hub, lobby: Lobby, accounts: AccountService, tournaments: Tournaments, chat: Chat,
              meter: Meter) -> ServerState:
        # (the matches an address may store in an hour are the hub's budget, whatever the door)
        cfg = hub.config
        return cls(hub, lobby, accounts, cfg, tournaments, chat, KeyedRateLimit(cfg.create_rate, cfg.create_burst),
                   KeyedRateLimit(cfg.rate, cfg.burst), meter=meter)
    def limit(self, address: str, limiter: KeyedRateLimit, what: str) -> None:
        """Refuse (``rate_limited``) a client address that has no request of this kind left now."""
        if not limiter.allow(address):
            raise ProtocolError("rate_limited", f"too many {what}; wait a little")

    async def limit_write(self, address: str, cookie: str | None) -> None:
        """A write of people around the table: it pays its address's budget and its player's (a caller who is
        no player is refused by the write itself)."""
        self.limit(address, self.post_limit, "requests")
        player = await self.lobby.players.player_of(cookie)
        if player is not None:
            self.limit(player.id, self.player_writes, "changes")


async def server(conn: HTTPConnection) -> ServerState:
    """The server of a request or a WebSocket (a coroutine: FastAPI would run a plain function in a worker
    thread, a thread hop on every request)."""
    state: ServerState = conn.app.state.server
    return state


async def lobby(conn: HTTPConnection) -> Lobby:
    return (await server(conn)).lobby


async def accounts(conn: HTTPConnection) -> AccountService:
    return (await server(conn)).accounts


def address_of(conn: HTTPConnection) -> str:
    """The client's address as the limits count it (an IPv6 address by its /64)."""
    return address_key(conn.client.host if conn.client else None)


async def client_address(conn: HTTPConnection) -> str:
    return address_of(conn)


Server = Annotated[ServerState, Depends(server)]
LobbyService = Annotated[Lobby, Depends(lobby)]
Accounts = Annotated[AccountService, Depends(accounts)]
ClientAddress = Annotated[str, Depends(client_address)]
#: The player's token (:mod:`converge.server.lobby.identity`), when the browser has one.
PlayerCookie = Annotated[str | None, Cookie(alias=COOKIE, description="the player's token")]
#: ``Bearer <seat token>``: the seat a request speaks for (none: a spectator's view).
Authorization = Annotated[str | None, Header(description="Bearer <seat token>")]


def json_response(doc: Mapping[str, Any], status: int = 200) -> JSONResponse:
    """A route's answer, as its ``response_model`` declares it (returned as it is built: not validated again)."""
    return JSONResponse(doc, status_code=status, headers={"cache-control": "no-store"})


def bearer(authorization: str | None) -> str | None:
    """The seat token of an ``Authorization: Bearer <token>`` header (None without the header)."""
    if authorization is None:
        return None
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise ProtocolError("unauthorized", "use the header \"Authorization: Bearer <seat token>\"")
    return value.strip()


def require_secret(conn: HTTPConnection, authorization: str | None, secret: str | None, what: str) -> None:
    """Let through a request whose ``Authorization: Bearer`` header holds the host's ``secret`` (compared in
    constant time); a path whose secret is not configured is not served at all (``not_found``), and any other
    header is ``unauthorized``. A client address that sent :data:`WRONG_SECRETS_BURST` wrong ones is refused
    (``rate_limited``), the right one too, until its next try comes (one a minute). (The metrics token, the
    admin token.)"""
    if not secret:
        raise ProtocolError("not_found", "no such page or API endpoint")
    wrong = conn.app.state.server.wrong_secrets
    address = address_of(conn)
    if not wrong.available(address):
        raise ProtocolError("rate_limited", f"too many wrong {what}s from your address; try again in a minute")
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), secret.encode()):
        wrong.allow(address)  # (a try spent)
        raise ProtocolError("unauthorized", f"use the header \"Authorization: Bearer <{what}>\"")


async def session_of(hub: Hub, match_id: str) -> Session:
    """The live match ``match_id`` (``not_found`` if there is none)."""
    if not MATCH_ID_RE.match(match_id):
        raise ProtocolError("not_found", "no such match")
    session = await hub.live.get(match_id)
    if session is None:
        raise ProtocolError("not_found", "no such match")
    return session


def seat_from(authorization: str | None, session: Session, required: bool) -> int:
    """The seat whose token the request carries (-1: none, a spectator)."""
    token = bearer(authorization)
    if token is None:
        if required:
            raise ProtocolError("unauthorized", "this needs a seat token (Authorization: Bearer <token>)")
        return -1
    seat = seat_of(token, session.row.seat_hashes())
    if seat is None:
        raise ProtocolError("unauthorized", "the token does not hold a seat in this match")
    return seat
