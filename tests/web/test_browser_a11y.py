"""Accessibility and learning, in a real browser: axe-core finds no serious or critical violation on the home
page (with the lobby), the history and leaderboard pages, a match in progress, the rules page and the
tutorial; a whole match against a bot is played with the keyboard alone; the tutorial is completed by doing
what its instructions say, word for word."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tests.browser_support import SETTLED, SHOTS, Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)

axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")


def serious(page: Any) -> list[str]:
    """The serious and critical violations axe-core finds on the page (its bundled copy: nothing is
    downloaded), each as "rule: target"."""
    results = axe_module.Axe().run(page)
    found = []
    for v in results.response["violations"]:
        if v["impact"] in ("serious", "critical"):
            found += [f"{v['id']} ({v['impact']}): {n['target']} {n.get('failureSummary', '')[:200]}"
                      for n in v["nodes"]]
    return found


def bot_match(tab: Tab, server: Server) -> None:
    tab.page.goto(server.base + "/")
    tab.page.select_option("[data-testid=bot-level]", "easy")
    tab.page.click("[data-testid=create-bot]")
    tab.page.wait_for_selector("[data-testid=match]")


def test_axe_finds_no_serious_violation_on_the_pages(server: Server, browser: Any) -> None:
    tab = Tab(browser, 1280, 800)
    page = tab.page
    report: dict[str, list[str]] = {}
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=home]")
    report["home"] = serious(page)
    # the lobby's pages: the home page once named (the lobby, an open table), the history, the leaderboard
    page.fill("[data-testid=name-input]", "Axe Scan")
    page.click("[data-testid=save-name]")
    page.wait_for_selector("[data-testid=me-name]")
    page.click("[data-testid=open-table-form]")
    page.click("[data-testid=open-table]")
    page.wait_for_selector("[data-testid=lobby-table]")
    report["home, named, a table open"] = serious(page)
    page.goto(server.base + "/history")
    page.wait_for_selector("[data-testid=history] h1")
    report["history"] = serious(page)
    page.goto(server.base + "/leaderboard")
    page.wait_for_selector("[data-testid=leaderboard] h1")
    report["leaderboard"] = serious(page)
    bot_match(tab, server)
    page.wait_for_selector(SETTLED)
    report["match"] = serious(page)
    # a choice held (a card chosen, its mode next) and the rules dialog
    page.locator("[data-testid=playable-card]").first.click()
    page.wait_for_selector("[data-testid=take-back]")
    report["match, a card held"] = serious(page)
    page.goto(server.base + "/rules")
    page.wait_for_selector("[data-testid=glossary]")
    report["rules"] = serious(page)
    page.goto(server.base + "/tutorial")
    page.wait_for_selector("[data-testid=coach-text]")
    report["tutorial"] = serious(page)
    page.click("[data-testid=coach-next]")
    page.wait_for_selector("[data-testid=playable-card]")
    report["tutorial, first move"] = serious(page)
    assert report == {k: [] for k in report}, report
    tab.close()


def focused(page: Any) -> dict[str, Any]:
    return dict(page.evaluate("""() => { const a = document.activeElement;
      const data = a && a.dataset ? a.dataset : {};
      return {testid: data.testid || '', action: data.action || '',
              legal: (document.querySelector('#decision') || {dataset: {}}).dataset.legal || '',
              tag: a ? a.tagName : ''}; }"""))


def test_a_whole_match_against_a_bot_with_the_keyboard_alone(server: Server, browser: Any) -> None:
    """No click: Tab moves between choices, Enter takes one, Escape takes back a held card."""
    tab = Tab(browser, 1280, 800)
    page = tab.page
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=home]")
    for _ in range(60):  # to "Play against the bot"
        page.keyboard.press("Tab")
        if focused(page)["testid"] == "create-bot":
            break
    assert focused(page)["testid"] == "create-bot"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid=match]")
    rng = random.Random(5)
    took_back = False
    moves = 0
    while not page.locator("[data-testid=match-summary]").count():
        page.wait_for_selector(SETTLED, timeout=30000)
        if page.locator("[data-testid=match-summary]").count():
            break
        if page.locator("[data-testid=round-summary]").count():
            assert focused(page)["testid"] == "continue"  # the page put the focus on it
            page.keyboard.press("Enter")
            page.wait_for_selector("[data-testid=round-summary]", state="detached")
            continue
        f = focused(page)
        legal = f["legal"].split(",")
        assert f["action"] in legal, f  # the focus is on a legal choice as the decision opens
        for _ in range(rng.randrange(3)):  # wander among the choices
            page.keyboard.press("Tab")
        for _ in range(80):
            f = focused(page)
            if f["action"] in legal:
                break
            page.keyboard.press("Tab")
        assert f["action"] in legal, f
        staged = page.locator("#decision[data-staged]").count()
        before = page.get_attribute("[data-testid=match]", "data-seq")
        page.keyboard.press("Enter")
        if not staged and page.locator("#decision[data-staged]").count() and not took_back:
            page.keyboard.press("Escape")  # take the card back, then choose again
            page.wait_for_selector("#decision:not([data-staged])")
            took_back = True
            continue
        page.wait_for_function(
            "s => { const m = document.querySelector('[data-testid=match]');"
            " return m && (m.dataset.seq !== s || document.querySelector('#decision[data-staged]')); }",
            arg=before, timeout=30000)
        moves += 1
        assert moves < 400
    assert took_back
    assert "Round 1:" in page.locator("[data-testid=match-summary]").inner_text()
    tab.shot("keyboard-match-over-1280x800.png")
    tab.close()


QUOTED = re.compile(r"“([^”]+)”")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)], ids=["1280x800", "390x844"])
def test_the_tutorial_is_completed_by_following_its_instructions(server: Server, browser: Any, width: int,
                                                                 height: int) -> None:
    """Read the instruction, press what it names in quotes, and nothing else; the opponent's scripted moves
    come by themselves."""
    tab = Tab(browser, width, height, pace="fast")
    page = tab.page
    page.goto(server.base + "/")
    page.click("[data-testid=start-tutorial]")
    page.wait_for_selector("[data-testid=coach-text]")
    shots = 0
    pressed: list[str] = []
    for _ in range(60):
        if page.locator("[data-testid=tutorial-complete]").count():
            break
        text = page.locator("[data-testid=coach-text]").inner_text()
        names = QUOTED.findall(text)
        if not names:  # the opponent is playing: wait for the next instruction
            page.wait_for_function("t => document.querySelector('[data-testid=coach-text]').innerText !== t",
                                   arg=text, timeout=15000)
            continue
        for name in names:
            page.get_by_role("button", name=name).first.click()
            pressed.append(name)
        page.wait_for_function("t => { const c = document.querySelector('[data-testid=coach-text]');"
                               " return !c || c.innerText !== t; }", arg=text, timeout=15000)
        if (shots < 4 and width == 1280) or "won the round" in text:
            tab.shot(f"tutorial-{shots}-{width}x{height}.png")
            shots += 1
    assert page.locator("[data-testid=tutorial-complete]").count()
    assert {"declare it as a shared goal", "add it to your faction", "discard it for its effect (Assemble)"} <= \
        set(pressed), pressed
    tab.shot(f"tutorial-complete-{width}x{height}.png")
    assert (SHOTS / f"tutorial-complete-{width}x{height}.png").exists()
    # one step past: "Play a real match" leads to a match against a bot
    page.get_by_role("link", name="Play a real match").click()
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match][data-status=active]")
    tab.close()
