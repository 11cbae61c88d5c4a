"""Puzzles (:mod:`converge.server.puzzles`)::

    GET  /api/puzzles/next?theme=&skip=   the untried puzzle nearest my puzzle rating (of a theme)
    GET  /api/puzzles/daily               today's puzzle
    GET  /api/puzzles/themes              every theme and how many puzzles have it
    GET  /api/puzzles/dashboard           my puzzle rating, streaks, my themes, my latest attempts
    GET  /api/puzzles/{id}                one puzzle, as its mover saw it
    POST /api/puzzles/{id}/attempt        {"actions": [...]}: my steps so far, judged (rated once finished)
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from converge.server.api.deps import ClientAddress, PlayerCookie, Server, json_response
from converge.server.api.models import ERRORS, AttemptIn
from converge.server.protocol.puzzle_answers import AttemptAnswer, Dashboard, PuzzleShown, ThemeList
from converge.server.puzzles.service import Puzzles

router = APIRouter(tags=["puzzles"], responses=ERRORS)


async def puzzles(conn: HTTPConnection) -> Puzzles:
    found: Puzzles = conn.app.state.puzzles
    return found


PuzzlesDep = Annotated[Puzzles, Depends(puzzles)]
PuzzleId = Annotated[str, Path(max_length=16)]
Theme = Annotated[str | None, Query(max_length=40)]


@router.get("/api/puzzles/next", response_model=PuzzleShown)
async def next_puzzle(service: PuzzlesDep, theme: Theme = None, skip: Theme = None,
                      cookie: PlayerCookie = None) -> JSONResponse:
    """The untried puzzle nearest my puzzle rating, of ``theme`` if given (``skip``: not this one)."""
    return json_response(await service.next(cookie, theme, skip))


@router.get("/api/puzzles/daily", response_model=PuzzleShown)
async def daily_puzzle(service: PuzzlesDep, cookie: PlayerCookie = None) -> JSONResponse:
    """Today's puzzle (UTC), the same for everyone all day."""
    return json_response(await service.daily(cookie))


@router.get("/api/puzzles/themes", response_model=ThemeList)
async def puzzle_themes(service: PuzzlesDep) -> JSONResponse:
    """Every theme and how many puzzles have it."""
    return json_response(await service.themes())


@router.get("/api/puzzles/dashboard", response_model=Dashboard)
async def puzzle_dashboard(service: PuzzlesDep, cookie: PlayerCookie = None) -> JSONResponse:
    """My puzzle rating and streaks, my themes (the weakest first) and my latest rated attempts."""
    return json_response(await service.dashboard(cookie))


@router.get("/api/puzzles/{puzzle_id}", response_model=PuzzleShown)
async def show_puzzle(puzzle_id: PuzzleId, service: PuzzlesDep, cookie: PlayerCookie = None) -> JSONResponse:
    """One puzzle, as its mover saw it at the table."""
    return json_response(await service.show(cookie, puzzle_id))


@router.post("/api/puzzles/{puzzle_id}/attempt", response_model=AttemptAnswer)
async def attempt_puzzle(puzzle_id: PuzzleId, body: AttemptIn, srv: Server, service: PuzzlesDep,
                         address: ClientAddress, cookie: PlayerCookie = None) -> JSONResponse:
    """My steps so far, judged; once finished, my first attempt at the puzzle is rated."""
    srv.limit(address, srv.post_limit, "requests")  # (each step runs the exact solver: it pays as a move does)
    return json_response(await service.attempt(cookie, puzzle_id, body.actions))
