"""Accounts: signing in on any device by an emailed link (:mod:`converge.server.accounts`)::

    POST   /api/auth/email                {"email"}: mail a sign-in link -> {"sent", "minutes"}
    POST   /api/auth/verify               {"token", "leave"?} (from the link's #token=): sign this browser in
                                          to the link's player -> me (409 would_leave: the browser's own
                                          player, with no address, would be left behind; "leave": true does)
    POST   /api/auth/signout              sign this browser out (it must be signed in with an address)
    POST   /api/auth/signout-everywhere   sign every device of mine out, of the lobby and of my matches
    DELETE /api/me                        delete my account: my address, names and devices
    GET    /api/me/export                 my archive: every row of the database that names me, and my view of
                                          each match I play in progress ("Download my data")
    PUT    /api/me/mails                  {"turn_mails": true|false}: mail me when it is my turn (turn-based)
    POST   /api/unsubscribe               {"player", "token"} (from a mail's link): no more "your turn" mails
    GET    /api/me/matches                the matches in progress I play -> {"matches": [{"match_id", "seat"}]}
    POST   /api/matches/{id}/seat         a key to the seat I play there, for this device -> {"match_id",
                                          "seat", "token", "url"} (my seat on a device I signed in on)

The page a link opens is ``/signin``; it reads the token from the fragment, which browsers never send.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from converge.server.accounts.archive import archive, archive_name
from converge.server.accounts.service import AccountService
from converge.server.api.deps import (
    Accounts,
    ClientAddress,
    LobbyService,
    PlayerCookie,
    Server,
    json_response,
    session_of,
)
from converge.server.api.models import ERRORS, EmailIn, MailSettings, SignInToken, Unsubscribe
from converge.server.lobby.identity import COOKIE, COOKIE_MAX_AGE
from converge.server.protocol.answers import (
    Me,
    MyMatches,
    MyTable,
    Seated,
    SignInMailed,
    Unsubscribed,
)
from converge.server.protocol.archive_answers import PlayerArchive
from converge.server.storage import lobby_store as store

router = APIRouter(tags=["accounts"], responses=ERRORS)


def set_player_cookie(response: JSONResponse, request: Request, token: str) -> None:
    """The player cookie (:mod:`converge.server.lobby.identity`) holding ``token``."""
    response.set_cookie(COOKIE, token, max_age=COOKIE_MAX_AGE, path="/", httponly=True, samesite="lax",
                        secure=request.url.scheme == "https")


async def me_doc(accounts: AccountService, player: store.Player | None, tables: list[MyTable] | None = None) -> Me:
    """The caller as a player (None: not one yet), with their open tables, address and mail setting."""
    return {"player": player.public() if player else None, "tables": tables or [],
            "email": await accounts.links.email_of(player), "turn_mails": await accounts.links.turn_mails(player)}


def _signed_out() -> JSONResponse:
    doc: Me = {"player": None, "tables": [], "email": None, "turn_mails": False}
    response = json_response(doc)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.post("/api/auth/email", response_model=SignInMailed)
async def mail_link(body: EmailIn, request: Request, accounts: Accounts, address: ClientAddress,
                    cookie: PlayerCookie = None) -> JSONResponse:
    """Mail a sign-in link to the address (whether or not it has an account here: the answer is the same). For
    an address new here, the link signs the browser it is opened in to the caller's player."""
    minutes = await accounts.links.request(body.email, address, str(request.base_url), cookie)
    doc: SignInMailed = {"sent": True, "minutes": minutes}
    return json_response(doc)


@router.post("/api/auth/verify", response_model=Me)
async def verify(body: SignInToken, request: Request, lobby: LobbyService, accounts: Accounts,
                 cookie: PlayerCookie = None) -> JSONResponse:
    """Spend a sign-in link's token: this browser is signed in to the link's player from now on — the
    address's, or for an address new here, the player of the browser that asked."""
    player, token = await accounts.links.verify(body.token, cookie, body.leave)
    response = json_response(await me_doc(accounts, player, await lobby.players.open_tables(player)))
    if token is not None:
        set_player_cookie(response, request, token)
    return response


@router.post("/api/auth/signout", response_model=Me)
async def sign_out(accounts: Accounts, cookie: PlayerCookie = None) -> JSONResponse:
    """Sign this browser out: it plays anonymously again until it signs in."""
    await accounts.links.sign_out(cookie)
    return _signed_out()


@router.post("/api/auth/signout-everywhere", response_model=Me)
async def sign_out_everywhere(accounts: Accounts, cookie: PlayerCookie = None) -> JSONResponse:
    """Sign every device of the caller out (each signs in again by an emailed link): no device holds their seats
    in their matches, nor their open tables, until it signs in again."""
    await accounts.sign_out_everywhere(cookie)
    return _signed_out()


@router.delete("/api/me", response_model=Me)
async def delete_me(accounts: Accounts, cookie: PlayerCookie = None) -> JSONResponse:
    """Delete the caller's account: their address, name and names before, and devices. Their finished matches
    stay in their opponents' histories, played by "Anonymous"."""
    await accounts.links.delete(cookie)
    return _signed_out()


@router.get("/api/me/export", response_model=PlayerArchive)
async def export_me(srv: Server, lobby: LobbyService, address: ClientAddress,
                    cookie: PlayerCookie = None) -> JSONResponse:
    """A copy of everything the server holds about the caller: every row of its database that names them (other
    players' ids, secrets and what a match in progress hides left out, as its ``about`` says) and their view of
    each match they play in progress. A banned player may have theirs too. At most 3 at once, then one every
    10 minutes."""
    srv.limit(address, srv.post_limit, "requests")
    player = await lobby.players.need_player(cookie)
    srv.limit(player.id, srv.exports, "copies of your data asked for")
    doc = await archive(srv.hub, player.id)
    response = json_response(doc)
    response.headers["content-disposition"] = f'attachment; filename="{archive_name(player.name, player.id)}"'
    return response


@router.post("/api/matches/{match_id}/seat", response_model=Seated)
async def seat_key(match_id: str, srv: Server, lobby: LobbyService, address: ClientAddress,
                   cookie: PlayerCookie = None) -> JSONResponse:
    """A key to the caller's seat in a match, for this browser: a player signed in on a second device plays
    their matches there too. Refused unless the caller plays a seat of the match."""
    srv.limit(address, srv.post_limit, "requests")
    player = await lobby.players.may_play(cookie)
    session = await session_of(srv.hub, match_id)
    doc: Seated = (await lobby.seating.device_key(player, session)).seated()
    return json_response(doc)


@router.get("/api/me/matches", response_model=MyMatches)
async def my_matches(lobby: LobbyService, cookie: PlayerCookie = None) -> JSONResponse:
    """The matches in progress the caller plays (from any device), newest first."""
    player = await lobby.players.need_player(cookie)
    found = await asyncio.to_thread(store.in_progress, lobby.players.engine, player.id)
    doc: MyMatches = {"matches": [{"match_id": mid, "seat": seat} for mid, seat in found]}
    return json_response(doc)


@router.put("/api/me/mails", response_model=Me)
async def mail_settings(body: MailSettings, lobby: LobbyService, accounts: Accounts,
                        cookie: PlayerCookie = None) -> JSONResponse:
    """Mail me when it is my turn in a turn-based match (at most one mail per match per turn; a digest when
    several are waiting). Needs a mail address."""
    await accounts.links.set_turn_mails(cookie, body.turn_mails)
    player = await lobby.players.need_player(cookie)
    return json_response(await me_doc(accounts, player, await lobby.players.open_tables(player)))


@router.post("/api/unsubscribe", response_model=Unsubscribed)
async def unsubscribe(body: Unsubscribe, accounts: Accounts) -> JSONResponse:
    """No more "your turn" mails for the player of a mail's link (no sign-in needed: the link is signed)."""
    await accounts.turn_mails.unsubscribe(body.player, body.token)
    doc: Unsubscribed = {"turn_mails": False}
    return json_response(doc)
