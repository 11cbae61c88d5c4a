"""Moderation in the browser (issue 31): a player reports the other from the match page (the dialog at a laptop's
and a phone's size), the hosts read the report and ban that player; both pages then show the match ended by the
ban, and the banned player may watch but not play. Screenshots go to ``out/screenshots/``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.browser_support import OVER, Tab, browser_fixture  # noqa: F401 (a fixture)
from tests.server_support import Server, auth, hang_guard  # noqa: F401 (a fixture)
from tests.web.test_browser_lobby import choose_name

TOKEN = "hosts-only-2b7d9e4f6a1c"

LINKED_JS = """async (mid) => {
  const r = await fetch('/api/me/matches', {credentials: 'same-origin'});
  const doc = await r.json();
  return (doc.matches || []).some((m) => m.match_id === mid);
}"""


def test_a_report_from_the_match_page_reaches_the_hosts_whose_ban_ends_the_match(tmp_path: Path,
                                                                               browser: Any) -> None:
    import httpx2 as httpx

    server = Server(tmp_path / "matches.sqlite3", None, "--bot-delay", "0.02", "--replace-after", "0",
                    env={"CONVERGE_ADMIN_TOKEN": TOKEN})
    server.start()
    ada, bob = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    try:
        choose_name(ada, server, "Ada")
        choose_name(bob, server, "Bob")
        ada.page.click("[data-testid=create-friend]")
        invite = ada.page.locator("[data-testid=invite-link]").input_value()
        bob.page.goto(invite)
        bob.page.wait_for_selector("[data-testid=match][data-seat='1']")
        ada.page.wait_for_function("() => document.body.textContent.includes('Bob')")
        mid = bob.page.url.rsplit("/", 1)[1]
        for tab in (ada, bob):  # each page records its player at its seat (what a report names)
            tab.page.wait_for_function(LINKED_JS, arg=mid, timeout=20000, polling=200)

        # Bob looks at the form on a phone, then leaves it
        bob.page.click("[data-testid=report]")
        bob.page.wait_for_selector("[data-testid=report-dialog][open]")
        assert "Report Ada?" in bob.page.locator("[data-testid=report-dialog]").inner_text()
        bob.shot("report-390.png")
        bob.page.click("[data-testid=report-cancel]")
        bob.page.wait_for_selector("[data-testid=report-dialog]:not([open])", state="attached")

        # Ada reports Bob: the reason is needed, the note is optional
        ada.page.click("[data-testid=report]")
        ada.page.wait_for_selector("[data-testid=report-dialog][open]")
        assert "Report Bob?" in ada.page.locator("[data-testid=report-dialog]").inner_text()
        ada.page.check("[data-testid=report-abuse]")
        ada.page.fill("[data-testid=report-note]", "insults in every move's chat")
        ada.shot("report-1280.png")
        ada.page.click("[data-testid=report-send]")
        ada.page.wait_for_selector("text=Thank you: the hosts of this server will look at it.")

        hosts = {**auth(TOKEN)}
        [report] = httpx.get(f"{server.base}/api/admin/reports", headers=hosts).json()["reports"]
        assert report["reporter"]["name"] == "Ada" and report["reported"]["name_in_match"] == "Bob"
        assert report["reason"] == "abuse" and report["note"] == "insults in every move's chat"
        banned = httpx.post(f"{server.base}/api/admin/players/{report['reported']['id']}/ban", headers=hosts,
                            json={"actor": "Tess", "reason": "insults"})
        assert banned.status_code == 200 and banned.json()["detail"]["ended"] == [mid]

        # both pages show the match ended by the ban
        for tab in (ada, bob):
            tab.page.wait_for_selector(OVER, timeout=20000)
        assert "Bob was banned by this server's hosts: you won the match." in ada.page.locator(OVER).inner_text()
        assert "This server's hosts banned you: Ada won the match." in bob.page.locator(OVER).inner_text()
        bob.shot("banned-390.png")
        # and Bob's seat is closed to him: his page watches (no Rematch for him to press)
        bob.page.wait_for_selector("[data-testid=match][data-seat='-1']", timeout=20000)
        assert bob.page.locator("[data-testid=rematch]").count() == 0
        # what a spectator may do next, and nothing printed "null" where a seat's buttons would be
        actions = bob.page.locator("[data-testid=over-actions]").first.inner_text()
        assert "Replay step by step" in actions and "null" not in bob.page.locator(OVER).inner_text()

        # Bob may watch the match again, not play: the page says so; Quick match says why not
        bob.page.reload()
        bob.page.wait_for_selector("[data-testid=match][data-seat='-1']", timeout=20000)
        bob.page.wait_for_selector("text=banned this player: you may watch, not play")
        bob.page.goto(server.base + "/")
        bob.page.click("[data-testid=quick-match]")
        bob.page.wait_for_selector("text=/banned from this server \\(insults\\)/")
        assert re.search(r"/m/", ada.page.url)
    finally:
        for tab in (ada, bob):
            tab.close()
        server.stop()
