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
from converge.server.protocol.answers import (
    BotsAdded,
    EventBreak,
    EventCreated,
    EventJoined,
    EventList,
    EventStatus,
    EventView,
)
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


@router.get("", response_model=EventList)
async def listing(events: Events) -> JSONResponse:
    """The events open to all: upcoming, running and finished."""
    return json_response(await events.listing())


@router.post("", status_code=201, response_model=EventCreated)
async def create(body: TournamentIn, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    """Host an event; a club's (private) event's link is given once, here."""
    tid, link = await events.create(cookie, name=body.name, fmt=body.format, rounds=body.rounds,
                                    minutes=body.minutes, clock=body.clock, move_hours=body.move_hours,
                                    rated=body.rated, playset=body.playset, starts_at=body.starts_at,
                                    max_players=body.max_players, private=body.private)
    doc: EventCreated = {"id": tid, "url": f"/t/{tid}" + (f"#link={link}" if link else ""), "link": link}
    return json_response(doc, 201)


@router.get("/{tournament_id}", response_model=EventView)
async def view(tournament_id: str, events: Events, link: Annotated[str | None, Query(max_length=64)] = None,
               cookie: PlayerCookie = None) -> JSONResponse:
    """An event: its settings, standings and rounds, and the caller's place in it."""
    return json_response(await events.view(cookie, _checked(tournament_id), link))


@router.post("/{tournament_id}/join", response_model=EventJoined)
async def join(tournament_id: str, events: Events, body: TournamentLink | None = None,
               cookie: PlayerCookie = None) -> JSONResponse:
    await events.join(cookie, _checked(tournament_id), None if body is None else body.link)
    doc: EventJoined = {"joined": True}
    return json_response(doc)


@router.post("/{tournament_id}/withdraw", response_model=EventJoined)
async def withdraw(tournament_id: str, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    await events.withdraw(cookie, _checked(tournament_id))
    doc: EventJoined = {"joined": False}
    return json_response(doc)


@router.post("/{tournament_id}/break", response_model=EventBreak)
async def take_break(tournament_id: str, body: TournamentPause, events: Events,
                     cookie: PlayerCookie = None) -> JSONResponse:
    """A player of an arena: ``{"paused": true}`` to be paired no more for now, false to come back."""
    await events.take_break(cookie, _checked(tournament_id), body.paused)
    doc: EventBreak = {"paused": body.paused}
    return json_response(doc)


@router.post("/{tournament_id}/start", response_model=EventStatus)
async def start(tournament_id: str, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    await events.host_action(cookie, _checked(tournament_id), "start")
    doc: EventStatus = {"status": "running"}
    return json_response(doc)


@router.post("/{tournament_id}/pause", response_model=EventStatus)
async def pause(tournament_id: str, body: TournamentPause, events: Events,
                cookie: PlayerCookie = None) -> JSONResponse:
    await events.host_action(cookie, _checked(tournament_id), "pause" if body.paused else "resume")
    doc: EventStatus = {"status": "paused" if body.paused else "running"}
    return json_response(doc)


@router.post("/{tournament_id}/cancel", response_model=EventStatus)
async def cancel(tournament_id: str, events: Events, cookie: PlayerCookie = None) -> JSONResponse:
    await events.host_action(cookie, _checked(tournament_id), "cancel")
    doc: EventStatus = {"status": "cancelled"}
    return json_response(doc)


@router.post("/{tournament_id}/bots", response_model=BotsAdded)
async def bots(tournament_id: str, body: TournamentBots, events: Events,
               cookie: PlayerCookie = None) -> JSONResponse:
    await events.add_bots(cookie, _checked(tournament_id), body.level, body.count)
    doc: BotsAdded = {"added": body.count}
    return json_response(doc)
