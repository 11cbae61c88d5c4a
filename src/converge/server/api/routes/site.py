"""What the whole site offers: the options for a new match, the cards, the rules, the tutorial and the status."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from converge.server.api.deps import Server, json_response
from converge.server.api.models import ERRORS
from converge.server.learning import rulebook
from converge.server.learning import tutorial as tutorial_script
from converge.server.lobby.ratings import level_ratings
from converge.server.protocol.answers import CardGallery, DeveloperRules, Options, Rules, Status, Tutorial

router = APIRouter(prefix="/api", tags=["site"], responses=ERRORS)


@router.get("/options", response_model=Options)
async def options(srv: Server) -> JSONResponse:
    """The bots (the levels, with their ratings), skillsets, sets and clock limits a new match may be created
    with."""
    return json_response(srv.hub.catalog.options(level_ratings(srv.hub.live.bot_ratings)))


@router.get("/cards", response_model=CardGallery)
async def cards(srv: Server) -> JSONResponse:
    """Every card this server plays, as printed, by skillset: the built-in decks and those of its deck folders
    (``--deck-dir``, marked ``custom``); with the set names and effect keywords to filter them by."""
    return json_response(srv.hub.catalog.gallery())


@router.get("/status", response_model=Status)
async def status(srv: Server) -> JSONResponse:
    """This process's load (matches and connections held, its bots' queue and thinking times): for
    operators, and nothing about any match."""
    return json_response(srv.hub.status())


@router.get("/rules", response_model=Rules)
async def rules() -> JSONResponse:
    """The rules for players: ``{"markdown", "html", "glossary"}``."""
    return json_response(rulebook.rules_doc())


@router.get("/rules/developer", response_model=DeveloperRules)
async def developer_rules() -> JSONResponse:
    """The developer rulebook: every ruling, its code and its test."""
    doc: DeveloperRules = {"markdown": rulebook.developer_rules(), "html": rulebook.developer_html()}
    return json_response(doc)


@router.get("/tutorial", response_model=Tutorial)
async def tutorial() -> JSONResponse:
    """The tutorial's script."""
    return json_response(tutorial_script.script())
