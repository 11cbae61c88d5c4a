"""Puzzles in a real browser, at a laptop's size and a phone's: a puzzle solved by playing its solution's line
(taken from the shipped set, each of the mover's steps clicked where the page offers it: a card, then how to
play it...), another failed with one of the plays it lists as failing; both ratings move, the solution and why
the other plays fail are shown, the dashboard counts them, and Next puzzle opens another. The home page's daily
puzzle links to a puzzle that can be played. Screenshots go to ``out/screenshots/``."""

from __future__ import annotations

from typing import Any

import pytest

from converge.puzzles.model import Puzzle, Wrong, shipped
from tests.browser_support import SHOTS, Tab, browser_fixture, check_layout, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)

#: The page waits for the mover: a decision of theirs, nothing being judged.
READY = "[data-testid=match][data-pending='0'][data-puzzle=playing] #decision[data-testid=decision]"
RESULT = "[data-testid=puzzle-result]"
INSTRUCTION = "Win this round: find the play that wins whatever they hold and however they reply."
JUDGED_MS = 90_000  # (each step is judged by the exact solver, on a machine shared with other tests)


def to_solve() -> Puzzle:
    """A puzzle of the shipped set with a choice of cards, with the shortest line of the mover's steps."""
    return min((p for p in shipped() if len(p.start().legal_actions()) >= 2),
               key=lambda p: (len(p.mover_steps()), p.id))


def to_fail(other: str) -> tuple[Puzzle, Wrong]:
    """Another puzzle, and one of its failing plays: a card that fails however it is played, if one can."""
    found = [(p, w) for p in shipped() if p.id != other for w in p.wrong if w.lost]
    return min(found, key=lambda pw: (pw[1].then >= 0, len(pw[0].mover_steps()), pw[0].id))


def puzzle_rating(page: Any) -> int:
    """The rating the puzzle's heading gives it ("· rated 2100")."""
    said = page.inner_text("[data-testid=puzzle-rating]").strip()
    assert said.startswith("· rated "), said
    return int(said.removeprefix("· rated "))


def click_step(page: Any, action: int) -> None:
    page.wait_for_selector(READY, timeout=JUDGED_MS)
    page.click(f"#app [data-action='{action}']")


def dashboard_says(page: Any, solved: str) -> None:
    """The dashboard beside the table (drawn again after each finished attempt) counts `solved`."""
    page.wait_for_function("t => { const d = document.querySelector('[data-testid=dash-solved]');"
                           " return d && d.textContent === t; }", arg=solved, timeout=15000)


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["1280x800", "390x844"])
def test_a_puzzle_solved_and_another_failed(server: Server, browser: Any, size: tuple[int, int]) -> None:
    w, h = size
    tab = Tab(browser, w, h)
    page = tab.page
    good = to_solve()
    bad, wrong = to_fail(good.id)

    # the position as the mover saw it, with what to do; the table's own components
    page.goto(server.base + "/puzzles/" + good.id)
    page.wait_for_selector(READY, timeout=30000)
    head = page.locator("[data-testid=puzzle-head]")
    assert head.get_attribute("data-puzzle") == good.id
    assert INSTRUCTION in head.inner_text()
    rated = puzzle_rating(page)  # (the shipped rating, or where the other size's attempts moved it)
    assert page.locator("[data-testid=zone-hand] [data-testid=playable-card]").count() >= 2
    check_layout(page)
    tab.shot(f"puzzle-start-{w}x{h}.png")

    # solved: each of the mover's steps of the line, a held card and how to play it sent together
    steps = [a for _, a in good.mover_steps()]
    for action in steps:
        click_step(page, action)
    page.wait_for_selector(RESULT, timeout=JUDGED_MS)
    result = page.locator(RESULT)
    assert result.get_attribute("data-status") == "solved"
    assert page.inner_text("[data-testid=puzzle-verdict]") == "Solved!"
    mine = page.inner_text("[data-testid=my-rating-change]")
    theirs = page.inner_text("[data-testid=puzzle-rating-change]")
    assert mine.startswith("Your puzzle rating: 1500 → ") and "(+" in mine, mine
    assert theirs.startswith(f"This puzzle's rating: {rated} → ") and "(−" in theirs, theirs
    assert page.inner_text("[data-testid=streak]") == "Streak: 1 puzzle solved in a row."
    assert page.locator("[data-testid=puzzle-solution] li").count() == len(steps)
    assert page.inner_text("[data-testid=puzzle-explanation]").startswith("Your play wins the round")
    # the verdict has the focus and is read aloud
    assert page.evaluate("document.activeElement.dataset.testid") == "puzzle-verdict"
    page.wait_for_function("() => document.querySelector('#announce').textContent.startsWith('Solved.')")
    dashboard_says(page, "1 of 1")
    tab.shot(f"puzzle-solved-{w}x{h}.png", full_page=True)

    # failed: a play the puzzle lists as failing
    page.goto(server.base + "/puzzles/" + bad.id)
    page.wait_for_selector(READY, timeout=30000)
    assert page.get_attribute("[data-testid=puzzle-head]", "data-puzzle") == bad.id
    rated = puzzle_rating(page)
    click_step(page, wrong.action)
    if page.get_attribute("#decision", "data-staged") is not None:  # (held: how to play it)
        if wrong.then >= 0:
            page.click(f"#decision [data-action='{wrong.then}']")
        else:
            page.click("#decision [data-testid=action]:not([disabled])")
    page.wait_for_selector(RESULT, timeout=JUDGED_MS)
    assert page.get_attribute(RESULT, "data-status") == "failed"
    assert page.inner_text("[data-testid=puzzle-verdict]") == "Not quite"
    mine = page.inner_text("[data-testid=my-rating-change]")
    theirs = page.inner_text("[data-testid=puzzle-rating-change]")
    assert mine.startswith("Your puzzle rating: ") and "(−" in mine, mine
    assert theirs.startswith(f"This puzzle's rating: {rated} → ") and "(+" in theirs, theirs
    assert page.inner_text("[data-testid=streak]") == "Your streak starts again from 0."
    why = page.inner_text("[data-testid=puzzle-why]")
    assert wrong.label[0].upper() + wrong.label[1:] + ":" in why, why
    assert "they can still win the round" in why or "whatever cards they hold" in why, why
    assert page.locator("[data-testid=puzzle-solution] li").count() == len(bad.mover_steps())
    assert page.inner_text("[data-testid=puzzle-explanation]").startswith("That play does not win in every case")
    dashboard_says(page, "1 of 2")
    tab.shot(f"puzzle-failed-{w}x{h}.png", full_page=True)

    # the next puzzle, of a theme chosen from the list
    theme = bad.themes[0]
    page.select_option("[data-testid=puzzle-theme]", theme)
    page.click("[data-testid=next-puzzle]")
    page.wait_for_function("id => { const h = document.querySelector('[data-testid=puzzle-head]');"
                           " return h && h.dataset.puzzle !== id; }", arg=bad.id, timeout=30000)
    page.wait_for_selector(READY, timeout=30000)
    shown = page.get_attribute("[data-testid=puzzle-head]", "data-puzzle")
    assert page.url.endswith("/puzzles/" + str(shown))
    assert theme in next(p for p in shipped() if p.id == shown).themes
    assert page.locator(RESULT).count() == 0
    tab.close()


def test_the_daily_puzzle_on_the_home_page_opens_a_playable_puzzle(server: Server, browser: Any) -> None:
    tab = Tab(browser, 390, 844)
    page = tab.page
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=daily-link]", timeout=30000)
    card = page.locator("[data-testid=daily-puzzle]")
    assert "Rated " in card.inner_text()
    assert card.locator(".theme-tag").count() >= 1
    assert page.locator("[data-testid=nav-puzzles]").get_attribute("href") == "/puzzles"
    card.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(SHOTS / "puzzle-daily-home-390x844.png"))
    href = str(page.get_attribute("[data-testid=daily-link]", "href"))
    page.click("[data-testid=daily-link]")
    page.wait_for_selector(READY, timeout=30000)
    daily = href.removesuffix("#daily").rsplit("/", 1)[1]
    assert page.url.endswith("/puzzles/" + daily)
    assert page.inner_text("#h-puzzle").startswith("Daily puzzle")
    assert page.get_attribute("[data-testid=puzzle-head]", "data-puzzle") == daily
    assert page.locator("[data-testid=zone-hand] [data-testid=playable-card]").count() >= 1
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    found = [f"{v['id']}: {[n['target'] for n in v['nodes']]}" for v in axe.Axe().run(page).response["violations"]
             if v["impact"] in ("serious", "critical")]
    assert not found, found
    tab.close()
