"""No secret in any log line, at any level: a real ``converge serve --log-level debug --log-format json`` is
driven through its doors — matches created and played to the end over WebSockets, hints, a lobby player
named and connected, a mailed sign-in link followed, and hostile input at each — and then every secret it
handed out (seat and invitation tokens, the player's cookie, the sign-in token) is looked for in its whole
log, which must also be one JSON object per line."""

from __future__ import annotations

import contextlib
import email
import email.policy
import io
import json
import logging
import random
import secrets as secrets_module
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets.sync.client")

import httpx2
from fastapi.testclient import TestClient
from sqlalchemy import text
from websockets.sync.client import connect as ws_connect

from converge.server.app import create_app
from converge.server.logs import JsonFormatter
from tests.fuzz_support import Hostile
from tests.server_support import FAST, Server


def _play(base: str, match_id: str, tokens: dict[int, str], rng: random.Random, hostile: Hostile) -> int:
    """The seats in ``tokens`` (a bot plays the other) to the end, hostile messages between their moves; the
    number of their actions acknowledged."""
    url = base.replace("http://", "ws://") + f"/ws/{match_id}"
    with contextlib.ExitStack() as stack:
        sockets = {seat: stack.enter_context(ws_connect(url, open_timeout=30)) for seat in tokens}
        return _play_on(sockets, tokens, rng, hostile)


def _play_on(sockets: dict[int, Any], tokens: dict[int, str], rng: random.Random, hostile: Hostile) -> int:
    views: dict[int, dict[str, Any]] = {}
    acks = [0]
    for seat, ws in sockets.items():
        ws.send(json.dumps({"type": "hello", "token": tokens[seat]}))
        while (msg := json.loads(ws.recv(timeout=30)))["type"] != "welcome":
            pass
        views[seat] = msg
    deadline = time.monotonic() + 120
    while all(v["match"]["status"] != "over" for v in views.values()):
        assert time.monotonic() < deadline, "the match did not end"
        for seat, ws in sockets.items():
            view = views[seat] = _latest(ws, views[seat], acks)
            decision = view["observation"]["decision"]
            if view["match"]["status"] == "over" or decision is None or decision["player"] != seat:
                continue
            if rng.random() < 0.2:  # something hostile first: a stale seq, a mangled message, junk
                ws.send(json.dumps(hostile.mutate({"type": "action", "seq": view["seq"] - 1, "action": 0},
                                                  ["type", "seq", "action"])))
            ws.send(json.dumps({"type": "action", "seq": view["seq"],
                                "action": rng.choice(decision["legal_actions"])["id"]}))
            end = time.monotonic() + 30
            while views[seat]["seq"] == view["seq"] and time.monotonic() < end:
                views[seat] = _latest(ws, views[seat], acks)
        time.sleep(0.005)
    return acks[0]


def _latest(ws: Any, last: dict[str, Any], acks: list[int]) -> dict[str, Any]:
    """The newest view of what has come, the acknowledgements counted."""
    try:
        while True:
            msg = json.loads(ws.recv(timeout=0.05))
            if msg["type"] in ("welcome", "state"):
                last = msg
            acks[0] += msg["type"] == "ack"
    except TimeoutError:
        return last


def test_a_whole_run_at_debug_logs_no_token_cookie_or_link(tmp_path: Path) -> None:
    hosts, scrape = "hosts-token-4e8a1c7b9d2f", "metrics-token-6b2d8f4a1e9c"
    server = Server(tmp_path / "m.sqlite3", None, "--log-level", "debug", "--log-format", "json", "--bot-delay",
                    "0", "--bot-workers", "0", "--hint-simulations", "50", "--rate", "1000",
                    env={"CONVERGE_ADMIN_TOKEN": hosts, "CONVERGE_METRICS_TOKEN": scrape})
    server.start()
    secrets: set[str] = set()
    rng, hostile = random.Random(7), Hostile(7)
    try:
        base = server.base
        with httpx2.Client(base_url=base, timeout=30) as web:
            # a lobby player: a cookie, a name, the lobby socket with it
            assert web.put("/api/me", json={"name": "Ada"}).status_code == 200
            cookie = web.cookies.get("converge_player")
            assert cookie
            secrets.add(cookie)
            with ws_connect(base.replace("http://", "ws://") + "/ws/lobby", open_timeout=30,
                            additional_headers={"Cookie": f"converge_player={cookie}"}) as lobby:
                lobby.send(json.dumps({"type": "hello"}))
                assert json.loads(lobby.recv(timeout=30))["type"] == "welcome"
                lobby.send(json.dumps(hostile.mutate({"type": "queue", "rated": True}, ["type", "rated"])))
            # a friend match, both seats played by us, and a bot match
            friend = web.post("/api/matches", json={"opponent": "friend", "playset": "catalysts",
                                                    "seat": 0}).json()
            invite = friend["invite_url"].split("#token=")[1]
            secrets |= {friend["token"], invite}
            assert web.post(f"/api/matches/{friend['match_id']}/hints", json={"allow": True},
                            headers={"Authorization": f"Bearer {friend['token']}"}).status_code == 200
            bot = web.post("/api/matches", json={"opponent": "bot", "bot": "random", "playset": "catalysts",
                                                 "seat": 1}).json()
            secrets.add(bot["token"])
            hint = web.post(f"/api/matches/{bot['match_id']}/hint",
                            headers={"Authorization": f"Bearer {bot['token']}"})
            assert hint.status_code in (200, 409), hint.text  # (409: not the caller's decision yet)
            # hostile HTTP with a real token beside it
            for _ in range(20):
                body = hostile.mutate({"action": 0, "seq": 0}, ["action", "seq"])
                web.post(f"/api/matches/{bot['match_id']}/actions", content=json.dumps(body),
                         headers={"Authorization": f"Bearer {bot['token']}"})
            web.get(f"/api/matches/{bot['match_id']}", headers={"Authorization": f"Bearer {bot['token']}x"})
            # a sign-in link, mailed to a file, followed
            assert web.post("/api/auth/email", json={"email": "ada@example.org"}).status_code == 200
            folder = tmp_path / "mail"
            deadline = time.monotonic() + 10
            while not list(folder.glob("*.eml")):
                assert time.monotonic() < deadline, "no mail written"
                time.sleep(0.05)
            (mail,) = folder.glob("*.eml")
            message = email.message_from_bytes(mail.read_bytes(), policy=email.policy.default)
            link = message.get_body().get_content()  # type: ignore[union-attr]
            signin = link.split("signin#token=")[1].split()[0]
            secrets.add(signin)
            assert web.post("/api/auth/verify", json={"token": signin}).status_code == 200
            secrets.update(v for k, v in web.cookies.items() if k.startswith("converge"))
            # the hosts' API and the metrics, with their tokens and without
            secrets |= {hosts, scrape}
            for token in (hosts, hosts + "x", scrape):
                web.get("/api/admin/players", params={"q": "Ada"}, headers={"Authorization": f"Bearer {token}"})
                web.get("/metrics", headers={"Authorization": f"Bearer {token}"})
            assert web.post("/api/admin/players/Ada/rename", json={"actor": "t", "reason": "r", "name": "Ada L"},
                            headers={"Authorization": f"Bearer {hosts}"}).status_code == 200
            seat = {"Authorization": f"Bearer {friend['token']}"}
            web.post(f"/api/matches/{friend['match_id']}/players", headers=seat)  # (a seat reports as its player)
            report = web.post(f"/api/matches/{friend['match_id']}/report", json={"reason": "other"}, headers=seat)
            assert report.status_code in (201, 404), report.text  # (404: the friend's seat has no player)
        played = _play(base, friend["match_id"], {0: friend["token"], 1: invite}, rng, hostile)
        played += _play(base, bot["match_id"], {1: bot["token"]}, rng, hostile)
        assert played > 20
    finally:
        server.stop()
    lines = server.log_path.read_text().splitlines()
    log_lines = [line for line in lines if not line.startswith("Converge server: http")]  # (stdout's line)
    assert len(log_lines) > 100  # debug: the libraries' lines too
    for line in log_lines:
        doc = json.loads(line)  # one JSON object per line
        assert {"time", "level", "logger", "message"} <= doc.keys()
    text = "\n".join(lines)
    assert len(secrets) >= 5  # two seats' tokens, an invitation's, the cookie, the sign-in link's
    for secret in secrets:
        assert secret not in text, f"a secret in the log: {secret[:6]}…"
    assert '"logger": "uvicorn.access"' in text and "/api/matches" in text  # the requests are logged, tokenless


# ------------------------------------------------------------------ a write the database refuses

#: The seed (and bot seed) every match of the test below is dealt with: looked for in the whole log.
SEED = 8675309123456789


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_failed_write_logs_its_error_in_the_exception_field_and_never_a_seed(
        backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """The database refuses a new match's row — an SQLite trigger; a PostgreSQL CHECK, whose error quotes the
    whole row — and the write's failure is logged, at debug, with the error in ``exception``: no line holds the
    seed, the statement's parameters or the row."""
    url = str(tmp_path / "m.sqlite3") if backend == "sqlite" else request.getfixturevalue("postgres_url")
    monkeypatch.setattr(secrets_module, "randbelow", lambda n: SEED % n)  # (the seeds the server deals)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)  # (the own_logging fixture puts the handlers and level back after the test)
    root.setLevel(logging.DEBUG)
    with TestClient(create_app(db_url=url, **FAST)) as client:
        engine = client.app.state.hub.storage.engine  # type: ignore[attr-defined]
        refuse = ("CREATE TRIGGER refuse_matches BEFORE INSERT ON converge_matches BEGIN "
                  "SELECT RAISE(ABORT, 'refused by the test'); END" if backend == "sqlite" else
                  "ALTER TABLE converge_matches ADD CONSTRAINT refuse_matches CHECK (seed < 0) NOT VALID")
        with engine.begin() as conn:
            conn.execute(text(refuse))
        try:
            refused = client.post("/api/matches", json={"opponent": "bot", "bot": "random",
                                                        "playset": "catalysts"})
        finally:
            with engine.begin() as conn:
                conn.execute(text("DROP TRIGGER refuse_matches" if backend == "sqlite" else
                                  "ALTER TABLE converge_matches DROP CONSTRAINT refuse_matches"))
        assert refused.status_code == 503 and refused.json()["error"]["code"] == "storage", refused.text
        assert str(SEED) not in refused.text
        made = client.post("/api/matches", json={"opponent": "bot", "bot": "random", "playset": "catalysts"})
        assert made.status_code == 201, made.text  # (the database takes writes again)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]  # (each one JSON object)
    (failed,) = [d for d in lines if d["message"].startswith("a database write failed")]
    assert failed["level"] == "warning" and "[SQL" not in failed["message"]
    assert ("IntegrityError" if backend == "sqlite" else "CheckViolation") in failed["message"]
    assert "converge_matches" in failed["exception"] and "Traceback" in failed["exception"]  # (where, and what)
    for doc in lines:
        for value in doc.values():
            shown = str(value)
            assert str(SEED) not in shown and "[parameters:" not in shown.replace("[parameters: ***]", "")
    assert any(d["message"].startswith("could not store a new match") for d in lines)
