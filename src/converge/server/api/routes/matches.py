"""The match API: create a match, see it, act in it, ask for a hint, a rematch, its record and its replay.
A seat is named by its token in ``Authorization: Bearer <token>``; without one, a request sees what a
spectator sees."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from converge.server.api.deps import ServerState, address_of, json_response, seat_from, server, session_of
from converge.server.api.models import ERRORS, ActionRequest, HintsRequest, MatchCreated, NewMatch, NoBody, Rematch
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.parse import check_action, check_seq

router = APIRouter(prefix="/api/matches", tags=["matches"], responses=ERRORS)
Server = Annotated[ServerState, Depends(server)]


@router.post("", status_code=201, response_model=MatchCreated)
async def create(new: NewMatch, request: Request, srv: Server) -> JSONResponse:
    """A new match against one of the server's bots or a friend (whose seat link is ``invite_url``)."""
    srv.limit(request, srv.create_limit, "matches created")
    hub = srv.hub
    created = await hub.matches.create(new.opponent, new.playset, new.bot, new.seat, new.clock,
                               payer=address_of(request))  # (settings refused: nothing charged)
    mid = created.session.id
    doc = MatchCreated(match_id=mid, seat=created.seat, token=created.token, url=f"/m/{mid}#token={created.token}",
                       invite_url=f"/m/{mid}#token={created.invite_token}" if created.invite_token else None,
                       watch_url=f"/m/{mid}")
    return json_response(doc.model_dump(), 201)


@router.get("/{match_id}")
async def view(match_id: str, request: Request, srv: Server) -> dict[str, Any]:
    """The caller's view: its seat's observation (a spectator's without a token) and the match's facts."""
    session = await session_of(srv.hub, match_id)
    seat = seat_from(request, session, required=False)
    async with session.lock:
        return {"seat": seat, "match": session.meta(), "seq": session.seq, "cards": session.catalog,
                "colors": session.colors, "observation": session.view(seat), **session.table(seat, welcome=True)}


@router.post("/{match_id}/actions")
async def act(match_id: str, body: ActionRequest, request: Request, srv: Server) -> dict[str, Any]:
    """One decision of the caller's seat; ``seq`` guards against acting on an out-of-date view."""
    srv.limit(request, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat = seat_from(request, session, required=True)
    seq = await srv.hub.matches.act(session, seat, check_action(body.action), check_seq(body.seq))
    async with session.lock:
        return {"seq": seq, "match": session.meta(), "observation": session.view(seat),
                "next": session.table(seat)["next"]}


@router.post("/{match_id}/hint")
async def hint(match_id: str, request: Request, srv: Server,
               _body: Annotated[NoBody | None, Body()] = None) -> dict[str, Any]:
    """The strong bot's options for the caller's decision, each with its estimated chance to win the round,
    worked out from the caller's view alone."""
    srv.limit(request, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat = seat_from(request, session, required=True)
    return dict(await srv.hub.hints.hint(session, seat))


@router.post("/{match_id}/hints")
async def allow_hints(match_id: str, body: HintsRequest, request: Request, srv: Server) -> dict[str, Any]:
    """Allow (or stop allowing) hints in a friend match: they are on once both players allow them."""
    srv.limit(request, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat = seat_from(request, session, required=True)
    await srv.hub.hints.allow(session, seat, body.allow)
    return {"match": session.meta()}


@router.post("/{match_id}/rematch", response_model=Rematch)
async def rematch(match_id: str, request: Request, srv: Server) -> dict[str, Any]:
    """The rematch of a finished match (same playset and seats; the loser starts)."""
    srv.limit(request, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat_from(request, session, required=True)  # (either seat may ask)
    new, _created = await srv.hub.matches.rematch(session, address_of(request))
    return {"match_id": new.id, "url": f"/m/{new.id}"}


@router.get("/{match_id}/record")
async def record(match_id: str, srv: Server) -> dict[str, Any]:
    """The record of a finished match (refused while it is in progress: it holds the seed)."""
    return dict(srv.hub.matches.record(await session_of(srv.hub, match_id)))


@router.get("/{match_id}/replay")
async def replay(match_id: str, request: Request, srv: Server, step: int = 0,
                 view: int | None = None) -> dict[str, Any]:
    """The view of ``view`` (the caller's seat by default; -1: a spectator) after ``step`` actions of a
    finished match."""
    session = await session_of(srv.hub, match_id)
    seat = seat_from(request, session, required=False)
    viewer = seat if view is None else view
    if viewer not in (-1, 0, 1):
        raise ProtocolError("malformed", "view is 0, 1 or -1 (a spectator)")
    return dict(srv.hub.matches.replay_step(session, step, viewer))
