"""Profiles in a real browser (issue 42): Ada and Bob finish two rated matches (each resigns one, over the API:
the journey is about what follows), and a visitor opens Ada's profile from the leaderboard at 1280×800 and on
a phone at 390×844 — the rating's chart has a point per rated match, nothing overflows sideways on the phone;
Bob sees his matches against her; Ada hides her profile and Bob finds nobody there; the names at the table and
in the lobby lead to profiles; My matches filters by opponent and result and shows each match's clock and
playset. Screenshots go to ``out/screenshots/``."""

from __future__ import annotations

import json
import re
from typing import Any

from converge.server.lobby.identity import COOKIE
from tests.browser_support import Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser_a11y import serious


def _player(http: Any, name: str) -> str:
    http.cookies.clear()
    cookie = str(http.put("/api/me", json={"name": name}).cookies[COOKIE])
    http.cookies.clear()
    return cookie


def _table(http: Any, host: str, guest: str | None, **table: Any) -> dict[str, Any]:
    """A public table ``host`` opens at seat 0 (and ``guest`` joins: the match starts); the seats' tokens."""
    opened = http.post("/api/lobby/tables", json={"seat": 0, **table}, headers={"cookie": f"{COOKIE}={host}"})
    assert opened.status_code == 201, opened.text
    doc: dict[str, Any] = opened.json()
    if guest is not None:
        joined = http.post(f"/api/lobby/tables/{doc['table_id']}/join", headers={"cookie": f"{COOKIE}={guest}"})
        assert joined.status_code == 201, joined.text
        doc["guest_token"] = joined.json()["token"]
    return doc


def _resign(server: Server, match_id: str, token: str) -> None:
    from websockets.sync.client import connect

    with connect(f"ws://127.0.0.1:{server.port}/ws/{match_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        ws.send(json.dumps({"type": "resign"}))
        while json.loads(ws.recv(timeout=30)).get("match", {}).get("status") != "over":
            pass


def _as(tab: Tab, server: Server, cookie: str) -> Tab:
    tab.context.add_cookies([{"name": COOKIE, "value": cookie, "url": server.base}])
    return tab


def _chart_points(tab: Tab) -> int:
    points = tab.page.get_attribute("[data-testid=rating-chart] polyline", "points") or ""
    return len(points.split())


def test_a_profile_from_the_leaderboard_its_chart_head_to_head_and_hiding(server: Server, browser: Any) -> None:
    import httpx2

    with httpx2.Client(base_url=server.base, timeout=30) as http:
        ada, bob = _player(http, "Ada"), _player(http, "Bob")
        first = _table(http, ada, bob, playset="catalysts", clock=600)
        _resign(server, first["match_id"], first["token"])  # Ada resigns: Bob wins
        second = _table(http, bob, ada, playset=["alchemist", "protector", "delver"], move_hours=24)
        _resign(server, second["match_id"], second["token"])  # Bob resigns: Ada wins
        live = _table(http, ada, bob, playset="sparks", clock=300)  # in progress
        _table(http, ada, None, playset="engines")  # open in the lobby
        event = http.post("/api/tournaments", json={"name": "Friday Swiss", "format": "swiss", "rounds": 3,
                                                    "clock": 300, "playset": "sets"},
                          headers={"cookie": f"{COOKIE}={bob}"}).json()["id"]
        assert http.post(f"/api/tournaments/{event}/join", json={},
                         headers={"cookie": f"{COOKIE}={ada}"}).status_code == 200
        rated = len(http.get("/api/players/Ada").json()["ratings"])
    assert rated == 2

    wide, phone = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    for tab in (wide, phone):  # a visitor: from the leaderboard to Ada's profile
        tab.page.goto(server.base + "/leaderboard")
        tab.page.click("[data-testid=leader-link]:text-is('Ada')")
        tab.page.wait_for_selector("[data-testid=rating-chart]")
        assert tab.page.url == server.base + "/@/Ada"
        assert _chart_points(tab) == rated
        assert tab.page.locator("[data-testid=profile-match]").count() == 2
        assert tab.page.locator("[data-testid=h2h]").count() == 0  # (a visitor has played nobody)
        assert tab.page.locator("[data-testid=profile-toggle]").count() == 0
        assert "2 rated matches" in tab.page.locator("[data-testid=profile-summary]").inner_text()
        assert tab.page.locator("[data-testid=profile-skillset]").first.inner_text().startswith("Alchemist")
        assert tab.page.get_attribute("[data-testid=profile-event] a", "href") == f"/t/{event}"
    wide.shot("profile-1280x800.png", full_page=True)
    phone.shot("profile-390x844.png", full_page=True)
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= 390
    assert serious(wide.page) == [] and serious(phone.page) == []
    # an opponent's name opens their profile, whatever case the address has
    wide.page.click("[data-testid=profile-opponent] >> nth=0")
    wide.page.wait_for_selector("[data-testid=rating-chart]")
    assert wide.page.url == server.base + "/@/Bob" and wide.page.locator("h1").inner_text() == "Bob"
    wide.page.goto(server.base + "/@/bOB")
    wide.page.wait_for_selector("[data-testid=rating-chart]")
    assert wide.page.url == server.base + "/@/Bob"

    # Bob sees his matches against Ada; Ada, on her phone, hides her profile: Bob then finds nobody there
    bob_tab, ada_tab = _as(Tab(browser, 1280, 800), server, bob), _as(Tab(browser, 390, 844), server, ada)
    bob_tab.page.goto(server.base + "/@/Ada")
    bob_tab.page.wait_for_selector("[data-testid=h2h]")
    assert bob_tab.page.locator("[data-testid=h2h]").inner_text() == \
        "You won 1 and lost 1 of your 2 matches against Ada."
    assert bob_tab.page.locator("[data-testid=h2h-match]").count() == 2
    bob_tab.shot("profile-head-to-head-1280x800.png", full_page=True)
    ada_tab.page.goto(server.base + "/@/Ada")
    ada_tab.page.click("[data-testid=profile-toggle]:text-is('Hide my profile')")
    ada_tab.page.wait_for_selector("[data-testid=profile-toggle]:text-is('Show my profile')")
    assert "hidden" in ada_tab.page.locator("[data-testid=profile-visibility]").inner_text()
    ada_tab.shot("profile-hidden-owner-390x844.png", full_page=True)
    assert ada_tab.page.evaluate("document.documentElement.scrollWidth") <= 390
    for name in ("Ada", "Nobody"):
        bob_tab.page.goto(server.base + "/@/" + name)
        bob_tab.page.wait_for_selector("[data-testid=profile-missing]")
        assert bob_tab.page.locator("[data-testid=profile-missing]").inner_text() == \
            "Nobody with that name has a profile to show."
    ada_tab.page.click("[data-testid=profile-toggle]:text-is('Show my profile')")
    ada_tab.page.wait_for_selector("[data-testid=profile-toggle]:text-is('Hide my profile')")
    bob_tab.page.goto(server.base + "/@/Ada")
    bob_tab.page.wait_for_selector("[data-testid=rating-chart]")

    # the names at the table (a spectator's view: both seats) and in the lobby lead to profiles
    wide.page.goto(server.base + "/m/" + live["match_id"])
    wide.page.wait_for_selector("[data-testid=seat-profile]")
    hrefs = wide.page.locator("[data-testid=seat-profile]").evaluate_all(
        "links => links.map((a) => a.getAttribute('href'))")
    assert sorted(hrefs) == ["/@/Ada", "/@/Bob"]
    wide.shot("profile-seat-links-1280x800.png")
    bob_tab.page.goto(server.base + "/")
    bob_tab.page.wait_for_selector("[data-testid=host-profile]")
    assert bob_tab.page.get_attribute("[data-testid=host-profile]", "href") == "/@/Ada"

    # My matches: each match's clock and playset, and the filters
    bob_tab.page.goto(server.base + "/history")
    bob_tab.page.wait_for_selector("[data-testid=history-row] >> nth=1")
    settings = bob_tab.page.locator("[data-testid=history-settings]").all_inner_texts()
    assert sorted(settings) == ["Alchemist, Mechanist, Archivist · 10 min each",
                                "Alchemist, Protector, Delver · 1 day a move"], settings
    bob_tab.page.fill("[data-testid=filter-opponent]", "ada")
    bob_tab.page.select_option("[data-testid=filter-result]", "won")
    bob_tab.page.click("[data-testid=filter-apply]")
    bob_tab.page.wait_for_url(re.compile(r".*/history\?opponent=ada&result=won$"))
    bob_tab.page.wait_for_selector("[data-testid=filter-clear]")
    rows = bob_tab.page.locator("[data-testid=history-row]")
    assert rows.count() == 1 and "Won" in rows.first.inner_text() and "10 min each" in rows.first.inner_text()
    assert bob_tab.page.input_value("[data-testid=filter-opponent]") == "ada"
    bob_tab.page.select_option("[data-testid=filter-playset]", "healer")
    bob_tab.page.click("[data-testid=filter-apply]")
    bob_tab.page.wait_for_selector("[data-testid=history-empty]")
    phone_history = _as(Tab(browser, 390, 844), server, bob)
    phone_history.page.goto(server.base + "/history?rated=true")
    phone_history.page.wait_for_selector("[data-testid=history-row] >> nth=1")
    phone_history.shot("history-filters-390x844.png", full_page=True)
    assert phone_history.page.evaluate("document.documentElement.scrollWidth") <= 390
    assert serious(phone_history.page) == []
    for tab in (wide, phone, bob_tab, ada_tab, phone_history):
        tab.close()
