"""End to end in a real browser: Playwright drives Debian's Chromium (/usr/bin/chromium; no browser is
downloaded) against ``converge serve``. A match against a bot is played to the end by clicking; two
browser contexts play each other through an invite link while a third watches. Screenshots go to
``out/screenshots/``."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
CHROMIUM = os.environ.get("CONVERGE_CHROMIUM", "/usr/bin/chromium")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

from tests.server_support import Server, hang_guard  # noqa: E402, F401 (hang_guard is a fixture)

SHOTS = Path(__file__).resolve().parent.parent / "out" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
ACTIVE = "[data-testid=decision] [data-testid=action]:not([disabled])"
OVER = "[data-testid=match-over]"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("web") / "matches.sqlite3", None, "--bot-delay", "0.02",
               "--replace-after", "0")
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Tab:
    """A page in its own browser context (its own storage: another person), failing on any page error or
    Content-Security-Policy violation."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text}")

    def seq(self) -> str:
        return str(self.page.get_attribute("[data-testid=match]", "data-seq"))

    def click_one(self, rng: random.Random) -> None:
        """One decision by clicking: a highlighted card if there is one (card, then target), else a choice
        of the decision panel (mode, skillset, done...). Then wait for the new state."""
        before = self.seq()
        cards = self.page.locator("[data-testid=playable-card]")
        buttons = self.page.locator(ACTIVE)
        if cards.count():
            cards.nth(rng.randrange(cards.count())).click()
        else:
            buttons.nth(rng.randrange(buttons.count())).click()
        self.page.wait_for_function(
            "s => { const m = document.querySelector('[data-testid=match]');"
            " return m && m.dataset.seq !== s && m.dataset.pending === '0'; }", arg=before, timeout=15000)

    def over(self) -> bool:
        return bool(self.page.locator(OVER).count())

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / name), full_page=True)

    def close(self) -> None:
        assert not [p for p in self.problems if "Content Security Policy" in p or "page error" in p], self.problems
        self.context.close()


def test_play_a_bot_to_the_end_by_clicking_then_replay_it(server: Server, browser: Any) -> None:
    tab = Tab(browser)
    page = tab.page
    page.goto(server.base + "/")
    page.select_option("[data-testid=bot-level]", "greedy")
    page.select_option("[data-testid=bot-playset]", "catalysts")
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match]")
    assert re.fullmatch(rf"{re.escape(server.base)}/m/[A-Za-z0-9_-]+", page.url)  # the token is not shown
    assert page.locator("[data-testid=zone-hand] [data-card]").count() in (2, 3)
    rng = random.Random(1)
    clicks = 0
    while not tab.over():
        page.wait_for_selector(f"{ACTIVE}, {OVER}", timeout=20000)
        if tab.over():
            break
        tab.click_one(rng)
        clicks += 1
        assert clicks < 400
    banner = page.locator(OVER).inner_text()
    assert "You won the match" in banner or "You lost the match" in banner
    assert page.locator("[data-testid=score-table]").count() == 1
    tab.shot("bot-match.png")

    page.click("[data-testid=replay]")
    page.wait_for_selector("[data-testid=replaybar]")
    assert page.locator("[data-testid=replay-step]").inner_text().startswith("step 0 / ")
    for k in range(1, 4):
        page.click("[data-testid=replay-next]")
        page.wait_for_function(f"() => document.querySelector('[data-testid=replay-step]')"
                               f".textContent.startsWith('step {k} /')")
    assert "player" in page.locator("[data-testid=replay-step]").inner_text()
    page.click("[data-testid=replay-last]")
    page.wait_for_function("() => { const t = document.querySelector('[data-testid=replay-step]').textContent;"
                           " const m = /step (\\d+) \\/ (\\d+)/.exec(t); return m && m[1] === m[2]; }")
    tab.shot("bot-match-replay.png")

    page.click("[data-testid=rules-open]")
    page.wait_for_selector("[data-testid=rules-body] h2")
    assert "A match and its rounds" in str(page.locator("[data-testid=rules-body]").text_content())
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
            if not tab.over() and tab.page.locator(ACTIVE).count():
                tab.click_one(rng)
                acted = True
                clicks += 1
        if not acted:
            host.page.wait_for_timeout(20)
        assert clicks < 600
    watcher.page.wait_for_selector(OVER)
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
