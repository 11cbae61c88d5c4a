"""The origin check (issue 23): pages of other origins — another port of the same host included, which the
player cookie's SameSite=Lax does not keep apart — can open neither WebSocket and make no change with the
player's cookie; the server's own pages, programs without an Origin and the operator's allowed origins can.
Behind a trusted proxy the origin is the one the proxy says the browser used, and only a trusted proxy may
say it. (The browser's side of it: tests/web/test_browser_origin.py; through deploy/nginx.conf: test_deploy.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from converge.server.lobby.identity import COOKIE
from converge.server.security.origins import OriginPolicy, normalize_origin
from tests.server.test_limits import assert_error
from tests.server_support import client_for, create, from_address, hang_guard  # noqa: F401 (a fixture)

OWN = "http://testserver"  # the test client's requests go to Host: testserver, over http
#: Pages that are not the server's: another port of the same host (the reported attack), another scheme, a
#: look-alike host, a sandboxed frame's "null", something that is no origin at all.
FOREIGN = ["http://testserver:8001", "https://testserver", "http://evil.example", "http://testserver.evil.example",
           "null", "testserver", "http://user@testserver", "http://testserver:80:80"]


def player(client: TestClient, name: str | None) -> str:
    client.cookies.clear()
    r = client.put("/api/me", json={"name": name})
    assert r.status_code == 200, r.text
    token = str(r.cookies[COOKIE])
    client.cookies.clear()
    return token


def as_(token: str, origin: str | None = None, **more: str) -> dict[str, str]:
    return {"cookie": f"{COOKIE}={token}", **({"origin": origin} if origin is not None else {}), **more}


def refused_handshake(client: TestClient, path: str, headers: dict[str, str]) -> None:
    """The WebSocket is refused before it is accepted: an HTTP 403 with the JSON error, nothing read."""
    with pytest.raises(WebSocketDenialResponse) as info, client.websocket_connect(path, headers=headers):
        raise AssertionError(f"{path} accepted a connection with {headers}")
    assert_error(info.value, 403, "bad_origin")


def lobby_welcome(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    with client.websocket_connect("/ws/lobby", headers=headers) as ws:
        ws.send_text(json.dumps({"type": "hello"}))
        msg: dict[str, Any] = json.loads(ws.receive_text())
        assert msg["type"] == "welcome", msg
        return msg


def match_welcome(client: TestClient, mid: str, headers: dict[str, str]) -> dict[str, Any]:
    with client.websocket_connect(f"/ws/{mid}", headers=headers) as ws:
        ws.send_text(json.dumps({"type": "hello"}))
        msg: dict[str, Any] = json.loads(ws.receive_text())
        assert msg["type"] == "welcome", msg
        return msg


def test_both_websockets_refuse_pages_of_other_origins_before_accepting(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        ada = player(client, "Ada")
        mid = create(client, opponent="friend")["match_id"]
        lobby = client.app.state.lobby  # type: ignore[attr-defined]
        for origin in FOREIGN:
            refused_handshake(client, "/ws/lobby", as_(ada, origin))
            refused_handshake(client, f"/ws/{mid}", as_(ada, origin))
        # a browser that hides the origin but says the page is elsewhere (another port is the same site)
        for site in ("same-site", "cross-site"):
            refused_handshake(client, "/ws/lobby", as_(ada, None, **{"sec-fetch-site": site}))
        refused_handshake(client, "/ws/lobby", {**as_(ada), "origin": OWN, "Origin": "http://evil.example"})
        # nobody got in
        assert lobby.room.sockets.open == 0 and not lobby.room.conns and not len(lobby.quick.queue)
        # the server's own page (any spelling of its origin), and a program without an Origin, get in
        for origin in (OWN, "HTTP://TestServer:80", None):
            assert lobby_welcome(client, as_(ada, origin))["player"]["name"] == "Ada"
            assert match_welcome(client, mid, {"origin": origin} if origin else {})["seat"] == -1
        assert lobby_welcome(client, as_(ada, None, **{"sec-fetch-site": "same-origin"}))["player"]


def test_cookie_writes_from_other_origins_are_refused_and_change_nothing(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        ada, bob = player(client, "Ada"), player(client, "Bob")
        bobs = client.post("/api/lobby/tables", json={"playset": "catalysts"}, headers=as_(bob)).json()
        friend = create(client, opponent="friend")
        writes: list[tuple[str, str, dict[str, Any] | None, dict[str, str]]] = [
            ("PUT", "/api/me", {"name": "Mallory"}, {}),
            ("POST", "/api/lobby/tables", {"playset": "catalysts"}, {}),
            ("DELETE", f"/api/lobby/tables/{bobs['table_id']}", None, {}),
            ("POST", f"/api/lobby/tables/{bobs['table_id']}/join", None, {}),
            ("POST", f"/api/matches/{friend['match_id']}/players", None,
             {"authorization": f"Bearer {friend['invite_token']}"}),
            ("POST", "/api/matches", {"opponent": "friend", "playset": "catalysts"}, {}),
        ]

        def state() -> tuple[Any, ...]:
            me = client.get("/api/me", headers=as_(ada)).json()
            return me, client.get("/api/lobby").json(), hub.storage.count()

        before = state()
        for method, path, body, extra in writes:
            for origin in FOREIGN:
                client.cookies.clear()
                r = client.request(method, path, json=body, headers={**as_(ada, origin), **extra})
                assert_error(r, 403, "bad_origin")
            for site in ("same-site", "cross-site"):
                r = client.request(method, path, json=body, headers={**as_(ada, None, **{"sec-fetch-site": site}),
                                                                     **extra})
                assert_error(r, 403, "bad_origin")
        assert state() == before  # nothing changed: no rename, no table opened, closed or joined, no match
        # reads stay open to anyone (another origin's page cannot read the answers: no CORS headers)
        r = client.get("/api/me", headers=as_(ada, "http://evil.example"))
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
        # the same writes from the server's own page, and from a program (no Origin), are done
        r = client.put("/api/me", json={"name": "Ada L"}, headers=as_(ada, OWN))
        assert r.status_code == 200 and r.json()["player"]["name"] == "Ada L"
        r = client.post(f"/api/lobby/tables/{bobs['table_id']}/join", headers=as_(ada, OWN))
        assert r.status_code == 201, r.text
        r = client.post(f"/api/matches/{friend['match_id']}/players",
                        headers={**as_(ada), "authorization": f"Bearer {friend['invite_token']}"})
        assert r.status_code == 200 and r.json() == {"linked": True}


def test_allowed_origins_and_a_trusted_proxys_host(tmp_path: Path) -> None:
    with client_for(tmp_path, allowed_origins=("https://play.example.org",)) as client:
        ada = player(client, "Ada")
        assert lobby_welcome(client, as_(ada, "https://play.example.org"))["player"]["name"] == "Ada"
        for origin in ("https://play.example.org:8443", "http://play.example.org", "https://example.org"):
            refused_handshake(client, "/ws/lobby", as_(ada, origin))
        assert lobby_welcome(client, as_(ada, OWN))["player"]  # its own origin still

    # Behind nginx: Host is the proxy's (no port), X-Forwarded-Host and -Proto say what the browser used.
    proxied = {"host": "127.0.0.1", "x-forwarded-host": "play.example.org:8443", "x-forwarded-proto": "https"}
    browser = "https://play.example.org:8443"
    with client_for(tmp_path / "proxied", proxy_headers=True, forwarded_allow_ips=("10.0.0.0/8",)) as client:
        ada = player(client, "Ada")

        def rename(peer: str, headers: dict[str, str]) -> Any:
            return client.put("/api/me", json={"name": "Ada"}, headers={**as_(ada, browser), **headers,
                                                                            **from_address(peer)})

        assert rename("10.1.2.3", proxied).status_code == 200
        assert_error(rename("192.0.2.7", proxied), 403, "bad_origin")  # not the proxy: its headers are ignored
        assert_error(rename("10.1.2.3", {**proxied, "x-forwarded-proto": "http"}), 403, "bad_origin")
        assert_error(rename("10.1.2.3", {"host": "127.0.0.1"}), 403, "bad_origin")
    with client_for(tmp_path / "direct") as client:  # no proxy trusted: X-Forwarded-* count for nothing
        ada = player(client, "Ada")
        r = client.put("/api/me", json={"name": "Ada"}, headers={**as_(ada, browser), **proxied,
                                                                 **from_address("127.0.0.1")})
        assert_error(r, 403, "bad_origin")


@pytest.mark.parametrize(("text", "origin"), [
    ("https://play.example.org", "https://play.example.org"), ("HTTPS://Play.Example.ORG:443/", "https://play.example.org"),
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000"), ("http://[::1]:80", "http://[::1]"),
    ("http://localhost:8443", "http://localhost:8443"),
])
def test_origins_are_written_as_browsers_write_them(text: str, origin: str) -> None:
    assert normalize_origin(text) == origin


@pytest.mark.parametrize(("text", "why"), [
    ("null", "http:// or https://"), ("ftp://example.org", "http:// or https://"), ("", "http:// or https://"),
    ("https://example.org/play", "without a path"), ("https://example.org?x=1", "without a path"),
    ("https://example.org#x", "without a path"), ("https://ada@example.org", "no user"), ("https://", "no user"),
    ("https://example.org:99999", "port"), ("https://exa mple.org", "domain name"),
    ("https://ëxample.org", "ASCII"), ("https://[::1", "scheme://host"),
])
def test_a_bad_allowed_origin_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        OriginPolicy([text])
