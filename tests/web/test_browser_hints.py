"""The hint at every step of a play, in a real browser: asked at the choice of a card, it marks the card with
the best chance; once that card is held, it says how best to play it, from the same answer (the card's
chance is its best placement's); the play goes on, the next decision has no hint until it is asked, and
the hint answers at a decision of each other kind met (a target, a skillset...).
A screenshot of the held step goes to ``out/screenshots/``."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.browser_support import SETTLED, Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import click_one

BOX = "[data-testid=hint-box]"


def _percent(text: str) -> int:
    """The chance the hint gives its first option (the one marked best): the sentence's, or, where it names
    options about equal with their range of chances ("(59–61%)"), the first listed option's."""
    found = re.search(r"^Hint: (Your best choice is|To play the card you hold,|“.+” are about equal"
                      r"|Your \d best choices, listed first, are about equal)"
                      r".*? \((\d+)(–\d+)?%\)\.", text)
    assert found, text
    if found.group(3) is None:
        return int(found.group(2))
    first = re.search(r"^\s*(\d+)%", text, re.MULTILINE)
    assert first, text
    return int(first.group(1))


def test_the_hint_answers_at_the_card_and_at_how_to_play_it(server: Server, browser: Any) -> None:
    tab = Tab(browser, 1280, 800)
    page = tab.page
    rng = random.Random(3)
    page.goto(server.base + "/")
    page.select_option("[data-testid=bot-level]", "easy")
    page.select_option("[data-testid=bot-playset]", "catalysts")
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match]")
    for _ in range(200):
        page.wait_for_selector(SETTLED, timeout=30000)
        kind = page.get_attribute("#decision", "data-kind") if page.locator("#decision").count() else None
        staged = page.get_attribute("#decision", "data-staged") if kind else None
        if kind != "select" or staged:
            click_one(tab, rng)
            continue
        assert page.locator(BOX).count() == 0  # a new decision: no hint until it is asked
        page.click("[data-testid=hint]")
        page.wait_for_selector(BOX, timeout=30000)
        said = page.locator(BOX).inner_text()
        assert "rounds like this are won" in said  # (the package ships a calibration map)
        assert "The hint sees what you see, never hidden cards." in said
        best = page.locator("[data-testid=zone-hand] .card.suggested")
        assert best.count() == 1
        card_chance = _percent(said)
        before = tab.seq()
        best.click()
        page.wait_for_function(
            "s => { const m = document.querySelector('[data-testid=match]');"
            " const d = document.querySelector('#decision');"
            " return m && (m.dataset.seq !== s || (d && d.dataset.staged)); }", arg=before, timeout=15000)
        if not page.get_attribute("#decision", "data-staged"):
            continue  # that card is played at once (a discard's effect, say): try the next turn
        # how to play the held card: the same answer's next step, its best option marked
        page.wait_for_selector(BOX, timeout=5000)
        step = page.locator(BOX).inner_text()
        assert _percent(step) == card_chance, (said, step)
        marked = page.locator("[data-testid=decision] button.suggested")
        assert marked.count() == 1
        tab.shot("hint-held-1280x800.png")
        before = tab.seq()
        marked.click()
        page.wait_for_function("s => document.querySelector('[data-testid=match]').dataset.seq !== s",
                               arg=before, timeout=15000)
        # the play went on: at our next decision the page works and shows no stale hint
        page.wait_for_selector(SETTLED, timeout=30000)
        if page.locator("#decision").count():
            assert page.locator(BOX).count() == 0
        _hint_at_other_kinds(tab, rng)
        tab.close()
        return
    raise AssertionError("no card whose placement is chosen after it was met in 200 decisions")


def _hint_at_other_kinds(tab: Tab, rng: random.Random) -> None:
    """Play on, asking the hint at the first decision of each other kind met (a target, a skillset, a
    faction...): it answers there too, its best option marked."""
    page = tab.page
    answered: set[str] = set()
    matches = 1
    for _ in range(900):
        page.wait_for_selector(SETTLED, timeout=30000)
        if page.locator("[data-testid=match-summary]").count():
            if answered or matches == 3:
                break
            # the deal is random (the server draws with secrets): a match may end before any other kind
            # of decision comes up, so play on in a rematch
            url = page.url
            page.click("[data-testid=rematch]")
            page.wait_for_function("u => location.href !== u", arg=url, timeout=15000)
            page.wait_for_selector("[data-testid=match]")
            matches += 1
            continue
        kind = page.get_attribute("#decision", "data-kind") if page.locator("#decision").count() else None
        staged = page.get_attribute("#decision", "data-staged") if kind else None
        if kind not in (None, "select", "mode") and not staged and kind not in answered and \
                page.locator("[data-testid=hint]").count():
            page.click("[data-testid=hint]")
            page.wait_for_selector(BOX, timeout=30000)
            assert re.search(r"^Hint: (Your best choice is|.+ are about equal, your best choices"
                             r"|Your \d best choices, listed first, are about equal)",
                             page.locator(BOX).inner_text())
            assert page.locator("[data-testid=decision] button.suggested, #app .card.suggested").count() == 1
            answered.add(kind)
        click_one(tab, rng)
    assert answered, f"no decision of another kind than a card's choice was met in {matches} matches"
