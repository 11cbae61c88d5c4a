"""The hosts' API, what ``converge admin`` calls (:mod:`converge.server.moderation.service`), and the players'
reports. The hosts' routes answer only requests with ``Authorization: Bearer <admin_token>`` (``admin.token``,
best from ``CONVERGE_ADMIN_TOKEN``); without a token configured they are not served (404). They are not in the
public OpenAPI schema, and the nginx examples keep ``/api/admin/`` off the internet::

    GET  /api/admin/players?q=TEXT                  players by id, name, or part of a name
    POST /api/admin/players/{player}/rename         {"actor", "reason", "name"}   (player: an id or a name)
    POST /api/admin/players/{player}/ban            {"actor", "reason"}
    POST /api/admin/players/{player}/unban          {"actor", "reason"}
    POST /api/admin/players/{player}/export         {"actor", "reason"}: the player's archive (as "Download my
                                                    data" gives it them; the audit notes who took it, and why)
    POST /api/admin/mail-test                       {"to"}: a test mail through the server's mailer: sent, or
                                                    exactly what failed
    POST /api/admin/tables/{id}/close               {"actor", "reason"}
    POST /api/admin/matches/{id}/delete             {"actor", "reason"}
    GET  /api/admin/matches/{id}/chat               every chat line of a match (its players' and spectators')
    GET  /api/admin/reports[?all=true]              the players' reports, open ones unless all
    POST /api/admin/reports/{id}/close              {"actor", "reason"}
    GET  /api/admin/audit[?limit=100&target=ID]     every host action, newest first
    GET  /api/admin/tournaments                     every event, a club's too
    POST /api/admin/tournaments/{id}/{start|pause|resume|cancel}   {"actor", "reason"}

    POST /api/matches/{id}/report                   (a seat's token, and the player cookie) {"reason", "note"}
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from converge.server.accounts.mail_check import send_test_mail
from converge.server.accounts.service import AccountService
from converge.server.api.deps import (
    Authorization,
    LobbyService,
    PlayerCookie,
    Server,
    json_response,
    require_secret,
    seat_from,
    session_of,
)
from converge.server.api.models import ERRORS, HostAction, HostRename, MailTestIn, ReportIn
from converge.server.moderation.service import Moderation
from converge.server.protocol.answers import (
    Audit,
    FoundPlayers,
    HostActionDone,
    HostsEvents,
    MailTested,
    MatchChat,
    ReportMade,
    Reports,
)


async def host(request: Request, authorization: Authorization = None) -> Moderation:
    """The moderation of a request that carries the admin token (404 when none is configured, 401 without it)."""
    require_secret(request, authorization, request.app.state.config.admin_token, "admin token")
    moderation: Moderation = request.app.state.moderation
    return moderation


Host = Annotated[Moderation, Depends(host)]

router = APIRouter(prefix="/api/admin", include_in_schema=False)


def _done(doc: HostActionDone) -> JSONResponse:
    return json_response(doc)


@router.get("/players")
async def players(mod: Host, q: Annotated[str, Query(max_length=64)]) -> JSONResponse:
    doc: FoundPlayers = {"players": await mod.find(q)}
    return json_response(doc)


@router.post("/players/{ref}/rename")
async def rename(ref: str, body: HostRename, mod: Host) -> JSONResponse:
    return _done(await mod.rename(body.actor, ref, body.name, body.reason))


@router.post("/players/{ref}/ban")
async def ban(ref: str, body: HostAction, mod: Host) -> JSONResponse:
    return _done(await mod.ban(body.actor, ref, body.reason))


@router.post("/players/{ref}/unban")
async def unban(ref: str, body: HostAction, mod: Host) -> JSONResponse:
    return _done(await mod.unban(body.actor, ref, body.reason))


@router.post("/players/{ref}/export")
async def export(ref: str, body: HostAction, mod: Host) -> JSONResponse:
    return json_response(await mod.export(body.actor, ref, body.reason))


@router.post("/mail-test")
async def mail_test(body: MailTestIn, request: Request, _mod: Host) -> JSONResponse:
    accounts: AccountService = request.app.state.accounts
    doc: MailTested = await send_test_mail(accounts.mailer, body.to, request.app.state.config.public_url)
    return json_response(doc)


@router.post("/tables/{table_id}/close")
async def close_table(table_id: str, body: HostAction, mod: Host) -> JSONResponse:
    return _done(await mod.close_table(body.actor, table_id, body.reason))


@router.post("/matches/{match_id}/delete")
async def delete_match(match_id: str, body: HostAction, mod: Host) -> JSONResponse:
    return _done(await mod.delete_match(body.actor, match_id, body.reason))


@router.get("/matches/{match_id}/chat")
async def match_chat(match_id: str, mod: Host) -> JSONResponse:
    doc: MatchChat = {"match_id": match_id, "lines": await mod.chat(match_id)}
    return json_response(doc)


@router.get("/reports")
async def reports(mod: Host, all: bool = False) -> JSONResponse:
    doc: Reports = {"reports": await mod.reports(all)}
    return json_response(doc)


@router.post("/reports/{report_id}/close")
async def close_report(report_id: str, body: HostAction, mod: Host) -> JSONResponse:
    return _done(await mod.close_report(body.actor, report_id, body.reason))


@router.get("/audit")
async def audit(mod: Host, limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                target: Annotated[str | None, Query(max_length=64)] = None) -> JSONResponse:
    doc: Audit = {"entries": await mod.audit(limit, target)}
    return json_response(doc)


# ---------------------------------------------------------------------- the players' reports

reports_router = APIRouter(prefix="/api/matches", tags=["matches"], responses=ERRORS)


@reports_router.post("/{match_id}/report", response_model=ReportMade, status_code=201)
async def report(match_id: str, body: ReportIn, srv: Server, lobby: LobbyService, request: Request,
                 cookie: PlayerCookie = None, authorization: Authorization = None) -> JSONResponse:
    """Report the player at the other seat to the server's hosts: the caller holds a seat (its token) and is a
    player here (the cookie). At most 10 reports an hour; reporting the same seat again changes nothing."""
    reporter = await lobby.players.may_play(cookie)
    session = await session_of(srv.hub, match_id)
    seat = seat_from(authorization, session, required=True)
    moderation: Moderation = request.app.state.moderation
    made = await moderation.report(reporter, session.id, seat, body.reason, body.note)
    return json_response(made, 201 if made["new"] else 200)


@router.get("/tournaments")
async def tournaments(mod: Host) -> JSONResponse:
    doc: HostsEvents = {"tournaments": await mod.tournaments()}
    return json_response(doc)


@router.post("/tournaments/{tournament_id}/{what}")
async def tournament(tournament_id: str, what: Literal["start", "pause", "resume", "cancel"], body: HostAction,
                     mod: Host) -> JSONResponse:
    return _done(await mod.tournament(body.actor, tournament_id, what, body.reason))
