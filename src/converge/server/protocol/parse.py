"""The WebSocket protocol: what a client may send, what the server answers, and the error codes.

Client to server (JSON objects, one per message, at most ``max_message`` bytes)::

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
    {"type": "error", "code": "...", "message": "..."}
    {"type": "pong"}

The table's extras (:mod:`converge.server.play.table`), each for the receiving viewer only: ``next`` maps each
of the seat's legal actions that only opens another choice of theirs (a card, then how to play it; a card
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
``busy`` and the close.

A handshake from a page of another origin than the server's (``Origin``; see
:class:`converge.server.security.origins.OriginPolicy`) is refused before the connection is accepted: HTTP 403 with
``{"error": {"code": "bad_origin", ...}}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from converge.engine.actions import NUM_ACTIONS
from converge.server.protocol.errors import ProtocolError

MAX_ACTION_TEXT = 32

_FIELDS = {
    "hello": {"type", "token", "acks"},
    "action": {"type", "action", "seq"},
    "rematch": {"type"},
    "hint": {"type"},
    "hints": {"type", "allow"},
    "ping": {"type"},
}


@dataclass
class ClientMessage:
    type: str
    token: str | None = None
    acks: bool = True
    action: int | str | None = None
    seq: int | None = None
    allow: bool = False


def field_names(names: set[str], limit: int = 80) -> str:
    """Unknown field names as an error message shows them: JSON-quoted (a newline or an escape sequence in
    a name stays harmless), sorted, cut to ``limit`` characters."""
    shown = ", ".join(json.dumps(n[:24] + ("…" if len(n) > 24 else "")) for n in sorted(names))
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def check_action(action: object) -> int | str:
    """An action as a client may send it: an integer id in range or a short name."""
    if isinstance(action, bool):
        raise ProtocolError("malformed", "\"action\" must be an action id (integer) or its name (string)")
    if isinstance(action, int):
        if not 0 <= action < NUM_ACTIONS:
            raise ProtocolError("malformed", f"\"action\" ids are 0 to {NUM_ACTIONS - 1}")
        return action
    if isinstance(action, str):
        if not 0 < len(action) <= MAX_ACTION_TEXT or not action.isprintable():
            raise ProtocolError("malformed", f"an action name is 1 to {MAX_ACTION_TEXT} printable characters")
        return action
    raise ProtocolError("malformed", "\"action\" must be an action id (integer) or its name (string)")


def check_seq(seq: object) -> int | None:
    if seq is None:
        return None
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 1_000_000:
        raise ProtocolError("malformed", "\"seq\" must be a whole number (the number of actions seen)")
    return seq


def parse_object(raw: str | bytes, max_bytes: int, fields: dict[str, set[str]]) -> dict[str, Any]:
    """One client message as a JSON object whose ``type`` is a key of ``fields`` and whose other fields are
    among that type's; raise :class:`ProtocolError` for anything else (a match's and the lobby's sockets)."""
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > max_bytes:
        raise ProtocolError("too_large", f"messages are limited to {max_bytes} bytes")
    try:
        doc = orjson.loads(raw)
    except (ValueError, RecursionError):
        raise ProtocolError("malformed", "a message is one JSON object") from None
    if not isinstance(doc, dict):
        raise ProtocolError("malformed", "a message is one JSON object")
    kind = doc.get("type")
    if not isinstance(kind, str) or kind not in fields:
        raise ProtocolError("malformed", f"\"type\" must be one of {', '.join(sorted(fields))}")
    extra = set(doc) - fields[kind]
    if extra:
        raise ProtocolError("malformed", f"unexpected field(s) for {kind}: {field_names(extra)}")
    return doc


def parse_message(raw: str | bytes, max_bytes: int) -> ClientMessage:
    """Parse and validate one client message; raise :class:`ProtocolError` for anything else."""
    doc = parse_object(raw, max_bytes, _FIELDS)
    kind = doc["type"]
    msg = ClientMessage(kind)
    if kind == "hello":
        token = doc.get("token")
        if token is not None and not isinstance(token, str):
            raise ProtocolError("malformed", "\"token\" must be a string")
        msg.token = token
        acks = doc.get("acks", True)
        if not isinstance(acks, bool):
            raise ProtocolError("malformed", "\"acks\" must be true or false")
        msg.acks = acks
    elif kind == "action":
        if "action" not in doc:
            raise ProtocolError("malformed", "an action message needs \"action\"")
        msg.action = check_action(doc["action"])
        msg.seq = check_seq(doc.get("seq"))
    elif kind == "hints":
        allow = doc.get("allow")
        if not isinstance(allow, bool):
            raise ProtocolError("malformed", "\"allow\" must be true or false")
        msg.allow = allow
    return msg
