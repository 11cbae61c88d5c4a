"""Friends and challenges (:mod:`converge.server.people`)::

    GET    /api/me/follows                 the players I follow: name, rating, online, matches to watch
    POST   /api/me/follows                 {"name"}: follow a named player
    DELETE /api/me/follows/{name}          unfollow
    PUT    /api/me/challenges              {"friends_only": bool}: take challenges from my friends only
    GET    /api/challenges                 my open challenges, both ways, and my answered ones
    POST   /api/challenges                 {"name", "playset", "clock" | "move_hours", "rated"}
    POST   /api/challenges/{id}/accept     the challenged: the match is made (then POST /api/matches/{id}/seat)
    POST   /api/challenges/{id}/decline    the challenged
    POST   /api/challenges/{id}/cancel     the challenger

Players are named, never identified: no answer holds a player's id."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from converge.server.api.deps import ClientAddress, PlayerCookie, json_response, server
from converge.server.api.models import ERRORS, ChallengeIn, FollowIn, FriendsOnlyIn
from converge.server.people.challenges import Challenges
from converge.server.people.follows import Follows
from converge.server.protocol.people_answers import (
    ChallengeAccepted,
    ChallengeAnswered,
    ChallengeList,
    ChallengeMade,
    Followed,
    FriendList,
    FriendsOnly,
)

router = APIRouter(tags=["people"], responses=ERRORS)


async def follows(conn: HTTPConnection) -> Follows:
    found: Follows = conn.app.state.follows
    return found


async def challenges(conn: HTTPConnection) -> Challenges:
    found: Challenges = conn.app.state.challenges
    return found


async def _limited(conn: HTTPConnection, address: str, cookie: str | None) -> None:
    """The address's budget of HTTP actions, as every other door that changes something pays, and the
    player's."""
    srv = await server(conn)
    await srv.limit_write(address, cookie)


FollowsDep = Annotated[Follows, Depends(follows)]
ChallengesDep = Annotated[Challenges, Depends(challenges)]
ChallengeId = Annotated[str, Path(max_length=64)]


@router.get("/api/me/follows", response_model=FriendList)
async def friends(people: FollowsDep, cookie: PlayerCookie = None) -> JSONResponse:
    """The players the caller follows, online ones first."""
    return json_response(await people.friends(cookie))


@router.post("/api/me/follows", response_model=Followed)
async def follow(body: FollowIn, people: FollowsDep, address: ClientAddress, conn: HTTPConnection,
                 cookie: PlayerCookie = None) -> JSONResponse:
    await _limited(conn, address, cookie)
    return json_response(await people.follow(cookie, body.name))


@router.delete("/api/me/follows/{name}", response_model=Followed)
async def unfollow(name: Annotated[str, Path(max_length=200)], people: FollowsDep, address: ClientAddress,
                   conn: HTTPConnection, cookie: PlayerCookie = None) -> JSONResponse:
    await _limited(conn, address, cookie)
    return json_response(await people.unfollow(cookie, name))


@router.put("/api/me/challenges", response_model=FriendsOnly)
async def friends_only(body: FriendsOnlyIn, found: ChallengesDep, address: ClientAddress, conn: HTTPConnection,
                       cookie: PlayerCookie = None) -> JSONResponse:
    """Take challenges only from the players I follow (true), or from anyone (false)."""
    await _limited(conn, address, cookie)
    await found.set_friends_only(cookie, body.friends_only)
    doc: FriendsOnly = {"friends_only": body.friends_only}
    return json_response(doc)


@router.get("/api/challenges", response_model=ChallengeList)
async def listing(found: ChallengesDep, cookie: PlayerCookie = None) -> JSONResponse:
    return json_response(await found.listing(cookie))


@router.post("/api/challenges", status_code=201, response_model=ChallengeMade)
async def create(body: ChallengeIn, found: ChallengesDep, address: ClientAddress,
                 cookie: PlayerCookie = None) -> JSONResponse:
    """Challenge a named player to a match (they are mailed if they asked for turn mails)."""
    made = await found.create(cookie, address, name=body.name, playset=body.playset, clock=body.clock,
                              move_hours=body.move_hours, rated=body.rated)
    doc: ChallengeMade = {"challenge": made}
    return json_response(doc, 201)


@router.post("/api/challenges/{challenge_id}/accept", response_model=ChallengeAccepted)
async def accept(challenge_id: ChallengeId, found: ChallengesDep, address: ClientAddress, conn: HTTPConnection,
                 cookie: PlayerCookie = None) -> JSONResponse:
    """The challenged player accepts: the match is made (paid from the accepter's address's match budget);
    each player takes a key to their seat with ``POST /api/matches/{match_id}/seat``."""
    await _limited(conn, address, cookie)
    return json_response(await found.accept(cookie, challenge_id, address))


@router.post("/api/challenges/{challenge_id}/decline", response_model=ChallengeAnswered)
async def decline(challenge_id: ChallengeId, found: ChallengesDep, address: ClientAddress, conn: HTTPConnection,
                  cookie: PlayerCookie = None) -> JSONResponse:
    await _limited(conn, address, cookie)
    await found.decline(cookie, challenge_id)
    doc: ChallengeAnswered = {"status": "declined"}
    return json_response(doc)


@router.post("/api/challenges/{challenge_id}/cancel", response_model=ChallengeAnswered)
async def cancel(challenge_id: ChallengeId, found: ChallengesDep, address: ClientAddress, conn: HTTPConnection,
                  cookie: PlayerCookie = None) -> JSONResponse:
    await _limited(conn, address, cookie)
    await found.cancel(cookie, challenge_id)
    doc: ChallengeAnswered = {"status": "cancelled"}
    return json_response(doc)
