"""What clients send, checked against the messages' declarations (:mod:`.messages`): one JSON object of a
known ``type`` with only that type's fields (derived from its TypedDict), each of the right kind. Anything
else is a :class:`~converge.server.protocol.errors.ProtocolError` that says what is wrong."""

from __future__ import annotations

import json
from typing import Any, cast, get_args, get_type_hints

import orjson

from converge.engine.actions import NUM_ACTIONS
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.messages import (
    ActionMessage,
    ChatRequest,
    ClientMessage,
    Hello,
    HintsSetting,
    LobbyClientMessage,
    QueueRequest,
)

MAX_ACTION_TEXT = 32


def fields_of(union: Any) -> dict[str, frozenset[str]]:
    """Each message type of a union of TypedDicts (by its ``type``), with the fields it may have."""
    out: dict[str, frozenset[str]] = {}
    for kind in get_args(union):
        (name,) = get_args(get_type_hints(kind)["type"])
        out[name] = frozenset(kind.__required_keys__ | kind.__optional_keys__)
    return out


#: The fields of each client message, on a match's socket and on the lobby's.
MATCH_FIELDS = fields_of(ClientMessage)
LOBBY_FIELDS = fields_of(LobbyClientMessage)


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


def check_chat(doc: dict[str, object]) -> ChatRequest:
    """A chat message's shape: a string ``text`` or a string ``quick``, one of the two (what they may say is the
    chat's to check)."""
    text, quick = doc.get("text"), doc.get("quick")
    if (text is None) == (quick is None):
        raise ProtocolError("malformed", "a chat message has \"text\" (typed) or \"quick\" (a quick message), "
                                         "one of the two")
    if text is not None:
        if not isinstance(text, str):
            raise ProtocolError("malformed", "\"text\" must be a string")
        return {"type": "chat", "text": text}
    if not isinstance(quick, str):
        raise ProtocolError("malformed", "\"quick\" must be a string")
    return {"type": "chat", "quick": quick}


def check_seq(seq: object) -> int | None:
    if seq is None:
        return None
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 1_000_000:
        raise ProtocolError("malformed", "\"seq\" must be a whole number (the number of actions seen)")
    return seq


def parse_object(raw: str | bytes, max_bytes: int, fields: dict[str, frozenset[str]]) -> dict[str, object]:
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
    """One message of a match's socket, checked; :class:`ProtocolError` for anything else. Optional fields
    are filled in with their defaults (a hello's ``acks`` true)."""
    doc = parse_object(raw, max_bytes, MATCH_FIELDS)
    kind = doc["type"]
    if kind == "hello":
        token = doc.get("token")
        if token is not None and not isinstance(token, str):
            raise ProtocolError("malformed", "\"token\" must be a string")
        acks = doc.get("acks", True)
        if not isinstance(acks, bool):
            raise ProtocolError("malformed", "\"acks\" must be true or false")
        hello: Hello = {"type": "hello", "token": token, "acks": acks}
        return hello
    if kind == "action":
        if "action" not in doc:
            raise ProtocolError("malformed", "an action message needs \"action\"")
        action: ActionMessage = {"type": "action", "action": check_action(doc["action"]),
                                 "seq": check_seq(doc.get("seq"))}
        return action
    if kind == "hints":
        allow = doc.get("allow")
        if not isinstance(allow, bool):
            raise ProtocolError("malformed", "\"allow\" must be true or false")
        setting: HintsSetting = {"type": "hints", "allow": allow}
        return setting
    if kind == "chat":
        return check_chat(doc)
    return cast(ClientMessage, doc)  # (a message of its type alone: rematch, hint, resign, ping)


def parse_lobby_message(raw: object, max_bytes: int) -> LobbyClientMessage:
    """One message of the lobby's socket, checked (a queue's ``clock`` is checked with a new match's
    settings); :class:`ProtocolError` for anything else."""
    if not isinstance(raw, str):
        raise ProtocolError("malformed", "messages are JSON text")
    doc = parse_object(raw, max_bytes, LOBBY_FIELDS)
    if doc["type"] == "queue":
        clock = doc.get("clock")
        if clock is not None and (isinstance(clock, bool) or not isinstance(clock, int)):
            raise ProtocolError("malformed", "clock is the seconds each player has (a whole number), or null")
        queue: QueueRequest = {"type": "queue", "clock": clock}
        return queue
    if doc["type"] == "chat":
        return check_chat(doc)
    return cast(LobbyClientMessage, doc)
