"""What the HTTP API answers, each declared once, as a TypedDict: FastAPI writes each route's answer's schema
into ``/openapi.json`` from these (``response_model``), and the routes build their answers as they say (mypy
checks it). An error's body is :class:`~converge.server.protocol.errors.ErrorResponse`; the parts shared with
the WebSockets' messages (a match's facts, an end of turn, a player...) are :mod:`.messages`'."""

# (no `from __future__ import annotations`: pydantic reads the TypedDicts' annotations as they are)

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.bots.review import ReviewDoc
from converge.engine.schema import Observation, PrintedCard
from converge.server.protocol.messages import (
    ClockInfo,
    FollowUps,
    MatchMeta,
    OpenTable,
    PlayerInfo,
    Result,
    TurnSummary,
)


class MatchCreated(TypedDict):
    """``POST /api/matches``: the creator's seat and token (keep it: it is the seat), the links to share."""

    match_id: str
    seat: int
    token: str
    url: str
    invite_url: str | None  #: the friend's seat link (a friend match)
    watch_url: str


class ActionDone(TypedDict):
    """``POST /api/matches/{id}/actions``: the caller's view after its action."""

    seq: int
    match: MatchMeta
    observation: Observation
    next: FollowUps


class MatchFacts(TypedDict):
    match: MatchMeta


class RematchLink(TypedDict):
    match_id: str
    url: str


class MatchRecord(TypedDict):
    """A finished match's record (the engine's record format) and its result."""

    format: Literal["converge-record"]
    version: int
    playset: list[str]
    seed: int
    start: str
    decks: str
    chance: bool
    actions: list[int]
    result: Result


class ReplayMove(TypedDict):
    player: int
    action: str


class ReplayStep(TypedDict):
    """``viewer``'s view after the first ``step`` of the ``total`` actions of a finished match."""

    step: int
    total: int
    move: ReplayMove | None  #: the step's action, by whom
    observation: Observation
    clock: ClockInfo | None
    turns: list[TurnSummary]
    rounds: list[TurnSummary]


class ReviewState(TypedDict):
    """``/api/matches/{id}/review``: a seat's review of a finished match — stored (``done``), being made
    (``running``), not asked for (``none``), or its making failed (``failed``: ask again)."""

    status: Literal["none", "running", "done", "failed"]
    seat: int
    review: ReviewDoc | None  #: once done


class SkillsetInfo(TypedDict):
    key: str
    name: str
    set: str
    keyword: str
    color: str


class GallerySkillset(SkillsetInfo):
    """A skillset of the server's catalogue with its six cards as printed."""

    custom: bool  #: a deck of the server's deck folders (``--deck-dir``), not one of the built-in decks
    cards: list[PrintedCard]  #: by rank


class CardGallery(TypedDict):
    """``GET /api/cards``: every card the server plays, by skillset (the built-in decks first, in their order,
    then the deck folders' by name), and the names to filter them by."""

    skillsets: list[GallerySkillset]
    sets: list[str]  #: the skillsets' set names, each once, in the skillsets' order (a deck may name none)
    keywords: list[str]  #: the cards' effect keywords, each once, in the skillsets' order


class ClockLimits(TypedDict):
    min_s: int
    max_s: int


class MoveLimits(TypedDict):
    min: int  #: hours
    max: int
    vacation_days: float  #: each player's vacation in a turn-based match


class Options(TypedDict):
    """``GET /api/options``: what a new match may be created with."""

    bots: list[str]  #: the levels, weakest first (the algorithms behind them are accepted, not offered)
    bot_names: dict[str, str]  #: each bot as players read it ("Hard bot"), the algorithms' too
    bot_ratings: dict[str, int | None]  #: each level's fixed rating; None: never measured (expert)
    default_bot: str
    skillsets: list[SkillsetInfo]
    sets: dict[str, list[str]]
    clock: ClockLimits
    move_hours: MoveLimits  #: a turn-based match's time per move
    replace_after_s: float | None


class Percentiles(TypedDict):
    p50: float
    p99: float
    max: float


class BotStats(TypedDict):
    workers: int
    pending: int
    full: bool
    decisions: int
    missed: int
    budget_ms: float
    think_ms: Percentiles
    wait_ms: Percentiles


class Status(TypedDict):
    """``GET /api/status``: this process's load, for operators (nothing about any match)."""

    matches_held: int
    matches_owned: int
    connections: int
    coordinated: bool
    database: str
    bots: BotStats


class GlossaryEntry(TypedDict):
    keyword: str
    text: str
    anchor: str


class Rules(TypedDict):
    """``GET /api/rules``: the rules for players as Markdown and HTML, and the glossary."""

    markdown: str
    html: str
    glossary: list[GlossaryEntry]


class DeveloperRules(TypedDict):
    markdown: str
    html: str


class TutorialState(TypedDict):
    seq: int
    observation: Observation
    next: FollowUps
    turns: NotRequired[list[TurnSummary]]


class TutorialStep(TypedDict):
    text: str
    player: int
    expect: int | None  #: the action the player must take (None: the opponent's move, or a pause)
    state: TutorialState | None


class Tutorial(TypedDict):
    """``GET /api/tutorial``: the tutorial's script, as the page plays it."""

    cards: list[PrintedCard]
    colors: dict[str, str]
    seat: int
    start: TutorialState
    steps: list[TutorialStep]


class MyTable(TypedDict):
    id: str
    status: str
    private: bool


class Me(TypedDict):
    """``GET`` and ``PUT /api/me``: the caller as a player (None: not one yet) and their open tables."""

    player: PlayerInfo | None
    tables: list[MyTable]
    email: str | None  #: the address the caller signs in with (None: this browser only)
    turn_mails: bool  #: the caller is mailed when it is their turn in a turn-based match


class Unsubscribed(TypedDict):
    """``POST /api/unsubscribe``: the player of the link gets no more "your turn" mails."""

    turn_mails: bool


class SignInMailed(TypedDict):
    """``POST /api/auth/email``: a sign-in link is on its way to the address (the same answer for any address)."""

    sent: bool
    minutes: int  #: how long the link works


class TableOpened(TypedDict):
    """``POST /api/lobby/tables``: the host's seat, token and links."""

    table_id: str
    match_id: str
    seat: int
    token: str
    url: str
    invite_url: str | None
    private: bool
    rated: bool


class TableClosed(TypedDict):
    closed: str


class MySeat(TypedDict):
    match_id: str
    seat: int


class MyMatches(TypedDict):
    """``GET /api/me/matches``: the matches in progress the caller plays, newest first."""

    matches: list[MySeat]


class Seated(TypedDict):
    """A match made for the caller (a table joined): their seat and token."""

    match_id: str
    seat: int
    token: str
    url: str


class LobbyTables(TypedDict):
    tables: list[OpenTable]


class Ranked(TypedDict):
    rank: int
    name: str
    rating: int
    rd: int
    games: int
    provisional: bool


class BotRating(TypedDict):
    name: str  #: the level
    display: str  #: as players read it ("Hard bot")
    rating: int | None  #: None: never measured (no match against it is rated)


class Leaderboard(TypedDict):
    players: list[Ranked]
    bots: list[BotRating]


class Opponent(TypedDict):
    kind: Literal["human", "bot"]
    name: str | None  #: a player's name (None: anonymous), or a bot's level
    display: str  #: as players read it: the name, "Anonymous", or the bot's ("Hard bot")


class EventLink(TypedDict):
    """The tournament a match was played for: its page is ``/t/{id}``."""

    id: str
    name: str


class Played(TypedDict):
    """A finished match in a player's history."""

    match_id: str
    finished_at: float
    seat: int
    playset: list[str]
    opponent: Opponent
    result: Literal["won", "lost"]
    reason: str | None
    rated: bool
    kind: str
    rating_before: int | None
    rating_after: int | None
    rating_change: int | None
    replay_url: str
    event: EventLink | None  #: the tournament it was played for, if any
    clock_s: int | None  #: each player's time for the whole match (None: no clock, or turn-based)
    move_hours: int | None  #: a turn-based match's time per move


class History(TypedDict):
    """``GET /api/me/history``: the caller's finished matches, newest first (those the filters asked for)."""

    player: PlayerInfo
    matches: list[Played]


class Linked(TypedDict):
    linked: bool


# ---------------------------------------------------------------------- moderation (the hosts' API and reports)


class ReportMade(TypedDict):
    """``POST /api/reports``: the report was stored for the hosts (``new`` false: this reporter had already
    reported that seat of that match; nothing more was stored)."""

    reported: bool
    new: bool


class FoundPlayer(TypedDict):
    """A player as the hosts see them (``GET /api/admin/players``)."""

    id: str
    name: str | None
    rating: int
    games: int
    created_at: float
    signed_in: bool  #: has a sign-in address (never shown: only whether there is one)
    banned: bool
    ban_reason: str | None
    banned_at: float | None
    open_reports: int


class FoundPlayers(TypedDict):
    players: list[FoundPlayer]


class ReportPerson(TypedDict):
    id: str
    name: str | None  #: their name now (None: anonymous)


class ReportedPerson(ReportPerson):
    name_in_match: str | None  #: the name the match showed
    banned: bool


class ChatRecord(TypedDict):
    """A chat line as the hosts read it: who said it (their id and the name they had), where and when."""

    id: int
    at: float
    room: str  #: "players", "spectators" or "lobby"
    player: str  #: the sender's id
    name: str | None
    text: str
    quick: str | None


class MatchChat(TypedDict):
    """``GET /api/admin/matches/{id}/chat``: every line of a match, its players' and its spectators'."""

    match_id: str
    lines: list[ChatRecord]


class ReportEntry(TypedDict):
    """A player's report of another, for the hosts: with what the reported player said in that match."""

    id: str
    at: float
    match_id: str
    seat: int
    reason: str
    note: str | None
    open: bool
    reporter: ReportPerson
    reported: ReportedPerson
    said: list[ChatRecord]  #: the reported player's chat lines in that match


class Reports(TypedDict):
    reports: list[ReportEntry]


class AuditEntry(TypedDict):
    """One host action, as the audit keeps it."""

    id: int
    at: float
    actor: str
    action: str
    target: str
    reason: str
    detail: dict[str, object]


class Audit(TypedDict):
    entries: list[AuditEntry]


class HostActionDone(TypedDict):
    """What a host action did (its audit entry's detail), e.g. ``{"ended": ["m1"], "tables_closed": []}``."""

    action: str
    target: str
    detail: dict[str, object]


class MailTested(TypedDict):
    """``converge admin mail-test``: whether the test mail was handed to the SMTP server, and where it went, or
    exactly what failed."""

    sent: bool
    to: str
    via: str  #: the SMTP server (host, port, TLS, login), or the mail folder of a server with none
    failure: str | None  #: one line: which step failed (reaching the server, TLS, the login...) and its answer


# ---------------------------------------------------------------------- tournaments


class EventSummary(TypedDict):
    """An event's settings and where it is (:mod:`converge.server.tournaments`)."""

    id: str
    name: str
    format: Literal["swiss", "arena", "round_robin"]
    status: Literal["upcoming", "running", "paused", "finished", "cancelled"]
    rounds: int | None  #: a Swiss's rounds
    minutes: int | None  #: an arena's length
    clock_s: int | None  #: each player's time in each match
    move_hours: int | None  #: or a turn-based event's time per move
    rated: bool
    playset: list[str] | Literal["sets", "all"]  #: every match's skillsets, or drawn each round
    starts_at: float | None  #: None: when its host starts it
    max_players: int
    round: int  #: the round (an arena's wave) being played; 0 before the first
    private: bool  #: a club's event, reached by its link only


class ListedEvent(EventSummary):
    players: int


class EventList(TypedDict):
    """``GET /api/tournaments``: the events open to all."""

    upcoming: list[ListedEvent]
    running: list[ListedEvent]  #: (a paused event too)
    finished: list[ListedEvent]


class HostsEvents(TypedDict):
    """``GET /api/admin/tournaments``: every event, a club's too."""

    tournaments: list[ListedEvent]


class EventCreated(TypedDict):
    """``POST /api/tournaments``: the new event, its page, and a club's event's link token (given once)."""

    id: str
    url: str
    link: str | None


class StandingRow(TypedDict):
    rank: int
    player: int  #: the entrant's number in the event (never their id)
    name: str
    points: float
    played: int
    won: int
    buchholz: float
    sonneborn_berger: float
    direct: float
    withdrawn: bool


class EventGame(TypedDict):
    board: int
    first: int  #: who moves first (starts with the artifact), by number
    second: int | None  #: None: a bye
    outcome: Literal["pending", "first", "second", "drawn"]
    forfeit: bool
    match_id: str | None


class EventRound(TypedDict):
    round: int
    games: list[EventGame]


class YourPlace(TypedDict):
    """The caller's place in an event they entered: their number, status and match in play (if any)."""

    player: int
    status: Literal["in", "paused", "withdrawn"]
    match_id: str | None
    seat: int | None


class EventView(EventSummary):
    """``GET /api/tournaments/{id}``: the event as its page shows it."""

    standings: list[StandingRow]
    pairings: list[EventRound]
    you: YourPlace | None
    host: bool  #: the caller hosts it
    joinable: bool  #: the event takes players now (a Swiss until more than half its rounds have started)
    #: seconds after a match is made by which a player who has neither come nor moved loses it (None: its
    #: matches are turn-based, where the time per move runs from the start, or the server has no such wait)
    no_show_s: int | None


class EventJoined(TypedDict):
    """``POST /api/tournaments/{id}/join`` and ``/withdraw``: whether the caller is in now."""

    joined: bool


class EventStatus(TypedDict):
    """A host's ``start``, ``pause`` or ``cancel``: the event's status now."""

    status: Literal["running", "paused", "cancelled"]


class EventBreak(TypedDict):
    """``POST /api/tournaments/{id}/break``: whether the caller is paused now."""

    paused: bool


class BotsAdded(TypedDict):
    added: int
