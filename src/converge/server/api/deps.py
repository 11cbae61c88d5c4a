"""What every route needs: the server's state (hub, settings, limits) and the seat a request speaks for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Request, WebSocket
from fastapi.responses import JSONResponse

from converge.server.config import ServerConfig
from converge.server.play.hub import Hub
from converge.server.play.session import Session
from converge.server.protocol.errors import ProtocolError
from converge.server.security.limits import KeyedRateLimit, address_key
from converge.server.security.tokens import MATCH_ID_RE, seat_of


@dataclass
class ServerState:
    """The hub and the per-address limits of one server process (``app.state.server``)."""

    hub: Hub
    config: ServerConfig
    create_limit: KeyedRateLimit
    #: HTTP actions and rematches, per client address.
    post_limit: KeyedRateLimit
    tasks: set[Any] = field(default_factory=set)

    @classmethod
    def build(cls, hub: Hub, cfg: ServerConfig) -> ServerState:
        # (the matches an address may store in an hour are the hub's: Hub.charge, whatever the door)
        return cls(hub, cfg, KeyedRateLimit(cfg.create_rate, cfg.create_burst),
                   KeyedRateLimit(cfg.rate, cfg.burst))

    def limit(self, request: Request, limiter: KeyedRateLimit, what: str) -> None:
        if not limiter.allow(address_of(request)):
            raise ProtocolError("rate_limited", f"too many {what}; wait a little")


async def server(request: Request) -> ServerState:
    """The dependency that gives a route its server (a coroutine: FastAPI would run a plain function in a
    worker thread, a thread hop on every request)."""
    state: ServerState = request.app.state.server
    return state


def address_of(request: Request | WebSocket) -> str:
    return address_key(request.client.host if request.client else None)


def json_response(doc: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(doc, status_code=status, headers={"cache-control": "no-store"})


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise ProtocolError("unauthorized", "use the header \"Authorization: Bearer <seat token>\"")
    return value.strip()


async def session_of(hub: Hub, match_id: str) -> Session:
    if not MATCH_ID_RE.match(match_id):
        raise ProtocolError("not_found", "no such match")
    session = await hub.matches.get(match_id)
    if session is None:
        raise ProtocolError("not_found", "no such match")
    return session


def seat_from(request: Request, session: Session, required: bool) -> int:
    """The seat whose token the request carries (-1: none, a spectator)."""
    token = bearer(request)
    if token is None:
        if required:
            raise ProtocolError("unauthorized", "this needs a seat token (Authorization: Bearer <token>)")
        return -1
    seat = seat_of(token, [s.token_hash for s in session.row.seats])
    if seat is None:
        raise ProtocolError("unauthorized", "the token does not hold a seat in this match")
    return seat
