"""The match API: create a match, see it, act in it, ask for a hint, a rematch, its record, its replay and
its review.
A seat is named by its token in ``Authorization: Bearer <token>``; without one, a request sees what a
spectator sees."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse

from converge.server.api.deps import (
    Authorization,
    ClientAddress,
    LobbyService,
    PlayerCookie,
    Server,
    json_response,
    seat_from,
    session_of,
)
from converge.server.api.models import ERRORS, ActionRequest, HintsRequest, NewMatch, NoBody
from converge.server.protocol.answers import (
    ActionDone,
    MatchCreated,
    MatchFacts,
    MatchRecord,
    RematchLink,
    ReplayStep,
    ReviewState,
)
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.messages import HintResult, MatchView
from converge.server.protocol.parse import check_action, check_seq

router = APIRouter(prefix="/api/matches", tags=["matches"], responses=ERRORS)


@router.post("", status_code=201, response_model=MatchCreated)
async def create(new: NewMatch, srv: Server, lobby: LobbyService, address: ClientAddress,
                 cookie: PlayerCookie = None) -> JSONResponse:
    """A new match against one of the server's bots or a friend (whose seat link is ``invite_url``)."""
    srv.limit(address, srv.create_limit, "matches created")
    await lobby.players.refuse_banned_cookie(cookie)
    created = await srv.hub.matches.create(new.opponent, new.playset, new.bot, new.seat, new.clock,
                                           new.move_hours, payer=address)  # (settings refused: nothing charged)
    mid = created.session.id
    doc: MatchCreated = {
        "match_id": mid, "seat": created.seat, "token": created.token, "url": f"/m/{mid}#token={created.token}",
        "invite_url": f"/m/{mid}#token={created.invite_token}" if created.invite_token else None,
        "watch_url": f"/m/{mid}"}
    return json_response(doc, 201)


@router.get("/{match_id}", response_model=MatchView)
async def view(match_id: str, srv: Server, authorization: Authorization = None) -> JSONResponse:
    """The caller's view: its seat's observation (a spectator's without a token) and the match's facts."""
    session = await session_of(srv.hub, match_id)
    seat = seat_from(authorization, session, required=False)
    async with session.lock:
        doc: MatchView = session.views.match_view(seat)
    return json_response(doc)


@router.post("/{match_id}/actions", response_model=ActionDone)
async def act(match_id: str, body: ActionRequest, srv: Server, address: ClientAddress,
              authorization: Authorization = None) -> JSONResponse:
    """One decision of the caller's seat; ``seq`` guards against acting on an out-of-date view."""
    srv.limit(address, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat = seat_from(authorization, session, required=True)
    seq = await srv.hub.matches.act(session, seat, check_action(body.action), check_seq(body.seq))
    async with session.lock:
        views = session.views
        doc: ActionDone = {"seq": seq, "match": views.meta(), "observation": session.match.observation(seat),
                           "next": views.table(seat)["next"]}
    return json_response(doc)


@router.post("/{match_id}/hint", response_model=HintResult)
async def hint(match_id: str, srv: Server, address: ClientAddress, authorization: Authorization = None,
               _body: Annotated[NoBody | None, Body()] = None) -> JSONResponse:
    """The strong bot's options for the caller's decision, each with its estimated chance to win the round,
    worked out from the caller's view alone."""
    srv.limit(address, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat = seat_from(authorization, session, required=True)
    return json_response(await srv.hub.hints.hint(session, seat))


@router.post("/{match_id}/hints", response_model=MatchFacts)
async def allow_hints(match_id: str, body: HintsRequest, srv: Server, address: ClientAddress,
                      authorization: Authorization = None) -> JSONResponse:
    """Allow (or stop allowing) hints in a friend match: they are on once both players allow them."""
    srv.limit(address, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat = seat_from(authorization, session, required=True)
    await srv.hub.hints.allow(session, seat, body.allow)
    doc: MatchFacts = {"match": session.views.meta()}
    return json_response(doc)


@router.post("/{match_id}/rematch", response_model=RematchLink)
async def rematch(match_id: str, srv: Server, lobby: LobbyService, address: ClientAddress,
                  authorization: Authorization = None, cookie: PlayerCookie = None) -> JSONResponse:
    """The rematch of a finished match (same playset and seats; the loser starts)."""
    srv.limit(address, srv.post_limit, "requests")
    await lobby.players.refuse_banned_cookie(cookie)
    session = await session_of(srv.hub, match_id)
    seat_from(authorization, session, required=True)  # (a seat's: any of the two)
    new, _created = await srv.hub.matches.rematch(session, address)
    doc: RematchLink = {"match_id": new.id, "url": f"/m/{new.id}"}
    return json_response(doc)


@router.get("/{match_id}/record", response_model=MatchRecord)
async def record(match_id: str, srv: Server) -> JSONResponse:
    """The record of a finished match (refused while it is in progress: it holds the seed)."""
    return json_response(srv.hub.matches.record(await session_of(srv.hub, match_id)))


@router.get("/{match_id}/replay", response_model=ReplayStep)
async def replay(match_id: str, srv: Server, step: int = 0, view: int | None = None,
                 authorization: Authorization = None) -> JSONResponse:
    """The view of ``view`` (the caller's seat by default; -1: a spectator) after ``step`` actions of a
    finished match."""
    session = await session_of(srv.hub, match_id)
    seat = seat_from(authorization, session, required=False)
    viewer = seat if view is None else view
    if viewer not in (-1, 0, 1):
        raise ProtocolError("malformed", "view is 0, 1 or -1 (a spectator)")
    return json_response(srv.hub.matches.replay_step(session, step, viewer))


@router.post("/{match_id}/review", response_model=ReviewState)
async def request_review(match_id: str, srv: Server, address: ClientAddress, authorization: Authorization = None,
                         _body: Annotated[NoBody | None, Body()] = None) -> JSONResponse:
    """Ask for the review of the caller's decisions in a finished match: each judged by the hint from what the
    caller knew then. It is made once, in the background (poll ``GET`` until its status is ``done``)."""
    srv.limit(address, srv.post_limit, "requests")
    session = await session_of(srv.hub, match_id)
    seat = seat_from(authorization, session, required=True)
    return json_response(await srv.hub.reviews.request(session, seat))


@router.get("/{match_id}/review", response_model=ReviewState)
async def review(match_id: str, srv: Server, seat: int | None = None,
                 authorization: Authorization = None) -> JSONResponse:
    """The review of ``seat``'s decisions in a finished match (the caller's seat by default), or how far it
    is: a finished match's reviews are public, as its record is."""
    session = await session_of(srv.hub, match_id)
    own = seat_from(authorization, session, required=seat is None)
    return json_response(await srv.hub.reviews.state(session, own if seat is None else seat))
