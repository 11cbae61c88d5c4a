"""The contract between the server and its clients, declared once (converge.server.protocol): one table of
error codes and their statuses, whose codes are the type every refusal's code has."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
from typing_extensions import is_typeddict

pytest.importorskip("fastapi")

from converge.engine.schema import Decision, LegalAction, Observation
from converge.server.protocol import messages, parse
from converge.server.protocol.errors import ERROR_STATUS, ErrorCode, ProtocolError
from tests.server.test_lobby import LobbyPeer, call, player
from tests.server_support import Peer, client_for, create, hang_guard, play_friend_match  # noqa: F401


def test_every_error_code_has_its_status_in_the_one_table_and_only_those() -> None:
    assert set(ERROR_STATUS) == set(get_args(ErrorCode))
    assert all(400 <= status < 600 for status in ERROR_STATUS.values())


def test_a_refusal_builds_its_socket_message_and_its_http_body() -> None:
    exc = ProtocolError("table_gone", "no such table")
    assert exc.status == 409  # (a lobby code: once in a table of its own)
    assert exc.to_message() == {"type": "error", "code": "table_gone", "message": "no such table"}
    assert exc.to_body() == {"error": {"code": "table_gone", "message": "no such table"}}
    assert exc.http_body() == b'{"error":{"code":"table_gone","message":"no such table"}}'


# ---------------------------------------------------------------------- the messages, as declared


def conforms(value: Any, kind: Any, where: str = "message") -> list[str]:
    """Where ``value`` is not of the declared type ``kind`` (a TypedDict: exactly its fields, the required ones
    all there), as a list of problems (empty: it conforms)."""
    if kind is Any or kind is object:
        return []
    origin = get_origin(kind)
    if is_typeddict(kind):
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        hints = get_type_hints(kind)
        problems = [f"{where}: field {k!r} is not declared" for k in value if k not in hints]
        problems += [f"{where}: field {k!r} is missing" for k in kind.__required_keys__ if k not in value]
        for k, v in value.items():
            if k in hints:
                problems += conforms(v, hints[k], f"{where}.{k}")
        return problems
    if origin in (Union, UnionType):
        options = [conforms(value, option, where) for option in get_args(kind)]
        return [] if any(not p for p in options) else min(options, key=len)
    if origin is Literal:
        return [] if value in get_args(kind) else [f"{where}: {value!r} is not one of {get_args(kind)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: not a list"]
        return [p for i, item in enumerate(value) for p in conforms(item, get_args(kind)[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: not an object"]
        key_kind, item_kind = get_args(kind)
        return [p for k, v in value.items() for p in conforms(k, key_kind, f"{where} key") +
                conforms(v, item_kind, f"{where}[{k!r}]")]
    if kind is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if kind is float:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if number else [f"{where}: {value!r} is not a number"]
    if kind is int:
        return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{where}: {value!r} not an int"]
    return [] if isinstance(value, kind) else [f"{where}: {value!r} is not a {kind.__name__}"]


def by_type(union: Any) -> dict[str, Any]:
    """The message types of a union, by their ``type`` field."""
    return {get_args(get_type_hints(t)["type"])[0]: t for t in get_args(union)}


def test_the_client_messages_fields_are_those_of_their_declarations() -> None:
    assert {"hello": {"type", "token", "acks"}, "action": {"type", "action", "seq"},
                                  "rematch": {"type"}, "hint": {"type"}, "hints": {"type", "allow"},
                                  "resign": {"type"}, "chat": {"type", "text", "quick"},
                                  "ping": {"type"}} == parse.MATCH_FIELDS
    assert {"hello": {"type"}, "queue": {"type", "clock"}, "unqueue": {"type"},
                                  "accept_bot": {"type"}, "chat": {"type", "text", "quick"},
                                  "ping": {"type"}} == parse.LOBBY_FIELDS


def test_the_conformance_check_can_fail() -> None:
    ok: messages.RematchMade = {"type": "rematch", "match_id": "m"}
    assert conforms(ok, messages.RematchMade) == []
    assert conforms({**ok, "seed": 1}, messages.RematchMade) == ["message: field 'seed' is not declared"]
    assert conforms({"type": "rematch"}, messages.RematchMade) == ["message: field 'match_id' is missing"]
    assert conforms({"type": "meta", "match": None}, messages.Meta)


def test_every_message_of_a_match_is_as_its_type_declares(tmp_path: Path) -> None:
    """A friend match played to its end with a clock and a spectator, hints asked and allowed, a rematch, an
    error: each message each connection got is exactly of its declared type."""
    kinds = by_type(messages.ServerMessage)
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend", seat=0, clock=600)
        mid = doc["match_id"]
        peers = {0: Peer(client, mid, doc["token"]), 1: Peer(client, mid, doc["invite_token"])}
        watcher = Peer(client, mid)
        for peer in peers.values():
            peer.send({"type": "hints", "allow": True})
        peers[1].send({"type": "action", "action": "no such action"})
        peers[1].until(lambda m: m["type"] == "error")
        play_friend_match(peers, random.Random(5), watchers=(watcher,))
        peers[0].send({"type": "rematch"})
        peers[0].until(lambda m: m["type"] == "rematch")
        peers[0].send({"type": "ping"})
        peers[0].until(lambda m: m["type"] == "pong")
        talker = Peer(client, mid, doc["token"], cookie=player(client, "Ada"))  # (chat needs a player)
        talker.send({"type": "chat", "quick": "gg"})
        peers[1].until(lambda m: m["type"] == "chat")
        again = Peer(client, mid, doc["invite_token"])  # (a room with lines: they come after the welcome)
        again.until(lambda m: m["type"] == "chat_lines")
        seen: set[str] = set()
        for peer in (*peers.values(), watcher, talker, again):
            for text in peer.texts:
                msg = json.loads(text)
                seen.add(msg["type"])
                assert conforms(msg, kinds[msg["type"]], msg["type"]) == [], text[:300]
        assert {"welcome", "ack", "state", "meta", "rematch", "error", "pong", "chat", "chat_lines"} <= seen
        bot = create(client, opponent="bot", bot="greedy", seat=0)
        hinter = Peer(client, bot["match_id"], bot["token"])
        assert hinter.obs is not None
        if hinter.obs["current_player"] != 0:  # the bot starts: its move first
            hinter.until(lambda m: m["type"] == "state" and m["observation"]["current_player"] == 0)
        hinter.send({"type": "hint"})
        hint = hinter.until(lambda m: m["type"] in ("hint", "error"))
        assert hint["type"] == "hint" and conforms(hint, messages.HintMessage) == []


def test_every_message_of_the_lobby_is_as_its_type_declares(tmp_path: Path) -> None:
    """Two players: a table opened and joined (the host told), a quick match paired, a bot offered and taken,
    an error: each message of the lobby's sockets is exactly of its declared type."""
    kinds = by_type(messages.LobbyServerMessage)
    with client_for(tmp_path, table_rate=1000.0, table_burst=1000.0, queue_rate=1000.0, queue_burst=1000.0,
                    players_per_hour=0, quick_match_bot_after_s=0.3, lobby_poll_s=0.2) as client:
        ada, bob = player(client, "Ada"), player(client, "Bob")
        pages = {"ada": LobbyPeer(client, ada), "bob": LobbyPeer(client, bob)}
        table = call(client, "POST", "/api/lobby/tables", ada, json={"playset": "catalysts"}).json()
        pages["bob"].until("tables")
        assert call(client, "POST", f"/api/lobby/tables/{table['table_id']}/join", bob).status_code == 201
        pages["ada"].until("table_started")
        for page in pages.values():
            page.send({"type": "queue", "clock": None})
        for page in pages.values():
            page.until("matched")
        pages["ada"].send({"type": "queue", "clock": None})
        pages["ada"].until("bot_offer")
        pages["ada"].send({"type": "accept_bot"})
        pages["ada"].until("matched")
        pages["bob"].send({"type": "accept_bot"})
        pages["bob"].until("error")
        pages["bob"].send({"type": "queue"})
        pages["bob"].until("queued")
        pages["bob"].send({"type": "unqueue"})
        pages["bob"].until("unqueued")
        pages["bob"].send({"type": "ping"})
        pages["bob"].until("pong")
        pages["bob"].send({"type": "chat", "quick": "glhf"})
        pages["ada"].until("chat")
        pages["cleo"] = LobbyPeer(client, player(client, "Cleo"))
        pages["cleo"].until("chat_lines")
        seen: set[str] = set()
        for page in pages.values():
            for text in page.texts:
                msg = json.loads(text)
                seen.add(msg["type"])
                assert conforms(msg, kinds[msg["type"]], msg["type"]) == [], text[:300]
            page.close()
        assert seen == set(kinds)


def test_openapi_describes_the_answer_of_every_api_route(tmp_path: Path) -> None:
    """Each route of the JSON API declares its answer's type: /openapi.json has a schema for each success,
    the observation inside the match's view included."""
    with client_for(tmp_path, docs=True) as client:
        spec = client.get("/openapi.json").json()
    undescribed = []
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            ok = [r for code, r in operation["responses"].items() if code.startswith("2")]
            schema = ok[0].get("content", {}).get("application/json", {}).get("schema", {}) if ok else {}
            if not path.startswith("/api/") or "$ref" not in schema:
                undescribed.append(f"{method.upper()} {path}")
    assert undescribed == []
    assert len([op for methods in spec["paths"].values() for op in methods]) == 67  # (the API, every route)
    schemas = spec["components"]["schemas"]
    assert "observation" in schemas["MatchView"]["required"] and "observation" in schemas["ReplayStep"]["required"]
    assert {"MatchMeta", "TurnSummary", "ErrorResponse"} <= set(schemas)
    # the observation is the engine's declaration (converge.engine.schema), field by field, its parts too
    assert schemas["MatchView"]["properties"]["observation"] == {"$ref": "#/components/schemas/Observation"}
    for typed in (Observation, Decision, LegalAction):
        assert set(schemas[typed.__name__]["properties"]) == typed.__required_keys__ | typed.__optional_keys__
    assert set(schemas["Observation"]["required"]) == Observation.__required_keys__
