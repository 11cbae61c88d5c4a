"""People around the table in a real browser (issue 42's story): Ada (1280×800) follows Bob (a phone, 390×844)
and sees him online; she challenges him from her friends list; Bob accepts on his page and goes to the match;
Ada's page notices on its next look and offers to play; at the table they chat (a line, a quick message) and Bob
mutes Ada; both play the match to its end by clicking, then each opens the other's profile and reads the match
and the rating's chart. Screenshots of the home page's panels and the profiles at both sizes go to
``out/screenshots/``."""

from __future__ import annotations

import random
from typing import Any

from tests.browser_support import Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser_lobby import choose_name, play_out


def test_a_friend_followed_seen_online_challenged_and_played(server: Server, browser: Any) -> None:
    ada, bob = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    for tab, name in ((ada, "Ada"), (bob, "Bob")):
        choose_name(tab, server, name)
    page = ada.page
    page.reload()  # (the panels are drawn for a named player)
    page.fill("[data-testid=follow-name]", "bob")
    page.click("[data-testid=follow]")
    friend = page.locator("[data-testid=friend][data-name=Bob]")
    friend.wait_for()
    assert friend.get_attribute("data-online") == "true"  # (his home page holds a lobby socket)
    assert friend.locator("a[href='/@/Bob']").count() == 1
    page.click("[data-testid=challenge-friend]")
    assert page.input_value("[data-testid=challenge-name]") == "Bob"
    page.select_option("[data-testid=challenge-playset]", "catalysts")
    page.select_option("[data-testid=challenge-clock]", "600")
    page.check("[data-testid=challenge-rated]")
    page.click("[data-testid=send-challenge]")
    page.wait_for_selector("[data-testid=outgoing-challenge]")
    assert "Bob" in page.locator("[data-testid=outgoing-challenge]").inner_text()
    ada.shot("friends-1280x800.png", full_page=True)

    bob.page.reload()
    bob.page.wait_for_selector("[data-testid=incoming-challenge]")
    said = bob.page.locator("[data-testid=incoming-challenge]").inner_text()
    assert "Ada challenges you" in said and "10 minutes each" in said, said
    bob.shot("friends-390x844.png", full_page=True)
    assert bob.page.evaluate("document.documentElement.scrollWidth") <= 390
    bob.page.click("[data-testid=accept-challenge]")
    bob.page.wait_for_selector("[data-testid=match]")
    page.click("[data-testid=play-challenge]", timeout=30000)  # (Ada's page reads her challenges every 4 s)
    page.wait_for_selector("[data-testid=match]")
    # at the table: a line, a quick message, and a mute (the story, told in one test)
    page.fill("[data-testid=chat-input]", "good luck, Bob")
    page.press("[data-testid=chat-input]", "Enter")
    bob.page.wait_for_selector("[data-testid=chat-line]:has-text('good luck, Bob')")
    bob.page.click("[data-testid=quick-glhf]")
    page.wait_for_selector("[data-testid=chat-line]:has-text('Bob: Good luck')")
    said = bob.page.locator("[data-testid=chat-line]", has_text="good luck, Bob")
    said.locator("[data-testid=chat-mute]").click()
    bob.page.wait_for_selector("[data-testid=chat-line]:has-text('good luck, Bob')", state="detached")
    page.fill("[data-testid=chat-input]", "are you there?")
    page.press("[data-testid=chat-input]", "Enter")
    page.wait_for_selector("[data-testid=chat-line]:has-text('You: are you there?')")
    bob.page.click("[data-testid=quick-thanks]")
    bob.page.wait_for_selector("[data-testid=chat-line]:has-text('You: Thanks')")
    assert "are you there?" not in bob.page.locator("[data-testid=chat-lines]").inner_text()
    play_out((ada, bob), random.Random(42))
    for tab, other in ((ada, "Bob"), (bob, "Ada")):  # each profile shows the result and the rating's chart
        tab.page.goto(f"{server.base}/@/{other}")
        tab.page.wait_for_selector("[data-testid=rating-chart]")
        points = tab.page.get_attribute("[data-testid=rating-chart] polyline", "points") or ""
        assert len(points.split()) == 1, points  # (one rated match: one point)
        assert tab.page.locator("[data-testid=profile-match]").count() == 1  # (a challenge by name is public)
        h2h = tab.page.locator("[data-testid=h2h]").inner_text()
        assert "of your match against" in h2h and ("You won 1" in h2h) != ("lost 1" in h2h), h2h  # (just played)
        tab.shot(f"profile-after-challenge-{tab.page.viewport_size['width']}.png", full_page=True)
    ada.page.click("[data-testid=profile-challenge]")  # (a challenge from a profile: the form, filled in)
    ada.page.wait_for_selector("[data-testid=challenges-page]")
    assert ada.page.input_value("[data-testid=challenge-name]") == "Bob"
    # back home, Bob sees Ada as a friend once he follows her; the match is over: nothing to watch
    bob.page.goto(server.base + "/")
    bob.page.fill("[data-testid=follow-name]", "Ada")
    bob.page.click("[data-testid=follow]")
    friend = bob.page.locator("[data-testid=friend][data-name=Ada]")
    friend.wait_for()
    assert friend.get_attribute("data-online") == "true"  # (her match ended a moment ago)
    assert bob.page.locator("[data-testid=watch-friend]").count() == 0
    with bob.page.expect_response(lambda r: r.url.endswith("/api/me/challenges") and r.ok):
        bob.page.check("[data-testid=friends-only]")  # (Bob now takes challenges from Ada and his friends only)
    bob.page.reload()
    bob.page.wait_for_selector("[data-testid=friends-only]:checked")
    bob.shot("friends-after-390x844.png", full_page=True)
    assert bob.page.evaluate("document.documentElement.scrollWidth") <= 390
    for tab in (ada, bob):
        tab.close()
