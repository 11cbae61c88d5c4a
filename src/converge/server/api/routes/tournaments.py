"""Tournaments (:mod:`converge.server.tournaments`)::

    GET    /api/tournaments                    the events: upcoming, running, finished
    POST   /api/tournaments                    host an event (a named player)
    GET    /api/tournaments/{id}[?link=]       an event: settings, standings, rounds, your match
    POST   /api/tournaments/{id}/join          {"link"} for a club's event
    POST   /api/tournaments/{id}/withdraw
    POST   /api/tournaments/{id}/break         a player of an arena: {"paused": true|false}
    POST   /api/tournaments/{id}/start         its host: now
    POST   /api/tournaments/{id}/pause         its host: {"paused": true|false}
    POST   /api/tournaments/{id}/cancel        its host
    POST   /api/tournaments/{id}/bots          its host, an unrated event: {"level", "count"}

A player plays their matches as any other: ``POST /api/matches/{match_id}/seat`` gives this device a key to
their seat."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from converge.server.api.deps import PlayerCookie, json_response, server
from converge.server.api.models import ERRORS, TournamentBots, TournamentIn, TournamentLink, TournamentPause
from converge.server.protocol.errors import ProtocolError
from converge.server.security.tokens import MATCH_ID_RE
from converge.server.tournaments.service import Tournaments

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"], responses=ERRORS)


async def tournaments(conn: HTTPConnection) -> Tournaments:
    found: Tournaments = (await server(conn)).tournaments
    return found


Events = Annotated[Tournaments, Depends(tournaments)]


def _checked(tournament_id: str) -> str:
    if not MATCH_ID_RE.match(tournament_id):
        raise ProtocolError("not_found", "no such event (a club's event is reached by its link)")
    return tournament_id


@router.get("")
async def listing(events: Events) -> JSONResponse:
    """The events open to all: upcoming, running and finished."""
    return json_response(await events.listing())


@router.post("", status_code=201)
async def create(body: TournamentIn, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    """Host an event; a club's (private) event's link is given once, here."""
    tid, link = await events.create(cookie, name=body.name, fmt=body.format, rounds=body.rounds,
                                    minutes=body.minutes, clock=body.clock, move_hours=body.move_hours,
                                    rated=body.rated, playset=body.playset, starts_at=body.starts_at,
                                    max_players=body.max_players, private=body.private)
    url = f"/t/{tid}" + (f"#link={link}" if link else "")
    return json_response({"id": tid, "url": url, "link": link}, 201)


@router.get("/{tournament_id}")
async def view(tournament_id: str, events: Events, link: Annotated[str | None, Query(max_length=64)] = None,
               cookie: PlayerCookie = None) -> JSONResponse:
    """An event: its settings, standings and rounds, and the caller's place in it."""
    return json_response(await events.view(cookie, _checked(tournament_id), link))


@router.post("/{tournament_id}/join")
async def join(tournament_id: str, events: Events, body: TournamentLink | None = None,
               cookie: PlayerCookie = None) -> JSONResponse:
    await events.join(cookie, _checked(tournament_id), None if body is None else body.link)
    return json_response({"joined": True})


@router.post("/{tournament_id}/withdraw")
async def withdraw(tournament_id: str, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    await events.withdraw(cookie, _checked(tournament_id))
    return json_response({"joined": False})


@router.post("/{tournament_id}/break")
async def take_break(tournament_id: str, body: TournamentPause, events: Events,
                     cookie: PlayerCookie = None) -> JSONResponse:
    """A player of an arena: ``{"paused": true}`` to be paired no more for now, false to come back."""
    await events.take_break(cookie, _checked(tournament_id), body.paused)
    return json_response({"paused": body.paused})


@router.post("/{tournament_id}/start")
async def start(tournament_id: str, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    await events.host_action(cookie, _checked(tournament_id), "start")
    return json_response({"status": "running"})


@router.post("/{tournament_id}/pause")
async def pause(tournament_id: str, body: TournamentPause, events: Events,
                cookie: PlayerCookie = None) -> JSONResponse:
    await events.host_action(cookie, _checked(tournament_id), "pause" if body.paused else "resume")
    return json_response({"status": "paused" if body.paused else "running"})


@router.post("/{tournament_id}/cancel")
async def cancel(tournament_id: str, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    await events.host_action(cookie, _checked(tournament_id), "cancel")
    return json_response({"status": "cancelled"})


@router.post("/{tournament_id}/bots")
async def bots(tournament_id: str, body: TournamentBots, events: Events,
               cookie: PlayerCookie = None) -> JSONResponse:
    await events.add_bots(cookie, _checked(tournament_id), body.level, body.count)
    return json_response({"added": body.count})
