"""Signing in by an emailed link in a real browser (issue 30's bar, its first half): a server that mails
through a real SMTP server on loopback; a player chooses a name and plays in one browser context, asks for a
link, opens it there, then signs in "on another device" (a second context) by a second link, and both show
the same name, rating and history; a turn-based match begun on the first is listed on the second and played
there; then signs out everywhere. Screenshots at 1280×800 and 390×844."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import Tab, browser_fixture  # noqa: F401 (a fixture)
from tests.mail_support import Inbox, link_token, smtp_fixture  # noqa: F401 (a fixture)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import click_one, ready
from tests.web.test_browser_lobby import choose_name, play_out


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
