"""The HTTP API's request and response bodies (Pydantic): FastAPI checks requests against them and
``/openapi.json`` documents them. What depends on the server (skillset and bot names, clock limits) is
checked by the hub, with the same error format."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr


class Body(BaseModel):
    """A request body: a JSON object with only the documented fields."""

    model_config = ConfigDict(extra="forbid")


class NewMatch(Body):
    """``POST /api/matches``: a new match against one of the server's bots or a friend."""

    opponent: Literal["bot", "friend"] = "bot"
    bot: StrictStr | None = Field(None, max_length=32, description="the bot level (default: the middle one)")
    playset: list[StrictStr] | StrictStr | None = Field(
        None, description='three skillset names, a set name, or "random" (the default)')
    seat: StrictInt | Literal["random"] | None = Field(0, description='the creator\'s seat: 0, 1 or "random"')
    clock: StrictInt | None = Field(None, description="seconds per player for the whole match, or none")


class MatchCreated(BaseModel):
    """The new match: the creator's seat and token, and the links to share."""

    match_id: str
    seat: int
    token: str = Field(description="the creator's seat token (keep it: it is the seat)")
    url: str
    invite_url: str | None = Field(description="the friend's seat link (a friend match)")
    watch_url: str


class ActionRequest(Body):
    """``POST /api/matches/{id}/actions``: one decision of the caller's seat."""

    action: StrictInt | StrictStr = Field(description="an action id, or its name in the action language")
    seq: StrictInt | None = Field(None, description="the number of actions the caller has seen (stale: refused)")


class HintsRequest(Body):
    """``POST /api/matches/{id}/hints``: allow hints in a friend match (both players must)."""

    allow: StrictBool


class NoBody(Body):
    """An empty JSON object (or no body at all)."""


class Rematch(BaseModel):
    match_id: str
    url: str


class ErrorDetail(BaseModel):
    code: str = Field(description="a stable code, e.g. malformed, not_found, stale, rate_limited")
    message: str = Field(description="what was wrong, for people")


class ErrorResponse(BaseModel):
    """Every error of every endpoint."""

    error: ErrorDetail


#: The error responses every API route may give (documented once, in /openapi.json).
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (400, 401, 404, 409, 413, 429, 503)}
