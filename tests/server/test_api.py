"""The HTTP API and pages: creating matches, a whole match between two seats, tokens, records, replays,
restarts, and the security headers."""

from __future__ import annotations

import json
import random
import re
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.server_support import (  # noqa: F401 (fixtures)
    FAST,
    auth,
    client_for,
    create,
    free_port,
    hang_guard,
)

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from converge import Match
from converge.bots import LEVELS
from converge.server.app import create_app
from converge.server.security.tokens import hash_token, seat_of
from converge.server.storage.match_store import Storage


def view(client: TestClient, mid: str, token: str | None = None) -> dict[str, Any]:
    r = client.get(f"/api/matches/{mid}", headers=auth(token) if token else {})
    assert r.status_code == 200, r.text
    doc: dict[str, Any] = r.json()
    return doc


def play_over_http(client: TestClient, mid: str, tokens: dict[int, str], rng: random.Random,
                   stop_after: int | None = None) -> list[int]:
    """Each seat, in turn, posts one of the legal actions of its own view; returns the actions posted."""
    posted: list[int] = []
    while stop_after is None or len(posted) < stop_after:
        doc = view(client, mid)
        if doc["match"]["status"] == "over":
            break
        seat = doc["observation"]["current_player"]
        if seat not in tokens:  # a bot's decision: it moves by itself
            time.sleep(0.005)
            continue
        mine = view(client, mid, tokens[seat])
        action = rng.choice(mine["observation"]["decision"]["legal_actions"])["id"]
        r = client.post(f"/api/matches/{mid}/actions", json={"action": action, "seq": mine["seq"]},
                        headers=auth(tokens[seat]))
        assert r.status_code == 200, r.text
        assert r.json()["seq"] == mine["seq"] + 1
        posted.append(action)
    return posted


def test_options_list_the_bots_the_skillsets_and_the_sets(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = client.get("/api/options").json()
        # players choose a level (never "random", "greedy" or "ismcts": developers' names), each with its
        # fixed rating from docs/bots.md's ladder, or none where it was never measured
        assert doc["bots"] == list(LEVELS) == ["beginner", "easy", "medium", "hard", "expert"]
        assert doc["default_bot"] in LEVELS
        assert doc["bot_ratings"] == {"beginner": 1000, "easy": 1869, "medium": 2188, "hard": 2495, "expert": None}
        assert doc["bot_names"]["hard"] == "Hard bot" and doc["bot_names"]["ismcts"] == "ISMCTS bot"
        # the algorithms behind the levels are still accepted (tests, benchmarks), only not offered
        assert client.post("/api/matches", json={"opponent": "bot", "bot": "greedy"}).status_code == 201
        assert len(doc["skillsets"]) == 9 and set(doc["sets"]) == {"catalysts", "engines", "sparks"}
        rules = client.get("/api/rules").json()
        assert rules["markdown"].startswith("# How to play Converge") and "<h2" in rules["html"]
        assert [g["keyword"] for g in rules["glossary"]][:3] == ["Convert", "Assemble", "Recall"]
        assert client.get("/api/rules/developer").json()["markdown"].startswith("# The rules of Converge")


class _Inline(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {k for k, _ in attrs}
        if tag == "style":
            self.problems.append("a <style> element")
        if "style" in names:
            self.problems.append(f"a style attribute on <{tag}>")
        self.problems += [f"an inline handler {k} on <{tag}>" for k in names if k.startswith("on")]
        if tag == "script":
            src = dict(attrs).get("src")
            if not src:
                self.problems.append("an inline <script>")
            else:
                self.scripts.append(src)


def test_pages_have_a_strict_content_security_policy_and_no_inline_code(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        for path in ("/", "/m/abcdef", "/rules", "/api/options", "/static/app.js", "/static/style.css", "/nope"):
            r = client.get(path)
            csp = r.headers["content-security-policy"]
            assert "default-src 'none'" in csp and "script-src 'self'" in csp and "style-src 'self'" in csp
            assert "unsafe" not in csp and "frame-ancestors 'none'" in csp
            assert r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["referrer-policy"] == "no-referrer"
        page = _Inline()
        page.feed(client.get("/").text)
        assert page.problems == [] and page.scripts == ["/static/app.js"]
        js = client.get("/static/app.js").text
        assert "innerHTML" not in js and "eval(" not in js and "new Function" not in js
        assert ".style." not in js and "setAttribute(\"style\"" not in js


def test_creating_a_match_checks_every_field(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        bad: list[tuple[Any, str]] = [
            ({"opponent": "robot"}, "opponent"),
            ({"opponent": "bot", "bot": "grandmaster"}, "bot"),
            ({"opponent": "bot", "bot": 3}, "bot"),
            ({"opponent": "bot", "playset": ["alchemist", "alchemist", "healer"]}, "different"),
            ({"opponent": "bot", "playset": ["alchemist", "healer"]}, "playset"),
            ({"opponent": "bot", "playset": ["alchemist", "healer", "wizard"]}, "unknown skillset"),
            ({"opponent": "bot", "playset": "everything"}, "playset"),
            ({"opponent": "bot", "seat": 2}, "seat"),
            ({"opponent": "bot", "seat": True}, "seat"),
            ({"opponent": "friend", "clock": 5}, "clock"),
            ({"opponent": "friend", "clock": "300"}, "clock"),
            ({"opponent": "bot", "seed": 7}, "unexpected"),
            ([1, 2, 3], "JSON object"),
        ]
        for body, word in bad:
            r = client.post("/api/matches", json=body)
            assert r.status_code == 400, (body, r.text)
            assert r.json()["error"]["code"] == "malformed" and word in r.json()["error"]["message"], body
        r = client.post("/api/matches", content=b"{not json", headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
        r = client.post("/api/matches", content=b"{" + b" " * 20000 + b"}",
                        headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        assert client.get("/api/options").status_code == 200


def test_tokens_are_long_random_and_only_their_hashes_are_stored(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend")
        tokens = [doc["token"], doc["invite_token"]]
        assert all(len(t) >= 43 and re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)  # >= 256 bits
        assert doc["url"] == f"/m/{doc['match_id']}#token={doc['token']}"  # the token rides in the fragment
        storage = Storage(str(tmp_path / "matches.sqlite3"))
        row = storage.load(doc["match_id"])
        assert row is not None
        hashes = [s.token_hash for s in row.seats]
        assert hashes == [hash_token(doc["token"]), hash_token(doc["invite_token"])]
        db_bytes = (tmp_path / "matches.sqlite3").read_bytes() + b"".join(
            p.read_bytes() for p in tmp_path.glob("matches.sqlite3-*"))
        assert all(t.encode() not in db_bytes for t in tokens)
        assert seat_of(doc["invite_token"], hashes) == 1 and seat_of("x" * 43, hashes) is None
        storage.close()


def test_a_whole_match_between_two_seats_over_http(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend", seat=1)
        mid, tokens = doc["match_id"], {1: doc["token"], 0: doc["invite_token"]}
        assert doc["seat"] == 1
        start = view(client, mid, tokens[0])
        assert start["seat"] == 0 and start["seq"] == 0 and len(start["observation"]["hand"]) == 3
        assert view(client, mid)["seat"] == -1 and view(client, mid)["observation"]["hand"] is None
        posted = play_over_http(client, mid, tokens, random.Random(7))
        record = client.get(f"/api/matches/{mid}/record").json()
        assert record["actions"] == posted  # every accepted action, once, in order
        final = Match.replay(record)
        assert final.is_terminal
        for seat in (0, 1):
            got = view(client, mid, tokens[seat])
            assert got["observation"] == final.observation(seat)
            assert got["match"]["result"] == {"winner": final.winner, "reason": "match"}
        r = client.post(f"/api/matches/{mid}/actions", json={"action": 0}, headers=auth(tokens[0]))
        assert r.status_code == 409 and r.json()["error"]["code"] == "over"


def test_the_seat_comes_from_the_token_only(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend", seat=0)
        mid, tokens = doc["match_id"], {0: doc["token"], 1: doc["invite_token"]}
        mover = view(client, mid)["observation"]["current_player"]
        legal = view(client, mid, tokens[mover])["observation"]["decision"]["legal_actions"]
        cases: list[tuple[dict[str, str], int, str]] = [
            ({}, 401, "unauthorized"),
            (auth("x" * 43), 401, "unauthorized"),
            ({"Authorization": "Basic abc"}, 401, "unauthorized"),
            ({"Authorization": f"Bearer {create(client, opponent='friend')['token']}"}, 401, "unauthorized"),
            (auth(tokens[1 - mover]), 409, "not_your_turn"),
        ]
        for headers, status, code in cases:
            r = client.post(f"/api/matches/{mid}/actions", json={"action": legal[0]["id"]}, headers=headers)
            assert (r.status_code, r.json()["error"]["code"]) == (status, code), headers
        r = client.get(f"/api/matches/{mid}", headers=auth("y" * 43))
        assert r.status_code == 401
        for body, code in (({"action": legal[0]["id"], "seat": mover}, "malformed"), ({}, "malformed"),
                           ({"action": "declare"}, "illegal"), ({"action": legal[0]["id"], "seq": 3}, "stale")):
            r = client.post(f"/api/matches/{mid}/actions", json=body, headers=auth(tokens[mover]))
            assert r.json()["error"]["code"] == code, body
        assert view(client, mid)["seq"] == 0
        assert client.get("/api/matches/nosuchmatch").status_code == 404
        assert client.get("/api/matches/bad%24id").status_code == 404


def test_nothing_secret_is_served_while_the_match_is_in_progress(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="friend")
        mid = doc["match_id"]
        seed = Storage(str(tmp_path / "matches.sqlite3")).load(mid).seed  # type: ignore[union-attr]
        for path in (f"/api/matches/{mid}/record", f"/api/matches/{mid}/replay?step=0"):
            r = client.get(path)
            assert r.status_code == 409 and r.json()["error"]["code"] == "not_over"
        for token in (doc["token"], doc["invite_token"], None):
            text = json.dumps(view(client, mid, token))
            assert '"seed"' not in text and str(seed) not in text and "token" not in text


def test_a_bot_answers_and_a_finished_match_replays_step_by_step(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        doc = create(client, opponent="bot", bot="greedy", seat=0, playset=["protector", "delver", "healer"])
        mid = doc["match_id"]
        meta = view(client, mid, doc["token"])["match"]
        assert meta["seats"][1]["kind"] == "bot" and meta["seats"][1]["bot"] == "greedy"
        posted = play_over_http(client, mid, {0: doc["token"]}, random.Random(8))
        record = client.get(f"/api/matches/{mid}/record").json()
        assert len(record["actions"]) > len(posted) > 0  # the bot's actions are in the record too
        total = len(record["actions"])
        for step in (0, 1, total // 2, total):
            for v in (0, 1, -1):
                r = client.get(f"/api/matches/{mid}/replay?step={step}&view={v}").json()
                assert r["total"] == total and r["step"] == step
                assert r["observation"] == Match.replay(record, upto=step).observation(v)
        r = client.get(f"/api/matches/{mid}/replay?step=1", headers=auth(doc["token"])).json()
        assert r["observation"]["viewer"] == 0 and r["move"]["action"] == Match.replay(record, upto=0) \
            .action_to_string(record["actions"][0])
        assert client.get(f"/api/matches/{mid}/replay?step={total + 1}").status_code == 400
        assert client.get(f"/api/matches/{mid}/replay?step=0&view=2").status_code == 400
        r = client.post(f"/api/matches/{mid}/rematch", headers=auth(doc["token"]))
        assert r.status_code == 200 and r.json()["match_id"] != mid
        assert client.post(f"/api/matches/{mid}/rematch", headers=auth(doc["token"])).json() == r.json()


def test_a_restarted_server_continues_every_match_where_it_was(tmp_path: Path) -> None:
    rng = random.Random(11)
    with client_for(tmp_path) as client:
        friend = create(client, opponent="friend")
        bot = create(client, opponent="bot", bot="random")
        ftokens = {friend["seat"]: friend["token"], 1 - friend["seat"]: friend["invite_token"]}
        play_over_http(client, friend["match_id"], ftokens, rng, stop_after=15)
        play_over_http(client, bot["match_id"], {bot["seat"]: bot["token"]}, rng, stop_after=6)
        time.sleep(0.2)
        before = {(m, s): view(client, m, t) for m, toks in ((friend["match_id"], ftokens),
                                                              (bot["match_id"], {bot["seat"]: bot["token"]}))
                  for s, t in toks.items()}
    with client_for(tmp_path) as client:  # a new server on the same database
        for (m, _s), doc in before.items():
            token = ftokens[_s] if m == friend["match_id"] else bot["token"]
            assert view(client, m, token) == doc
        play_over_http(client, friend["match_id"], ftokens, rng)
        play_over_http(client, bot["match_id"], {bot["seat"]: bot["token"]}, rng)
        for m in (friend["match_id"], bot["match_id"]):
            assert Match.replay(client.get(f"/api/matches/{m}/record").json()).is_terminal


# ---------------------------------------------------------------------- PostgreSQL


def test_matches_live_in_postgresql_when_given_its_url(postgres_url: str) -> None:
    rng = random.Random(12)
    with TestClient(create_app(db_url=postgres_url, **FAST)) as client:
        assert client.app.state.hub.storage.engine.dialect.name == "postgresql"  # type: ignore[attr-defined]
        doc = create(client, opponent="friend", seat=0)
        mid, tokens = doc["match_id"], {0: doc["token"], 1: doc["invite_token"]}
        first = play_over_http(client, mid, tokens, rng, stop_after=20)
        bot = create(client, opponent="bot", bot="random", seat=0)
        play_over_http(client, bot["match_id"], {0: bot["token"]}, rng)
    with TestClient(create_app(db_url=postgres_url, **FAST)) as client:  # restarted: the match goes on
        assert view(client, mid, tokens[0])["seq"] == len(first)
        rest = play_over_http(client, mid, tokens, rng)
        record = client.get(f"/api/matches/{mid}/record").json()
        assert record["actions"] == first + rest and Match.replay(record).is_terminal
        assert Match.replay(client.get(f"/api/matches/{bot['match_id']}/record").json()).is_terminal


def test_openapi_documents_the_real_api_with_its_bodies(tmp_path: Path) -> None:
    with client_for(tmp_path, docs=True) as client:
        spec = client.get("/openapi.json").json()
        paths = spec["paths"]
        assert {"/api/matches", "/api/matches/{match_id}/actions", "/api/matches/{match_id}/hints",
                "/api/options", "/api/status"} <= set(paths)
        body = paths["/api/matches"]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert body["$ref"].endswith("/NewMatch")
        schemas = spec["components"]["schemas"]
        assert set(schemas["NewMatch"]["properties"]) == {"opponent", "bot", "playset", "seat", "clock",
                                                          "move_hours"}
        assert schemas["NewMatch"]["additionalProperties"] is False
        assert set(schemas["ActionRequest"]["properties"]) == {"action", "seq"}
        assert "ErrorResponse" in schemas and "400" in paths["/api/matches"]["post"]["responses"]
        r = client.post("/api/matches", json={"opponent": "bot", "seat": "left"})
        assert r.status_code == 400 and r.json()["error"]["message"].startswith("request body field 'seat'")
        assert r.headers["cache-control"] == "no-store"
        assert client.get("/api/options").headers["cache-control"] == "no-store"
    with client_for(tmp_path / "off") as client:
        assert client.get("/openapi.json").status_code == 404  # off unless asked for


def test_status_gives_the_load_and_the_databases_durability_and_nothing_about_a_match(tmp_path: Path) -> None:
    with client_for(tmp_path, sqlite_sync="NORMAL") as client:
        made = create(client, opponent="friend")
        status = client.get("/api/status").json()
        assert status["database"] == "SQLite (WAL, synchronous=NORMAL)"
        assert status["matches_held"] == 1 and status["connections"] == 0
        assert made["match_id"] not in json.dumps(status) and made["token"] not in json.dumps(status)


def test_no_request_waits_for_a_worker_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """FastAPI runs a plain function (a route, a dependency) in a worker thread: a thread hop on every
    request, which cost a third of a light request's CPU. Ours are coroutines: no API request hops."""
    import fastapi.dependencies.utils
    import fastapi.routing

    hops: list[str] = []
    for module in (fastapi.dependencies.utils, fastapi.routing):
        original = module.run_in_threadpool

        async def recorded(func: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            hops.append(getattr(func, "__name__", repr(func)))
            return await _original(func, *args, **kwargs)

        monkeypatch.setattr(module, "run_in_threadpool", recorded)
    with client_for(tmp_path) as client:
        made = create(client, opponent="bot", bot="random")
        mid = made["match_id"]
        for path in ("/api/options", "/api/status", f"/api/matches/{mid}", "/api/leaderboard", "/api/rules"):
            assert client.get(path, headers=auth(made["token"])).status_code == 200, path
        legal = client.get(f"/api/matches/{mid}", headers=auth(made["token"])).json()["observation"]["decision"]
        assert client.post(f"/api/matches/{mid}/actions", headers=auth(made["token"]),
                           json={"action": legal["legal_actions"][0]["id"]}).status_code == 200
        assert client.get("/api/nothing-here").status_code == 404
    assert hops == []
