"""A finished match's review in a real browser: a deliberately bad player (one who clicks at random) plays a
bot to the end; "Review my play" asks the server for the review, which marks some of their decisions with the
chance each lost, over a chart of their chance turn by turn; a marked decision is practised over the board as
they saw it — an answer tried, then tried again and the best one found — and the same review opens again,
stored, from their history. Screenshots of the review and of a practice at 1280×800 and 390×844 go to
``out/screenshots/``."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser_support import OVER, Tab, browser_fixture  # noqa: F401 (a fixture)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import click_one
from tests.web.test_browser_lobby import choose_name

REVIEW = "[data-testid=review]"


@pytest.fixture(scope="module", name="server")
def server_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("web") / "matches.sqlite3", None, "--bot-delay", "0.02",
               "--replace-after", "0", "--review-simulations", "2000")
    s.start()
    yield s
    s.stop()


def test_a_bad_players_review_marks_their_mistakes_and_a_practice_can_be_played(server: Server,
                                                                                  browser: Any) -> None:
    tab = Tab(browser, 1280, 800)
    page = tab.page
    choose_name(tab, server, "Rand")
    page.select_option("[data-testid=bot-level]", "easy")
    page.select_option("[data-testid=bot-playset]", "catalysts")
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match]")
    match_id = page.url.rsplit("/", 1)[1]
    rng = random.Random(8)
    for _ in range(600):
        if page.locator("[data-testid=review-open]").count():
            break
        page.wait_for_selector("[data-testid=match][data-shown='1'][data-pending='0'] :is([data-testid=decision],"
                               " [data-testid=round-summary], [data-testid=match-summary],"
                               " [data-testid=review-open])")
        if page.locator("[data-testid=review-open]").count():
            break
        click_one(tab, rng)
    assert page.locator(OVER).count()

    page.locator("[data-testid=review-open]").first.click()
    page.wait_for_selector(REVIEW)
    page.wait_for_selector(f"{REVIEW}[data-status=done]", timeout=90000)
    seat = int(page.get_attribute("[data-testid=match]", "data-seat") or "-1")
    doc = page.evaluate("async ([id, seat]) => (await fetch(`/api/matches/${id}/review?seat=${seat}`)).json()",
                        [match_id, seat])["review"]
    marked = [d for d in doc["decisions"] if d["mark"]]
    assert marked, "a random player's whole match had no marked decision"
    shown = page.locator("[data-testid=reviewed]")
    assert shown.count() == len(marked)
    assert [shown.nth(k).get_attribute("data-mark") for k in range(shown.count())] == [d["mark"] for d in marked]
    totals = page.locator("[data-testid=review-totals]").inner_text()
    assert f"in {len(doc['decisions'])} decisions with a choice" in totals
    for mark, n in doc["counts"].items():
        assert re.search(rf"\b{n} {mark[:6]}", totals), (mark, n, totals)
    assert page.locator(f"{REVIEW} svg.review-chart circle.mark").count() >= 1
    first = shown.first.inner_text()
    assert f"Round {marked[0]['round']}, turn {marked[0]['turn']}" in first
    for k, d in enumerate(marked):  # the figures shown agree: the best's less the played's is the loss shown
        said = re.search(r"\((\d+)%\); best was .* \((\d+)%\), (\d+) points? more\.", shown.nth(k).inner_text())
        assert said, shown.nth(k).inner_text()
        played, best, lost = (int(x) for x in said.groups())
        assert best - played == lost == d["lost_points"], (said.group(0), d)
        assert abs(100 * d["lost"] - lost) <= 0.55, (said.group(0), d)  # rounded once ("lost": to 3 places)
    tab.shot("review-1280x800.png")

    # practise the first marked decision: the board shows that moment from this seat's view
    page.click("[data-testid=practise]")
    page.wait_for_selector("[data-testid=practice-where]")
    page.wait_for_function("s => { const m = document.querySelector('[data-testid=match]');"
                           " return m && document.querySelector('[data-testid=zone-hand]'); }", arg=None)
    d = marked[0]
    options = page.locator("[data-testid=practice-option]")
    assert options.count() == len(d["choices"]) >= 2
    assert f"Practice 1 of {len(marked)}" in page.locator("[data-testid=practice-where]").inner_text()
    played = page.locator(f"[data-testid=practice-option][data-action='{d['played']['action']}']")
    played.click()  # the same mistake again: told what it costs
    answer = page.locator("[data-testid=practice-answer]").inner_text()
    assert f"{d['played']['points']}% to win the round" in answer
    below = re.search(r"(\d+) points? below the best, .*? \((\d+)%\)\. In the match", answer)
    assert below and (int(below.group(1)), int(below.group(2))) == (d["lost_points"], d["best"]["points"]), answer
    tab.shot("review-practice-1280x800.png")
    page.click("[data-testid=practice-again]")
    assert page.locator("[data-testid=practice-answer]").count() == 0
    page.click(f"[data-testid=practice-option][data-action='{d['best']['action']}']")
    assert "the best choice" in page.locator("[data-testid=practice-answer]").inner_text()
    if len(marked) > 1:  # and on to the next one
        page.click("[data-testid=practice-next]")
        assert f"Practice 2 of {len(marked)}" in page.locator("[data-testid=practice-where]").inner_text()
    page.set_viewport_size({"width": 390, "height": 844})
    tab.shot("review-practice-390x844.png", full_page=True)
    page.click("[data-testid=practice-done]")
    page.wait_for_selector("[data-testid=review-marked]")
    tab.shot("review-390x844.png", full_page=True)
    page.click("[data-testid=review-close]")
    assert page.locator(REVIEW).count() == 0
    page.set_viewport_size({"width": 1280, "height": 800})

    # from the history: the same review, stored, opens at once
    page.goto(server.base + "/history")
    page.locator(f"[data-testid=history-row][data-match='{match_id}'] [data-testid=review-link]").click()
    page.wait_for_selector(f"{REVIEW}[data-status=done]", timeout=15000)
    assert page.locator("[data-testid=reviewed]").count() == len(marked)
    tab.close()
