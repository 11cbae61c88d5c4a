"""Fuzzing the web server's doors: HTTP bodies (creating a match, acting), query strings and paths, and
WebSocket messages (the hello and everything after it).

Every answer to a generated input is either the success it asks for or the documented error —
``{"error": {"code", "message"}}`` over HTTP, ``{"type": "error", "code", "message"}`` over a WebSocket —
with a known code, its HTTP status, a message of at most 300 characters on one line that names no card
hidden from the asker; a refused input changes nothing (the match's actions, both players' views and the
database are as they were); never a 500 or a traceback (the test client re-raises any server error).
See tests/fuzz_support.py for how many examples run (``make test``: a slice; ``make fuzz``: many more).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import secrets
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import WebSocketDenialResponse

from converge.server.app import create_app
from converge.server.lobby.identity import COOKIE
from converge.server.protocol.errors import ERROR_STATUS
from tests.engine.test_properties import known_cards
from tests.fuzz_support import (
    BULK,
    EXAMPLES,
    SEED,
    Hostile,
    awkward_strings,
    check_message,
    count,
    dumps,
    fuzz_settings,
    hidden_words,
    hostile_json_texts,
    json_values,
    mutate,
    texts,
)
from tests.server_support import FAST, Peer, RawResponse, Server, client_for, raw_exchange

CREATE_FIELDS = ["opponent", "bot", "playset", "seat", "clock", "move_hours"]
#: Valid new-match bodies to mutate: a clock for the whole match, and a turn-based match.
CREATE_BASES = [{"opponent": "friend", "bot": "random", "playset": "catalysts", "seat": 0, "clock": 600},
                {"opponent": "friend", "playset": "catalysts", "seat": 1, "move_hours": 72}]


@dataclass
class World:
    """A server with a friend match in progress (both seats connected), and a finished match."""

    client: TestClient
    hub: Any
    finished: str = ""
    mid: str = ""
    tokens: dict[int, str] = field(default_factory=dict)
    peers: dict[int, Peer] = field(default_factory=dict)
    #: The tournaments' doors: a named player's cookie, and an event they host.
    host_cookie: str = ""
    event: str = ""
    #: The profiles' doors: a named player's cookie.
    profile_cookie: str = ""
    #: The people's doors: two named players' cookies (the first follows and challenges the second), and a
    #: challenge between them.
    people: dict[str, str] = field(default_factory=dict)
    challenge: str = ""
    rng: random.Random = field(default_factory=lambda: random.Random(11))

    def new_match(self) -> None:
        for peer in self.peers.values():
            peer.close()
        r = self.client.post("/api/matches", json={"opponent": "friend", "playset": "random", "seat": 0})
        doc = r.json()
        self.mid = doc["match_id"]
        self.tokens = {0: doc["token"], 1: doc["invite_url"].split("#token=", 1)[1]}
        self.peers = {seat: Peer(self.client, self.mid, token) for seat, token in self.tokens.items()}

    @property
    def session(self) -> Any:
        return self.hub.sessions[self.mid]

    def snapshot(self) -> tuple[Any, ...]:
        """What a refused input must leave as it was: actions, both views, the spectators' view."""
        s = self.session
        return (s.seq, list(s.match.history), dumps(s.match.observation(0)), dumps(s.match.observation(1)),
                dumps(s.match.observation(-1)), s.row.status)

    def hidden(self, viewer: int) -> set[str]:
        match = self.session.match
        return {match.playset.card_ids[c] for c in range(18) if c not in known_cards(match, viewer)}

    def stored_actions(self) -> int:
        return len(self.hub.storage.actions_of(self.mid))

    def keep_going(self) -> None:
        """A match that ended (fuzzed actions can be legal) is replaced by a fresh one."""
        for peer in self.peers.values():
            del peer.texts[:]  # what a peer received is not looked at again: do not keep it for hours
        if self.session.row.status != "active":
            self.new_match()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    # No fsync per commit (durability is not what is tested here), no limit on creations.
    with client_for(tmp_path_factory.mktemp("fuzz-server"), matches_per_hour=0, idle_evict=5.0,
                    sqlite_sync="NORMAL", admin_token=HOSTS_TOKEN) as client:
        w = World(client, client.app.state.hub)  # type: ignore[attr-defined]
        r = client.post("/api/matches", json={"opponent": "bot", "bot": "random", "seat": 0})
        done = r.json()
        seat = {"authorization": f"Bearer {done['token']}"}
        while True:  # the finished match: posted legal actions until the end
            doc = client.get(f"/api/matches/{done['match_id']}", headers=seat).json()
            if doc["match"]["status"] == "over":
                break
            decision = doc["observation"]["decision"]
            if decision.get("player") == 0 and decision.get("legal_actions"):
                client.post(f"/api/matches/{done['match_id']}/actions",
                            json={"action": decision["legal_actions"][0]["id"]}, headers=seat)
        w.finished = done["match_id"]
        w.new_match()
        yield w


def assert_http_error(r: Any) -> str:
    assert r.status_code < 500, (r.status_code, r.text[:300])
    doc = r.json()
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message"}, doc
    code = doc["error"]["code"]
    assert code in ERROR_STATUS and ERROR_STATUS[code] == r.status_code, (code, r.status_code)
    return check_message(doc["error"]["message"])


def auth_header(world: World, data: st.DataObject) -> tuple[dict[str, Any], int]:
    """An Authorization header (or none) and the seat it holds (-1: none)."""
    kind = data.draw(st.sampled_from(["mover", "other", "none", "garbage", "scheme", "other-match"]), label="auth")
    mover = world.session.match.current_player
    if kind in ("mover", "other"):
        seat = mover if kind == "mover" else 1 - mover
        return {"authorization": f"Bearer {world.tokens[seat]}"}, seat
    if kind == "garbage":
        token = data.draw(st.one_of(texts, awkward_strings), label="token")
        return {"authorization": ("Bearer " + token).encode("utf-8")}, -1  # any bytes, as a client may send
    if kind == "scheme":
        scheme = data.draw(st.sampled_from(["Basic abc", "Bearer", "Bearer  ", "token x", "x"]), label="scheme")
        return {"authorization": scheme}, -1
    if kind == "other-match":
        return {"authorization": f"Bearer {world.tokens[0][::-1]}"}, -1
    return {}, -1


# ------------------------------------------------------------------ HTTP bodies


@fuzz_settings()
@given(data=st.data())
def test_fuzz_create_match_bodies(world: World, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["value", "mutated", "text"]), label="kind")
    if kind == "value":
        body = dumps(data.draw(json_values, label="body"))
    elif kind == "mutated":
        base = data.draw(st.sampled_from(CREATE_BASES), label="base")
        body = dumps(mutate(dict(base), data, CREATE_FIELDS))
    else:
        body = data.draw(hostile_json_texts, label="body")
    content_type = data.draw(st.sampled_from(["application/json", "text/plain", "", "application/json; x=\x7f"]))
    before = world.hub.storage.count()
    r = world.client.post("/api/matches", content=body.encode("utf-8"), headers={"content-type": content_type})
    count("HTTP POST /api/matches (bodies)")
    if r.status_code == 201:
        doc = r.json()
        assert set(doc) == {"match_id", "seat", "token", "url", "invite_url", "watch_url"}
        assert world.hub.storage.count() == before + 1
    else:
        assert_http_error(r)
        assert world.hub.storage.count() == before  # nothing stored


def _account_rows(world: World) -> tuple[int, ...]:
    from sqlalchemy import func, select

    from converge.server.storage.schema import device_tokens_table, players_table, sign_ins_table

    with world.hub.storage.engine.connect() as conn:
        return tuple(int(conn.execute(select(func.count()).select_from(t)).scalar_one())
                     for t in (sign_ins_table, device_tokens_table, players_table))


@fuzz_settings()
@given(data=st.data())
def test_fuzz_sign_in_doors(world: World, data: st.DataObject) -> None:
    """Asking for a sign-in link, spending one, signing out, the mail setting, the unsubscribe link, a seat's
    key for another device: any body, any cookie; a refusal changes nothing."""
    door = data.draw(st.sampled_from(["email", "verify", "signout", "signout-everywhere", "delete", "mails",
                                      "unsubscribe", "seat"]), label="door")
    kind = data.draw(st.sampled_from(["value", "mutated", "text"]), label="kind")
    base = {"email": {"email": "ada@example.org"}, "verify": {"token": "x" * 43}, "mails": {"turn_mails": True},
            "unsubscribe": {"player": "p" * 12, "token": "0" * 40}}.get(door, {})
    if kind == "value":
        body = dumps(data.draw(json_values, label="body"))
    elif kind == "mutated":
        body = dumps(mutate(dict(base), data, list(base) or ["x"]))
    else:
        body = data.draw(hostile_json_texts, label="body")
    cookie = data.draw(st.one_of(st.none(), st.sampled_from(["x" * 43, "short"]), texts), label="cookie")
    client = world.client
    client.cookies.clear()
    headers = {"content-type": "application/json"}
    if cookie is not None and cookie.isascii() and cookie.isprintable():
        headers["cookie"] = f"converge_player={cookie}"
    before = _account_rows(world)
    method, path = {"delete": ("DELETE", "/api/me"), "mails": ("PUT", "/api/me/mails"),
                    "unsubscribe": ("POST", "/api/unsubscribe"),
                    "seat": ("POST", f"/api/matches/{world.mid}/seat")}.get(door, ("POST", f"/api/auth/{door}"))
    r = client.request(method, path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
    count("HTTP sign-in doors (bodies and cookies)")
    if r.status_code == 200:
        assert door == "email" and _account_rows(world) == (before[0] + 1, *before[1:])
        assert set(r.json()) == {"sent", "minutes"}
    else:
        assert_http_error(r)
        assert _account_rows(world) == before


#: The hosts' token of the fuzzed server (``converge admin``'s).
HOSTS_TOKEN = "fuzz-hosts-token-5c8e1a9d3f"


def _moderation_rows(world: World) -> tuple[int, ...]:
    from sqlalchemy import func, select

    from converge.server.storage.schema import audit_table, players_table, reports_table

    with world.hub.storage.engine.connect() as conn:
        banned = conn.execute(select(func.count()).where(players_table.c.banned_at.is_not(None))).scalar_one()
        return (*(int(conn.execute(select(func.count()).select_from(t)).scalar_one())
                  for t in (audit_table, reports_table)), int(banned))


@fuzz_settings()
@given(data=st.data())
def test_fuzz_moderation_doors(world: World, data: st.DataObject) -> None:
    """The players' report door (any body, seat token and cookie) and the hosts' API (any token, player, id
    and body): a refusal is the API's error shape and changes nothing; nothing changes without the hosts'
    token, and each change the hosts make is one audit entry."""
    world.keep_going()
    door = data.draw(st.sampled_from(["report", "players", "rename", "ban", "unban", "export", "close-table",
                                      "delete-match", "reports", "close-report", "audit"]), label="door")
    kind = data.draw(st.sampled_from(["value", "mutated", "text"]), label="kind")
    base: dict[str, Any] = {"reason": "abuse", "note": "x"}
    if door != "report":
        base = {"actor": "fuzz", "reason": "r"}
    if door == "rename":
        base["name"] = "Fine Name"
    if kind == "value":
        body = dumps(data.draw(json_values, label="body"))
    elif kind == "mutated":
        body = dumps(mutate(dict(base), data, list(base)))
    else:
        body = data.draw(hostile_json_texts, label="body")
    ref = urllib.parse.quote(data.draw(st.one_of(st.sampled_from(["Ada", "x" * 12, "..", world.finished]), texts),
                                       label="ref"), safe="")
    hosts = data.draw(st.booleans(), label="hosts' token")
    token = HOSTS_TOKEN if hosts else data.draw(st.sampled_from(["", "x" * 43, HOSTS_TOKEN + "x"]), label="t")
    headers = {"content-type": "application/json"}
    if door == "report":
        headers.update(auth_header(world, data)[0])
        mid = data.draw(st.sampled_from([world.mid, world.finished, ref]), label="match")
        method, path = "POST", f"/api/matches/{urllib.parse.quote(mid, safe='')}/report"
    else:
        headers["authorization"] = f"Bearer {token}"
        method, path = {"players": ("GET", f"/api/admin/players?q={ref}"),
                        "reports": ("GET", "/api/admin/reports"),
                        "audit": ("GET", f"/api/admin/audit?target={ref}"),
                        "close-table": ("POST", f"/api/admin/tables/{ref}/close"),
                        "delete-match": ("POST", f"/api/admin/matches/{ref}/delete"),
                        "close-report": ("POST", f"/api/admin/reports/{ref}/close")}.get(
            door, ("POST", f"/api/admin/players/{ref}/{door}"))
    world.client.cookies.clear()
    before = (_moderation_rows(world), world.snapshot())
    r = world.client.request(method, path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
    count("HTTP moderation doors (reports, the hosts' API)")
    if r.status_code >= 400:
        assert_http_error(r)
        assert (_moderation_rows(world), world.snapshot()) == before
        return
    assert door != "report"  # (no fuzzed caller is a player holding a seat)
    assert hosts, (door, r.status_code)
    after = _moderation_rows(world)
    if method == "GET":
        assert after == before[0]
    else:
        assert after[0] == before[0][0] + 1  # one audit entry per change


def _tournament_rows(world: World) -> tuple[object, ...]:
    from sqlalchemy import select

    from converge.server.storage.schema import (
        tournament_entrants_table,
        tournament_games_table,
        tournaments_table,
    )

    with world.hub.storage.engine.connect() as conn:
        return tuple(tuple(map(tuple, conn.execute(select(t)).all()))
                     for t in (tournaments_table, tournament_entrants_table, tournament_games_table))


TOURNAMENT_FIELDS = ["name", "format", "rounds", "minutes", "clock", "move_hours", "rated", "playset", "starts_at",
                     "max_players", "private", "link", "paused", "level", "count"]
TOURNAMENT_BASE = {"name": "Fuzz Open", "format": "swiss", "rounds": 3, "clock": 300, "rated": False,
                   "playset": "sets", "max_players": 8}


@fuzz_settings()
@given(data=st.data())
def test_fuzz_tournament_doors(world: World, data: st.DataObject) -> None:
    """Every door of the tournaments' API, with any body, any event id and any (or no) player: a refusal is the
    API's error shape and changes no event, entrant or game; what succeeds is what its caller may do."""
    if not world.event:
        world.client.cookies.clear()
        world.host_cookie = str(world.client.put("/api/me", json={"name": "Fuzzhost"}).cookies.get(COOKIE))
        made = world.client.post("/api/tournaments", json=TOURNAMENT_BASE,
                                 headers={"cookie": f"{COOKIE}={world.host_cookie}"})
        world.event = made.json()["id"]
        world.client.cookies.clear()
    door = data.draw(st.sampled_from(["create", "list", "view", "join", "withdraw", "break", "start", "pause",
                                      "cancel", "bots"]), label="door")
    kind = data.draw(st.sampled_from(["value", "mutated", "text"]), label="kind")
    if kind == "value":
        body = dumps(data.draw(json_values, label="body"))
    elif kind == "mutated":
        body = dumps(mutate(dict(TOURNAMENT_BASE), data, TOURNAMENT_FIELDS))
    else:
        body = data.draw(hostile_json_texts, label="body")
    event = data.draw(st.one_of(st.just(world.event), texts), label="event")
    who = data.draw(st.sampled_from(["host", "none", "garbage"]), label="who")
    headers = {"content-type": "application/json"}
    if who == "host":
        headers["cookie"] = f"{COOKIE}={world.host_cookie}"
    elif who == "garbage":
        headers["cookie"] = f"{COOKIE}=" + data.draw(st.text(alphabet="abcXYZ019_-", max_size=50), label="cookie")
    ref = urllib.parse.quote(event, safe="")
    doors = {"create": ("POST", "/api/tournaments"), "list": ("GET", "/api/tournaments"),
             "view": ("GET", f"/api/tournaments/{ref}")}
    method, path = doors.get(door, ("POST", f"/api/tournaments/{ref}/{door}"))
    world.client.cookies.clear()
    before = _tournament_rows(world)
    r = world.client.request(method, path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
    world.client.cookies.clear()
    count("HTTP tournaments' doors")
    if r.status_code >= 400:
        assert_http_error(r)
        assert _tournament_rows(world) == before  # a refusal changes nothing
        return
    if method == "GET":
        assert _tournament_rows(world) == before
        return
    assert who == "host", (door, r.status_code, r.text)  # nothing changes for a caller who is no player


def _people_rows(world: World) -> tuple[object, ...]:
    """The players (whether each hid their profile apart) and who played which match."""
    from sqlalchemy import select

    from converge.server.storage.schema import match_players_table, players_table

    p = players_table.c
    with world.hub.storage.engine.connect() as conn:
        players = conn.execute(select(*[c for c in players_table.c if c.name != "profile_hidden"])
                               .order_by(p.id)).all()
        hidden = conn.execute(select(p.name, p.profile_hidden).order_by(p.id)).all()
        seats = conn.execute(select(match_players_table)).all()
    return tuple(map(tuple, players)), tuple(map(tuple, seats)), tuple(map(tuple, hidden))


PROFILE_NAME = "Fuzzprofile"
HISTORY_KEYS = ["opponent", "result", "rated", "playset", "since", "until"]
HISTORY_VALUES = ["won", "lost", "true", "false", "alchemist", "Healer", PROFILE_NAME, "hard", "Random bot", "0",
                  "1700000000", "99999999999", "100000000001", "-1", "1.5"]


def _friends_rows(world: World) -> tuple[object, ...]:
    from sqlalchemy import select

    from converge.server.storage.schema import challenges_table, follows_table, mutes_table, players_table

    p = players_table.c
    with world.hub.storage.engine.connect() as conn:
        rows = tuple(tuple(map(tuple, conn.execute(select(t)).all())) for t in (follows_table, challenges_table,
                                                                                 mutes_table))
        choices = tuple(map(tuple, conn.execute(select(p.id, p.chat_on, p.friends_only).order_by(p.id)).all()))
    return (*rows, choices)


PEOPLE_FIELDS = ["name", "playset", "clock", "move_hours", "rated", "friends_only", "on", "line"]
PEOPLE_BASE = {"name": "Fuzzfriend", "playset": "catalysts", "clock": 300, "rated": False}


@fuzz_settings()
@given(data=st.data())
def test_fuzz_profile_and_history_doors(world: World, data: st.DataObject) -> None:
    """A profile by any name, the history with any filters, the profile's setting with any body, by a named
    player, nobody or a garbage cookie: a refusal is the API's error shape and changes nothing; a read changes
    nothing; only a player's own setting changes, and only whether their profile is hidden."""
    if not world.profile_cookie:
        world.client.cookies.clear()
        made = world.client.put("/api/me", json={"name": PROFILE_NAME})
        world.profile_cookie = str(made.cookies.get(COOKIE))
        world.client.cookies.clear()
    door = data.draw(st.sampled_from(["profile", "history", "hide"]), label="door")
    who = data.draw(st.sampled_from(["player", "none", "garbage"]), label="who")
    headers = {"content-type": "application/json"}
    if who == "player":
        headers["cookie"] = f"{COOKIE}={world.profile_cookie}"
    elif who == "garbage":
        headers["cookie"] = f"{COOKIE}=" + data.draw(st.text(alphabet="abcXYZ019_-", max_size=50), label="cookie")
    body = ""
    if door == "profile":
        name = data.draw(st.one_of(st.sampled_from([PROFILE_NAME, PROFILE_NAME.upper(), " fuzz profile"]), texts,
                                   awkward_strings), label="name")
        method, path = "GET", "/api/players/" + (urllib.parse.quote(name, safe="") or "x")
    elif door == "history":
        pairs = data.draw(st.lists(st.tuples(st.one_of(st.sampled_from(HISTORY_KEYS), texts),
                                             st.one_of(st.sampled_from(HISTORY_VALUES), texts, awkward_strings)),
                                   max_size=5), label="pairs")
        method, path = "GET", "/api/me/history?" + urllib.parse.urlencode(pairs)
    else:
        kind = data.draw(st.sampled_from(["value", "mutated", "text"]), label="kind")
        if kind == "value":
            body = dumps(data.draw(json_values, label="body"))
        elif kind == "mutated":
            body = dumps(mutate({"hidden": True}, data, ["hidden"]))
        else:
            body = data.draw(hostile_json_texts, label="body")
        method, path = "PUT", "/api/me/profile"
    world.client.cookies.clear()
    before = _people_rows(world)
    r = world.client.request(method, path, content=body.encode("utf-8", "surrogatepass") if body else None,
                             headers=headers)
    world.client.cookies.clear()
    count("HTTP profiles' and history's doors")
    after = _people_rows(world)
    if r.status_code >= 400:
        assert_http_error(r)
        assert after == before  # a refusal changes nothing
        return
    assert r.status_code == 200 and isinstance(r.json(), dict)
    if method == "GET":
        assert after == before
        if door == "profile" and who != "player":  # (a hidden profile is its owner's only)
            assert r.json()["hidden"] is False
        return
    assert who == "player", (door, r.status_code, r.text)
    assert after[:2] == before[:2]
    assert dict(after[2])[PROFILE_NAME] is r.json()["hidden"]


@fuzz_settings()
@given(data=st.data())
def test_fuzz_people_doors(world: World, data: st.DataObject) -> None:
    """Every door of follows, challenges and a player's chat choices (chat on or off, mutes), with any body, any
    name, challenge id or mute key and any (or no) player: a refusal is the API's error shape and changes no
    follow, challenge, mute or choice; nothing changes for a caller who is no player; no answer holds a player's
    id."""
    from converge.server.lobby.identity import name_key
    from converge.server.storage import friends_store

    if not world.people:
        for name in ("Fuzzfan", "Fuzzfriend"):
            world.client.cookies.clear()
            world.people[name] = str(world.client.put("/api/me", json={"name": name}).cookies.get(COOKIE))
        world.client.cookies.clear()
        made = world.client.post("/api/challenges", json=PEOPLE_BASE,
                                 headers={"cookie": f"{COOKIE}={world.people['Fuzzfan']}"})
        world.challenge = made.json()["challenge"]["id"]
        world.client.cookies.clear()
    engine = world.hub.storage.engine
    ids = [p.id for p in (friends_store.person_by_key(engine, name_key(n)) for n in world.people) if p]
    door = data.draw(st.sampled_from(["follow", "unfollow", "friends", "friends_only", "challenge", "challenges",
                                      "accept", "decline", "cancel", "chat", "chat_on", "mute", "unmute"]),
                     label="door")
    kind = data.draw(st.sampled_from(["value", "mutated", "text"]), label="kind")
    if kind == "value":
        body = dumps(data.draw(json_values, label="body"))
    elif kind == "mutated":
        body = dumps(mutate(dict(PEOPLE_BASE), data, PEOPLE_FIELDS))
    else:
        body = data.draw(hostile_json_texts, label="body")
    ref = urllib.parse.quote(data.draw(st.one_of(st.just(world.challenge), st.just("Fuzzfriend"), texts),
                                       label="ref"), safe="")
    who = data.draw(st.sampled_from(["Fuzzfan", "Fuzzfriend", "none", "garbage"]), label="who")
    headers = {"content-type": "application/json"}
    if who in world.people:
        headers["cookie"] = f"{COOKIE}={world.people[who]}"
    elif who == "garbage":
        headers["cookie"] = f"{COOKIE}=" + data.draw(st.text(alphabet="abcXYZ019_-", max_size=50), label="cookie")
    method, path = {"follow": ("POST", "/api/me/follows"), "unfollow": ("DELETE", f"/api/me/follows/{ref}"),
                    "friends": ("GET", "/api/me/follows"), "friends_only": ("PUT", "/api/me/challenges"),
                    "challenge": ("POST", "/api/challenges"), "challenges": ("GET", "/api/challenges"),
                    "chat": ("GET", "/api/me/chat"), "chat_on": ("PUT", "/api/me/chat"),
                    "mute": ("POST", "/api/me/mutes"), "unmute": ("DELETE", f"/api/me/mutes/{ref}"),
                    }.get(door, ("POST", f"/api/challenges/{ref}/{door}"))
    world.client.cookies.clear()
    before = _friends_rows(world)
    r = world.client.request(method, path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
    world.client.cookies.clear()
    count("HTTP people's doors")
    assert not any(i in r.text for i in ids), r.text
    if r.status_code >= 400:
        assert_http_error(r)
        assert _friends_rows(world) == before  # a refusal changes nothing
        return
    if method == "GET":
        assert _friends_rows(world) == before
        return
    assert who in world.people, (door, r.status_code, r.text)  # nothing changes for a caller who is no player


@fuzz_settings()
@given(data=st.data())
def test_fuzz_action_bodies(world: World, data: st.DataObject) -> None:
    world.keep_going()
    headers, seat = auth_header(world, data)
    kind = data.draw(st.sampled_from(["value", "mutated", "mutated", "text"]), label="kind")
    mover_view = world.session.match.observation(world.session.match.current_player)
    legal = [a["id"] for a in mover_view["decision"].get("legal_actions", [])] or [0]
    if kind == "value":
        body = dumps(data.draw(json_values, label="body"))
    elif kind == "mutated":
        pick = data.draw(st.integers(min_value=0, max_value=40), label="legal")  # not sampled_from(legal): the
        base = {"action": legal[pick % len(legal)], "seq": world.session.seq}  # draws may not depend on the state
        body = dumps(mutate(base, data, ["action", "seq"]))
    else:
        body = data.draw(hostile_json_texts, label="body")
    mid = data.draw(st.sampled_from([world.mid, world.mid, world.finished, "nosuchmatch", "../x", "a" * 40]))
    mover = world.session.match.current_player
    before = world.snapshot()
    r = world.client.post(f"/api/matches/{urllib.parse.quote(mid, safe='')}/actions", content=body.encode("utf-8"),
                          headers={**headers, "content-type": "application/json"})
    count("HTTP POST /api/matches/{id}/actions (bodies, tokens)")
    if r.status_code == 200:
        assert mid == world.mid and seat == mover  # only the seat to move, in its own match, can act
        assert world.session.seq == before[0] + 1 and world.stored_actions() == world.session.seq
        return
    message = assert_http_error(r)
    assert world.snapshot() == before and world.stored_actions() == before[0]
    assert not hidden_words(message, world.hidden(seat), body), message


# ------------------------------------------------------------------ query strings and paths

PATHS = ["/api/matches/{id}", "/api/matches/{id}/record", "/api/matches/{id}/replay", "/m/{id}",
         "/api/matches/{id}/actions", "/api/matches/{id}/rematch", "/api/options", "/api/rules", "/", "/rules",
         "/static/{id}", "/{id}", "/api/{id}"]


@fuzz_settings()
@given(data=st.data())
def test_fuzz_query_strings_paths_and_methods(world: World, data: st.DataObject) -> None:
    template = data.draw(st.sampled_from(PATHS), label="path")
    ident = data.draw(st.one_of(st.sampled_from([world.mid, world.finished]), texts, awkward_strings), label="id")
    path = template.replace("{id}", urllib.parse.quote(ident, safe="") or "x")
    kind = data.draw(st.sampled_from(["pairs", "raw", "replay"]), label="query")
    if kind == "pairs":
        pairs = data.draw(st.lists(st.tuples(st.one_of(st.sampled_from(["step", "view", "token"]), texts),
                                             st.one_of(texts, awkward_strings)), max_size=4), label="pairs")
        query = urllib.parse.urlencode(pairs)
    elif kind == "replay":
        path = f"/api/matches/{world.finished}/replay"
        values = st.one_of(st.integers(min_value=-5, max_value=400).map(str), texts, awkward_strings,
                           st.integers(min_value=4300, max_value=6000).map(lambda n: "9" * n))
        query = urllib.parse.urlencode({"step": data.draw(values, label="step"),
                                        "view": data.draw(values, label="view")})
    else:
        query = urllib.parse.quote(data.draw(texts, label="raw"), safe="=&")
    method = data.draw(st.sampled_from(["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]))
    before = world.snapshot()
    r = world.client.request(method, f"{path}?{query}" if query else path,
                             content=b"{}" if method in ("POST", "PUT") else None)
    count("HTTP query strings, paths and methods")
    assert r.status_code < 500, (method, path, query[:100], r.status_code, r.text[:300])
    if r.status_code >= 400 and method != "HEAD":
        message = assert_http_error(r)
        assert not hidden_words(message, world.hidden(-1), query + path), message
    elif r.status_code == 200 and method == "GET" and r.headers["content-type"].startswith("application/json"):
        assert isinstance(r.json(), dict)
    if method != "POST" or r.status_code != 200:
        assert world.snapshot() == before


# ------------------------------------------------------------------ WebSocket messages


def ws_messages() -> st.SearchStrategy[str | bytes]:
    action_msg = st.builds(lambda a, s, extra: dumps({"type": "action", "action": a,
                                                       **({"seq": s} if s != "-" else {}), **extra}),
                           st.one_of(st.integers(min_value=-3, max_value=30), json_values, awkward_strings),
                           st.one_of(st.just("-"), st.integers(min_value=-2, max_value=400), json_values),
                           st.dictionaries(texts, json_values, max_size=1))
    kinds = st.sampled_from(["hello", "ping", "rematch", "action", "state", "welcome", "chat"])
    typed = st.builds(lambda t, rest: dumps({"type": t, **rest}), st.one_of(kinds, texts),
                      st.dictionaries(st.one_of(st.sampled_from(["token", "action", "seq", "player", "text",
                                                                 "quick"]), texts),
                                      json_values, max_size=3))
    chat = st.builds(lambda k, v: dumps({"type": "chat", k: v}), st.sampled_from(["text", "quick"]),
                     st.one_of(awkward_strings, json_values))  # (these seats have no player: always refused)
    return st.one_of(action_msg, action_msg, typed, chat, json_values.map(dumps), hostile_json_texts,
                     st.binary(max_size=64))


REPLIES = ("error", "ack", "pong", "rematch")


@fuzz_settings()
@given(data=st.data(), messages=st.lists(st.tuples(st.integers(0, 1), ws_messages()), min_size=1, max_size=8))
def test_fuzz_websocket_messages(world: World, data: st.DataObject,
                                 messages: list[tuple[int, str | bytes]]) -> None:
    for seat, raw in messages:
        world.keep_going()
        peer = world.peers[seat]
        before = world.snapshot()
        if isinstance(raw, bytes):
            peer.ws.send_bytes(raw)
        else:
            peer.send(raw)
        reply = peer.until(lambda m: m["type"] in REPLIES, limit=1000)
        count("WebSocket messages (seats)")
        if reply["type"] == "ack":
            assert world.session.seq == before[0] + 1 and world.stored_actions() == world.session.seq
            continue
        if reply["type"] in ("pong", "rematch"):
            assert world.snapshot()[:5] == before[:5]
            continue
        assert set(reply) == {"type", "code", "message"} and reply["code"] in ERROR_STATUS, reply
        message = check_message(reply["message"])
        assert world.snapshot() == before and world.stored_actions() == before[0]
        sent = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        assert not hidden_words(message, world.hidden(seat), sent), message


@fuzz_settings(scale=0.3)
@given(first=ws_messages(), token=st.sampled_from(["seat", "none", "garbage"]))
def test_fuzz_websocket_hello(world: World, first: str | bytes, token: str) -> None:
    """The first message of a new connection: a welcome (a hello), else one error and the close."""
    world.keep_going()
    if token == "seat" and isinstance(first, str) and first.startswith('{"type": "hello"'):
        doc = json.loads(first)
        if isinstance(doc, dict):
            first = dumps({**doc, "token": world.tokens[1]})
    peer = Peer(world.client, world.mid, hello=False)
    try:
        if isinstance(first, bytes):
            peer.ws.send_bytes(first)
        else:
            peer.send(first)
        msg = peer.recv()
        count("WebSocket hello (first message)")
        if msg["type"] == "welcome":
            assert msg["seat"] in (-1, 0, 1)
            return
        assert msg["type"] == "error" and set(msg) == {"type", "code", "message"} and msg["code"] in ERROR_STATUS
        check_message(msg["message"])
        assert peer.ws.receive()["type"] == "websocket.close"
    finally:
        peer.close()


# ------------------------------------------------------------------ players' names: look-alikes and renames

#: Letters that look like Latin ones, by the Latin letter (test data: other scripts' homoglyphs, small capitals,
#: fullwidth and mathematical forms, look-alike digits), to write a vocabulary word or a taken name with.
HOMOGLYPHS = {
    "a": "\u0430\u03b1\u1d00\uff41\U0001d41a4@", "b": "\u0184\u0299\U0001d41b8", "c": "\u0441\u03f2\u1d04\uff43",
    "d": "\u0501\u1d05\U0001d41d", "e": "\u0435\u1d07\uff453", "h": "\u04bb\u029c\uff48",
    "i": "\u0456\u0131\u026a1l", "l": "\u04cf\u029f1I|", "m": "\u043c\u1d0drn", "n": "\u0578\u0274",
    "o": "\u043e\u03bf\u1d0f\uff4f0", "p": "\u0440\u03c1\u1d18", "r": "\u0433\u0280", "s": "\u0455\ua731\uff535",
    "t": "\u1d1b\u03c47", "u": "\u03c5\u1d1c", "y": "\u0443\u028f", "A": "\u0410\u0391\u13aa", "B": "\u0412\u0392",
    "E": "\u0415\u0395", "H": "\u041d\u0397", "I": "\u0406\u0399l1", "O": "\u041e\u039f0", "P": "\u0420\u03a1",
    "T": "\u0422\u03a4",
}
#: What a name may try to pass for, and names already taken by other players (their look-alikes must be refused).
VOCABULARY = ["hard", "medium", "easy", "beginner", "expert", "greedy", "random", "bot", "Bot", "AI", "CPU",
              "admin", "system", "converge", "anonymous", "player 0", "Player 1", "They", "them", "You",
              "opponent", "the bot"]
TAKEN = ["Ada Lovelace", "Bob Smith", "Zo\u00eb", "Mar\u00eda"]
_OTHER_SCRIPTS = ("\u0430\u0431\u0432\u0434\u0436\u03b1\u03b2\u03b3\u03bb\u05d0\u05d1\u0627\u0628"
                  "\u4e2d\u6587\u3042\u30a2\u13aa\u0d05")
_MARKS = "\u0301\u0308\u0327\u200b\u200d\u202e\u2066\ufe0f"


def _disguise(word: str, data: st.DataObject) -> str:
    out = []
    for ch in word:
        swap = data.draw(st.integers(0, 3), label="swap?") == 0 and ch in HOMOGLYPHS
        out.append(data.draw(st.sampled_from(HOMOGLYPHS[ch]), label="homoglyph") if swap else ch)
    return "".join(out)


def name_inputs(data: st.DataObject) -> Any:
    """A name as a hostile player would type it: a bot level, a reserved or seat word, or a taken name written
    with look-alike letters, glued to bot words, spaced out, mixed with other scripts and marks; or any text."""
    kinds = ["disguised", "disguised", "glued", "mixed", "plain", "any"]
    kind = data.draw(st.sampled_from(kinds), label="name kind")
    base = data.draw(st.sampled_from(VOCABULARY + TAKEN), label="base")
    if kind == "disguised":
        return _disguise(base, data)
    if kind == "glued":
        other = data.draw(st.sampled_from(["bot", "AI", "Al", "cpu", "robot", "2", " 0", "-bot", " AI", "s"]))
        return _disguise(data.draw(st.sampled_from([base + other, other + base])), data)
    if kind == "mixed":
        extra = data.draw(st.text(st.sampled_from(_OTHER_SCRIPTS + _MARKS + " -_.'"), min_size=1, max_size=4))
        at = data.draw(st.integers(0, len(base)), label="at")
        return _disguise(base[:at] + extra + base[at:], data)
    if kind == "plain":
        return data.draw(st.text(st.sampled_from("abcdeHkmorstxyz0147 -_.'" + _OTHER_SCRIPTS), min_size=0,
                                 max_size=24), label="plain")
    return data.draw(st.one_of(texts, awkward_strings, json_values), label="any")


@dataclass
class Names:
    """A server with a few named players, and one more whose name the fuzz changes (renames unlimited)."""

    client: TestClient
    hub: Any
    me: str
    others: dict[str, str]  # each key of the others' names -> the name

    def players(self) -> list[tuple[Any, ...]]:
        from converge.server.storage import lobby_store as store

        with self.hub.storage.engine.connect() as conn:
            rows = conn.execute(store.players_table.select().order_by(store.players_table.c.id))
            return [tuple(r) for r in rows]


def assert_lobby_error(r: Any) -> str:
    """The documented error of a lobby door: its code is the lobby's own or the protocol's, with its status."""
    assert r.status_code < 500, (r.status_code, r.text[:300])
    doc = r.json()
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message"}, doc
    code = doc["error"]["code"]
    assert ERROR_STATUS.get(code) == r.status_code, (code, r.status_code)  # (the lobby's codes among them)
    return check_message(doc["error"]["message"])


def _cookie(token: str) -> dict[str, str]:
    from converge.server.lobby.identity import COOKIE

    return {"cookie": f"{COOKIE}={token}"}


def _new_player(client: TestClient, name: str | None) -> str:
    from converge.server.lobby.identity import COOKIE

    client.cookies.clear()
    r = client.put("/api/me", json={"name": name})
    assert r.status_code == 200, r.text
    client.cookies.clear()
    return str(r.cookies[COOKIE])


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Names]:
    from converge.server.lobby.identity import name_keys

    with client_for(tmp_path_factory.mktemp("fuzz-names"), players_per_hour=0, renames_per_hour=0,
                    rename_interval_s=0, sqlite_sync="NORMAL") as client:
        for name in TAKEN:
            _new_player(client, name)
        yield Names(client, client.app.state.hub, _new_player(client, None),  # type: ignore[attr-defined]
                    {key: n for n in TAKEN for key in name_keys(n)})


@fuzz_settings()
@given(data=st.data())
def test_fuzz_names_with_look_alikes_and_mixed_scripts(names: Names, data: st.DataObject) -> None:
    """Every name is taken as it is checked (check_name) or refused with its reason, changing nothing; a name
    accepted is of one script, reads as no bot, server or seat word, and shares its key with no one."""
    import disarm

    from converge.server.lobby.identity import check_name, name_keys, names_clash
    from converge.server.protocol.errors import ProtocolError

    raw = name_inputs(data)
    before = names.players()
    body = dumps({"name": raw})
    r = names.client.put("/api/me", content=body.encode("utf-8"),
                         headers={**_cookie(names.me), "content-type": "application/json"})
    count("HTTP PUT /api/me (names: look-alikes, mixed scripts)")
    if r.status_code == 200:
        shown = r.json()["player"]["name"]
        if raw is None:
            assert shown is None
            return
        assert isinstance(raw, str) and shown == check_name(raw)  # (the rules as the unit tests see them)
        assert not disarm.is_mixed_script(shown) and name_keys(shown).isdisjoint(names.others)
        for word in VOCABULARY:
            assert not names_clash(shown, word), (shown, word)
        return
    message = assert_lobby_error(r)
    assert r.json()["error"]["code"] in ("bad_name", "name_taken", "malformed", "too_large"), r.text
    assert names.players() == before, raw
    if isinstance(raw, str) and r.json()["error"]["code"] == "name_taken":
        assert not name_keys(check_name(raw)).isdisjoint(names.others)  # taken: one name with another's
    elif isinstance(raw, str) and r.json()["error"]["code"] == "bad_name":
        with pytest.raises(ProtocolError) as info:
            check_name(raw)
        assert info.value.message == message


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_for(tmp_path_factory.mktemp("fuzz-renames"), players_per_hour=0, renames_per_hour=3,
                    rename_interval_s=0, sqlite_sync="NORMAL") as client:
        yield client


@fuzz_settings(scale=0.3)
@given(data=st.data(), burst=st.integers(min_value=1, max_value=60))
def test_fuzz_rename_floods(limited: TestClient, data: st.DataObject, burst: int) -> None:
    """A burst of renames (good names, bad ones, the same one, anonymous) from one player: at most 3 change the
    name, each recorded once; every other answer is a documented error, and a rate_limited one says when."""
    import re

    from converge.server.storage import lobby_store as store

    me = _new_player(limited, None)
    hub = limited.app.state.hub  # type: ignore[attr-defined]
    changed = 0
    shown: str | None = None
    for i in range(burst):
        kind = data.draw(st.sampled_from(["fresh", "fresh", "same", "hostile", "none"]), label="rename")
        name: Any = {"fresh": f"Flood {secrets.token_hex(3)} {i}", "same": shown, "none": None,
                     "hostile": name_inputs(data) if kind == "hostile" else None}[kind]
        r = limited.put("/api/me", content=dumps({"name": name}).encode("utf-8"),
                        headers={**_cookie(me), "content-type": "application/json"})
        count("HTTP PUT /api/me (rename floods)")
        if r.status_code == 200:
            now = r.json()["player"]["name"]
            changed += now != shown
            shown = now
            continue
        message = assert_lobby_error(r)
        if r.json()["error"]["code"] == "rate_limited":
            assert re.search(r"again in \d+ (seconds?|minutes)$", message), message
    assert changed <= 3
    pid = store.player_by_hash(hub.storage.engine, hashlib.sha256(me.encode()).hexdigest())
    assert pid is not None and pid.name == shown
    with hub.storage.engine.connect() as conn:
        c = store.name_changes_table.c
        recorded = conn.execute(store.name_changes_table.select().where(c.player_id == pid.id)).all()
    assert len(recorded) == changed


# ------------------------------------------------------------------ origins: other pages, with the cookie

OWN = "http://testserver"  # where the test client's requests go
#: Origins built from parts, each known to be the server's own or not: a browser on another port, scheme or
#: host (a look-alike included) is foreign; the own origin in any spelling browsers and programs use is not.
built_origins = st.tuples(st.sampled_from(["http", "HTTP", "https", "ws", "ftp"]),
                          st.sampled_from(["testserver", "TestServer", "evil.example", "testserver.evil.example",
                                           "testserver.", "127.0.0.1", "[::1]", "xn--tstserver-g4a"]),
                          st.sampled_from(["", ":80", ":8001", ":443", ":0", ":65535"]))
odd_origins = st.sampled_from(["null", "", " ", "testserver", "http://user@testserver", "http://testserver:80:80",
                               "http://[::1", "http://testserver/x", "http://testserver?x", "http://test server",
                               "http://testserver\x00", "http://testserver, http://evil.example", "*"])
SITES = [None, "same-origin", "same-site", "cross-site", "none", "SAME-ORIGIN", "", "cross-site\x00"]


def own_parts(scheme: str, host: str, port: str) -> bool:
    return scheme.lower() == "http" and host.lower() == "testserver" and port in ("", ":80")


@pytest.fixture(scope="module")
def cookie(world: World) -> str:
    """A player of the world's server (their cookie's token)."""
    world.client.cookies.clear()
    r = world.client.put("/api/me", json={"name": "Fuzzy"})
    token = str(r.cookies["converge_player"])
    world.client.cookies.clear()
    return token


@fuzz_settings()
@given(data=st.data())
def test_fuzz_hostile_origins(world: World, cookie: str, data: st.DataObject) -> None:
    """A write or a WebSocket with the player's cookie and any Origin / Sec-Fetch-Site: refused (403
    bad_origin, nothing changed, no socket accepted) exactly when a browser says the page is elsewhere."""
    kind = data.draw(st.sampled_from(["built", "odd", "text", "none"]), label="origin kind")
    if kind == "built":
        parts = data.draw(built_origins, label="parts")
        origin: str | None = "{}://{}{}".format(*parts)
        foreign: bool | None = not own_parts(*parts)
    elif kind == "none":
        origin, foreign = None, False
    else:
        origin = data.draw(odd_origins if kind == "odd" else st.one_of(texts, awkward_strings), label="origin")
        foreign = True if kind == "odd" else None  # (any text: refused unless it is the own origin written so)
    site = data.draw(st.sampled_from(SITES), label="sec-fetch-site")
    if origin is None and site in ("same-site", "cross-site"):
        foreign = True
    headers: dict[str, Any] = {"cookie": f"converge_player={cookie}"}
    if origin is not None:
        headers["origin"] = origin.encode("utf-8")
    if site is not None:
        headers["sec-fetch-site"] = site.encode("utf-8")
    door = data.draw(st.sampled_from(["rename", "table", "create", "sign-in", "lobby", "match", "read"]),
                     label="door")
    client = world.client
    client.cookies.clear()
    before = (client.get("/api/me", headers={"cookie": headers["cookie"]}).json(), world.hub.storage.count())
    if door in ("lobby", "match"):
        path = "/ws/lobby" if door == "lobby" else f"/ws/{world.mid}"
        try:
            with client.websocket_connect(path, headers=headers) as ws:
                ws.send_text(json.dumps({"type": "hello"}))
                assert json.loads(ws.receive_text())["type"] == "welcome"
            refused = False
        except WebSocketDenialResponse as denial:
            assert assert_http_error(denial) and denial.json()["error"]["code"] == "bad_origin"
            refused = True
        count("WebSocket handshakes (hostile origins)")
    else:
        method, path, body = {"rename": ("PUT", "/api/me", {"name": "Fuzzy"}),
                              "table": ("POST", "/api/lobby/tables", {"playset": "catalysts", "private": True}),
                              "create": ("POST", "/api/matches", {"opponent": "friend", "playset": "catalysts"}),
                              "sign-in": ("POST", "/api/auth/email", {"email": "ada@example.org"}),
                              "read": ("GET", "/api/me", None)}[door]
        r = client.request(method, path, json=body, headers=headers)
        count("HTTP writes with the cookie (hostile origins)")
        refused = r.status_code == 403
        if r.status_code >= 400:
            assert_http_error(r)
        if door == "read":
            assert r.status_code == 200  # reads are never refused (their answers stay unreadable elsewhere)
            return
        if refused:
            assert r.json()["error"]["code"] == "bad_origin"
    if foreign is None:  # any text: only the server's own origin, however written, is let in
        foreign = normalize_origin_or_none(origin) != OWN
    assert refused == foreign, (origin, site, door)
    if refused:
        assert (client.get("/api/me", headers={"cookie": headers["cookie"]}).json(),
                world.hub.storage.count()) == before


def normalize_origin_or_none(text: str | None) -> str | None:
    from converge.server.security.origins import normalize_origin

    if text is None:
        return None
    try:
        return normalize_origin(text)
    except ValueError:
        return None


# ------------------------------------------------------------------ raw request heads, on a real server

METHODS = [b"GET", b"GET", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"FOO", b"get", b"G\x00T", b"", b"CONNECT",
           b"PRI", b"GET GET"]
TARGETS = [b"/api/options", b"/api/me", b"/ws/lobby", b"/", b"*", b"http://x/api/options", b"/%zz", b"/a b",
           b"/\xff", b"//", b"/api/matches?x=\x00", b"/api/options?" + b"q" * 9000, b"", b"/\r"]
VERSIONS = [b"HTTP/1.1", b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"HTTP/1.1x", b"http/1.1", b"", b"HTTP/9.9",
            b"HTTP/1.1 extra"]
NAMES = [b"Host", b"Content-Length", b"Transfer-Encoding", b"Connection", b"Upgrade", b"Origin", b"Expect",
         b"Sec-WebSocket-Key", b"Sec-WebSocket-Version", b"Cookie", b"X-Fill", b"", b" Host", b"Host ", b"H\x00st",
         b"X:Y", b"\xff"]
VALUES = [b"", b"127.0.0.1", b"-5", b"99999999999999999999999", b"0x10", b"1,2", b" 5 ", b"+5", b"chunked",
          b"gzip, chunked", b"chunked, gzip", b"close", b"upgrade", b"websocket", b"100-continue",
          b"http://127.0.0.1:1", b"null", b"dGhlIHNhbXBsZSBub25jZQ==", b"13", b"a\rb", b"a\nb", b"\x00", b"\x7f",
          b"\xff\xfe", b"a" * 9000]
no_newline = st.binary(max_size=40).filter(lambda b: b"\n" not in b)  # (a newline would end the head early)
header_lines = st.tuples(st.one_of(st.sampled_from(NAMES), no_newline.map(lambda b: b[:12])),
                         st.one_of(st.sampled_from(VALUES), no_newline,
                                   st.integers(min_value=0, max_value=30_000).map(lambda n: b"v" * n)))


@pytest.fixture(scope="module")
def raw_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`converge serve` as it ships, in its own process, for the bytes no HTTP client would send (with no cap
    on one address's connections: the flood below meets the lobby's own limit, whatever order the sockets
    close in; the cap is tests/server/test_limits.py's)."""
    server = Server(tmp_path_factory.mktemp("fuzz-raw") / "m.sqlite3", None, "--log-level", "critical",
                    "--connections-per-client", "0")
    server.start()
    yield server
    server.stop()


def request_body(headers: list[tuple[bytes, bytes]]) -> bytes:
    """What a request with these headers says follows its head: so many bytes, or an empty chunked body."""
    lengths = [v.strip(b" \t") for k, v in headers if k.strip().lower() == b"content-length"]
    body = b"x" * int(lengths[0]) if len(lengths) == 1 and lengths[0].isdigit() and int(lengths[0]) <= 30_000 \
        else b""
    if any(k.strip().lower() == b"transfer-encoding" for k, _ in headers):
        body += b"0\r\n\r\n"
    return body


def check_raw_answer(r: RawResponse, ended: bool) -> None:
    """An answer to raw bytes: a 101 (a valid handshake), a success, or a JSON error of the table's — never
    plain text, never a 5xx; no answer only when the request was cut short (the server waits, or closes)."""
    if r.status == 0:
        assert not r.data and (ended or not r.closed), r.data[:200]
        return
    assert 100 < r.status < 500, r.text
    if r.status >= 400:
        assert_http_error(r)


@fuzz_settings()
@given(method=st.one_of(st.sampled_from(METHODS), st.binary(max_size=8)),
       target=st.one_of(st.sampled_from(TARGETS), st.binary(max_size=30)), version=st.sampled_from(VERSIONS),
       headers=st.lists(header_lines, max_size=12), extra=st.integers(min_value=0, max_value=40),
       eol=st.sampled_from([b"\r\n", b"\r\n", b"\n"]), cut=st.sampled_from([None, None, None, 0, 1, 7]))
def test_fuzz_raw_request_heads(raw_server: Server, method: bytes, target: bytes, version: bytes,
                                headers: list[tuple[bytes, bytes]], extra: int, eol: bytes,
                                cut: int | None) -> None:
    """Request lines and headers no HTTP client would send (broken, oversized, many, cut short) to a real
    server: each gets the JSON error shape or what it asked for, and the server goes on serving."""
    headers = [(b"Host", b"127.0.0.1"), *headers, *[(b"X-Fill-%d" % i, b"f" * 1000) for i in range(extra)]]
    head = method + b" " + target + b" " + version + eol + b"".join(k + b": " + v + eol for k, v in headers) + eol
    data = head + request_body(headers)
    if cut is not None:  # the head cut short: the client stops there
        data = head[:max(0, len(head) - 2 - cut)]
    r = raw_exchange(raw_server.port, data, timeout=2.0, end_input=cut is not None)
    count("HTTP raw request heads (real server)")
    check_raw_answer(r, cut is not None)


def test_fuzz_floods_of_lobby_sockets_and_broken_heads(raw_server: Server) -> None:
    """Many lobby sockets from one address at once (3,000 in a `make fuzz` run), mixed with broken and oversized
    heads: exactly the per-address limit gets in, every other socket is told busy and closed, the answers
    to the heads stay JSON, and once they close the same address gets in again."""
    import websockets
    from websockets.asyncio.client import connect

    sockets = 3000 if EXAMPLES > 1000 else 200
    limit = 32  # ServerConfig().max_lobby_connections_per_address, as `converge serve` runs by default
    url = f"ws://127.0.0.1:{raw_server.port}/ws/lobby"
    gen = Hostile(SEED)

    async def one(held: list[Any]) -> str:
        """A lobby socket that says hello at once: welcomed (and kept open), or told busy and closed."""
        ws = await connect(url, open_timeout=60, max_queue=4)
        with contextlib.suppress(websockets.ConnectionClosed):  # (a refused one may be closed already)
            await ws.send(json.dumps({"type": "hello"}))
        msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
        count("WebSocket lobby sockets (flood, real server)")
        if msg["type"] == "welcome":
            held.append(ws)
            return "welcome"
        assert msg == {"type": "error", "code": "busy",
                       "message": "too many lobby connections from your address; close some of its pages"}, msg
        with contextlib.suppress(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 60)
        assert ws.close_code == 1008, ws.close_code
        return "busy"

    async def flood() -> tuple[int, int]:
        held: list[Any] = []
        got = await asyncio.gather(*(one(held) for _ in range(sockets)))
        for i in range(50):  # broken and oversized heads while the flood is held
            data = gen.text().encode("utf-8", "replace") + b"\r\n\r\n" if i % 2 else \
                b"GET / HTTP/1.1\r\nX: " + b"a" * 20000
            check_raw_answer(await asyncio.to_thread(raw_exchange, raw_server.port, data, 5.0), False)
            count("HTTP raw request heads (flood, real server)")
        for ws in held:
            await ws.close()
        return got.count("welcome"), got.count("busy")

    welcomed, refused = asyncio.run(flood())
    assert (welcomed, refused) == (limit, sockets - limit)
    deadline = time.monotonic() + 30

    async def again() -> str:
        async with connect(url) as ws:
            await ws.send(json.dumps({"type": "hello"}))
            return str(json.loads(await ws.recv())["type"])

    while (got := asyncio.run(again())) != "welcome":  # the closed ones are counted out as they finish
        assert time.monotonic() < deadline, got
        time.sleep(0.2)
    assert raw_exchange(raw_server.port, b"GET /api/options HTTP/1.1\r\nHost: x\r\n\r\n").status == 200


# ------------------------------------------------------------------ the bulk run: a seeded generator, in-process


class AsgiWebSocket:
    """A WebSocket client speaking ASGI to the app directly, in the test's own event loop (no threads, no
    sockets): the same door as a browser's, at a fraction of the cost per message."""

    def __init__(self, app: Any, path: str) -> None:
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outgoing: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        scope = {"type": "websocket", "asgi": {"version": "3.0"}, "http_version": "1.1", "scheme": "ws",
                 "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"", "headers": [],
                 "client": ("203.0.113.9", 4321), "server": ("testserver", 80), "subprotocols": [], "state": {}}
        self.task = asyncio.get_running_loop().create_task(app(scope, self.incoming.get, self.outgoing.put))

    async def open(self, token: str | None) -> dict[str, Any]:
        await self.incoming.put({"type": "websocket.connect"})
        assert (await self.outgoing.get())["type"] == "websocket.accept"
        await self.send(json.dumps({"type": "hello", "token": token}))
        return await self.reply(("welcome", "error"))

    async def send(self, raw: str | bytes) -> None:
        key = "bytes" if isinstance(raw, bytes) else "text"
        await self.incoming.put({"type": "websocket.receive", key: raw})

    async def reply(self, kinds: tuple[str, ...] = REPLIES) -> dict[str, Any]:
        while True:
            msg = await asyncio.wait_for(self.outgoing.get(), 30)
            assert msg["type"] == "websocket.send", msg
            doc: dict[str, Any] = json.loads(msg["text"])
            if doc["type"] in kinds:
                return doc

    async def close(self) -> None:
        await self.incoming.put({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(self.task, 30)


async def asgi_http(app: Any, method: str, path: str, query: bytes = b"", body: bytes = b"",
                    headers: list[tuple[bytes, bytes]] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request to the ASGI app, in-process: (status, headers, body)."""
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
             "query_string": query, "client": ("203.0.113.9", 4321), "server": ("testserver", 80), "state": {},
             "headers": [(b"host", b"testserver"), (b"content-length", str(len(body)).encode()), *(headers or [])]}
    done = False

    async def receive() -> dict[str, Any]:
        nonlocal done
        if not done:
            done = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)  # no disconnect: the app never waits for one
        return {"type": "http.disconnect"}

    status, out_headers, chunks = 0, {}, []

    async def send(msg: dict[str, Any]) -> None:
        nonlocal status, out_headers
        if msg["type"] == "http.response.start":
            status = msg["status"]
            out_headers = {k.decode().lower(): v.decode("latin-1") for k, v in msg.get("headers", [])}
        elif msg["type"] == "http.response.body":
            chunks.append(msg.get("body", b""))

    await app(scope, receive, send)
    return status, out_headers, b"".join(chunks)


def check_http_error(status: int, body: bytes) -> str:
    assert status < 500, (status, body[:300])
    doc = json.loads(body)
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message"}, doc
    assert doc["error"]["code"] in ERROR_STATUS and ERROR_STATUS[doc["error"]["code"]] == status, (doc, status)
    return check_message(doc["error"]["message"])


class Bulk:
    """The state of a bulk run: a friend match in progress with both seats connected, a finished match."""

    def __init__(self, app: Any, gen: Hostile) -> None:
        self.app, self.gen, self.hub = app, gen, app.state.hub
        self.mid, self.finished = "", ""
        self.tokens: dict[int, str] = {}
        self.peers: dict[int, AsgiWebSocket] = {}
        self.views: tuple[Any, ...] | None = None
        self.hidden_cache: dict[tuple[str, int, int], set[str]] = {}

    async def post(self, path: str, doc: Any, token: str | None = None) -> Any:
        headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
        status, _, body = await asgi_http(self.app, "POST", path, body=json.dumps(doc).encode(), headers=headers)
        assert status in (200, 201), body
        return json.loads(body)

    async def new_match(self) -> None:
        for peer in self.peers.values():
            await peer.close()
        doc = await self.post("/api/matches", {"opponent": "friend", "playset": "random", "seat": 0})
        self.mid = doc["match_id"]
        self.tokens = {0: doc["token"], 1: doc["invite_url"].split("#token=", 1)[1]}
        self.peers = {s: AsgiWebSocket(self.app, f"/ws/{self.mid}") for s in (0, 1)}
        for s, peer in self.peers.items():
            assert (await peer.open(self.tokens[s]))["type"] == "welcome"

    async def finish_a_match(self) -> None:
        doc = await self.post("/api/matches", {"opponent": "bot", "bot": "random", "seat": 0})
        self.finished = doc["match_id"]
        session = self.hub.sessions[self.finished]
        while session.row.status == "active":
            match = session.match
            if match.current_player == 0:
                await self.post(f"/api/matches/{self.finished}/actions", {"action": match.legal_actions()[0]},
                                doc["token"])
            else:
                await asyncio.sleep(0)

    @property
    def session(self) -> Any:
        return self.hub.sessions[self.mid]

    def snapshot(self) -> tuple[Any, ...]:
        """The committed state: actions in memory and in the database, status. (Both players' views are
        compared too, every few inputs: see :meth:`views_unchanged`.)"""
        s = self.session
        return s.id, s.seq, list(s.match.history), s.row.status

    def views_unchanged(self) -> None:
        """Both views as they were when the match was last at this action: a refused input that changed the
        engine's state without adding an action is caught within a few inputs."""
        s = self.session
        views = (s.id, s.seq, s.match.observation(0), s.match.observation(1), s.match.observation(-1))
        if self.views is not None and self.views[:2] == views[:2]:
            assert self.views == views, "the match changed without an action"
        self.views = views

    def hidden(self, viewer: int) -> set[str]:
        key = (self.mid, self.session.seq, viewer)
        if key not in self.hidden_cache:
            match = self.session.match
            self.hidden_cache = {key: {match.playset.card_ids[c] for c in range(18)
                                       if c not in known_cards(match, viewer)}}
        return self.hidden_cache[key]

    def ws_message(self) -> str | bytes:
        gen, r = self.gen, self.gen.rng
        kind = r.randrange(8)
        legal = self.session.match.legal_actions()
        if kind < 3:
            action = r.choice(legal) if r.randrange(3) == 0 else gen.scalar() if kind else gen.value()
            doc: dict[str, Any] = {"type": "action", "action": action}
            if r.randrange(2):
                doc["seq"] = r.choice([self.session.seq, self.session.seq + 1, gen.scalar()])
            if r.randrange(6) == 0:
                doc[gen.text()[:10]] = gen.value()
            return dumps(doc)
        if kind == 3:
            return dumps(gen.mutate({"type": r.choice(["hello", "ping", "rematch", "action"])},
                                    ["type", "token", "action", "seq"]))
        if kind == 4:
            return dumps(gen.value())
        if kind == 5:
            return gen.hostile_text()
        if kind == 6:
            return bytes(r.randrange(256) for _ in range(r.randrange(40)))
        return r.choice(['{"type": "ping"}', '{"type": "hello"}', '{"type": "rematch"}'])

    async def websocket_input(self) -> None:
        seat = self.gen.rng.randrange(2)
        peer, raw = self.peers[seat], self.ws_message()
        before = self.snapshot()
        await peer.send(raw)
        reply = await peer.reply()
        count("WebSocket messages (seats, bulk)")
        if reply["type"] == "ack":
            assert self.session.seq == before[1] + 1
            assert len(self.hub.storage.actions_of(self.mid)) == before[1] + 1
            return
        assert self.snapshot() == before
        if reply["type"] == "error":
            assert set(reply) == {"type", "code", "message"} and reply["code"] in ERROR_STATUS, reply
            sent = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
            assert not hidden_words(check_message(reply["message"]), self.hidden(seat), sent), reply

    async def http_input(self) -> None:
        gen, r = self.gen, self.gen.rng
        door = r.randrange(3)
        before = self.snapshot()
        seat = r.randrange(-1, 2)
        token = self.tokens[seat] if seat >= 0 else (gen.text() if r.randrange(2) else None)
        headers = [(b"authorization", f"Bearer {token}".encode("utf-8", "surrogatepass"))] if token else []
        if door == 0:
            base = {"action": r.choice(self.session.match.legal_actions()), "seq": self.session.seq}
            body = r.choice([dumps(gen.mutate(base, ["action", "seq"])), dumps(gen.value()), gen.hostile_text()])
            status, _, out = await asgi_http(self.app, "POST", f"/api/matches/{self.mid}/actions",
                                             body=body.encode("utf-8", "surrogatepass"), headers=headers)
            count("HTTP POST /api/matches/{id}/actions (bulk)")
            if status == 200:  # only the seat to move can act
                assert seat >= 0 and self.session.seq == before[1] + 1
                return
            sent = body
        elif door == 1:
            valid = dict(r.choice(CREATE_BASES))
            body = r.choice([dumps(gen.mutate(valid, CREATE_FIELDS)), dumps(gen.value()), gen.hostile_text()])
            stored = self.hub.storage.count()
            status, _, out = await asgi_http(self.app, "POST", "/api/matches",
                                             body=body.encode("utf-8", "surrogatepass"))
            count("HTTP POST /api/matches (bulk)")
            if status == 201:
                assert self.hub.storage.count() == stored + 1
                return
            assert self.hub.storage.count() == stored
            sent = body
        else:
            target = r.choice([self.finished, self.mid, gen.text()])
            path = r.choice(["/api/matches/{}/replay", "/api/matches/{}", "/api/matches/{}/record"]).format(
                urllib.parse.quote(target, safe="") or "x")
            pairs = [(r.choice(["step", "view", gen.text()[:8]]), r.choice([str(gen.scalar()), gen.text()]))
                     for _ in range(r.randrange(3))]
            query = urllib.parse.urlencode(pairs).encode()
            status, _, out = await asgi_http(self.app, "GET", path, query=query, headers=headers)
            count("HTTP query strings (bulk)")
            if status == 200:
                assert isinstance(json.loads(out), dict)
                assert self.snapshot() == before
                return
            sent = path + query.decode()
        message = check_http_error(status, out)
        assert self.snapshot() == before
        assert not hidden_words(message, self.hidden(seat), sent), message


async def bulk_run(tmp_path: Path, inputs: int, seed: int) -> None:
    # Matches nobody uses leave memory after 2 s (the generated creations would otherwise pile up there).
    app = create_app(db_url=str(tmp_path / "bulk.sqlite3"),
                     **{**FAST, "matches_per_hour": 0, "idle_evict": 2.0, "sqlite_sync": "NORMAL"})
    async with app.router.lifespan_context(app):
        run = Bulk(app, Hostile(seed))
        await run.finish_a_match()
        await run.new_match()
        for i in range(inputs):
            if run.session.row.status != "active":
                await run.new_match()
            if i % 10 == 0:
                run.views_unchanged()
            if run.gen.rng.randrange(3):
                await run.websocket_input()
            else:
                await run.http_input()
        for peer in run.peers.values():
            await peer.close()


def test_fuzz_bulk_websocket_and_http_inputs(tmp_path: Path) -> None:
    """The seeded generator through the same doors, many more inputs (EXAMPLES x BULK)."""
    asyncio.run(bulk_run(tmp_path, EXAMPLES * BULK, SEED))
