"""Shared helpers of the web server tests: an app on a fresh database, WebSocket peers, message scans."""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient

from converge import Match
from converge.server.app import create_app
from converge.server.lobby.identity import COOKIE
from converge.server.storage.pgcluster import free_port
from tests.engine.test_properties import known_cards

#: Settings for tests: bots move at once, nobody is replaced, no rate limit gets in the way.
FAST: dict[str, Any] = {"bot_delay": 0.0, "replace_after": 0.0, "rate": 10000.0, "burst": 10000.0,
                        "create_rate": 10000.0, "create_burst": 10000.0, "gc_freeze": False}


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """A test that hangs (a message that never comes) dumps its stack and fails the run, not CI's clock. (Ten
    minutes: the longest test, forty restarts of a server, took four on a machine loaded by other runs; under
    pytest-xdist the worker that exits is reported with the test it was running.)"""
    faulthandler.dump_traceback_later(int(os.environ.get("CONVERGE_TEST_HANG_S", "600")), exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


_OPEN: list[Peer] = []

#: A request or WebSocket with this header comes, for the app, from the address it holds (tests of the
#: per-address limits: the test client has only one address of its own).
ADDRESS_HEADER = "x-test-address"


class FromAddress:
    """ASGI wrapper: the client address of a request is the one in :data:`ADDRESS_HEADER`, when given."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.state = app.state

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope.get("headers") or []:
                if key == ADDRESS_HEADER.encode():
                    scope = {**scope, "client": (value.decode(), 50000)}
        await self.app(scope, receive, send)


def from_address(address: str) -> dict[str, str]:
    return {ADDRESS_HEADER: address}


@contextlib.contextmanager
def client_for(tmp_path: Path, **settings: Any) -> Iterator[TestClient]:
    """A test client of a new app on ``tmp_path/matches.sqlite3``; WebSockets left open are closed at the end.
    Requests may say which client address they come from (:func:`from_address`)."""
    app = create_app(db_url=str(tmp_path / "matches.sqlite3"), **{**FAST, **settings})
    with TestClient(FromAddress(app)) as client:
        try:
            yield client
        finally:
            for peer in list(_OPEN):
                peer.close()


def create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/matches", json={"playset": "catalysts", **body})
    assert r.status_code == 201, r.text
    doc: dict[str, Any] = r.json()
    if doc["invite_url"]:
        doc["invite_token"] = doc["invite_url"].split("#token=", 1)[1]
    return doc


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Peer:
    """One WebSocket connection of a seat (or a spectator: no token), keeping the view as a client does."""

    def __init__(self, client: TestClient, match_id: str, token: str | None = None, hello: bool = True,
                 address: str | None = None, cookie: str | None = None) -> None:
        headers = from_address(address) if address else {}
        if cookie is not None:  # (the player the page's cookie names: chat's sender and reader)
            headers["cookie"] = f"{COOKIE}={cookie}"
        self.ctx = client.websocket_connect(f"/ws/{match_id}", headers=headers)
        self.ws = self.ctx.__enter__()
        _OPEN.append(self)
        self.texts: list[str] = []
        self.obs: dict[str, Any] | None = None
        self.meta: dict[str, Any] | None = None
        self.seq = 0
        self.seat: int | None = None
        self.welcome: dict[str, Any] | None = None
        if hello:
            self.send({"type": "hello", **({"token": token} if token else {})})
            self.welcome = self.until(lambda m: m["type"] in ("welcome", "error"))

    def send(self, doc: Any) -> None:
        self.ws.send_text(doc if isinstance(doc, str) else json.dumps(doc))

    def recv(self) -> dict[str, Any]:
        text = self.ws.receive_text()
        self.texts.append(text)
        msg: dict[str, Any] = json.loads(text)
        if msg["type"] == "welcome":
            self.seat, self.obs, self.meta, self.seq = msg["seat"], msg["observation"], msg["match"], msg["seq"]
        elif msg["type"] == "state":
            assert self.obs is not None
            events = self.obs["events"][:msg["events_from"]] + msg["observation"]["events"]
            self.obs = {**msg["observation"], "events": events}
            self.meta, self.seq = msg["match"], msg["seq"]
        elif msg["type"] == "meta":
            self.meta = msg["match"]
        return msg

    def until(self, pred: Callable[[dict[str, Any]], bool], limit: int = 200) -> dict[str, Any]:
        for _ in range(limit):
            msg = self.recv()
            if pred(msg):
                return msg
        raise AssertionError(f"no expected message in {limit}")

    def state_at(self, seq: int) -> dict[str, Any]:
        if self.seq >= seq and self.obs is not None:
            return self.obs
        self.until(lambda m: m["type"] == "state" and m["seq"] >= seq)
        assert self.obs is not None
        return self.obs

    def act(self, action: Any, seq: int | None = None) -> dict[str, Any]:
        """Send an action; return the ack or the error."""
        msg: dict[str, Any] = {"type": "action", "action": action}
        if seq is not None:
            msg["seq"] = seq
        self.send(msg)
        return self.until(lambda m: m["type"] in ("ack", "error"))

    def close(self) -> None:
        if self in _OPEN:
            _OPEN.remove(self)
            self.ctx.__exit__(None, None, None)


def play_friend_match(peers: dict[int, Peer], rng: random.Random, watchers: tuple[Peer, ...] = (),
                      stop_after: int | None = None) -> int:
    """Play random legal actions, each from the seat to move, until the match ends (or ``stop_after``
    actions); every peer and watcher reads each new state. Returns the number of actions played."""
    played = 0
    while peers[0].meta is not None and peers[0].meta["status"] == "active":
        if stop_after is not None and played >= stop_after:
            break
        obs = peers[0].obs
        assert obs is not None
        seat = obs["current_player"]
        peer = peers[seat]
        assert peer.obs is not None and peer.obs["decision"]["player"] == seat
        action = rng.choice(peer.obs["decision"]["legal_actions"])["id"]
        ack = peer.act(action, peer.seq)
        assert ack["type"] == "ack", ack
        for p in (*peers.values(), *watchers):
            p.state_at(ack["seq"])
        played += 1
    return played


# ------------------------------------------------------------------ a real server process


class Server:
    """``converge serve`` in its own process, on a database that outlives it: an SQLite file (its log beside
    it), or a database URL with ``log_dir``. ``env``: more environment for the process (a test's pause point:
    ``CONVERGE_TEST_PAUSE``)."""

    def __init__(self, db: Path | str, port: int | None = None, *extra: str, log_dir: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.db, self.port = db, port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.extra = extra
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = (log_dir if log_dir is not None else Path(db).parent) / "server.log"

    def start(self) -> None:
        import httpx2

        self.log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "converge", "serve", "--port", str(self.port), "--db", str(self.db),
             "--log-level", "warning", *self.extra], stdout=self.log, stderr=self.log,
            env={**os.environ, **self.env})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log_path.read_text()
            with contextlib.suppress(Exception):
                if httpx2.get(f"{self.base}/api/options", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        """SIGKILL: no shutdown of any kind."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=30)
        self.log.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.log.close()


class BenchServer(Server):
    """The server process serve-bench runs (``python -m converge.server.load_bench --serve``): its own uvicorn
    settings must be those of ``converge serve``."""

    def start(self) -> None:
        from converge.server.load_bench import wait_for_server

        self.log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "converge.server.load_bench", "--serve", "--port", str(self.port), "--db",
             f"sqlite:///{self.db}", *self.extra], stdout=self.log, stderr=self.log)
        wait_for_server(self.base, self.proc)


# ------------------------------------------------------------------ raw HTTP over a socket


class RawResponse:
    """What a server wrote back on a raw socket: the status, the headers (names in lower case), the body;
    ``status`` 0 when it closed without a word. ``closed``: it then closed the connection."""

    def __init__(self, data: bytes, closed: bool) -> None:
        self.data, self.closed = data, closed
        head, _, self.body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = re.match(r"HTTP/1\.1 (\d{3}) ", lines[0])
        self.status = int(status.group(1)) if status else 0
        self.headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}

    @property
    def status_code(self) -> int:  # (as an httpx response: tests' error checks take either)
        return self.status

    @property
    def text(self) -> str:
        return self.data.decode("latin-1")[:500]

    def json(self) -> Any:
        assert self.headers.get("content-type") == "application/json", self.text
        return json.loads(self.body)


def raw_exchange(port: int, data: bytes, timeout: float = 15.0, chunk: int = 65536,
                 end_input: bool = False) -> RawResponse:
    """Send ``data`` as it is (in pieces of ``chunk`` bytes; a server that stops reading ends the sending),
    then, with ``end_input``, end the sending side; read one response (a 100 Continue before it skipped):
    until its Content-Length is there, its head if it is a 101, or until the server closes the connection.
    After ``timeout`` seconds without all of it, the status is what came (0 if nothing did)."""
    import socket

    deadline = time.monotonic() + timeout
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        with contextlib.suppress(OSError):
            for i in range(0, len(data), chunk):
                sock.sendall(data[i:i + chunk])
            if end_input:
                sock.shutdown(socket.SHUT_WR)
        got, closed = b"", False
        while time.monotonic() < deadline:
            while got.startswith(b"HTTP/1.1 100 ") and b"\r\n\r\n" in got:
                got = got.partition(b"\r\n\r\n")[2]
            head, sep, body = got.partition(b"\r\n\r\n")
            if sep:
                length = re.search(rb"(?im)^content-length: *(\d+)", head)
                if (length and len(body) >= int(length.group(1))) or head.startswith(b"HTTP/1.1 101 "):
                    break
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                piece = sock.recv(65536)
            except TimeoutError:
                break
            except ConnectionResetError:
                closed = True
                break
            if not piece:
                closed = True
                break
            got += piece
    return RawResponse(got, closed)


# ------------------------------------------------------------------ scanning what a connection received

FORBIDDEN = ('"seed"', '"record"', '"actions":', '"token"', '"bot_seed"', '"deck":', '"artifact":', '"history"')


def round_part(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    starts = [i for i, e in enumerate(events) if e["kind"] == "round_start"]
    return events[starts[-1]:] if starts else events


def check_next(match: Match, viewer: int, staged: dict[str, Any]) -> None:
    """The choices a client may hold (``next``) are the viewer's legal actions, each followed by exactly the
    choice the match then asks of the same player, with nothing happening in between."""
    if staged:
        assert match.current_player == viewer
    for key, follow in staged.items():
        action = int(key)
        assert action in match.legal_actions()
        after = match.clone()
        after.apply(action)
        assert after.current_player == viewer and len(after.events) == len(match.events)
        decision = after.observation(viewer)["decision"]
        assert follow["kind"] == decision["kind"]
        assert follow["choices"] == [{"id": a["id"], "label": a["label"]} for a in decision["legal_actions"]]


def scan(texts: list[str], viewer: int, record: dict[str, Any]) -> int:
    """Check every message a connection of ``viewer`` received during a match (now over, ``record``):

    * no seed, record, token or engine internals anywhere, not even the seed's digits;
    * every view is exactly ``observation(viewer)`` of the match at that point (events sent as deltas);
    * no card hidden from the viewer at that point is named, outside the (public) printed-card catalogue
      and the events of earlier rounds.

    Returns the number of views checked."""
    seed = str(record["seed"])
    views = 0
    obs: dict[str, Any] | None = None
    for text in texts:
        for word in FORBIDDEN:
            assert word not in text, f"{word} in a message to viewer {viewer}: {text[:200]}"
        assert seed not in text, f"the seed in a message to viewer {viewer}"
        msg = json.loads(text)
        if msg["type"] not in ("welcome", "state"):
            continue
        delta = msg["observation"]["events"]
        if msg["type"] == "welcome":
            obs = msg["observation"]
        else:
            assert obs is not None
            obs = {**msg["observation"], "events": obs["events"][:msg["events_from"]] + delta}
        match = Match.replay(record, upto=msg["seq"])
        assert obs == match.observation(viewer), f"viewer {viewer}'s view at {msg['seq']} is not its observation"
        ids = match.playset.card_ids
        hidden = [ids[c] for c in range(18) if c not in known_cards(match, viewer)]
        check_next(match, viewer, msg.get("next", {}))
        shown = {k: v for k, v in msg.items() if k not in ("cards", "observation", "turns", "rounds", "last_turn")}
        shown["observation"] = {**msg["observation"], "events": round_part(delta)}
        # summaries of earlier rounds show those rounds' boards, public then (as the earlier events are)
        shown["summaries"] = [t for t in [*msg.get("turns", []), *msg.get("rounds", []), msg.get("last_turn")]
                              if t is not None and t["round"] == match.round_no]
        leak = re.search(r"\b(" + "|".join(hidden) + r")\b", json.dumps(shown)) if hidden else None
        assert leak is None, f"viewer {viewer} was sent hidden card {leak and leak.group()} at {msg['seq']}"
        views += 1
    return views

