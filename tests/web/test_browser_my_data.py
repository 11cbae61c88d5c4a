""""Download my data" in the browser (issue 46): two players in a friend match still in progress, each downloads
their archive from the home page's "My data"; the file is theirs — their name, their match with the view their
own page has of it, never the other's hand — and holds nothing of the other (not their id)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.browser_support import Tab, browser_fixture, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (a fixture)
from tests.web.test_browser import click_one, ready
from tests.web.test_browser_lobby import choose_name

#: A match page with nothing in flight: every state shown, no action of its own waiting for an answer.
QUIET = "[data-testid=match][data-shown='1'][data-pending='0']"


#: The view Ada's page gets of a match: her seat's, by the seat token the page keeps.
OWN_VIEW_JS = """async (mid) => {
  const token = localStorage.getItem('converge.token.' + mid);
  const r = await fetch('/api/matches/' + mid, {headers: {Authorization: 'Bearer ' + token}});
  return await r.json();
}"""


def _download(tab: Tab, server: Server, folder: Path) -> tuple[str, dict[str, Any]]:
    """Click "Download my data" on the home page: the file's name and what it holds."""
    page = tab.page
    page.goto(server.base + "/")
    page.locator("[data-testid=my-data] summary").click()
    with page.expect_download() as waiting:
        page.click("[data-testid=download-data]")
    download = waiting.value
    path = folder / download.suggested_filename
    download.save_as(path)
    page.wait_for_selector("[data-testid=download-data-status]:has-text('Saved as')")
    return download.suggested_filename, json.loads(path.read_text(encoding="utf-8"))


def test_each_player_downloads_their_own_data_and_nothing_of_the_other(server: Server, browser: Any,
                                                                       tmp_path: Path) -> None:
    ada, grace = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    try:
        choose_name(ada, server, "Ada Lovelace")
        choose_name(grace, server, "Grace")
        ada.page.click("[data-testid=create-friend]")
        grace.page.goto(ada.page.locator("[data-testid=invite-link]").input_value())
        grace.page.wait_for_selector("[data-testid=match][data-seat='1']")
        mid = grace.page.url.split("/m/")[1].split("#")[0]
        rng = random.Random(3)
        for _ in range(3):  # a few decisions each: the match is in progress, cards in both hands
            for tab in (ada, grace):
                if ready(tab):
                    click_one(tab, rng)
        # both pages at the same state, nothing in flight: the two archives are of one moment
        for tab in (ada, grace):
            tab.page.wait_for_selector(QUIET, state="attached")
        ada.page.wait_for_function("(seq) => document.querySelector('[data-testid=match]').dataset.seq === seq",
                                   arg=grace.seq())
        name, mine = _download(ada, server, tmp_path)
        ada.page.locator("[data-testid=my-data]").scroll_into_view_if_needed()
        ada.shot("my-data.png")
        assert name == "converge-export-Ada-Lovelace.json"
        assert mine["format"] == "converge-player-archive"
        assert mine["tables"]["converge_players"][0]["name"] == "Ada Lovelace"
        [match] = mine["matches"]
        assert (match["match_id"], match["seat"], match["status"]) == (mid, 0, "active")
        assert match["opponent"] == "Grace" and match["view"]["seat"] == 0
        name, theirs = _download(grace, server, tmp_path)
        assert name == "converge-export-Grace.json" and theirs["matches"][0]["view"]["seat"] == 1
        text = json.dumps(mine)
        assert theirs["player_id"] not in text and mine["player_id"] not in json.dumps(theirs)
        # Ada's match in progress is her page's view, as the server gives it to her seat: her hand, not Grace's
        # (a card of Grace's may be named in an earlier public event: where it was then, which Ada saw)
        assert match["view"]["seq"] == theirs["matches"][0]["view"]["seq"]
        page_view = ada.page.evaluate(OWN_VIEW_JS, mid)
        assert match["view"]["observation"] == page_view["observation"]
        grace_hand = theirs["matches"][0]["view"]["observation"]["hand"]
        assert grace_hand and match["view"]["observation"]["hand"] != grace_hand
    finally:
        ada.close()
        grace.close()
