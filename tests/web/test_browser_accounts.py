"""Signing in by an emailed link in a real browser: a server that mails through a real SMTP server on loopback.
Issue 38's journey follows docs/browser.md's "Play on other devices too" as written — asked on the laptop
(1280×800), opened on the phone (390×844) — then plays on from the phone, signs out everywhere, and tries to
act from each device. Issue 30's: a player asks for a link and opens it on the same browser, then signs in
"on another device" by a second link, and both show the same name, rating and history; a turn-based match
begun on the first is listed on the second and played there; then signs out everywhere."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from converge.server.lobby.identity import COOKIE
from tests.browser_support import ACTIVE, Tab, browser_fixture  # noqa: F401 (a fixture)
from tests.mail_support import Inbox, link_token, smtp_fixture  # noqa: F401 (a fixture)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import click_one, ready
from tests.web.test_browser_lobby import choose_name, play_out

#: What a match page of a device that was signed out says when it tries to take its seat.
SIGNED_OUT = "#toast:has-text('signed out of this match')"
SETTLED_MATCH = "[data-testid=match][data-shown='1'][data-pending='0']"
STAGED = "#decision[data-staged]"


@pytest.fixture(name="mailing_server")
def mailing_server_fixture(tmp_path: Path, smtp: tuple[str, Inbox]) -> Iterator[tuple[Server, Inbox]]:
    s = Server(tmp_path / "matches.sqlite3", None, "--bot-delay", "0.02", "--replace-after", "0")
    s.extra = (*s.extra, "--smtp", smtp[0], "--public-url", s.base)
    s.start()
    yield s, smtp[1]
    s.stop()


def _ask_and_open(tab: Tab, inbox: Inbox, address: str, n: int) -> None:
    page = tab.page
    page.locator("[data-testid=sign-in] summary").click()
    page.fill("[data-testid=sign-in-email]", address)
    page.click("[data-testid=sign-in-send]")
    page.wait_for_selector("[data-testid=sign-in-status]:has-text('on its way')")
    mail = inbox.wait(address, n)[-1]
    link = f"{tab.page.url.split('/', 3)[0]}//{tab.page.url.split('/', 3)[2]}/signin#token={link_token(mail)}"
    page.goto(link)
    page.wait_for_selector("[data-testid=sign-in-result]:has-text('You are signed in')")
    assert "#token" not in page.url  # (the spent token is not left in the address bar)


def _me_line(tab: Tab, server: Server) -> str:
    tab.page.goto(server.base + "/")
    tab.page.wait_for_selector("[data-testid=me]")
    return str(tab.page.locator("[data-testid=me]").inner_text())


def test_sign_in_by_emailed_links_on_two_devices_shows_the_same_player(mailing_server: tuple[Server, Inbox],
                                                                      browser: Any) -> None:
    server, inbox = mailing_server
    laptop, rival = Tab(browser, 1280, 800), Tab(browser)
    choose_name(laptop, server, "Ada")
    choose_name(rival, server, "Grace")
    laptop.page.click("[data-testid=create-friend]")
    invite = laptop.page.locator("[data-testid=invite-link]").input_value()
    rival.page.goto(invite)
    rival.page.wait_for_selector("[data-testid=match][data-seat='1']")
    play_out((laptop, rival), random.Random(7))
    laptop.page.goto(server.base + "/")
    _ask_and_open(laptop, inbox, "ada@example.org", 1)
    before = _me_line(laptop, server)
    assert before.startswith("Ada")
    assert "ada@example.org" in laptop.page.locator("[data-testid=signed-in]").inner_text()
    laptop.page.goto(server.base + "/history")
    laptop.page.wait_for_selector("[data-testid=history-row]")
    history = laptop.page.locator("[data-testid=history-row]").all_inner_texts()
    laptop.shot("signed-in-laptop.png")
    phone = Tab(browser, 390, 844)
    phone.page.goto(server.base + "/")
    phone.page.wait_for_selector("[data-testid=sign-in]")
    _ask_and_open(phone, inbox, "ada@example.org", 2)
    assert _me_line(phone, server) == before
    phone.shot("signed-in-phone.png")
    phone.page.goto(server.base + "/history")
    phone.page.wait_for_selector("[data-testid=history-row]")
    assert phone.page.locator("[data-testid=history-row]").all_inner_texts() == history
    # a turn-based match begun on the laptop is listed on the phone, and played there
    laptop.page.goto(server.base + "/")
    laptop.page.select_option("[data-testid=friend-clock]", "move:24")
    laptop.page.click("[data-testid=create-friend]")
    rival.page.goto(laptop.page.locator("[data-testid=invite-link]").input_value())
    rival.page.wait_for_selector("[data-testid=match][data-seat='1']")
    new_id = laptop.page.url.split("/m/")[1].split("#")[0]
    phone.page.goto(server.base + "/")
    row = phone.page.locator(f"[data-testid=in-progress][data-match='{new_id}']")
    row.wait_for()
    assert "Against Grace" in row.inner_text() and "left" in row.inner_text()
    row.locator("[data-testid=resume]").click()
    phone.page.wait_for_selector("[data-testid=match][data-seat='0']")
    phone.page.wait_for_selector("[data-testid=turn-time]")
    rng = random.Random(2)
    for _ in range(4):  # the phone and the rival play a few decisions
        for tab in (phone, rival):
            if ready(tab):
                click_one(tab, rng)
    assert phone.page.locator("[data-testid=match][data-seat='0']").count() == 1
    # sign out everywhere: both devices are anonymous visitors again, and come back by a link
    phone.page.goto(server.base + "/")
    phone.page.click("[data-testid=sign-out-everywhere]")
    phone.page.wait_for_selector("[data-testid=name-input]")
    laptop.page.goto(server.base + "/")
    laptop.page.wait_for_selector("[data-testid=sign-in]")
    assert laptop.page.locator("[data-testid=me]").count() == 0
    _ask_and_open(laptop, inbox, "ada@example.org", 3)
    assert _me_line(laptop, server) == before


def _rated_match(server: Server, cookie: str) -> None:
    """The player of ``cookie`` hosts a rated table that a new player, Grace, joins, then resigns: a rated
    result (quick: the journey is about what follows)."""
    import httpx2
    from websockets.sync.client import connect

    with httpx2.Client(base_url=server.base, timeout=30) as http:
        grace = http.put("/api/me", json={"name": "Grace"}).cookies[COOKIE]
        http.cookies.clear()
        opened = http.post("/api/lobby/tables", json={"playset": "catalysts", "seat": 0},
                           headers={"cookie": f"{COOKIE}={cookie}"}).json()
        joined = http.post(f"/api/lobby/tables/{opened['table_id']}/join",
                           headers={"cookie": f"{COOKIE}={grace}"}).json()
    with connect(f"ws://127.0.0.1:{server.port}/ws/{joined['match_id']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": joined["token"]}))
        ws.send(json.dumps({"type": "resign"}))
        while json.loads(ws.recv(timeout=30)).get("match", {}).get("status") != "over":
            pass


def _home(tab: Tab, server: Server) -> dict[str, Any]:
    """What the home page shows of its player: the "me" line, the matches in progress, and (My matches) the
    finished ones."""
    page = tab.page
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=me]")
    page.wait_for_selector("[data-testid=in-progress]")
    shown = {"me": page.locator("[data-testid=me]").inner_text(),
             "in_progress": page.locator("[data-testid=in-progress]").evaluate_all(
                 "rows => rows.map((r) => r.dataset.match)")}
    page.goto(server.base + "/history")
    page.wait_for_selector("[data-testid=history-row]")
    shown["history"] = page.locator("[data-testid=history-row]").all_inner_texts()
    return shown


def test_play_on_other_devices_as_the_docs_say_then_sign_out_everywhere(mailing_server: tuple[Server, Inbox],
                                                                         browser: Any) -> None:
    """docs/browser.md: "On the home page, **Play on other devices too** mails you a sign-in link: open it on
    your phone, and your name, rating and matches are there too (...; sign out of one device or of all of
    them ... from the same panel)". Ada, with a rating and a match in progress on her laptop, follows it as
    written; then plays on from her phone, signs out of every device from the same panel, and each device's
    try to play is refused with the reason (issue 38: the phone became a new anonymous player)."""
    server, inbox = mailing_server
    laptop = Tab(browser, 1280, 800)
    choose_name(laptop, server, "Ada")
    cookie = {c["name"]: c["value"] for c in laptop.context.cookies()}[COOKIE]
    _rated_match(server, cookie)
    laptop.page.select_option("[data-testid=bot-level]", "easy")  # and a match in progress, against a bot
    laptop.page.click("[data-testid=create-bot]")
    laptop.page.wait_for_selector("[data-testid=match][data-seat='0']")
    match_url = laptop.page.url
    before = _home(laptop, server)
    assert before["me"].startswith("Ada · rating ") and "1500" not in before["me"], before
    assert before["in_progress"] == [match_url.rsplit("/", 1)[1]] and len(before["history"]) == 1
    playing = laptop.context.new_page()  # the laptop keeps the match open in another tab
    playing.goto(match_url)
    playing.wait_for_selector("[data-testid=match][data-seat='0']")
    laptop.page.bring_to_front()  # (a tab in the background waits for its frames: Playwright's checks too)

    # "On the home page, Play on other devices too mails you a sign-in link"
    page = laptop.page
    page.goto(server.base + "/")
    box = page.locator("[data-testid=sign-in]")
    assert box.locator("summary").inner_text() == "Play on other devices too"
    box.locator("summary").click()
    page.fill("[data-testid=sign-in-email]", "ada@example.org")
    page.click("[data-testid=sign-in-send]")
    page.wait_for_selector("[data-testid=sign-in-status]:has-text('on its way')")
    link = f"{server.base}/signin#token={link_token(inbox.wait('ada@example.org')[0])}"
    # "open it on your phone"
    phone = Tab(browser, 390, 844)
    phone.page.goto(link)
    said = "You are signed in as Ada on this device."
    phone.page.wait_for_selector(f"[data-testid=sign-in-result]:text-is('{said}')")
    # "and your name, rating and matches are there too"
    assert _home(phone, server) == before
    phone.shot("play-on-other-devices-phone.png")
    assert _home(laptop, server) == before  # and the laptop is still Ada
    laptop.shot("play-on-other-devices-laptop.png")

    # one step past: the phone plays on
    phone.page.goto(server.base + "/")
    phone.page.locator("[data-testid=resume]").click()
    phone.page.wait_for_selector("[data-testid=match][data-seat='0']")
    phone.page.wait_for_selector(f"{SETTLED_MATCH} :is([data-testid=playable-card], {ACTIVE})")
    seq, rng = int(phone.seq()), random.Random(4)
    click_one(phone, rng)
    if phone.page.locator(f"{SETTLED_MATCH} {STAGED}").count():  # a card held, nothing sent: how to play it
        click_one(phone, rng)
    playing.bring_to_front()
    for page in (phone.page, playing):  # the move is made, and the laptop's open match shows it
        page.wait_for_function(f"() => Number(document.querySelector('[data-testid=match]').dataset.seq) > {seq}")

    # "sign out ... of all of them ... from the same panel"
    phone.page.goto(server.base + "/")
    phone.page.click("[data-testid=sign-out-everywhere]")
    phone.page.wait_for_selector("[data-testid=name-input]")
    # each device tries to play on, and is refused with the reason: the laptop's open match is closed...
    playing.wait_for_selector(SIGNED_OUT)
    playing.wait_for_selector("[data-testid=match][data-seat='-1']")
    laptop.page.bring_to_front()
    # ...and the match opened again, on the phone and on the laptop, is watched, not played
    for tab in (phone, laptop):
        tab.page.goto(match_url)
        tab.page.wait_for_selector(SIGNED_OUT)
        tab.page.wait_for_selector("[data-testid=match][data-seat='-1']")
        assert tab.page.locator("[data-testid=playable-card], [data-testid=resign]").count() == 0
        tab.shot(f"signed-out-everywhere-match-{tab.size}.png")
        tab.page.goto(server.base + "/")  # no device lists it
        tab.page.wait_for_selector("[data-testid=name-input]")
        assert tab.page.locator("[data-testid=in-progress]").count() == 0
    for tab in (phone, laptop):
        tab.close()
