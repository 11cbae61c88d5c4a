"""End to end in a real browser: Playwright drives Debian's Chromium (/usr/bin/chromium; no browser is
downloaded) against ``converge serve``. A match against a bot is played to the end by clicking; two
browser contexts play each other through an invite link while a third watches. Screenshots go to
``out/screenshots/``."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.browser_support import ACTIVE, OVER, Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)

CONTINUE = "[data-testid=continue]"


def click_one(tab: Tab, rng: random.Random) -> None:
    """One decision by clicking: a highlighted card if there is one (card, then target), else a choice of
    the decision strip (mode, skillset, done...); a round's summary is closed with Continue. A card whose
    follow-up choice opens at once is held (nothing sent yet); otherwise wait for the new state."""
    page = tab.page
    if page.locator(CONTINUE).count():
        page.click(CONTINUE)
        return
    before = tab.seq()
    cards = page.locator("[data-testid=playable-card]")
    buttons = page.locator(ACTIVE)
    if cards.count():
        cards.nth(rng.randrange(cards.count())).click()
    else:
        buttons.nth(rng.randrange(buttons.count())).click()
    page.wait_for_function(
        "s => { const m = document.querySelector('[data-testid=match]');"
        " const d = document.querySelector('#decision');"
        " return m && ((m.dataset.seq !== s && m.dataset.pending === '0') || (d && d.dataset.staged)); }",
        arg=before, timeout=15000)


def ready(tab: Tab) -> bool:
    page = tab.page
    settled = "[data-testid=match][data-shown='1'][data-pending='0'] "
    return bool(page.locator(CONTINUE).count() or page.locator(settled + ACTIVE).count()
                or page.locator(settled + "[data-testid=playable-card]").count())


def test_play_a_bot_to_the_end_by_clicking_then_replay_it(server: Server, browser: Any) -> None:
    tab = Tab(browser)
    page = tab.page
    page.goto(server.base + "/")
    page.select_option("[data-testid=bot-level]", "easy")
    page.select_option("[data-testid=bot-playset]", "catalysts")
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match]")
    assert re.fullmatch(rf"{re.escape(server.base)}/m/[A-Za-z0-9_-]+", page.url)  # the token is not shown
    assert page.locator("[data-testid=zone-hand] [data-card]").count() in (2, 3)
    rng = random.Random(1)
    clicks = 0
    while not tab.over():
        page.wait_for_selector(f"[data-testid=playable-card], {ACTIVE}, {OVER}, {CONTINUE}", timeout=20000)
        if tab.over():
            break
        click_one(tab, rng)
        clicks += 1
        assert clicks < 400
    banner = page.locator(OVER).inner_text()
    assert "You won the match" in banner or "You lost the match" in banner
    # the points per goal once, in the match's summary (not again beside it)
    assert page.locator("[data-testid=summary-goals]").count() == 1
    assert page.locator("[data-testid=score-table], [data-testid=turn-goals]").count() == 0
    tab.shot("bot-match.png")

    page.click("[data-testid=replay]")
    page.wait_for_selector("[data-testid=replaybar]")
    assert page.locator("[data-testid=replay-step]").inner_text().startswith("Step 0 of ")
    for k in range(1, 4):
        page.click("[data-testid=replay-next]")
        page.wait_for_function(f"() => document.querySelector('[data-testid=replay-step]')"
                               f".textContent.startsWith('Step {k} of')")
    label = page.locator("[data-testid=replay-step]").inner_text()
    assert re.search(r": (Easy bot|Player [12]) (chooses|discards|declares|adds|declines)", label), label
    assert "player 0" not in label and ": mine" not in label, label  # the mover by name, the move in words
    # jump to the next end of turn: its explanation shows
    page.click("[data-testid=replay-next-turn]")
    page.wait_for_selector("[data-testid=replay-turn]")
    page.click("[data-testid=replay-last]")
    page.wait_for_function("() => { const t = document.querySelector('[data-testid=replay-step]').textContent;"
                           " const m = /Step (\\d+) of (\\d+)/.exec(t); return m && m[1] === m[2]; }")
    tab.shot("bot-match-replay.png")

    page.click("[data-testid=rules-open]")
    page.wait_for_selector("[data-testid=rules-body] h2")
    rules = str(page.locator("[data-testid=rules-body]").text_content())
    assert "A turn" in rules and "Glossary" in rules and "T6" not in rules  # the players' rules, no ruling codes
    tab.shot("rules.png")
    page.click("[data-testid=rules-close]")
    tab.close()


def test_two_friends_play_through_an_invite_link_while_someone_watches(server: Server, browser: Any) -> None:
    host, guest, watcher = Tab(browser), Tab(browser), Tab(browser)
    host.page.goto(server.base + "/")
    host.page.select_option("[data-testid=friend-playset]", "sparks")
    host.page.click("[data-testid=create-friend]")
    invite = host.page.locator("[data-testid=invite-link]").input_value()
    watch = host.page.locator("[data-testid=watch-link]").input_value()
    assert "#token=" in invite and "#" not in watch and invite.split("#")[0] == watch
    guest.page.goto(invite)
    guest.page.wait_for_selector("[data-testid=match][data-seat='1']")
    watcher.page.goto(watch)
    watcher.page.wait_for_selector("[data-testid=match][data-seat='-1']")
    assert watcher.page.locator("[data-testid=zone-hand]").count() == 0  # a spectator sees no hand
    host.page.wait_for_function("() => document.body.textContent.includes('Your friend is here')")
    rng = random.Random(2)
    clicks = 0
    while not (host.over() and guest.over()):
        acted = False
        for tab in (host, guest):
            if not tab.over() and ready(tab):
                click_one(tab, rng)
                acted = True
                clicks += 1
        if not acted:
            host.page.wait_for_timeout(20)
        assert clicks < 600
    while not watcher.over():  # the spectator saw each round's end too, until they continued
        watcher.page.wait_for_selector(f"{OVER}, {CONTINUE}", timeout=30000)
        if watcher.page.locator(CONTINUE).count():
            watcher.page.click(CONTINUE)
    texts = [t.page.locator(OVER).inner_text() for t in (host, guest)]
    assert sorted("You won" in t for t in texts) == [False, True]
    host.shot("friend-match-host.png")
    guest.shot("friend-match-guest.png")
    watcher.shot("friend-match-spectator.png")

    # A rematch: both seats move to the new match, each with its own seat.
    old_url = host.page.url
    host.page.click("[data-testid=rematch]")
    for tab, seat in ((host, "0"), (guest, "1")):
        tab.page.wait_for_url(lambda u: u != old_url and "/m/" in u)
        tab.page.wait_for_selector(f"[data-testid=match][data-seat='{seat}'][data-status=active]")
    assert host.page.url == guest.page.url
    watcher.page.wait_for_selector("[data-testid=rematch-link]")
    for tab in (host, guest, watcher):
        tab.close()


def test_a_seat_open_in_more_windows_than_allowed_keeps_the_newest_without_churn(server: Server,
                                                                                 browser: Any) -> None:
    """A seat keeps at most 4 connections (`--seat-connections`): a fifth window closes the oldest, which
    says so and stays closed (reconnecting would close another window, which would reconnect...)."""
    import httpx2

    doc = httpx2.post(server.base + "/api/matches", json={"opponent": "friend", "playset": "catalysts",
                                                          "seat": 0}).json()
    tabs = []
    for _ in range(5):
        tab = Tab(browser)
        tab.page.goto(server.base + doc["url"])
        tab.page.wait_for_selector("[data-testid=match][data-seat='0']")
        tabs.append(tab)
    oldest = tabs[0].page
    oldest.wait_for_function("() => document.querySelector('#conn').textContent.includes('another window')")
    oldest.wait_for_timeout(3000)  # long enough for several reconnection attempts, if there were any
    assert "reload this page to play here" in oldest.locator("#conn").inner_text()
    assert [t.page.locator("#conn").inner_text() for t in tabs[1:]] == ["connected"] * 4
    meta = httpx2.get(f"{server.base}/api/matches/{doc['match_id']}").json()["match"]
    assert meta["seats"][0]["connected"] is True
    for tab in tabs:
        tab.close()


def test_a_turn_based_match_from_the_home_page_shows_each_players_time_to_move(server: Server,
                                                                              browser: Any) -> None:
    host, guest = Tab(browser), Tab(browser)
    host.page.goto(server.base + "/")
    host.page.select_option("[data-testid=friend-clock]", "move:72")
    host.page.click("[data-testid=create-friend]")
    invite = host.page.locator("[data-testid=invite-link]").input_value()
    guest.page.goto(invite)
    guest.page.wait_for_selector("[data-testid=match][data-seat='1']")
    texts = {}
    for tab in (host, guest):
        tab.page.wait_for_selector("[data-testid=turn-time]")
        texts[tab] = tab.page.locator("[data-testid=turn-time]").inner_text()
    assert sorted(t.startswith("You have ") for t in texts.values()) == [False, True], texts
    move_then_vacation = r"(2 days 23 h|3 days) to move, then 7 days of vacation$"
    assert all(re.search(move_then_vacation, t) for t in texts.values()), texts
    assert host.page.locator("[data-testid=clocks]").count() == 0  # no clock for the whole match
    mover = next(tab for tab, t in texts.items() if t.startswith("You have "))
    waiting = guest if mover is host else host
    rng = random.Random(3)
    while not ready(mover):
        mover.page.wait_for_timeout(20)
    click_one(mover, rng)
    mover.shot("turn-based-match.png")
    watcher = Tab(browser)  # a spectator's page shows whose turn it is and how long they have, and updates
    watcher.page.goto(host.page.locator("[data-testid=watch-link]").input_value())
    watcher.page.wait_for_selector("[data-testid=match][data-seat='-1'] [data-testid=turn-time]")
    shown = watcher.page.locator("[data-testid=turn-time]").inner_text()
    assert re.search(r" has (2 days 23 h|3 days) to move, then 7 days of vacation$", shown), shown
    seen = watcher.page.locator("[data-testid=match]").get_attribute("data-seq")
    while mover.page.locator("[data-testid=match]").get_attribute("data-seq") == seen:
        if ready(mover):
            click_one(mover, rng)
        else:
            mover.page.wait_for_timeout(20)
    watcher.page.wait_for_function("s => document.querySelector('[data-testid=match]').dataset.seq !== s",
                                   arg=seen)
    waiting.page.goto(server.base + "/")  # the home page lists it: the waiting player's first, with the time
    row = waiting.page.locator("[data-testid=in-progress]").first
    row.wait_for()
    assert re.search(r"(9 days 23 h|10 days) left (to move|for them)", row.inner_text()), row.inner_text()


# A page whose tab is in the background, with the browser's notifications allowed and recorded.
_BACKGROUND = """
Object.defineProperty(document, 'hidden', { get: () => true });
window.__notes = [];
window.Notification = class { constructor(title, o) { window.__notes.push({ title, body: o.body, tag: o.tag }); }
  static get permission() { return 'granted'; } static requestPermission() { return Promise.resolve('granted'); }
  close() {} };
"""


def test_a_notification_says_it_is_your_turn_when_the_page_is_in_the_background(server: Server,
                                                                                 browser: Any) -> None:
    host, guest = Tab(browser), Tab(browser)
    host.context.add_init_script(_BACKGROUND)
    host.page.goto(server.base + "/")
    host.page.click("[data-testid=create-friend]")
    invite = host.page.locator("[data-testid=invite-link]").input_value()
    host.page.check("[data-testid=notify]")
    guest.page.goto(invite)
    guest.page.wait_for_selector("[data-testid=match][data-seat='1']")
    rng = random.Random(5)
    clicks = 0
    while not host.page.evaluate("window.__notes.length"):  # both play until the host's turn comes back
        acted = False
        for tab in (host, guest):
            if ready(tab):
                click_one(tab, rng)
                acted, clicks = True, clicks + 1
        if not acted:
            host.page.wait_for_timeout(20)
        assert clicks < 60, "no notification came"
    note = host.page.evaluate("window.__notes")[0]
    mid = re.search(r"/m/([A-Za-z0-9_-]+)", host.page.url)
    assert mid and note == {"title": "Your turn — Converge", "tag": "converge-" + mid.group(1),
                            "body": "It is your turn in your match against your friend."}
    assert guest.page.locator("[data-testid=notify]").is_checked() is False  # (a setting of each browser)
