"""The HTTP API's request bodies (Pydantic: FastAPI checks requests against them, and ``/openapi.json``
documents them), and the error responses every route may give. What depends on the server (skillset and bot
names, clock limits) is checked by the hub, with the same error format. The answers' types are the messages
of :mod:`converge.server.protocol.messages`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from converge.server.protocol.errors import ErrorResponse


class Body(BaseModel):
    """A request body: a JSON object with only the documented fields."""

    model_config = ConfigDict(extra="forbid")


class Strict(BaseModel):
    """A request body of the lobby: only the documented fields, each of exactly its JSON type."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NewMatch(Body):
    """``POST /api/matches``: a new match against one of the server's bots or a friend."""

    opponent: Literal["bot", "friend"] = "bot"
    bot: StrictStr | None = Field(None, max_length=32, description="the bot level (default: the middle one)")
    playset: list[StrictStr] | StrictStr | None = Field(
        None, description='three skillset names, a set name, or "random" (the default)')
    seat: StrictInt | Literal["random"] | None = Field(0, description='the creator\'s seat: 0, 1 or "random"')
    clock: StrictInt | None = Field(None, description="seconds per player for the whole match, or none")
    move_hours: StrictInt | None = Field(None, description="a turn-based friend match: hours per move, or none")


class ActionRequest(Body):
    """``POST /api/matches/{id}/actions``: one decision of the caller's seat."""

    action: StrictInt | StrictStr = Field(description="an action id, or its name in the action language")
    seq: StrictInt | None = Field(None, description="the number of actions the caller has seen (stale: refused)")


class HintsRequest(Body):
    """``POST /api/matches/{id}/hints``: allow hints in a friend match (both players must)."""

    allow: StrictBool


class NoBody(Body):
    """An empty JSON object (or no body at all)."""


class NameIn(Strict):
    """``PUT /api/me``: the caller's name (null: anonymous)."""

    name: Annotated[StrictStr, Field(max_length=200)] | None


Name32 = Annotated[StrictStr, Field(max_length=32)]


class EmailIn(Strict):
    """``POST /api/auth/email``: mail me a sign-in link."""

    email: Annotated[StrictStr, Field(max_length=320)]


class MailSettings(Strict):
    """``PUT /api/me/mails``: mail me when it is my turn in a turn-based match (a player with an address)."""

    turn_mails: StrictBool


class ChatSetting(Strict):
    """``PUT /api/me/chat``: typed chat on or off for me (the quick messages stay)."""

    on: StrictBool


class MuteIn(Strict):
    """``POST /api/me/mutes``: mute the sender of a chat line (its ``id``, as the line came)."""

    line: Annotated[StrictInt, Field(ge=1, le=2**62)]


class Unsubscribe(Strict):
    """``POST /api/unsubscribe``: the two parts of the link at the end of a "your turn" mail."""

    player: Annotated[StrictStr, Field(max_length=64)]
    token: Annotated[StrictStr, Field(max_length=128)]


class SignInToken(Strict):
    """``POST /api/auth/verify``: the token of a sign-in link (from its ``#token=`` fragment); ``leave``: sign in
    even though the browser's own player, who has no address, would be left behind (``would_leave``)."""

    token: Annotated[StrictStr, Field(max_length=200)]
    leave: StrictBool = False


class ReportIn(Strict):
    """``POST /api/matches/{id}/report``: why the caller reports the player at the other seat (one of
    ``converge.server.moderation.REPORT_REASONS``), with a note for the hosts."""

    reason: Annotated[StrictStr, Field(max_length=16)]
    note: Annotated[StrictStr, Field(max_length=2000)] | None = None


class HostAction(Strict):
    """A host action of ``converge admin``: who does it (as they say) and why; both kept in the audit."""

    actor: Annotated[StrictStr, Field(max_length=200)]
    reason: Annotated[StrictStr, Field(max_length=2000)]


class MailTestIn(Strict):
    """``converge admin mail-test``: the address the test mail goes to."""

    to: Annotated[StrictStr, Field(max_length=300)]


class HostRename(HostAction):
    """A host's rename: the new name (null: anonymous)."""

    name: Annotated[StrictStr, Field(max_length=200)] | None


class TableIn(Strict):
    """``POST /api/lobby/tables``: a table to open."""

    playset: list[Name32] | Name32 | None = "random"
    clock: StrictInt | None = None
    move_hours: StrictInt | None = None
    seat: Literal[0, 1, "random"] = "random"
    private: StrictBool = False
    rated: StrictBool = True


class ProfileIn(Strict):
    """``PUT /api/me/profile``: hide my profile from everyone but me (false: show it)."""

    hidden: StrictBool


class TournamentIn(Strict):
    """``POST /api/tournaments``: an event to host."""

    name: Annotated[StrictStr, Field(max_length=200)]
    format: Literal["swiss", "arena", "round_robin"]
    rounds: StrictInt | None = Field(None, description="a Swiss's rounds")
    minutes: StrictInt | None = Field(None, description="an arena's length")
    clock: StrictInt | None = Field(None, description="seconds per player for each match")
    move_hours: StrictInt | None = Field(None, description="or hours per move (turn-based)")
    rated: StrictBool = True
    playset: list[Name32] | Name32 = Field("sets", description='three skillsets, a set name, or drawn each '
                                                               'round from the sets ("sets") or all ("all")')
    starts_at: float | None = Field(None, description="when it starts (Unix time); none: when its host starts it")
    max_players: StrictInt = 64
    private: StrictBool = Field(False, description="a club's event: joined by its link only")


class TournamentLink(Strict):
    """The link token of a club's event, where one is needed."""

    link: Annotated[StrictStr, Field(max_length=64)] | None = None


class TournamentPause(Strict):
    """``POST /api/tournaments/{id}/pause`` (its host: the event) or ``/break`` (a player of an arena: their
    own pairings): pause, or go on."""

    paused: StrictBool


class TournamentBots(Strict):
    """``POST /api/tournaments/{id}/bots``: bots as entrants of an unrated event."""

    level: Name32
    count: StrictInt = 1


#: The error responses every API route may give (documented once, in /openapi.json).
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (400, 401, 404, 409, 413, 429, 503)}


class FollowIn(Strict):
    """``POST /api/me/follows``: the named player to follow."""

    name: Annotated[StrictStr, Field(max_length=200)]


class ChallengeIn(Strict):
    """``POST /api/challenges``: the named player to challenge, and the match proposed."""

    name: Annotated[StrictStr, Field(max_length=200)]
    playset: list[Name32] | Name32 | None = Field(None, description='three skillsets, a set name or "random"')
    clock: StrictInt | None = Field(None, description="seconds per player for the whole match, or none")
    move_hours: StrictInt | None = Field(None, description="or hours per move (turn-based)")
    rated: StrictBool = False


class FriendsOnlyIn(Strict):
    """``PUT /api/me/challenges``: take challenges from the players I follow only, or from anyone."""

    friends_only: StrictBool


class AttemptIn(Strict):
    """``POST /api/puzzles/{id}/attempt``: every step of the mover's so far, from the puzzle's start."""

    actions: Annotated[list[Annotated[StrictInt, Field(ge=0, le=255)]], Field(max_length=40)]
