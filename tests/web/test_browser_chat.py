"""Chat in a real browser (issue 42): two players at a table (one at 1280×800, one on a phone at 390×844) say
a typed line and a quick message, each reads the other's, a link stays text, a line being typed survives the
other player's move, and a mute keeps the muted player's lines away; the lobby's chat on the home page.
Screenshots go to ``out/screenshots/``."""

from __future__ import annotations

import random
from typing import Any

from tests.browser_support import Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import click_one, ready
from tests.web.test_browser_lobby import choose_name


def lines(tab: Tab) -> list[str]:
    """The chat's lines as read: who, then what (without the line's Mute button)."""
    said: list[str] = tab.page.eval_on_selector_all("[data-testid=chat-line]", "ls => ls.map(l => "
                                                    "l.querySelector('strong').textContent + "
                                                    "l.querySelector('.said').textContent)")
    return said


def test_two_players_chat_at_the_table_and_one_mutes_the_other(server: Server, browser: Any) -> None:
    ada, bob = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    choose_name(ada, server, "Ada")
    choose_name(bob, server, "Bob")
    ada.page.fill("[data-testid=chat-input]", "Anyone for a game? I opened a table")
    ada.page.click("[data-testid=chat-send]")
    bob.page.wait_for_selector("[data-testid=chat-line]:has-text('Anyone for a game?')")
    ada.page.click("[data-testid=open-table-form]")
    ada.page.select_option("[data-testid=table-playset]", "catalysts")
    ada.page.click("[data-testid=open-table]")
    bob.page.locator("[data-testid=lobby-table]", has_text="Ada").locator("[data-testid=join-table]").click()
    for tab in (ada, bob):
        tab.page.wait_for_selector("[data-testid=match][data-status=active]", timeout=20000)
        tab.page.wait_for_selector("[data-testid=chat] h2:text-is('Chat')")
    assert lines(ada) == [] and lines(bob) == []  # (the table's room: not the lobby's)

    ada.page.fill("[data-testid=chat-input]", "good luck! rules at https://example.org/rules")
    ada.page.press("[data-testid=chat-input]", "Enter")
    said = bob.page.locator("[data-testid=chat-line]", has_text="good luck!")
    said.wait_for()
    assert said.locator("a").count() == 0  # (a link in a line is text)
    bob.page.click("[data-testid=quick-gg]")
    ada.page.wait_for_selector("[data-testid=chat-line]:has-text('Bob: Good game')")
    assert lines(ada)[-1] == "Bob: Good game" and lines(bob)[-1] == "You: Good game"

    bob.page.fill("[data-testid=chat-input]", "half a line")  # a line being typed survives the table's redraws
    seq = bob.page.get_attribute("[data-testid=match]", "data-seq")
    rng = random.Random(42)
    for _ in range(100):  # (the player to move plays until Bob's table shows a move)
        if bob.page.get_attribute("[data-testid=match]", "data-seq") != seq:
            break
        for tab in (ada, bob):
            if ready(tab):
                click_one(tab, rng)
        ada.page.wait_for_timeout(50)
    assert bob.page.get_attribute("[data-testid=match]", "data-seq") != seq
    assert bob.page.input_value("[data-testid=chat-input]") == "half a line"

    ada.shot("chat-1280x800.png", full_page=True)
    bob.shot("chat-390x844.png", full_page=True)
    assert bob.page.evaluate("document.documentElement.scrollWidth") <= 390

    bob.page.locator("[data-testid=chat-line]", has_text="good luck!").locator("[data-testid=chat-mute]").click()
    bob.page.wait_for_selector("[data-testid=chat-line]:has-text('good luck!')", state="detached")
    ada.page.fill("[data-testid=chat-input]", "can you hear me?")
    ada.page.press("[data-testid=chat-input]", "Enter")
    ada.page.wait_for_selector("[data-testid=chat-line]:has-text('You: can you hear me?')")
    bob.page.click("[data-testid=quick-thanks]")
    bob.page.wait_for_selector("[data-testid=chat-line]:has-text('You: Thanks')")
    assert not any("can you hear me" in line for line in lines(bob))
    for tab in (ada, bob):
        tab.close()
