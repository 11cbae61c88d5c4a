"""The lobby in a real browser (issue 16's bar): two people, each in their own browser context, choose names;
one opens a table, the other joins it from the lobby with one click, and they play it to the end by clicking;
then both press Quick match and are paired, play that match out too, and each sees their rating and history
change on the home page, the history page and the leaderboard. Screenshots of the lobby, leaderboard and
history at 1280×800 and 390×844 go to ``out/screenshots/``."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.browser_support import OVER, Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import click_one, ready
from tests.web.test_browser_a11y import serious


def choose_name(tab: Tab, server: Server, name: str) -> None:
    tab.page.goto(server.base + "/")
    tab.page.fill("[data-testid=name-input]", name)
    tab.page.click("[data-testid=save-name]")
    tab.page.wait_for_selector(f"[data-testid=me-name]:text-is('{name}')")


def play_out(tabs: tuple[Tab, Tab], rng: random.Random) -> None:
    clicks = 0
    while not all(t.over() for t in tabs):
        acted = False
        for tab in tabs:
            if not tab.over() and ready(tab):
                click_one(tab, rng)
                acted = True
                clicks += 1
        if not acted:
            tabs[0].page.wait_for_timeout(20)
        assert clicks < 800


def rating(tab: Tab, server: Server) -> str:
    tab.page.goto(server.base + "/")
    return tab.page.locator("[data-testid=me-rating]").inner_text()


def test_names_a_table_joined_from_the_lobby_then_quick_match_with_ratings_and_history(
        server: Server, browser: Any) -> None:
    ada, bob = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    choose_name(ada, server, "Ada")
    choose_name(bob, server, "Bob")
    assert ada.page.locator("[data-testid=me-rating]").inner_text() == "1500?"
    ada.shot("lobby-named-1280.png")

    # Ada opens a table; it appears in Bob's lobby, live (no reload)
    ada.page.click("[data-testid=open-table-form]")
    ada.page.select_option("[data-testid=table-playset]", "catalysts")
    ada.page.click("[data-testid=open-table]")
    ada.page.wait_for_selector("[data-testid=close-table]")
    row = bob.page.locator("[data-testid=lobby-table]", has_text="Ada")
    row.wait_for()
    assert "Alchemist" in row.inner_text() and "rated" in row.inner_text()
    ada.shot("lobby-1280.png")
    bob.shot("lobby-390.png", full_page=True)
    row.locator("[data-testid=join-table]").click()
    for tab in (ada, bob):
        tab.page.wait_for_selector("[data-testid=match][data-status=active]", timeout=20000)
    assert ada.page.url == bob.page.url
    seats = {t.page.get_attribute("[data-testid=match]", "data-seat") for t in (ada, bob)}
    assert seats == {"0", "1"}
    play_out((ada, bob), random.Random(16))
    won = {t: "You won" in t.page.locator(OVER).inner_text() for t in (ada, bob)}
    assert sorted(won.values()) == [False, True]
    ada.page.wait_for_selector("[data-testid=my-history]")

    # ratings moved, and each history lists the match with its opponent, result and change
    for tab, other in ((ada, "Bob"), (bob, "Ada")):
        shown = rating(tab, server)
        value = int(shown.rstrip("?"))
        assert (value > 1500) == won[tab] and value != 1500
        assert "1 rated match" in tab.page.locator("[data-testid=me]").inner_text()
        tab.page.click("[data-testid=history-link]")
        hist = tab.page.locator("[data-testid=history-row]")
        hist.first.wait_for()
        assert hist.count() == 1
        text = hist.first.inner_text()
        assert other in text and ("Won" if won[tab] else "Lost") in text
        assert re.search(r"[+−]\d+ \(\d+\)", text), text

    # both press Quick match: paired with each other (their ratings now differ, so the window widens first)
    for tab in (ada, bob):
        tab.page.goto(server.base + "/")
        tab.page.wait_for_selector("[data-testid=me-name]")
    first_url = ada.page.url
    for tab in (ada, bob):
        tab.page.click("[data-testid=quick-match]")
    ada.page.wait_for_selector("[data-testid=queue-status]:has-text('Looking')")
    for tab in (ada, bob):
        tab.page.wait_for_url(re.compile(r".*/m/[A-Za-z0-9_-]+$"), timeout=40000)
        tab.page.wait_for_selector("[data-testid=match][data-status=active]", timeout=20000)
    assert ada.page.url == bob.page.url != first_url
    play_out((ada, bob), random.Random(17))
    for tab in (ada, bob):
        assert "2 rated matches" in (rating(tab, server) and tab.page.locator("[data-testid=me]").inner_text())
        tab.page.goto(server.base + "/history")
        tab.page.locator("[data-testid=history-row]").nth(1).wait_for()
        assert tab.page.locator("[data-testid=history-row]").count() == 2
        changes = tab.page.locator("[data-testid=history-change]").all_inner_texts()
        assert all(re.fullmatch(r"[+−]\d+ \(\d+\)", c) for c in changes), changes
    ada.shot("history-1280.png")
    bob.shot("history-390.png", full_page=True)
    assert serious(ada.page) == [] and serious(bob.page) == []  # axe-core, with rows in the table

    # the replay link opens the step-by-step replay
    bob.page.locator("[data-testid=replay-link]").first.click()
    bob.page.wait_for_selector("[data-testid=replaybar]")

    # the leaderboard lists both, best first
    for tab in (ada, bob):
        tab.page.goto(server.base + "/leaderboard")
        tab.page.locator("[data-testid=leader-row]").nth(1).wait_for()
        names = [r.split("\t")[1] for r in tab.page.locator("[data-testid=leader-row]").all_inner_texts()]
        assert sorted(names) == ["Ada", "Bob"]
    assert serious(ada.page) == []
    ada.shot("leaderboard-1280.png")
    bob.shot("leaderboard-390.png", full_page=True)
    for tab in (ada, bob):
        tab.close()


#: Names that read as a bot, the server or the table's words, written with look-alike letters (Cyrillic а and
#: і, small capitals), or mixing scripts; each with a word of the reason the page must show.
LOOK_ALIKES = [("h\u0430rd", "bots"), ("\u029c\u1d00\u0280\u1d05", "bots"), ("med\u0456um", "bots"),
               ("B\u043et", "bots"), ("\u0430dmin", "reserved"), ("Hard AI", "bots"), ("HardCPU", "bots"),
               ("player 0", "table's words"), ("They", "table's words"),
               ("\u0410da Lovelace", "mixes Cyrillic and Latin letters")]


def test_look_alike_names_typed_in_the_name_form_are_refused_with_the_reason_shown(
        server: Server, browser: Any) -> None:
    first = Tab(browser, 1280, 800)
    choose_name(first, server, "Ada Lovelace")
    tab = Tab(browser, 390, 844)
    tab.page.goto(server.base + "/")
    refused = tab.page.locator("[data-testid=name-error]")
    for name, why in LOOK_ALIKES:
        tab.page.fill("[data-testid=name-input]", name)
        assert refused.is_hidden()  # typing again clears the last reason
        tab.page.click("[data-testid=save-name]")
        refused.filter(has_text=why).wait_for()
        assert tab.page.get_attribute("[data-testid=name-input]", "aria-invalid") == "true"
        assert tab.page.locator("[data-testid=me-name]").count() == 0  # nobody was made of it
    tab.shot("name-refused-390.png")
    assert tab.page.evaluate("fetch('/api/me').then((r) => r.json())")["player"] is None
    choose_name(tab, server, "Grace H")  # a good name still goes through
    for t in (first, tab):
        t.close()


def test_quick_match_pressed_before_the_lobby_connects_is_asked_once_it_does(server: Server, browser: Any) -> None:
    """A press of Quick match while the lobby's socket is not open yet (a slow start, a reconnection) is not
    lost: the page says it is looking, and asks the server as soon as the socket opens."""
    cleo = Tab(browser, 390, 844)
    choose_name(cleo, server, "Cleo")  # (a name of its own: the module's server is shared)
    lobby = {"open": False, "refused": 0}

    def route(ws: Any) -> None:
        if lobby["open"]:
            ws.connect_to_server()
        else:
            lobby["refused"] += 1
            ws.close()

    cleo.page.route_web_socket(re.compile(r".*/ws/lobby$"), route)
    cleo.page.reload()
    cleo.page.wait_for_selector("[data-testid=me-name]:text-is('Cleo')")
    for _ in range(1500):  # (the page tries to connect: its first attempt is refused)
        if lobby["refused"]:
            break
        cleo.page.wait_for_timeout(20)
    assert lobby["refused"] >= 1
    cleo.page.click("[data-testid=quick-match]")
    status = cleo.page.locator("[data-testid=queue-status]")
    assert status.inner_text() == "Looking for an opponent…"
    lobby["open"] = True  # the page's next attempt reaches the server: it queues Cleo
    cleo.page.wait_for_selector("[data-testid=queue-status]:has-text('near 1500')", timeout=30000)
    cleo.page.wait_for_selector("[data-testid=leave-queue]:visible")
    cleo.close()
