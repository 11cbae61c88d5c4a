"""Every message of the server's WebSockets, declared once, as a TypedDict: what a match's and the lobby's
sockets carry both ways, and the parts they share with the HTTP API's answers (those are declared in
:mod:`.answers`; the request bodies FastAPI parses are Pydantic models, :mod:`converge.server.api.models`).
The server builds each message as its type says (mypy checks it) and checks what clients send against the
client messages' fields (:mod:`.parse`).

The observation inside the messages is the engine's (:func:`converge.engine.state.Match.observation`), and so
are the printed cards, the goals as scored and the cards in play: each is one alias below.

Client to server, on a match's socket (JSON objects, one per message, at most ``max_message`` bytes)::

    {"type": "hello", "token": "<seat token>"}     first message of a player (omit "token": a spectator);
                                                    "acks": false (optional): no separate ack message,
                                                    the state after my action carries it
    {"type": "action", "action": 3, "seq": 17}      one decision: an action id or its name ("ALC4",
                                                    "discard"...); "seq" (optional) is the number of
                                                    actions the client has seen: a stale one is refused
    {"type": "rematch"}                             once the match is over
    {"type": "hint"}                                the strong bot's options for my decision (when
                                                    hints are on: always against a bot; in a friend
                                                    match once both players allow them)
    {"type": "hints", "allow": true}                allow (or not) hints in a friend match
    {"type": "resign"}                              give up: the other player wins (a rated match
                                                    counts it as a loss); the result's reason "resign"
    {"type": "chat", "text": "..."}                 a chat line (or "quick": "gg", a quick message)
    {"type": "ping"}

Server to client::

    {"type": "welcome", "seat": 0, "match": {...}, "cards": [...], "colors": {...}, "seq": 17,
     "observation": {...}, "next": {...}, "rounds": [...], "last_turn": {...}}
                                                   seat -1: a spectator; "next", "rounds" and
                                                   "last_turn": see below
    {"type": "ack", "seq": 18, "action": 3}        to the player who acted, once the action is committed
                                                   (with "acks": false: "ack": {"seq", "action"} in the
                                                   state message that follows it, and no ack message)
    {"type": "state", "seq": 18, "match": {...}, "observation": {...}, "events_from": 40}
                                                   to everyone, after each action; "observation" is
                                                   observation(seat) (or the spectator's) whose
                                                   "events" holds only the events from index
                                                   "events_from" on (the client keeps the earlier ones);
                                                   also "next" and "turns" (below)
    {"type": "meta", "match": {...}}               seats connected, a bot standing in, clocks
    {"type": "rematch", "match_id": "..."}         the rematch was created: same seats, same tokens
    {"type": "hint", "seq": 18, "options": [{"action": 3, "label": "...", "win_chance": 0.62,
     "simulations": 1800}, ...]}                   to the connection that asked; the suggestion first
    {"type": "chat", "room": "players", "line": {...}}  a new chat line of the connection's room (a seat's:
                                                   "players"; a spectator's: "spectators")
    {"type": "chat_lines", "room": "players", "lines": [...]}  the room's last lines, after the welcome (if
                                                   it has any)
    {"type": "error", "code": "...", "message": "..."}
    {"type": "pong"}

The table's extras (:mod:`converge.server.play.match.turnlog`), each for the receiving viewer only: ``next`` maps
each of the seat's legal actions that only opens another choice of theirs (a card, then how to play it; a card
to place, then the faction) to that choice (``{"kind", "prompt", "choices": [{"id", "label"}]}``), so that
the client may hold the first and let the player take it back until the second is chosen, then send both;
``turns`` lists the ends of turn the action brought, each explained (``lines``), with the points per goal
(``goals``: the score breakdown as scored), the board as scored, the artifact and the round's end;
``rounds`` the last end of turn of each finished round, ``last_turn`` the latest.

Every bad message gets an ``error`` on its own connection and changes nothing; messages over the rate
limit are the exception: the first of a run gets one ``rate_limited`` error, the next ones are dropped
without a reply, and too many of them close the connection (1008, reason "too many messages").

A seat's connections beyond ``max_connections_per_seat`` are closed oldest first, with an ``error`` of
code ``replaced`` and the close code 4409: a client closed that way should not reconnect by itself (the
newer connection, in another window or device, is the one that plays). Spectators over their limits get
``busy`` and the close. The close codes are :mod:`converge.server.protocol.errors`'.

A handshake from a page of another origin than the server's (``Origin``; see
:class:`converge.server.security.origins.OriginPolicy`) is refused before the connection is accepted: HTTP
403 with ``{"error": {"code": "bad_origin", ...}}``.

The lobby's socket (``/ws/lobby``) and its HTTP API are described in
:mod:`converge.server.api.routes.lobby`; their messages are here too.
"""

# (no `from __future__ import annotations`: TypedDict reads NotRequired in annotations it can evaluate)

from typing import Literal, NotRequired

from typing_extensions import TypedDict  # (pydantic reads TypedDicts from typing_extensions on Python < 3.12)

from converge.bots.hint import HintOption as HintOption  # declared with the hint; a message field here
from converge.engine.schema import CardInPlay, GoalScore, Observation, PrintedCard
from converge.server.protocol.errors import ErrorMessage

# ---------------------------------------------------------------------- parts of messages


class SeatInfo(TypedDict):
    seat: int
    kind: Literal["bot", "human"]
    bot: str | None
    replaced: bool  #: a bot stands in for the player who left
    connected: bool
    name: str | None  #: the player's name (when the match started), or the bot's ("Hard bot"); None: anonymous
    rating: int | None  #: the player's rating now, or the bot's fixed one; None: unknown
    provisional: bool  #: the rating is still uncertain
    rating_change: int | None  #: what this (rated, finished) match changed the rating by


class ClockInfo(TypedDict):
    initial_ms: int
    left_ms: list[int | None]
    running: int  #: the seat whose time runs down now, or -1


class TurnInfo(TypedDict):
    """A turn-based match's time per move and, while it is in progress, by when its player to move must act."""

    move_s: int
    deadline: float | None  #: seconds since the epoch (the server's clock), or None once the match is over
    running: int  #: the seat whose time runs now, or -1
    #: each seat's vacation left (seconds): time beyond a move's, spent first, before running out loses
    vacation_left_s: list[int]


class Result(TypedDict):
    winner: int | None
    #: "match" (the engine's result), "time", "resign", "banned" (the hosts banned the loser) or "absent" (a
    #: tournament's match the loser never came to)
    reason: str | None


class HintsInfo(TypedDict):
    on: bool
    allowed: list[bool]  #: per seat
    why_off: str | None  #: why they are off, as players read it (a rated match; a friend match until both allow)


class MatchMeta(TypedDict):
    """Public facts about a match: never the seed, the record or anything hidden."""

    id: str
    mode: str  #: "bot" or "friend"
    status: Literal["active", "over"]
    playset: list[str]
    seq: int  #: the number of actions so far
    seats: list[SeatInfo]
    spectators: int
    clock: ClockInfo | None
    turn: TurnInfo | None  #: a turn-based match
    result: Result | None
    rematch_id: str | None
    rematch_of: str | None
    hints: HintsInfo
    rated: bool  #: the match changes ratings when it ends


class Choice(TypedDict):
    id: int
    label: str


class FollowUp(TypedDict):
    """The choice a held choice opens: ``kind`` of decision, its prompt, its choices."""

    kind: str
    prompt: str
    choices: list[Choice]


#: Each legal action (its id, as a string) that only opens another choice of the same seat, with that choice.
FollowUps = dict[str, FollowUp]


class RoundEnd(TypedDict):
    winner: int
    reason: str
    round: int


class Board(TypedDict):
    goals: list[str]
    factions: list[list[CardInPlay]]


#: What an end of turn did to the artifact (T6).
Outcome = Literal["lead_wins", "artifact_passes", "artifact_stays"]


class TurnSummary(TypedDict):
    """One end of turn explained to one viewer (:meth:`converge.server.play.match.turnlog.TurnLog.summary`)."""

    round: int
    turn: int
    lead: int
    scores: list[int]
    outcome: Outcome
    holder: int
    round_end: RoundEnd | None
    match_winner: int | None
    lines: list[str]
    goals: list[GoalScore]
    board: Board


class TableExtras(TypedDict):
    """What the table shows beyond the observation: ``next`` always; a new connection's ``rounds`` and
    ``last_turn``, or the ``turns`` the last action brought."""

    next: FollowUps
    rounds: NotRequired[list[TurnSummary]]
    last_turn: NotRequired[TurnSummary | None]
    turns: NotRequired[list[TurnSummary]]


class Ack(TypedDict):
    seq: int
    action: int


# ---------------------------------------------------------------------- a match's socket: client to server


class Hello(TypedDict):
    type: Literal["hello"]
    token: NotRequired[str | None]
    acks: NotRequired[bool]


class ActionMessage(TypedDict):
    type: Literal["action"]
    action: int | str
    seq: NotRequired[int | None]


class RematchRequest(TypedDict):
    type: Literal["rematch"]


class HintRequest(TypedDict):
    type: Literal["hint"]


class HintsSetting(TypedDict):
    type: Literal["hints"]
    allow: bool


class Resign(TypedDict):
    """Give up the match: the other player wins it (a rated match counts it as a loss)."""

    type: Literal["resign"]


class Ping(TypedDict):
    type: Literal["ping"]


class ChatRequest(TypedDict):
    """A chat line: ``text`` typed, or ``quick``, the key of a quick message (``QUICK_MESSAGES``), one of the
    two. A seat speaks to the other seat, a spectator to the spectators, a lobby page to the lobby."""

    type: Literal["chat"]
    text: NotRequired[str]
    quick: NotRequired[str]


ClientMessage = Hello | ActionMessage | RematchRequest | HintRequest | HintsSetting | Resign | ChatRequest | Ping

# ---------------------------------------------------------------------- a match's socket: server to client


class MatchView(TypedDict):
    """A viewer's whole view of a match (``GET /api/matches/{id}``, and a connection's welcome)."""

    seat: int  #: -1: a spectator
    match: MatchMeta
    cards: list[PrintedCard]
    colors: dict[str, str]
    seq: int
    observation: Observation
    next: FollowUps
    rounds: list[TurnSummary]
    last_turn: TurnSummary | None


class Welcome(MatchView):
    type: Literal["welcome"]


class AckMessage(Ack):
    type: Literal["ack"]


class State(TypedDict):
    type: Literal["state"]
    seq: int
    match: MatchMeta
    observation: Observation  #: its "events" from index ``events_from`` on
    events_from: int
    next: FollowUps
    turns: list[TurnSummary]
    ack: NotRequired[Ack]  #: for the connection that acted, when it asked for no ack messages


class Meta(TypedDict):
    type: Literal["meta"]
    match: MatchMeta


class RematchMade(TypedDict):
    type: Literal["rematch"]
    match_id: str


class HintResult(TypedDict):
    """The strong bot's options for the decision at ``seq``, the best chance first."""

    seq: int
    options: list[HintOption]
    verdict: str  #: the hint in a sentence, as every door says it (the best option, its chance in words...)
    calibrated: bool  #: whether the chances were fitted to measured outcomes (a frequency), or estimates


class HintMessage(HintResult):
    type: Literal["hint"]


class Pong(TypedDict):
    type: Literal["pong"]


#: Where a chat line was said: a match's players (its two seats), its spectators (whom its players do not
#: read), or the lobby.
ChatRoom = Literal["players", "spectators", "lobby"]


class ChatLineInfo(TypedDict):
    """A chat line as its readers get it: never more than its sender chose to say, and whose it is."""

    id: int  #: the line's number (to mute its sender: ``POST /api/me/mutes {"line": id}``)
    name: str | None  #: the sender's name (None: anonymous)
    mine: bool  #: the reader sent it
    text: str  #: as shown (a quick message's words; a blocked word masked)
    quick: str | None  #: a quick message's key, or None: typed
    at: float  #: when it was said (Unix time)


class ChatMessage(TypedDict):
    """A new line of a room the connection reads (not sent to a reader who muted its sender, nor, for a typed
    line, to one whose chat is off)."""

    type: Literal["chat"]
    room: ChatRoom
    line: ChatLineInfo


class ChatLines(TypedDict):
    """The room's last lines, after the welcome (none: the room is empty)."""

    type: Literal["chat_lines"]
    room: ChatRoom
    lines: list[ChatLineInfo]


ServerMessage = Welcome | AckMessage | State | Meta | RematchMade | HintMessage | ChatMessage | ChatLines | \
    ErrorMessage | Pong

# ---------------------------------------------------------------------- the lobby's socket


class LobbyHello(TypedDict):
    type: Literal["hello"]


class QueueRequest(TypedDict):
    type: Literal["queue"]
    clock: NotRequired[int | None]


class Unqueue(TypedDict):
    type: Literal["unqueue"]


class AcceptBot(TypedDict):
    type: Literal["accept_bot"]


LobbyClientMessage = LobbyHello | QueueRequest | Unqueue | AcceptBot | ChatRequest | Ping


class PlayerInfo(TypedDict):
    """What anyone may see of a player (never the id or the token hash)."""

    name: str | None
    rating: int
    rd: int
    games: int
    provisional: bool


class BotOpponent(TypedDict):
    name: None
    bot: Literal[True]


class HostInfo(TypedDict):
    name: str | None
    rating: int
    provisional: bool


class OpenTable(TypedDict):
    """A public open table as the lobby lists it."""

    id: str
    playset: list[str]
    clock_s: int | None
    move_hours: int | None  #: a turn-based table: hours per move
    rated: bool
    host: HostInfo
    created_at: float


class QueueInfo(TypedDict):
    bot_after_s: float


class LobbyWelcome(TypedDict):
    type: Literal["welcome"]
    player: PlayerInfo | None
    tables: list[OpenTable]
    queue: QueueInfo


class TableList(TypedDict):
    type: Literal["tables"]
    tables: list[OpenTable]


class Queued(TypedDict):
    type: Literal["queued"]
    clock_s: int | None
    rating: int
    bot_after_s: float
    waited_s: float


class Unqueued(TypedDict):
    type: Literal["unqueued"]


class BotOffer(TypedDict):
    type: Literal["bot_offer"]
    bot: str
    bot_rating: int
    waited_s: float


class Matched(TypedDict):
    """A quick match (or an accepted bot offer) is ready: to each player, with their own token only."""

    type: Literal["matched"]
    match_id: str
    seat: int
    token: str
    url: str
    opponent: PlayerInfo | BotOpponent | None


class TableStarted(TypedDict):
    """To a table's host: someone joined it (``opponent`` None: on another server process)."""

    type: Literal["table_started"]
    table_id: str
    match_id: str
    url: str
    opponent: PlayerInfo | None


LobbyServerMessage = LobbyWelcome | TableList | Queued | Unqueued | BotOffer | Matched | TableStarted | \
    ChatMessage | ChatLines | ErrorMessage | Pong
