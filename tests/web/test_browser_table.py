"""The match page as a game table, in a real browser at a laptop's 1280×800 and a phone's 390×844: a whole
match against a bot, checked at every decision (the decision strip never covers the hand, every legal choice
is on screen without scrolling, nothing overflows sideways), with a screenshot of each kind of decision and of
the turn, round and match summaries under ``out/screenshots/``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.browser_support import SETTLED, Tab, browser_fixture, check_layout, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)

SIZES = [(1280, 800), (390, 844)]
#: Effects with every kind of follow-up choice: Convert (a target, then a skillset), Expand (a card from the
#: hand, then a faction), Trade (a card, then a second one).
PLAYSET = ["alchemist", "delver", "merchant"]


#: Cards whose Convert lets the player choose the skillset (a held target, then the skillset).
CHOOSERS = ("ALC1", "ALC5")


def choose(page: Any, measures: dict[str, Any], rng: random.Random) -> None:
    """Click one legal choice: a card that converts by choice once a faction has a card (to meet that
    decision too), mostly a discard (to meet the effects), else any."""
    ids = [c["id"] for c in measures["choices"]]
    factions = page.locator("[data-testid=zone-them] [data-card], [data-testid=zone-you] [data-card]").count()
    chooser = [page.get_attribute(f"#app [data-action='{a}']", "data-card") in CHOOSERS for a in ids]
    held = page.locator("[data-testid=zone-hand] .chosen").get_attribute("data-card") \
        if page.locator("[data-testid=zone-hand] .chosen").count() else None
    if measures["kind"] == "select" and factions and any(chooser):
        pick = ids[chooser.index(True)]
    elif "18" in ids and (held in CHOOSERS or rng.random() < 0.6):
        pick = "18"
    else:
        pick = rng.choice(ids)
    page.click(f"#app [data-action='{pick}']")


def shot_turn_line(tab: Tab, shots: set[str], tag: str) -> None:
    """The first time the end-of-turn line is on screen, its screenshot. It stays from an end of turn to the
    next play: at our decision only when we lead the next turn too (the turn ended on the bot's play without
    the artifact changing hands), otherwise while the bot thinks after our play ended the turn."""
    if "turn" not in shots and tab.page.locator("[data-testid=turn-line]").count():
        tab.shot(f"turn-summary-{tag}.png")
        shots.add("turn")


def play_match(tab: Tab, rng: random.Random, shots: set[str], tag: str) -> dict[str, int]:
    page = tab.page
    kinds: dict[str, int] = {}
    steps = 0
    while True:
        page.wait_for_selector(SETTLED, timeout=30000)
        if page.locator("[data-testid=match-summary]").count():
            return kinds
        if page.locator("[data-testid=round-summary]").count():
            summary = page.locator("[data-testid=round-summary]").inner_text()
            assert "round" in summary.lower() and ("scored more" in summary or "hands are empty" in summary)
            # the final board of the round stays on the table until the player continues
            assert page.locator("[data-testid=zone-them]").count()
            assert page.locator("[data-testid=zone-goals]").count()
            if "round" not in shots:
                tab.shot(f"round-summary-{tag}.png")
                shots.add("round")
            page.click("[data-testid=continue]")
            continue
        m = check_layout(page)
        kind = m["kind"] + ("-held" if m["staged"] else "")
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind not in shots:
            tab.shot(f"decision-{kind}-{tag}.png")
            shots.add(kind)
        shot_turn_line(tab, shots, tag)
        if "hint" not in shots and page.locator("[data-testid=hint]").count():
            page.click("[data-testid=hint]")
            page.wait_for_selector("[data-testid=hint-box]", timeout=30000)
            m = check_layout(page)  # the hint's box is in the strip: the choices are still on screen
            tab.shot(f"hint-{tag}.png")
            shots.add("hint")
        before = page.get_attribute("[data-testid=match]", "data-seq")
        staged = page.get_attribute("#decision", "data-staged")
        choose(page, m, rng)
        if m["staged"] is None:
            # either the choice is held here (a follow-up opens at once) or it was sent
            page.wait_for_function(
                "([s, st]) => { const m = document.querySelector('[data-testid=match]');"
                " const d = document.querySelector('#decision');"
                " return m && (m.dataset.seq !== s || (d && d.dataset.staged && d.dataset.staged !== st)"
                " || document.querySelector('[data-testid=round-summary], [data-testid=match-summary]')); }",
                arg=[before, staged or ""], timeout=30000)
            shot_turn_line(tab, shots, tag)  # (a turn that our own play ended: shown while the bot thinks)
        steps += 1
        assert steps < 500


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_bot_match_fits_the_screen_at_every_decision(server: Server, browser: Any, width: int,
                                                       height: int) -> None:
    tag = f"{width}x{height}"
    tab = Tab(browser, width, height)
    page = tab.page
    rng = random.Random(width)
    shots: set[str] = set()
    seen: dict[str, int] = {}
    for match_no in range(6):  # more matches only until every kind of decision and the turn line were met
        page.goto(server.base + "/")
        if match_no == 0:
            tab.shot(f"home-{tag}.png")
        page.select_option("[data-testid=bot-level]", "easy")
        page.select_option("[data-testid=bot-playset]", "custom")
        for k, name in enumerate(PLAYSET):
            page.select_option(f"[data-testid=bot-skillset-{k}]", name)
        page.click("[data-testid=create-bot]")
        page.wait_for_selector("[data-testid=match]")
        for kind, n in play_match(tab, rng, shots, tag).items():
            seen[kind] = seen.get(kind, 0) + n
        summary = page.locator("[data-testid=match-summary]").inner_text()
        assert page.locator("[data-testid=rounds] li").count() >= 2
        assert "Round 1:" in summary and ("scored more" in summary or "hands were empty" in summary)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if "match" not in shots:
            tab.shot(f"match-summary-{tag}.png")
            shots.add("match")
        if {"select", "mode-held", "target", "faction-held", "skillset-held", "second"} <= set(seen) \
                and "turn" in shots:
            break
    assert {"select", "mode-held", "target"} <= set(seen), seen
    assert {"turn", "round", "match", "hint"} <= shots, shots
    tab.close()


TABLE_BOTTOM = "document.querySelector('[data-testid=table]').getBoundingClientRect().bottom + window.scrollY"


def test_a_card_to_choose_stays_in_a_short_window_and_scrolling_shows_what_the_hand_covers(
        server: Server, browser: Any) -> None:
    """A window too short for the whole table (a board that grew, a long hint, a short laptop): while a card
    is to be chosen, the strip and the hand stay at the window's foot, so every choice is on screen with the
    page at its top; scrolled to the table's end, nothing is covered (the player's own zone can be read and
    clicked). (The table's end, not the page's: the panels beside it — the log, the chat — may run longer.)"""
    tab = Tab(browser, 1280, 440)
    page = tab.page
    page.goto(server.base + "/")
    page.select_option("[data-testid=bot-level]", "easy")
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match]")
    page.wait_for_selector("[data-testid=zone-hand] .playable", timeout=30000)
    page.evaluate("window.scrollTo(0, 0)")
    # The table itself (not only the page beside it) must be taller than the window, or there is nothing to
    # scroll to: its height varies with the board and the hint (525-625 px at 1280 wide), hence 440.
    assert page.evaluate(TABLE_BOTTOM) > 440, "the table fits the window: the test's premise does not hold"
    m = check_layout(page)
    assert m["kind"] == "select" and m["scrollY"] == 0
    tab.shot("short-window-top-1280x440.png")
    # Scrolled and probed in one script: the page may still grow a line (the log, the side panel) between two
    # round trips, and a page that grew after the scroll is no longer at its end.
    probe = page.evaluate("""() => {
      const table = document.querySelector('[data-testid=table]').getBoundingClientRect();
      window.scrollTo(0, window.scrollY + table.bottom - window.innerHeight);
      const zone = document.querySelector('[data-testid=zone-you]').getBoundingClientRect();
      const y = Math.max(zone.top, 0) + 8;
      const hit = document.elementFromPoint(zone.x + zone.width / 2, y);
      return {uncovered: !!(hit && hit.closest('[data-testid=zone-you]')), scrollY: window.scrollY,
              zoneTop: zone.top, zoneBottom: zone.bottom, hit: hit ? hit.className : null};
    }""")
    tab.shot("short-window-table-end-1280x440.png")
    assert probe["scrollY"] > 0, probe
    assert probe["uncovered"], f"the hand covers the player's zone even with the page scrolled to its end: {probe}"
    tab.close()
