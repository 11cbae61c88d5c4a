"""What the HTTP API answers about people around the table (issue 42): a player's chat choices, profiles, friends
and challenges; declared as :mod:`.answers` declares the others (FastAPI reads them for ``/openapi.json``)."""

# (no `from __future__ import annotations`: pydantic reads the TypedDicts' annotations as they are)

from typing import Literal

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.server.protocol.answers import Played


class Muted(TypedDict):
    """A player one muted, as one sees them: a key to unmute them by, and their name (None: anonymous)."""

    key: str
    name: str | None


class ChatSettings(TypedDict):
    """``GET``/``PUT /api/me/chat``, ``POST``/``DELETE /api/me/mutes``: my chat's choices."""

    on: bool  #: typed chat shown to me and mine sent (off: the quick messages only)
    muted: list[Muted]


class RatingPoint(TypedDict):
    """A player's rating after one rated match."""

    at: float
    rating: int


class SkillsetRecord(TypedDict):
    """A player's finished matches with one skillset in the playset, and how many they won."""

    skillset: str
    played: int
    won: int


class EventEntered(TypedDict):
    """An event open to all that a player entered: its page is ``/t/{id}``."""

    id: str
    name: str
    status: Literal["upcoming", "running", "paused", "finished", "cancelled"]


class HeadToHead(TypedDict):
    """The caller's finished matches against the player of a profile: the caller's wins and losses, and the
    last few, as the caller's history shows them."""

    won: int
    lost: int
    matches: list[Played]


class Profile(TypedDict):
    """``GET /api/players/{name}``: a named player as anyone may see them (a hidden profile: its owner only)."""

    name: str
    rating: int
    rd: int
    provisional: bool
    games: int  #: rated matches finished
    member_since: float
    hidden: bool  #: the owner hid it: nobody else sees it
    own: bool  #: the caller is this player
    ratings: list[RatingPoint]  #: the rating after each rated match, oldest first (the last 1000)
    #: the last 20 finished matches found in public (a public table, quick match, event open to all) or played
    #: against a bot, newest first
    matches: list[Played]
    skillsets: list[SkillsetRecord]  #: those matches by skillset of their playset, the most played first
    tournaments: list[EventEntered]  #: the events open to all the player entered, the newest first
    head_to_head: HeadToHead | None  #: the caller against this player (None: the caller is them, or unnamed)


class ProfileSettings(TypedDict):
    """``PUT /api/me/profile``: whether the caller's profile is hidden now."""

    hidden: bool


class Watching(TypedDict):
    """A match in progress a friend plays: anyone may watch it at ``url``."""

    match_id: str
    url: str


class Friend(TypedDict):
    """A player the caller follows: their name, rating, whether they are online, what they play now."""

    name: str
    rating: int
    provisional: bool
    online: bool
    playing: list[Watching]
    profile: str


class FriendList(TypedDict):
    """``GET /api/me/follows``: the caller's friends, online ones first."""

    friends: list[Friend]


class Followed(TypedDict):
    """``POST /api/me/follows`` and ``DELETE /api/me/follows/{name}``."""

    name: str
    following: bool


class ChallengeView(TypedDict):
    """A challenge as its two players read it (by name; ``expires_at``: Unix time)."""

    id: str
    challenger: str
    challenged: str
    playset: list[str]
    clock: int | None
    move_hours: int | None
    rated: bool
    status: Literal["open", "accepted", "declined", "cancelled", "expired"]
    expires_at: float
    match_id: str | None
    url: str | None


class ChallengeList(TypedDict):
    """``GET /api/challenges``: the open challenges to the caller and from them; ``answered``: the caller's
    own challenges answered (or expired) lately, so that their page learns that one was accepted."""

    incoming: list[ChallengeView]
    outgoing: list[ChallengeView]
    answered: list[ChallengeView]
    #: whether the caller takes challenges from the players they follow only
    friends_only: bool


class ChallengeMade(TypedDict):
    """``POST /api/challenges``: the new challenge."""

    challenge: ChallengeView


class ChallengeAccepted(TypedDict):
    """``POST /api/challenges/{id}/accept``: the match made; each player takes a key to their seat with
    ``POST /api/matches/{match_id}/seat``."""

    match_id: str
    url: str


class ChallengeAnswered(TypedDict):
    """``POST /api/challenges/{id}/decline`` and ``/cancel``."""

    status: Literal["declined", "cancelled"]


class FriendsOnly(TypedDict):
    """``PUT /api/me/challenges``."""

    friends_only: bool
