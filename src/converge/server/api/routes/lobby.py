"""The lobby's HTTP API (its WebSocket: :mod:`.lobby_ws`; its pages: :mod:`.pages`).

HTTP (JSON; the player is named by the ``converge_player`` cookie, see :mod:`converge.server.lobby.identity`)::

    GET    /api/me                        {"player": {"name", "rating", "rd", "games", "provisional"} | null,
                                           "tables": [my open tables]}
    PUT    /api/me                        {"name": "Ada" | null}: choose or change a name (null: anonymous);
                                          makes the caller a player (and sets the cookie) on first use
    GET    /api/me/history                my finished matches, newest first: opponent, result, rating change,
                                          clock, playset, replay link; filtered by the query parameters
                                          opponent (a name, or a bot's level), result (won|lost), rated
                                          (true|false), playset (a skillset the playset holds), since and
                                          until (Unix seconds, whole: finished at or after since, before until)
    GET    /api/players/{name}            a named player's profile (its name whatever its case; a hidden
                                          profile: 404 not_found, as a name nobody has, but to its owner)
    PUT    /api/me/profile                {"hidden": true|false}: hide my profile from everyone but me
    GET    /api/leaderboard               named players with a rated match, best first; the bots' ratings
    GET    /api/lobby                     {"tables": [...]}: the open public tables
    POST   /api/lobby/tables              {"playset", "clock", "move_hours", "seat", "private", "rated"} -> the
                                          host's {"table_id", "match_id", "seat", "token", "url", "invite_url"}
    DELETE /api/lobby/tables/{id}         close my open table
    POST   /api/lobby/tables/{id}/join    -> {"match_id", "seat", "token", "url"}: the match starts
    POST   /api/matches/{id}/players      (Authorization: Bearer <seat token>) record that I play that seat
                                          (a friend match reached by an invite link: my history lists it)

Errors are ``{"error": {"code", "message"}}`` as everywhere, with the statuses of
:data:`converge.server.protocol.errors.ERROR_STATUS` (the lobby's codes among them).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from converge.bots import bot_display_name
from converge.server.api.deps import (
    Accounts,
    Authorization,
    ClientAddress,
    LobbyService,
    PlayerCookie,
    Server,
    json_response,
)
from converge.server.api.models import ERRORS, NameIn, ProfileIn, TableIn
from converge.server.api.routes.accounts import me_doc, set_player_cookie
from converge.server.lobby.profiles import NAME_LOOKUP_MAX, TIME_MAX
from converge.server.lobby.ratings import level_ratings
from converge.server.protocol.answers import (
    BotRating,
    History,
    Leaderboard,
    Linked,
    LobbyTables,
    Me,
    Seated,
    TableClosed,
    TableOpened,
)
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.people_answers import Profile, ProfileSettings
from converge.server.security.tokens import MATCH_ID_RE, seat_of

router = APIRouter(tags=["lobby"], responses=ERRORS)


@router.get("/api/me", response_model=Me)
async def get_me(lobby: LobbyService, accounts: Accounts, cookie: PlayerCookie = None) -> JSONResponse:
    """The caller as a player (null: not one yet), and their open tables."""
    player = await lobby.players.player_of(cookie)
    return json_response(await me_doc(accounts, player, await lobby.players.open_tables(player) if player else []))


@router.put("/api/me", response_model=Me)
async def put_me(body: NameIn, request: Request, lobby: LobbyService, accounts: Accounts, address: ClientAddress,
                 cookie: PlayerCookie = None) -> JSONResponse:
    """Choose or change a name (null: anonymous); makes the caller a player (and sets the cookie) on first use."""
    player, fresh = await lobby.players.set_name(cookie, body.name, address)
    response = json_response(await me_doc(accounts, player))
    if fresh is not None:
        set_player_cookie(response, request, fresh)
    return response


OpponentName = Annotated[str | None, Query(min_length=1, max_length=NAME_LOOKUP_MAX,
                                      description="a player's name, or a bot's level")]
Result = Literal["won", "lost"] | None
Rated = Literal["true", "false"] | None
Skillset = Annotated[str | None, Query(min_length=1, max_length=32, description="a skillset the playset holds")]
Since = Annotated[int | None, Query(ge=0, le=TIME_MAX, description="finished at or after (Unix seconds)")]
Until = Annotated[int | None, Query(ge=0, le=TIME_MAX, description="finished before (Unix seconds)")]


@router.get("/api/me/history", response_model=History)
async def my_history(lobby: LobbyService, opponent: OpponentName = None, result: Result = None,
                     rated: Rated = None, playset: Skillset = None, since: Since = None, until: Until = None,
                     cookie: PlayerCookie = None) -> JSONResponse:
    """The caller's finished matches, newest first (the last 50 the filters keep): opponent, result, rating
    change, clock, playset, replay link."""
    player = await lobby.players.need_player(cookie)
    kept = await lobby.profiles.history_filter(opponent=opponent, result=result, rated=rated, playset=playset,
                                               since=since, until=until)
    doc: History = {"player": player.public(), "matches": await lobby.profiles.history(player, kept)}
    return json_response(doc)


@router.get("/api/players/{name}", response_model=Profile)
async def profile(name: str, lobby: LobbyService, cookie: PlayerCookie = None) -> JSONResponse:
    """A named player's profile: rating and its history, recent matches, skillsets, events, and the caller's
    matches against them. A hidden one is not found, but by its owner."""
    return json_response(await lobby.profiles.profile(name, cookie))


@router.put("/api/me/profile", response_model=ProfileSettings)
async def profile_settings(body: ProfileIn, lobby: LobbyService, srv: Server, address: ClientAddress,
                           cookie: PlayerCookie = None) -> JSONResponse:
    """Hide the caller's profile from everyone but them (false: show it again)."""
    await srv.limit_write(address, cookie)
    doc: ProfileSettings = {"hidden": await lobby.profiles.set_hidden(cookie, body.hidden)}
    return json_response(doc)


@router.get("/api/leaderboard", response_model=Leaderboard)
async def leaderboard(lobby: LobbyService) -> JSONResponse:
    """Named players with a rated match, best first; and the bots' fixed ratings."""
    bots: list[BotRating] = [{"name": b, "display": bot_display_name(b), "rating": r}
                             for b, r in level_ratings().items()]
    doc: Leaderboard = {"players": await lobby.players.leaderboard(), "bots": bots}
    return json_response(doc)


@router.get("/api/lobby", response_model=LobbyTables)
async def tables(lobby: LobbyService) -> JSONResponse:
    """The open public tables."""
    doc: LobbyTables = {"tables": await lobby.room.tables()}
    return json_response(doc)


@router.post("/api/lobby/tables", response_model=TableOpened, status_code=201)
async def open_table(body: TableIn, lobby: LobbyService, address: ClientAddress,
                     cookie: PlayerCookie = None) -> JSONResponse:
    """Open a table (private: a friend match at once, with an invite link); the host's seat and links."""
    player = await lobby.players.may_play(cookie)
    out = await lobby.tables.open(player, address, playset=body.playset, clock=body.clock, seat=body.seat,
                                  private=body.private, rated=body.rated, move_hours=body.move_hours)
    return json_response(out, 201)


@router.delete("/api/lobby/tables/{table_id}", response_model=TableClosed)
async def close_table(table_id: str, lobby: LobbyService, cookie: PlayerCookie = None) -> JSONResponse:
    """Close one of the caller's open tables."""
    player = await lobby.players.need_player(cookie)
    if not MATCH_ID_RE.match(table_id):
        raise ProtocolError("table_gone", "you have no open table with that id")
    await lobby.tables.close(player, table_id)
    doc: TableClosed = {"closed": table_id}
    return json_response(doc)


@router.post("/api/lobby/tables/{table_id}/join", response_model=Seated, status_code=201)
async def join_table(table_id: str, lobby: LobbyService, address: ClientAddress,
                     cookie: PlayerCookie = None) -> JSONResponse:
    """Take the other seat at an open table: the match starts now."""
    player = await lobby.players.may_play(cookie)
    if not MATCH_ID_RE.match(table_id):
        raise ProtocolError("table_gone", "no such table")
    ready = await lobby.tables.join(player, table_id, address)
    return json_response(ready.seated(), 201)


@router.post("/api/matches/{match_id}/players", response_model=Linked)
async def link_seat(match_id: str, srv: Server, lobby: LobbyService, cookie: PlayerCookie = None,
                    authorization: Authorization = None) -> JSONResponse:
    """Record that the caller plays the seat whose token they hold (their history lists the match)."""
    player = await lobby.players.may_play(cookie)
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ProtocolError("unauthorized", "this needs a seat token (Authorization: Bearer <token>)")
    session = await srv.hub.live.get(match_id) if MATCH_ID_RE.match(match_id) else None
    if session is None:
        raise ProtocolError("not_found", "no such match")
    seat = seat_of(token.strip(), session.row.seat_hashes())
    if seat is None:
        raise ProtocolError("unauthorized", "the token does not hold a seat in this match")
    doc: Linked = {"linked": await lobby.seating.claim_seat(player, session, seat)}
    return json_response(doc)
