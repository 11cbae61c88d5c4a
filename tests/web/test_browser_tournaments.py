"""Tournaments in a real browser (issue 41's bar): a host creates a Swiss on the tournaments page, two players
join it from its page (one at 1280×800, one on a phone at 390×844), the host starts it, each presses "Your match
is ready", they play round one to its end by clicking, and the event's standings move. Screenshots of the
tournaments page and the event page at both sizes go to ``out/screenshots/``."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("caissify_pairings")

from tests.browser_support import Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser_lobby import choose_name, play_out


def points(tab: Tab) -> list[str]:
    return sorted(tab.page.locator("[data-testid=standing-points]").all_inner_texts())


def test_a_swiss_made_joined_and_played_in_the_browser_moves_its_standings(server: Server, browser: Any) -> None:
    host, ada, bob = Tab(browser, 1280, 800), Tab(browser, 1280, 800), Tab(browser, 390, 844)
    for tab, name in ((host, "Hostess"), (ada, "Ada"), (bob, "Bob")):
        choose_name(tab, server, name)
    page = host.page
    page.click("[data-testid=nav-tournaments]")
    page.wait_for_selector("[data-testid=host-form]")
    page.fill("[data-testid=event-name]", "Friday club Swiss")
    page.select_option("[data-testid=event-format]", "swiss")
    page.fill("[data-testid=event-rounds]", "2")
    page.select_option("[data-testid=event-playset]", "catalysts")
    page.click("[data-testid=host-event]")
    page.wait_for_selector("[data-testid=start]")
    url = page.url
    assert "/t/" in url and page.locator("[data-testid=event-settings]").inner_text().startswith("Upcoming")

    ada.page.goto(url)
    bob.page.goto(server.base + "/")  # (on a phone, from the home page: the header has no room for it)
    bob.page.click("[data-testid=home-tournaments]")
    bob.page.click("[data-testid=event-row] a:text-is('Friday club Swiss')")
    for tab in (ada, bob):
        tab.page.click("[data-testid=join]")
        tab.page.wait_for_selector("[data-testid=withdraw]")
    bob.shot("tournament-joined-390x844.png", full_page=True)
    page.reload()
    page.wait_for_selector("[data-testid=standing-row] >> nth=1")
    page.click("[data-testid=start]")
    for tab in (ada, bob):  # the page reads the event again every few seconds: the match comes
        tab.page.click("[data-testid=play-event-match]", timeout=30000)
        tab.page.wait_for_selector("[data-testid=match]")
    play_out((ada, bob), random.Random(41))
    for tab in (ada, bob):
        tab.page.goto(url)
        tab.page.wait_for_selector("[data-testid=standing-row]")
    assert points(ada) == ["0.0", "1.0"] or points(ada) == ["0", "1"], points(ada)
    assert ada.page.locator("[data-testid=event-round]").count() >= 1
    crossed = [row.split("\t") for row in ada.page.locator("[data-testid=cross-row]").all_inner_texts()]
    assert [cells[-1].strip() for cells in crossed] == ["W2", "L1"], crossed  # (the crosstable: round one)
    ada.shot("tournament-1280x800.png", full_page=True)
    bob.shot("tournament-390x844.png", full_page=True)
    assert bob.page.evaluate("document.documentElement.scrollWidth") <= 390
    host.page.goto(server.base + "/tournaments")
    host.page.fill("[data-testid=event-name]", "Saturday arena")  # (an event with a start time)
    host.page.select_option("[data-testid=event-format]", "arena")
    host.page.fill("[data-testid=event-minutes]", "30")
    host.page.fill("[data-testid=event-starts]", "2031-05-17T20:30")
    host.page.click("[data-testid=host-event]")
    host.page.wait_for_selector("[data-testid=start]")
    said = host.page.locator("[data-testid=event-settings]").inner_text()
    assert said.startswith("Upcoming · Arena, 30 minutes"), said
    assert "starts May 17, 2031" in said and "8:30" in said, said
    host.page.goto(server.base + "/tournaments")
    host.page.wait_for_selector("[data-testid=event-row]")
    host.shot("tournaments-1280x800.png", full_page=True)
    for tab in (host, ada, bob):
        tab.close()
