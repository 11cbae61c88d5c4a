"""A server restart seen from the browser (issue 31): the process is stopped with SIGTERM while one page plays a
bot and another waits in the quick-match queue; once it is back on the same port, the match page reconnects by
itself and plays on to the end, and the waiting page queues again by itself and is paired with a newcomer."""

from __future__ import annotations

import random
import re
import signal
from pathlib import Path
from typing import Any

from tests.browser_support import OVER, Tab, browser_fixture  # noqa: F401 (a fixture)
from tests.server_support import Server, hang_guard  # noqa: F401 (a fixture)
from tests.web.test_browser import click_one
from tests.web.test_browser_lobby import choose_name, play_out


def test_after_a_restart_the_match_page_plays_on_and_the_queued_page_queues_again(
        tmp_path: Path, browser: Any) -> None:
    server = Server(tmp_path / "matches.sqlite3", None, "--bot-delay", "0.02", "--replace-after", "0",
                    "--bot-offer-after", "600", "--log-level", "info")
    server.start()
    player, waiting, newcomer = Tab(browser), Tab(browser, 390, 844), Tab(browser)
    try:
        page = player.page
        page.goto(server.base + "/")
        page.select_option("[data-testid=bot-level]", "beginner")
        page.click("[data-testid=create-bot]")
        page.wait_for_selector("[data-testid=match][data-status=active]")
        rng = random.Random(5)
        for _ in range(3):
            page.wait_for_selector("[data-testid=playable-card], [data-testid=decision] "
                                   "[data-testid=action]:not([disabled])", timeout=20000)
            click_one(player, rng)
        choose_name(waiting, server, "Ada")
        waiting.page.click("[data-testid=quick-match]")
        waiting.page.wait_for_selector("[data-testid=queue-status]:has-text('Looking')")

        assert server.proc is not None
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(timeout=15) in (0, -signal.SIGTERM)
        assert "drained in" in server.log_path.read_text()
        server.log.close()
        page.wait_for_selector("#conn:text-is('reconnecting…')", timeout=10000)
        server.start()  # the same port and database

        # the match page reconnects by itself and plays on to its end
        page.wait_for_selector("#conn:text-is('connected')", timeout=20000)
        clicks = 0
        while not player.over():
            page.wait_for_selector(f"[data-testid=playable-card], [data-testid=decision] "
                                   f"[data-testid=action]:not([disabled]), {OVER}, "
                                   f"[data-testid=round-summary] [data-testid=continue]", timeout=20000)
            if player.over():
                break
            click_one(player, rng)
            clicks += 1
            assert clicks < 400
        assert re.search(r"You (won|lost) the match", page.locator(OVER).inner_text())

        # the waiting page queued again by itself: a newcomer's quick match pairs the two
        choose_name(newcomer, server, "Bob")
        newcomer.page.click("[data-testid=quick-match]")
        for tab in (waiting, newcomer):
            tab.page.wait_for_url(re.compile(r".*/m/[A-Za-z0-9_-]+$"), timeout=40000)
            tab.page.wait_for_selector("[data-testid=match][data-status=active]", timeout=20000)
        assert waiting.page.url == newcomer.page.url
        play_out((waiting, newcomer), random.Random(6))
    finally:
        for tab in (player, waiting, newcomer):
            tab.close()
        server.stop()
