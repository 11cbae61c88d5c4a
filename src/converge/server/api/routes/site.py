"""What the whole site offers: the options for a new match, the rules, the tutorial and the status."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from converge.server.api.deps import ServerState, server
from converge.server.api.models import ERRORS
from converge.server.learning import rulebook as rendered
from converge.server.learning import tutorial as tutorial_script

router = APIRouter(prefix="/api", tags=["site"], responses=ERRORS)
Server = Annotated[ServerState, Depends(server)]


@router.get("/options")
async def options(srv: Server) -> dict[str, Any]:
    """The bots, skillsets, sets and clock limits a new match may be created with."""
    return dict(srv.hub.catalog.options())


@router.get("/status")
async def status(srv: Server) -> dict[str, Any]:
    """This process's load (matches and connections held, its bots' queue and thinking times): for
    operators, and nothing about any match."""
    return dict(srv.hub.status())


@router.get("/rules")
async def rules() -> dict[str, Any]:
    """The rules for players: ``{"markdown", "html", "glossary"}``."""
    return rendered.rules_doc()


@router.get("/rules/developer")
async def developer_rules() -> dict[str, Any]:
    """The developer rulebook: every ruling, its code and its test."""
    return {"markdown": rendered.developer_rules(), "html": rendered.developer_html()}


@router.get("/tutorial")
async def tutorial() -> dict[str, Any]:
    """The tutorial's script."""
    return tutorial_script.script()
