"""The HTTP API's edges: one error shape for every error (the refusals uvicorn makes itself included), HEAD for
the pages, request heads bounded, matches created per address and per hour, lobby connections per address
and in all, and the retention policy that deletes expired matches."""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import random
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_support import (  # noqa: F401 (hang_guard is a fixture)
    BenchServer,
    Peer,
    RawResponse,
    Server,
    auth,
    client_for,
    create,
    from_address,
    hang_guard,
    raw_exchange,
)

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from websockets.sync.client import connect as ws_connect

from converge.server.app import create_app
from converge.server.protocol.errors import ERROR_STATUS
from converge.server.transport.serving import LINGER_S
from tests.server.test_api import play_over_http
from tests.server_support import FAST

DAY = 86400.0


def assert_error(r: Any, status: int, code: str) -> str:
    """The documented error: ``{"error": {"code", "message"}}`` with the code's status; returns the message."""
    assert r.status_code == status, (r.status_code, r.text)
    doc = r.json()
    assert set(doc) == {"error"} and set(doc["error"]) == {"code", "message"}, doc
    assert doc["error"]["code"] == code and ERROR_STATUS[code] == status
    message: str = doc["error"]["message"]
    assert message and len(message) <= 300 and "\n" not in message
    return message


def finished_match(client: TestClient, rng: random.Random, **settings: Any) -> dict[str, Any]:
    """A match played to its end: by two seats over HTTP (``opponent="friend"``) or against a random bot."""
    doc = create(client, **{"opponent": "bot", "bot": "random", "seat": 0, **settings})
    tokens = {0: doc["token"], 1: doc["invite_token"]} if doc.get("invite_token") else {0: doc["token"]}
    play_over_http(client, doc["match_id"], tokens, rng)
    assert client.get(f"/api/matches/{doc['match_id']}").json()["match"]["status"] == "over"
    return doc


# ------------------------------------------------------------------ one error shape


def test_every_error_has_the_documented_shape(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        over = finished_match(client, random.Random(1))["match_id"]
        live = create(client, opponent="friend")["match_id"]
        message = assert_error(client.get(f"/api/matches/{over}/replay?step=abc"), 400, "malformed")
        assert message == "query parameter 'step' must be a whole number"
        message = assert_error(client.get(f"/api/matches/{over}/replay?step=1&view=me"), 400, "malformed")
        assert message == "query parameter 'view' must be a whole number"
        assert_error(client.get(f"/api/matches/{over}/replay?step=" + "9" * 5000), 400, "malformed")
        assert_error(client.get(f"/api/matches/{over}/replay?step=1.5&view=[]"), 400, "malformed")
        assert_error(client.get(f"/api/matches/{over}/replay?step=-1"), 400, "malformed")
        assert_error(client.get(f"/api/matches/{live}/replay?step=0"), 409, "not_over")
        assert_error(client.get("/api/nothing/here"), 404, "not_found")
        assert_error(client.get("/static/missing.js"), 404, "not_found")
        r = client.delete(f"/api/matches/{live}")
        assert_error(r, 405, "method_not_allowed")
        assert r.headers["allow"] == "GET"
        assert_error(client.put("/api/matches", json={}), 405, "method_not_allowed")
        # refused before any route: a body without a length, a body over the limit
        assert_error(client.post("/api/matches", content=iter([b"{}"])), 411, "length_required")
        assert_error(client.post("/api/matches", content=b" " * 20000), 413, "too_large")
        # No FastAPI default shape anywhere, and the security headers are on errors too.
        r = client.get(f"/api/matches/{over}/replay?step=abc&view=abc")
        assert "detail" not in r.text and "content-security-policy" in r.headers
        assert "2 more" not in r.json()["error"]["message"] and "1 more problem" in r.json()["error"]["message"]


def test_the_pages_answer_head(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        mid = create(client, opponent="friend")["match_id"]
        for path in ("/", f"/m/{mid}", "/rules"):
            got, head = client.get(path), client.head(path)
            assert head.status_code == 200 and head.content == b"", path
            assert head.headers["content-type"] == got.headers["content-type"] == "text/html; charset=utf-8"
            assert head.headers["content-length"] == str(len(got.content))
            assert "content-security-policy" in head.headers
        assert client.head("/static/app.js").status_code == 200
        assert client.head("/favicon.ico").status_code == 200  # the site's icon (SVG)
        assert client.head("/api/options").status_code == 405  # the API is not a page


# ------------------------------------------------------------------ what uvicorn refuses itself (a real server)


def head_of(extra: bytes = b"", target: bytes = b"/api/options", method: bytes = b"GET") -> bytes:
    return method + b" " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + b"Connection: close\r\n\r\n"


def headers_of(n: int, size: int) -> bytes:
    """``n`` header lines of ``size`` bytes each (``X-Fill-7: aaa...\\r\\n``)."""
    return b"".join(b"X-Fill-%02d: " % i + b"a" * (size - 14) + b"\r\n" for i in range(n))


def assert_refused(port: int, data: bytes, status: int, code: str, **kw: Any) -> str:
    r = raw_exchange(port, data, **kw)
    message = assert_error(r, status, code)
    assert r.headers["connection"] == "close" and "content-security-policy" in r.headers, r.headers
    return message


@pytest.fixture(scope="module", params=["serve", "serve-bench"])
def real_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """`converge serve`, and the server serve-bench runs: the same uvicorn settings in both."""
    kind = BenchServer if request.param == "serve-bench" else Server
    server = kind(tmp_path_factory.mktemp(request.param) / "m.sqlite3")
    server.start()
    yield server
    server.stop()


def test_a_real_server_refuses_bad_and_oversized_request_heads_in_the_json_shape(real_server: Server) -> None:
    port = real_server.port
    assert raw_exchange(port, head_of(headers_of(15, 1000))).status == 200  # 15 KB of headers: in
    # not HTTP at all, a negative length, a length and chunks at once, a TLS hello on the plain port
    for bad in (b"FOO / HTTP/1.1\r\nHost: x\r\n\r\n", head_of(b"Content-Length: -5\r\n", method=b"POST"),
                head_of(b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", method=b"POST"),
                b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40,
                b"GET / HTTP/1.1\r\nHost x\r\n\r\n"):
        assert_refused(port, bad, 400, "bad_request")
    message = assert_refused(port, head_of(headers_of(17, 1000)), 431, "headers_too_large")  # 17 KB in all
    assert message == "the request's headers are limited to 16384 bytes"
    message = assert_refused(port, head_of(headers_of(1, 9000)), 431, "headers_too_large")  # one long line
    assert message == "a header line is limited to 8192 bytes"
    assert_refused(port, head_of(target=b"/api/" + b"a" * 9000), 414, "uri_too_long")
    # 8 MB in one header: refused once the first 16 KB are in, without reading the rest
    started = time.monotonic()
    assert_refused(port, head_of(b"X-Big: " + b"a" * (8 << 20) + b"\r\n"), 431, "headers_too_large")
    assert time.monotonic() - started < 10
    # a WebSocket handshake goes through the same limits, then the origin check (a 403, never accepted)
    handshake = (b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                 b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
    ws = b"GET /ws/lobby HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port + handshake
    assert_refused(port, ws + headers_of(17, 1000) + b"\r\n", 431, "headers_too_large")
    r = raw_exchange(port, ws + b"Origin: http://127.0.0.1:1\r\n\r\n")
    assert_error(r, 403, "bad_origin")
    # a handshake the websockets library refuses: no key, another method than GET
    message = assert_refused(port, ws.replace(b"Sec-WebSocket-Key", b"X-Key") + b"\r\n", 400, "bad_request")
    assert message == "not a valid WebSocket handshake: missing Sec-WebSocket-Key header"
    assert_refused(port, b"POST" + ws[3:] + b"\r\n", 405, "method_not_allowed")
    assert raw_exchange(port, ws + b"Origin: http://127.0.0.1:%d\r\n\r\n" % port, timeout=2).status == 101
    assert raw_exchange(port, head_of()).status == 200  # and the server goes on serving


def dribble(port: int, every_s: float, give_up_s: float) -> tuple[RawResponse, float]:
    """Send a request's head a header line every ``every_s`` seconds, never ending it, reading what comes back
    meanwhile, until the server closes the connection (or ``give_up_s``): what it said, and when it closed."""
    started = time.monotonic()
    got, closed = b"", False
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sock.settimeout(every_s)
        i = 0
        while not closed and time.monotonic() - started < give_up_s:
            with contextlib.suppress(OSError):  # (once the server ended its side, a send may fail)
                sock.sendall(b"X-Slow-%d: %s\r\n" % (i, b"a" * 10))
            i += 1
            try:
                piece = sock.recv(65536)
            except TimeoutError:
                continue
            except ConnectionResetError:
                piece = b""
            got += piece
            closed = not piece
    return RawResponse(got, closed), time.monotonic() - started


def test_serve_sets_the_head_limits_the_time_to_send_one_and_the_connections_per_client(tmp_path: Path) -> None:
    """Issue 38: 150 connections dribbling header lines stayed open as long as they dribbled. A head must come
    whole within ``--header-timeout`` (2 s here) of the connection or of the request's first byte (408, then
    closed); a slow client whose request comes whole in time is answered; a client address holds at most
    ``--connections-per-client`` connections (3 here; a WebSocket counts until it closes)."""
    server = Server(tmp_path / "m.sqlite3", None, "--max-header-bytes", "4096", "--max-header-line", "2048",
                    "--header-timeout", "2", "--connections-per-client", "3")
    server.start()
    try:
        assert raw_exchange(server.port, head_of(headers_of(2, 1500))).status == 200
        assert_refused(server.port, head_of(headers_of(3, 1500)), 431, "headers_too_large")
        message = assert_refused(server.port, head_of(headers_of(1, 3000)), 431, "headers_too_large")
        assert message == "a header line is limited to 2048 bytes"

        with concurrent.futures.ThreadPoolExecutor(1) as meanwhile:  # (both wait out the same 2 s)
            silent = meanwhile.submit(raw_exchange, server.port, b"", 20)  # never asks: closed, unanswered
            said, after = dribble(server.port, every_s=0.25, give_up_s=30)
            assert silent.result().closed and silent.result().status == 0
        # never before its time, less the event loop's slack (asyncio runs a timer that is due within its clock's
        # resolution, and the two sides read their clocks at other moments: 2 s less 18 µs was seen)
        assert said.closed and after >= 1.95, (said.text, after)
        assert said.status == 408 and said.json()["error"] == {
            "code": "request_timeout", "message": "the request's line and headers must come within 2 s"}
        assert after < 2 + LINGER_S + 8  # (the time, the linger for the answer to be read, a loaded machine)
        with socket.create_connection(("127.0.0.1", server.port)) as slow:  # slow, but whole in time
            time.sleep(0.3)
            slow.sendall(head_of())
            assert RawResponse(slow.recv(65536), False).status == 200

        origin = f"http://127.0.0.1:{server.port}"
        with contextlib.ExitStack() as stack:  # three lobby pages: their WebSockets stay open
            held = [stack.enter_context(ws_connect(f"ws://127.0.0.1:{server.port}/ws/lobby",
                                                   origin=origin))  # type: ignore[arg-type]
                    for _ in range(3)]
            for ws in held:
                ws.send(json.dumps({"type": "hello"}))
                assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            busy = assert_refused(server.port, head_of(), 503, "busy")
            assert busy == "too many connections from your address (at most 3): close some, then try again"
            held[0].close()
            deadline = time.monotonic() + 20  # (the server counts a connection out once it has seen it close)
            while raw_exchange(server.port, head_of()).status != 200:
                assert time.monotonic() < deadline, "a closed connection was never counted out"
    finally:
        server.stop()


# ------------------------------------------------------------------ lobby connections


_LOBBY: list[LobbySocket] = []


@contextlib.contextmanager
def closing_lobby_sockets() -> Iterator[None]:
    """Lobby sockets left open (by a failing test) are closed, before the app's shutdown would wait for them."""
    try:
        yield
    finally:
        for sock in list(_LOBBY):
            sock.close()


class LobbySocket:
    """A lobby WebSocket from a given client address; ``hello`` says hello and reads the first answer."""

    def __init__(self, client: TestClient, address: str, hello: bool = True) -> None:
        self.ctx = client.websocket_connect("/ws/lobby", headers=from_address(address))
        self.ws = self.ctx.__enter__()
        _LOBBY.append(self)
        self.first: dict[str, Any] | None = None
        if hello:
            self.hello()

    def hello(self) -> dict[str, Any]:
        self.ws.send_text(json.dumps({"type": "hello"}))
        self.first = json.loads(self.ws.receive_text())
        return self.first

    def ping(self) -> str:
        self.ws.send_text(json.dumps({"type": "ping"}))
        return str(json.loads(self.ws.receive_text())["type"])

    def close(self) -> None:
        if self in _LOBBY:
            _LOBBY.remove(self)
            self.ctx.__exit__(None, None, None)


def refused_lobby(client: TestClient, address: str) -> str:
    """A lobby socket over a limit: accepted, told ``busy`` before anything is read, closed (1008)."""
    sock = LobbySocket(client, address, hello=False)
    try:
        msg = json.loads(sock.ws.receive_text())
        assert msg["type"] == "error" and msg["code"] == "busy" and ERROR_STATUS["busy"] == 503, msg
        assert sock.ws.receive() == {"type": "websocket.close", "code": 1008, "reason": ""}
        return str(msg["message"])
    finally:
        sock.close()


def test_lobby_connections_are_limited_per_address_and_in_all(tmp_path: Path) -> None:
    with client_for(tmp_path, max_lobby_connections_per_address=2, max_lobby_connections=3,
                    hello_timeout=3.0) as client, closing_lobby_sockets():
        lobby = client.app.state.lobby  # type: ignore[attr-defined]
        a, a_too, b, c = "2001:db8:1:2::1", "2001:db8:1:2::99", "192.0.2.1", "198.51.100.7"  # a and a_too: one /64
        silent = LobbySocket(client, a, hello=False)  # counted from its opening, before any hello
        first = LobbySocket(client, a_too)
        assert first.first is not None and first.first["type"] == "welcome"
        assert "your address" in refused_lobby(client, a)
        other = LobbySocket(client, b)
        assert "full" in refused_lobby(client, c)  # the lobby holds 3 in all
        assert lobby.room.sockets.open == 3 and lobby.room.sockets.counts == {"2001:db8:1:2::/64": 2, b: 1}
        # those already in are unaffected, the silent one included
        assert first.ping() == "pong" and other.ping() == "pong" and silent.hello()["type"] == "welcome"
        # a slot freed is taken again
        other.close()
        deadline = time.monotonic() + 10
        while lobby.room.sockets.open > 2:
            assert time.monotonic() < deadline, "the closed socket was never counted out"
            time.sleep(0.02)
        back = LobbySocket(client, c)
        assert back.first is not None and back.first["type"] == "welcome"
        # spectators of a match are counted apart (their own limits)
        mid = create(client, opponent="friend")["match_id"]
        assert Peer(client, mid, address=c).welcome["type"] == "welcome"  # type: ignore[index]
        for sock in (silent, first, back):
            sock.close()
        deadline = time.monotonic() + 10
        while lobby.room.sockets.open or lobby.room.sockets.counts:
            assert time.monotonic() < deadline, "sockets were never counted out"
            time.sleep(0.02)


# ------------------------------------------------------------------ creation limits


def test_a_keyed_limit_takes_from_several_keys_all_or_none() -> None:
    from converge.server.security.limits import KeyedRateLimit

    limit = KeyedRateLimit(rate=1e-9, burst=3)
    assert limit.take(["a", "b"]) == [] and limit.take(["a", "a"]) == []  # a: 3 taken, b: 1
    assert limit.take(["a", "b"]) == ["a"]  # a has none left: b pays nothing either
    assert limit.take(["b", "b"]) == [] and not limit.available("b") and limit.available("c")
    limit.give_back(["b"])
    assert limit.available("b") and limit.take(["b"]) == [] and limit.take(["b"]) == ["b"]
    limit.give_back(["c"] * 10)  # never above the burst
    assert limit.take(["c"] * 4) == ["c"] and limit.take(["c"] * 3) == []


def test_matches_created_per_address_per_hour_are_limited(tmp_path: Path) -> None:
    with client_for(tmp_path, matches_per_hour=3) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        a, b = from_address("192.0.2.1"), from_address("198.51.100.2")
        body = {"opponent": "friend", "playset": "catalysts"}
        for bad in ({"opponent": "nobody"}, {"playset": ["x"]}, {"seat": 7}):  # refused anyway: not counted
            assert_error(client.post("/api/matches", json=bad, headers=a), 400, "malformed")
        for _ in range(3):
            assert client.post("/api/matches", json=body, headers=a).status_code == 201
        before = hub.storage.count()
        message = assert_error(client.post("/api/matches", json=body, headers=a), 429, "rate_limited")
        assert "3 matches an hour" in message
        assert hub.storage.count() == before  # nothing was stored
        assert client.post("/api/matches", json=body, headers=b).status_code == 201  # another address
        # A rematch is a new match too: it counts for the address that asks for it.
        done = finished_match(client, random.Random(2))
        seat = {**auth(done["token"])}
        assert_error(client.post(f"/api/matches/{done['match_id']}/rematch", headers={**seat, **a}), 429,
                     "rate_limited")
        r = client.post(f"/api/matches/{done['match_id']}/rematch", headers={**seat, **b})
        assert r.status_code == 200
        # Once created, asking again (from anywhere) only finds it.
        again = client.post(f"/api/matches/{done['match_id']}/rematch", headers={**seat, **a})
        assert again.status_code == 200 and again.json() == r.json()


def test_one_hourly_budget_per_address_for_every_door_that_stores_a_match(tmp_path: Path) -> None:
    """`--matches-per-hour` is one budget per address, charged wherever a match is stored: four doors spend
    an address's four matches, after which no door stores one more for it; another address is not touched."""
    from tests.server.test_lobby import LobbyPeer, call

    with client_for(tmp_path, matches_per_hour=4, players_per_hour=0, table_rate=1000.0, table_burst=1000.0,
                    queue_rate=1000.0, queue_burst=1000.0, quick_match_bot_after_s=1000.0) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        a, b = from_address("192.0.2.1"), from_address("198.51.100.2")
        ada = _player_from(client, "Ada", a)
        bob = _player_from(client, "Bob", b)
        done = finished_match(client, random.Random(6))  # (from the test client's own address)

        def post(path: str, token: str | None, address: dict[str, str], body: Any = None) -> Any:
            extra = {"json": body} if body is not None else {}
            return call(client, "POST", path, token, headers=address, **extra)

        assert post("/api/matches", None, a, {"opponent": "friend"}).status_code == 201  # 1
        assert post("/api/lobby/tables", ada, a, {"private": True}).status_code == 201  # 2
        assert post("/api/lobby/tables", ada, a, {}).status_code == 201  # 3: the match its joiner will start
        bobs = [post("/api/lobby/tables", bob, b, {}).json()["table_id"] for _ in range(2)]
        assert post(f"/api/lobby/tables/{bobs[0]}/join", ada, a).status_code == 201  # 4
        stored, tables = hub.storage.count(), client.get("/api/lobby").json()["tables"]
        refusals = [
            post("/api/matches", None, a, {"opponent": "bot", "bot": "random"}),
            post("/api/lobby/tables", ada, a, {"private": True}),
            post("/api/lobby/tables", ada, a, {}),
            post(f"/api/lobby/tables/{bobs[1]}/join", ada, a),
            post(f"/api/matches/{done['match_id']}/rematch", None, {**a, **auth(done["token"])}),
        ]
        for r in refusals:
            message = assert_error(r, 429, "rate_limited")
            assert message == "at most 4 matches an hour may be created from one address; try again later"
        lobby = LobbyPeer(client, ada, "192.0.2.1")
        lobby.send({"type": "queue", "clock": None})
        refused = lobby.until("queued", "error")
        assert refused["type"] == "error" and refused["code"] == "rate_limited", refused
        lobby.close()
        assert hub.storage.count() == stored  # nothing stored through any door
        assert client.get("/api/lobby").json()["tables"] == tables  # Bob's table still open, no new one
        assert post(f"/api/lobby/tables/{bobs[1]}/join", _player_from(client, "Cyd", b), b).status_code == 201


def _player_from(client: TestClient, name: str, address: dict[str, str]) -> str:
    from tests.server.test_lobby import COOKIE

    client.cookies.clear()
    r = client.put("/api/me", json={"name": name}, headers=address)
    assert r.status_code == 200, r.text
    token = str(r.cookies[COOKIE])
    client.cookies.clear()
    return token


def test_a_quick_match_pairing_charges_each_side_and_a_refused_side_costs_the_other_nothing(
        tmp_path: Path) -> None:
    from tests.server.test_lobby import LobbyPeer

    with client_for(tmp_path, matches_per_hour=1, players_per_hour=0, queue_rate=1000.0, queue_burst=1000.0,
                    quick_match_bot_after_s=1000.0, quick_match_range=5000.0) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        a, b, c = "192.0.2.1", "198.51.100.2", "203.0.113.3"
        ada, bob, cyd = (LobbyPeer(client, _player_from(client, n, from_address(addr)), addr)
                         for n, addr in (("Ada", a), ("Bob", b), ("Cyd", c)))
        ada.send({"type": "queue", "clock": None})
        assert ada.until("queued", "error")["type"] == "queued"
        assert client.post("/api/matches", json={"opponent": "friend"}, headers=from_address(a)).status_code == 201
        stored = hub.storage.count()
        bob.send({"type": "queue", "clock": None})  # paired with Ada, whose address has nothing left
        assert bob.until("queued")["type"] == "queued"
        assert ada.until("unqueued")["type"] == "unqueued"
        told = ada.until("error")
        assert told["code"] == "rate_limited" and "1 matches an hour" in told["message"]
        assert hub.storage.count() == stored
        cyd.send({"type": "queue", "clock": None})  # Bob waited on, in the queue: Cyd is his opponent
        got_b, got_c = bob.until("matched", "error"), cyd.until("matched", "error")
        assert got_b["type"] == got_c["type"] == "matched" and got_b["match_id"] == got_c["match_id"]
        assert got_b["opponent"]["name"] == "Cyd" and got_c["opponent"]["name"] == "Bob"
        assert hub.storage.count() == stored + 1
        for peer in (ada, bob, cyd):
            peer.close()


def test_two_identities_of_one_address_pay_twice_for_their_quick_match(tmp_path: Path) -> None:
    from tests.server.test_lobby import LobbyPeer

    with client_for(tmp_path, matches_per_hour=3, players_per_hour=0, queue_rate=1000.0, queue_burst=1000.0,
                    quick_match_bot_after_s=1000.0, quick_match_range=5000.0) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        a = "192.0.2.1"
        one, two = (LobbyPeer(client, _player_from(client, n, from_address(a)), a) for n in ("Ann", "Ben"))
        for peer in (one, two):
            peer.send({"type": "queue", "clock": None})
        assert one.until("matched")["type"] == two.until("matched")["type"] == "matched"  # 2 of 3 paid
        for peer in (one, two):  # once more: the address has one match left, the pairing needs two
            peer.send({"type": "queue", "clock": None})
        for peer in (one, two):
            assert peer.until("error")["code"] == "rate_limited"
        assert hub.storage.count() == 1
        for peer in (one, two):
            peer.close()


def test_an_accepted_bot_offer_is_paid_for_by_the_players_address(tmp_path: Path) -> None:
    from tests.server.test_lobby import LobbyPeer

    with client_for(tmp_path, matches_per_hour=1, players_per_hour=0, quick_match_bot_after_s=0.2) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        a = "192.0.2.1"
        ada = LobbyPeer(client, _player_from(client, "Ada", from_address(a)), a)
        ada.send({"type": "queue", "clock": None})
        ada.until("bot_offer")
        assert client.post("/api/matches", json={"opponent": "friend"}, headers=from_address(a)).status_code == 201
        stored = hub.storage.count()
        ada.send({"type": "accept_bot"})
        assert ada.until("matched", "error")["code"] == "rate_limited"
        assert hub.storage.count() == stored and ada.texts[-2] == '{"type":"unqueued"}'
        ada.close()


# ------------------------------------------------------------------ retention


def _sweep(client: TestClient, now: float) -> int:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    deleted: int = client.portal.call(hub.housekeeping.sweep, now)  # type: ignore[union-attr]
    return deleted


def _exists(client: TestClient, mid: str) -> bool:
    r = client.get(f"/api/matches/{mid}")
    if r.status_code == 404:
        assert_error(r, 404, "not_found")
        return False
    assert r.status_code == 200
    return True


def test_retention_deletes_unstarted_then_abandoned_matches_and_keeps_finished_ones(tmp_path: Path) -> None:
    with client_for(tmp_path, retention_every_s=0) as client:  # no periodic run: the test runs it
        rng = random.Random(3)
        finished = finished_match(client, rng, opponent="friend")  # its rematch waits for a first move
        fid = finished["match_id"]
        r = client.post(f"/api/matches/{fid}/rematch", headers=auth(finished["token"]))
        rematch = r.json()["match_id"]  # never started
        unstarted = create(client, opponent="friend")["match_id"]
        started = create(client, opponent="friend", seat=0)
        sid = started["match_id"]
        play_over_http(client, sid, {0: started["token"], 1: started["invite_token"]}, rng, stop_after=3)
        watched = create(client, opponent="friend")["match_id"]
        spectator = Peer(client, watched)
        now = time.time()
        assert _sweep(client, now + 3600) == 0  # an hour later: nothing has expired
        assert _sweep(client, now + 2 * DAY) == 2  # unstarted for a day: gone, unless someone is there
        assert not _exists(client, unstarted) and not _exists(client, rematch)
        assert _exists(client, sid) and _exists(client, watched) and _exists(client, fid)
        meta = client.get(f"/api/matches/{fid}").json()["match"]
        assert meta["rematch_id"] is None  # the link to the deleted rematch is gone...
        r = client.post(f"/api/matches/{fid}/rematch", headers=auth(finished["token"]))
        assert r.status_code == 200 and r.json()["match_id"] != rematch  # ...and a new one can be made
        assert _sweep(client, now + 31 * DAY) == 2  # abandoned for 30 days: the started match, the new rematch
        assert not _exists(client, sid) and _exists(client, watched)
        assert client.get(f"/api/matches/{fid}/record").status_code == 200  # finished: kept by default
        assert _sweep(client, now + 10 * 365 * DAY) == 0 and _exists(client, fid)
        spectator.close()
        time.sleep(0.2)
        assert _sweep(client, now + 2 * DAY) == 1 and not _exists(client, watched)  # no one watches now


def test_finished_matches_are_deleted_after_the_configured_days(tmp_path: Path) -> None:
    with client_for(tmp_path, retention_every_s=0, keep_finished_days=7, delete_unstarted_after_hours=0,
                    delete_abandoned_after_days=0) as client:
        finished = finished_match(client, random.Random(4))["match_id"]
        unstarted = create(client, opponent="friend")["match_id"]
        now = time.time()
        assert _sweep(client, now + 6 * DAY) == 0
        assert _sweep(client, now + 8 * DAY) == 1
        assert_error(client.get(f"/api/matches/{finished}/record"), 404, "not_found")
        assert _sweep(client, now + 1000 * DAY) == 0 and _exists(client, unstarted)  # 0: never


def test_the_server_runs_the_retention_clean_up_by_itself(tmp_path: Path) -> None:
    with client_for(tmp_path, retention_every_s=0.1, delete_unstarted_after_hours=0.3 / 3600) as client:
        mid = create(client, opponent="friend")["match_id"]
        assert _exists(client, mid)
        deadline = time.monotonic() + 20
        while _exists(client, mid):
            assert time.monotonic() < deadline, "the clean-up never ran"
            time.sleep(0.1)


def test_retention_in_postgresql(postgres_url: str) -> None:
    with TestClient(create_app(db_url=postgres_url, **FAST, retention_every_s=0)) as client:
        finished = finished_match(client, random.Random(5))["match_id"]
        unstarted = create(client, opponent="friend")["match_id"]
        now = time.time()
        assert _sweep(client, now + 2 * DAY) >= 1
        assert not _exists(client, unstarted) and _exists(client, finished)


# ------------------------------------------------------------------ converge serve


def test_serve_flags_set_the_limits_and_the_retention(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from converge.server.transport import draining
    from tests.helpers import assert_user_error, run

    started: dict[str, Any] = {}
    monkeypatch.setattr(draining, "serve", lambda app, **options: started.update(app=app, options=options))
    code, out, _ = run(capsys, "serve", "--db", str(tmp_path / "m.sqlite3"), "--spectators", "5",
                       "--spectators-per-address", "2", "--seat-connections", "3", "--matches-per-hour", "0",
                       "--keep-finished", "90", "--delete-unstarted-after", "6", "--delete-abandoned-after", "14",
                       "--renames-per-hour", "2", "--rename-interval", "300",
                       "--lobby-connections", "100", "--lobby-connections-per-address", "4",
                       "--max-header-bytes", "32768", "--max-header-line", "4096",
                       "--allowed-origin", "HTTPS://Play.Example.org:443", "--allowed-origin", "http://[::1]:8080",
                       "--proxy-headers", "--forwarded-allow-ips", "10.0.0.0/8, ::1")
    assert code == 0 and "Converge server" in out
    hub = started["app"].state.hub
    try:
        cfg = hub.config
        assert (cfg.max_spectators_per_match, cfg.max_spectators_per_address, cfg.max_connections_per_seat,
                cfg.matches_per_hour) == (5, 2, 3, 0)
        assert (cfg.keep_finished_days, cfg.delete_unstarted_after_hours, cfg.delete_abandoned_after_days) \
            == (90, 6, 14)
        assert (cfg.renames_per_hour, cfg.rename_interval_s) == (2, 300)
        assert (cfg.max_lobby_connections, cfg.max_lobby_connections_per_address) == (100, 4)
        assert cfg.allowed_origins == ("https://play.example.org", "http://[::1]:8080")
        assert cfg.proxy_headers and cfg.forwarded_allow_ips == ("10.0.0.0/8", "::1")
        options = started["options"]
        assert (options["http"].max_head, options["http"].max_line) == (32768, 4096)
        assert options["proxy_headers"] is False  # the app reads a trusted proxy's headers itself
    finally:
        hub.writer.close()
        hub.storage.close()
    for argv, fragment in ((["--spectators", "0"], "argument --spectators"),
                           (["--keep-finished", "-1"], "argument --keep-finished"),
                           (["--matches-per-hour", "lots"], "argument --matches-per-hour"),
                           (["--renames-per-hour", "-1"], "argument --renames-per-hour"),
                           (["--rename-interval", "soon"], "argument --rename-interval"),
                           (["--delete-abandoned-after", "inf"], "argument --delete-abandoned-after"),
                           (["--lobby-connections", "0"], "argument --lobby-connections"),
                           (["--allowed-origin", "https://play.example.org/lobby"], "without a path"),
                           (["--allowed-origin", "play.example.org"], "argument --allowed-origin"),
                           (["--forwarded-allow-ips", "10.0.0.1,proxy.local"], "'proxy.local' is not an IP"),
                           (["--max-header-line", "100"], "1024 bytes or more"),
                           (["--max-header-bytes", "2000", "--max-header-line", "4000"], "at least that")):
        code, _, err = run(capsys, "serve", "--db", str(tmp_path / "m.sqlite3"), *argv)
        assert_user_error(code, err, fragment)
    deep = tmp_path / "decks"
    deep.mkdir()
    (deep / "deep.toml").write_text("a = " + "[" * 10_000 + "]" * 10_000, encoding="utf-8")
    code, _, err = run(capsys, "serve", "--db", str(tmp_path / "m.sqlite3"), "--deck-dir", str(deep))
    assert_user_error(code, err, "deep.toml", "nested too deeply")
    code, out, _ = run(capsys, "serve", "--help")
    for flag in ("--spectators", "--spectators-per-address", "--seat-connections", "--matches-per-hour",
                 "--keep-finished", "--delete-unstarted-after", "--delete-abandoned-after", "--renames-per-hour",
                 "--rename-interval", "--lobby-connections",
                 "--lobby-connections-per-address", "--max-header-bytes", "--max-header-line", "--allowed-origin",
                 "--proxy-headers", "--forwarded-allow-ips"):
        assert flag in out
