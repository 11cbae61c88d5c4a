"""The pages: the browser client's one page (``/``, ``/m/{id}``, ``/tutorial``, ``/puzzles``, ``/puzzles/{id}``,
``/cards``, ``/leaderboard``, ``/history``, ``/tournaments``, ``/t/{id}``, ``/@/{name}``, ``/challenges``: the
client draws each), the rules rendered on the server (:mod:`converge.server.learning.rulebook`), the favicon. They
answer HEAD as well as GET (monitors, link checkers...)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from converge.server.learning import rulebook


def web_dir() -> Path:
    """The browser client's files (index.html, app.js, style.css), shipped in the package."""
    return Path(str(resources.files("converge").joinpath("web")))


router = APIRouter(include_in_schema=False)
STATIC = web_dir()
GET_HEAD = ["GET", "HEAD"]


def _client_page() -> FileResponse:
    return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})


def _html(text: str) -> HTMLResponse:
    return HTMLResponse(text, headers={"cache-control": "no-cache"})


@router.api_route("/", methods=GET_HEAD)
async def index() -> FileResponse:
    return _client_page()


@router.api_route("/m/{match_id}", methods=GET_HEAD)
async def match_page(match_id: str) -> FileResponse:
    return _client_page()


@router.api_route("/tournaments", methods=GET_HEAD)
async def tournaments_page() -> FileResponse:
    return _client_page()


@router.api_route("/challenges", methods=GET_HEAD)
async def challenges_page() -> FileResponse:
    """A player's challenges (the link of a challenge's mail)."""
    return _client_page()


@router.api_route("/t/{tournament_id}", methods=GET_HEAD)
async def tournament_page(tournament_id: str) -> FileResponse:
    return _client_page()


@router.api_route("/tutorial", methods=GET_HEAD)
async def tutorial_page() -> FileResponse:
    return _client_page()


@router.api_route("/puzzles", methods=GET_HEAD)
async def puzzles_page() -> FileResponse:
    """The next puzzle for the caller (``?theme=``: of that theme), and their puzzle dashboard."""
    return _client_page()


@router.api_route("/puzzles/{puzzle_id}", methods=GET_HEAD)
async def puzzle_page(puzzle_id: str) -> FileResponse:
    """One puzzle (the daily puzzle's link, a shared one)."""
    return _client_page()


@router.api_route("/cards", methods=GET_HEAD)
async def cards_page() -> FileResponse:
    """Every card the server plays (``?set=&keyword=&q=&decks=``: a filtered view, to link)."""
    return _client_page()


@router.api_route("/leaderboard", methods=GET_HEAD)
async def leaderboard_page() -> FileResponse:
    return _client_page()


@router.api_route("/history", methods=GET_HEAD)
async def history_page() -> FileResponse:
    return _client_page()


@router.api_route("/@/{name}", methods=GET_HEAD)
async def profile_page(name: str) -> FileResponse:
    """A player's profile (the page asks the API: a hidden one is not found there)."""
    return _client_page()


@router.api_route("/unsubscribe", methods=GET_HEAD)
async def unsubscribe_page() -> FileResponse:
    """Where the link at the end of a "your turn" mail leads (it says whom in the fragment)."""
    return _client_page()


@router.api_route("/signin", methods=GET_HEAD)
async def sign_in_page() -> FileResponse:
    """Where a mailed sign-in link leads (its token in the fragment)."""
    return _client_page()


@router.api_route("/rules", methods=GET_HEAD)
async def rules_page() -> HTMLResponse:
    return _html(rulebook.rules_page())


@router.api_route("/rules/developer", methods=GET_HEAD)
async def developer_rules_page() -> HTMLResponse:
    return _html(rulebook.developer_page())


@router.api_route("/favicon.ico", methods=GET_HEAD)
async def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")
