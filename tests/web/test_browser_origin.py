"""Issue 23 in a real browser: a page served from another port of the same host — the same *site*, so the
player's SameSite=Lax cookie goes along — can open neither of the server's WebSockets (the lobby's, where it
could queue as the player and be handed their seat token, and a match's) and cannot make a change with the
player's cookie; the same script on the server's own page can do all three (so the test can fail)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from tests.browser_support import Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser_lobby import choose_name

#: Tries both WebSockets (a hello each: the first answer, or how the socket closed) and a write a page of
#: any origin may send without asking first (a "no-cors" POST without a body): joining a lobby table as
#: whoever the cookie says.
PROBE = """async ({base, mid, table}) => {
  const socket = (path) => new Promise((resolve) => {
    const ws = new WebSocket(base.replace(/^http/, "ws") + path);
    ws.onopen = () => ws.send(JSON.stringify({type: "hello"}));
    ws.onmessage = (ev) => { resolve(JSON.parse(ev.data)); ws.close(); };
    ws.onclose = (ev) => resolve({type: "closed", code: ev.code});
  });
  const lobby = await socket("/ws/lobby");
  const match = await socket("/ws/" + mid);
  let write;
  try {
    const r = await fetch(base + "/api/lobby/tables/" + table + "/join",
                          {method: "POST", mode: "no-cors", credentials: "include"});
    write = r.type === "opaque" ? "opaque" : r.status;
  } catch (e) {
    write = "failed";
  }
  return {lobby, match, write};
}"""


class _Elsewhere(http.server.BaseHTTPRequestHandler):
    """Another site's page: any path is a small HTML page."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>elsewhere</title><p>a page of another origin</p>"
        self.send_response(200)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def elsewhere() -> Iterator[str]:
    """A static server on another port of 127.0.0.1 (another origin, the same site)."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def listed(server: Server) -> set[str]:
    return {t["id"] for t in httpx2.get(f"{server.base}/api/lobby", timeout=30).json()["tables"]}


def test_a_page_of_another_origin_gets_neither_websocket_nor_a_write_with_the_cookie(
        server: Server, browser: Any, elsewhere: str) -> None:
    ada = Tab(browser)
    choose_name(ada, server, "Ada")
    cookie = next(c for c in ada.context.cookies(server.base) if c["name"] == "converge_player")
    assert cookie["sameSite"] == "Lax" and cookie["domain"] == "127.0.0.1"  # sent to every port of this host
    mid = httpx2.post(f"{server.base}/api/matches", json={"opponent": "friend", "playset": "catalysts"},
                      timeout=30).json()["match_id"]
    with httpx2.Client(base_url=server.base, timeout=30) as bob:  # two open tables of Bob's
        assert bob.put("/api/me", json={"name": "Bob"}).status_code == 200
        tables = [bob.post("/api/lobby/tables", json={"playset": "catalysts"}).json()["table_id"] for _ in "ab"]
    assert set(tables) <= listed(server)

    # Another port of the same host, in Ada's browser (her cookie goes along): nothing gets through.
    page = ada.context.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.goto(f"{elsewhere}/lobby.html")
    got = page.evaluate(PROBE, {"base": server.base, "mid": mid, "table": tables[0]})
    # (the write's answer never reaches the page: Cross-Origin-Resource-Policy, so the fetch fails; the
    # request itself was sent, with the cookie, and only the server's refusal keeps the table open)
    assert got == {"lobby": {"type": "closed", "code": 1006}, "match": {"type": "closed", "code": 1006},
                   "write": "failed"}, got
    handshakes = [line for line in console if "WebSocket handshake: Unexpected response code: 403" in line]
    assert len(handshakes) == 2, console  # both refused by the server, before any message
    assert tables[0] in listed(server)  # Ada did not join it
    page.close()

    # The same script on the server's own page: the lobby knows Ada, the match welcomes her, she joins.
    ada.page.goto(server.base + "/")
    got = ada.page.evaluate(PROBE, {"base": server.base, "mid": mid, "table": tables[1]})
    assert got["lobby"]["type"] == "welcome" and got["lobby"]["player"]["name"] == "Ada", got
    assert got["match"]["type"] == "welcome" and got["write"] == 201, got
    assert tables[1] not in listed(server) and tables[0] in listed(server)
    ada.close()
