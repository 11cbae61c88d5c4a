"""The table tells the story (issue 25's browser bars), in a real browser: two named players in a rated lobby
match and a spectator each see the other players' names and ratings at the table; after each of the
opponent's plays the window (not scrolled) names the card they played and marks it on the board; on a
390×844 phone every card in hand shows its whole name, goal and effect; a rated match resigned (the other
player wins, both ratings move, and the next page works); a match in progress reopened from the home page
after its tab was closed, and played on; a friend match waiting for the friend, with its link to copy.
Screenshots at 1280×800 and 390×844 go to ``out/screenshots/``."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.browser_support import OVER, Tab, browser_fixture, check_layout, server_fixture  # noqa: F401 (fixtures)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import CONTINUE, click_one, ready
from tests.web.test_browser_lobby import choose_name

#: Whether the element is wholly inside the window with the page scrolled to the top.
IN_VIEW_JS = """(sel) => {
  window.scrollTo(0, 0);
  const e = document.querySelector(sel);
  if (!e) return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
}"""

#: The cards the other seat played since ``seat``'s last play in this round, newest first, read from the
#: server's spectator view (not from the page): what the page must name and mark.
THEIR_PLAYS_JS = """async ([mid, seat]) => {
  const view = await (await fetch('/api/matches/' + mid)).json();
  const events = view.observation.events;
  const cards = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.kind === 'round_start' || ((e.kind === 'play' || e.kind === 'pass') && e.player === seat)) break;
    if (e.kind === 'play' && e.player === 1 - seat && e.card) cards.push(e.card);
  }
  return cards;
}"""

#: Each card in hand: whether its name, goal or effect is cut (ellipsis, clamp, overflow), whether it is
#: inside the window, its texts and its whole text.
HAND_JS = """() => {
  window.scrollTo(0, 0);
  return [...document.querySelectorAll('[data-testid=zone-hand] .card')].map((c) => {
    const parts = ['.name', '.goal', '.effect'].map((s) => c.querySelector(s));
    const r = c.getBoundingClientRect();
    const cut = (p) => {
      if (!p || getComputedStyle(p).visibility === 'hidden' || getComputedStyle(p).display === 'none') return true;
      if (getComputedStyle(p).display === 'inline') {  // (its lines inside the card)
        return [...p.getClientRects()].some((q) => q.right > r.right + 1 || q.bottom > r.bottom + 1 ||
                                                     q.left < r.left - 1);
      }
      return p.scrollWidth > p.clientWidth + 1 || p.scrollHeight > p.clientHeight + 1;
    };
    return {id: c.dataset.card, cut: parts.map(cut), inView: r.top >= 0 && r.bottom <= innerHeight + 0.5 &&
            r.left >= 0 && r.right <= innerWidth + 0.5, texts: parts.map((p) => p ? p.textContent.trim() : ''),
            full: c.dataset.full};
  });
}"""


def in_view(tab: Tab, selector: str) -> bool:
    return bool(tab.page.evaluate(IN_VIEW_JS, selector))


def open_table_match(host: Tab, guest: Tab, server: Server, host_name: str) -> str:
    """``host`` opens a rated table; ``guest`` joins it from the lobby: the match's address."""
    host.page.goto(server.base + "/")
    host.page.wait_for_selector("[data-testid=me-name]")
    guest.page.goto(server.base + "/")
    guest.page.wait_for_selector("[data-testid=me-name]")
    host.page.click("[data-testid=open-table-form]")
    host.page.select_option("[data-testid=table-playset]", "catalysts")
    host.page.click("[data-testid=open-table]")
    row = guest.page.locator("[data-testid=lobby-table]", has_text=host_name)
    row.wait_for()
    row.locator("[data-testid=join-table]").click()
    for tab in (host, guest):
        tab.page.wait_for_selector("[data-testid=match][data-status=active]", timeout=20000)
    assert host.page.url == guest.page.url
    return host.page.url


def seat_of(tab: Tab) -> int:
    return int(str(tab.page.get_attribute("[data-testid=match]", "data-seat")))


def check_their_move(tab: Tab, mid: str) -> bool:
    """At the tab's decision: the card the opponent played last is named in the window and marked on the
    board, inside the window. False when they played nothing since (a new round, or the match's start)."""
    seat = seat_of(tab)
    cards = tab.page.evaluate(THEIR_PLAYS_JS, [mid, seat])
    if not cards:
        return False
    latest = cards[0]
    where = f"{tab.size}, their {latest}"
    assert in_view(tab, "[data-testid=last-move]"), where
    line = tab.page.locator("[data-testid=last-move]").inner_text()
    for card in cards:
        assert card in line, (where, line)
    assert in_view(tab, f"#app .card.touched[data-card='{latest}']"), where
    return True


def check_phone_hand(tab: Tab) -> None:
    """Every card in hand: its whole name, goal and effect, without a long press; when a card is to be chosen
    from the hand, every card inside the window."""
    choosing = tab.page.locator("[data-testid=zone-hand] [data-testid=playable-card]").count() > 0
    for card in tab.page.evaluate(HAND_JS):
        assert card["cut"] == [False, False, False], card
        assert card["inView"] or not choosing, card
        name, goal, effect = card["texts"]
        assert name and name in card["full"] and effect in card["full"], card
        assert goal.lstrip("★ ") in card["full"], card


def test_named_players_and_a_spectator_see_names_ratings_and_each_move_at_the_point_of_attention(
        server: Server, browser: Any) -> None:
    ada, bob = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    choose_name(ada, server, "Ada")
    choose_name(bob, server, "Bob")
    url = open_table_match(ada, bob, server, "Ada")
    mid = url.rsplit("/", 1)[1]
    watcher = Tab(browser, 1280, 800)
    watcher.page.goto(url)
    watcher.page.wait_for_selector("[data-testid=match]")

    # each page names the other player, with their rating, at the table; the spectator names both
    for tab, other in ((ada, "Bob"), (bob, "Ada")):
        head = tab.page.locator("[data-testid=zone-them] h2").inner_text()
        assert head.lower() == f"{other} · 1500?".lower(), head
        assert other in tab.page.locator("[data-testid=status]").inner_text()
    status = watcher.page.locator("[data-testid=status]").inner_text()
    assert "Ada" in status and "Bob" in status and "P0" not in status and "player 0" not in status, status
    heads = {str(watcher.page.locator(f"[data-testid={z}] h2").text_content()) for z in ("zone-them", "zone-you")}
    assert heads == {"Ada · 1500?", "Bob · 1500?"}, heads

    rng = random.Random(25)
    checked = {ada: 0, bob: 0}
    shots: set[str] = set()
    clicks = 0
    while not (ada.over() and bob.over()):
        acted = False
        for tab in (ada, bob):
            if tab.over() or not ready(tab):
                continue
            if not tab.page.locator(CONTINUE).count():
                if check_their_move(tab, mid):
                    checked[tab] += 1
                    if tab.size not in shots:
                        shots.add(tab.size)
                        tab.shot(f"story-their-move-{tab.size.split('x')[0]}.png")
                if tab is bob:
                    check_phone_hand(bob)
                    if bob.page.locator("[data-testid=zone-hand] .card").count() >= 3 and "hand" not in shots:
                        shots.add("hand")
                        bob.shot("story-phone-hand-390.png")
                if tab.page.locator("[data-testid=decision][data-kind=select]").count():
                    check_layout(tab.page)
            click_one(tab, rng)
            acted = True
            clicks += 1
        if not acted:
            ada.page.wait_for_timeout(20)
        assert clicks < 800
        if clicks == 6 and "spectator" not in shots:
            shots.add("spectator")
            watcher.page.wait_for_timeout(200)
            assert watcher.page.locator("[data-testid=last-move]").count() == 1
            assert re.match(r"(Ada|Bob)'s move:", watcher.page.locator("[data-testid=last-move]").inner_text())
            log = " ".join(watcher.page.locator("[data-testid=log] li").all_inner_texts())
            assert "Player 0" not in log and "player 0" not in log and "your faction" not in log, log
            watcher.shot("story-spectator-1280.png")
            # the phone's log: one tap away, over the table, with turn separators
            bob.page.click("[data-testid=log-open]")
            assert in_view(bob, "#log-panel")
            bob.shot("story-log-390.png")
            bob.page.click("#log-panel .log-close")
    assert checked[ada] >= 3 and checked[bob] >= 3, checked
    assert in_view(ada, "#log-panel")  # beside the table at 1280×800, not below the fold
    # the end of a rated match: who won by name, and the ratings' change
    for _ in range(3):  # (the spectator's page waits at each round's summary until Continue)
        watcher.page.wait_for_selector(f"{OVER}, {CONTINUE}")
        if watcher.page.locator(CONTINUE).count():
            watcher.page.click(CONTINUE)
    for tab in (ada, bob, watcher):
        tab.page.wait_for_selector("[data-testid=rating-change]")
    change = ada.page.locator("[data-testid=rating-change]").inner_text()
    assert re.search(r"Your rating 1500 → \d+ \([+−]\d+\)", change) and "Bob 1500 → " in change, change
    assert re.search(r"(Ada|Bob) won the match", watcher.page.locator(OVER).inner_text())
    ada.shot("story-rated-end-1280.png")
    for tab in (ada, bob, watcher):
        tab.close()


def test_a_rated_match_resigned_is_won_by_the_other_player_and_moves_both_ratings(
        server: Server, browser: Any) -> None:
    cleo, dan = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    choose_name(cleo, server, "Cleo")
    choose_name(dan, server, "Dan")
    open_table_match(cleo, dan, server, "Cleo")
    # Resign asks first; "Keep playing" changes nothing
    cleo.page.click("[data-testid=resign]")
    dialog = cleo.page.locator("[data-testid=resign-dialog]")
    dialog.wait_for()
    assert "Dan wins the match" in dialog.inner_text() and "rated" in dialog.inner_text()
    cleo.shot("story-resign-1280.png")
    cleo.page.click("[data-testid=resign-cancel]")
    assert cleo.page.locator("[data-testid=match][data-status=active]").count() == 1
    dan.page.click("[data-testid=resign]")  # (on the phone too)
    dan.page.locator("[data-testid=resign-dialog]").wait_for()
    dan.shot("story-resign-390.png")
    dan.page.click("[data-testid=resign-cancel]")
    cleo.page.click("[data-testid=resign]")
    cleo.page.click("[data-testid=resign-confirm]")
    for tab in (cleo, dan):
        tab.page.wait_for_selector(OVER)
        tab.page.wait_for_selector("[data-testid=rating-change]")
    assert "You resigned: Dan won the match." in cleo.page.locator(OVER).inner_text()
    assert "Cleo resigned: you won the match!" in dan.page.locator(OVER).inner_text()
    for tab, sign in ((cleo, "−"), (dan, "+")):
        change = tab.page.locator("[data-testid=rating-change]").inner_text()
        assert re.search(rf"Your rating 1500 → \d+ \({re.escape(sign)}\d+\)", change), change
    assert cleo.page.locator("[data-testid=resign]").count() == 0
    dan.shot("story-resigned-390.png")
    # one step further: My matches lists it as resigned, the ratings moved, and a new match can start
    cleo.page.click("[data-testid=my-history]")
    row = cleo.page.locator("[data-testid=history-row]").first
    row.wait_for()
    assert "Lost (you resigned)" in row.inner_text() and "Dan" in row.inner_text()
    assert re.search(r"−\d+ \(\d+\)", row.inner_text())
    dan.page.goto(server.base + "/")
    assert int(dan.page.locator("[data-testid=me-rating]").inner_text().rstrip("?")) > 1500
    cleo.page.click("text=Play")
    cleo.page.click("[data-testid=create-bot]")
    cleo.page.wait_for_selector("[data-testid=match][data-status=active]")
    for tab in (cleo, dan):
        tab.close()


def test_a_match_in_progress_is_reopened_from_the_home_page_after_its_tab_closed_and_played_on(
        server: Server, browser: Any) -> None:
    tab = Tab(browser, 390, 844)
    page = tab.page
    page.goto(server.base + "/")
    page.select_option("[data-testid=bot-level]", "easy")
    first = page.locator("[data-testid=bot-level] option").first.inner_text()
    assert first == "Beginner bot · rating 1000"  # a level, not "random"
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match][data-status=active]")
    mid = page.url.rsplit("/", 1)[1]
    rng = random.Random(7)
    for _ in range(3):
        page.wait_for_selector(f"[data-testid=playable-card], {CONTINUE}, "
                               "[data-testid=decision] [data-testid=action]:not([disabled])", timeout=20000)
        click_one(tab, rng)
    page.close()
    # a new tab: the home page lists the match, with its "your turn" mark
    page = tab.page = tab.context.new_page()
    page.goto(server.base + "/")
    row = page.locator(f"[data-testid=in-progress][data-match='{mid}']")
    for _ in range(20):  # (the bot may still be thinking: read the list again)
        row.wait_for()
        if row.get_attribute("data-turn") == "yours":
            break
        page.wait_for_timeout(500)
        page.reload()
    assert "Your turn" in row.inner_text() and "Easy bot" in row.inner_text()
    assert in_view(tab, "[data-testid=resume-panel]") and in_view(tab, "[data-testid=start-tutorial]")
    tab.shot("story-resume-390.png")
    # My matches lists it too
    page.goto(server.base + "/history")
    page.locator(f"[data-testid=in-progress][data-match='{mid}']").wait_for()
    page.goto(server.base + "/")
    page.click(f"[data-testid=in-progress][data-match='{mid}'] [data-testid=resume]")
    page.wait_for_selector("[data-testid=match][data-status=active]")
    assert page.url.endswith("/m/" + mid)
    before = int(tab.seq())
    assert before >= 3
    for _ in range(4):  # one step further: play on (a card held first, then how to play it)
        page.wait_for_selector(f"[data-testid=playable-card], {CONTINUE}, "
                               "[data-testid=decision] [data-testid=action]")
        click_one(tab, rng)
        if int(tab.seq()) > before:
            break
    assert int(tab.seq()) > before
    tab.close()


def test_a_friend_match_waits_for_the_friend_with_the_link_to_copy(server: Server, browser: Any) -> None:
    host, guest = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    host.page.goto(server.base + "/")
    host.page.click("[data-testid=create-friend]")
    host.page.wait_for_selector("[data-testid=waiting-friend]")
    assert in_view(host, "[data-testid=waiting-friend]")
    assert "Waiting for your friend" in host.page.locator("[data-testid=waiting-friend]").inner_text()
    invite = host.page.locator("[data-testid=invite-link-now]").input_value()
    assert "#token=" in invite
    host.page.click("[data-testid=waiting-friend] button")
    toast = host.page.locator("#toast.ok")
    toast.wait_for()
    assert "Copied" in toast.inner_text()
    host.shot("story-waiting-friend-1280.png")
    guest.page.goto(invite)
    guest.page.wait_for_selector("[data-testid=match][data-status=active]")
    host.page.wait_for_selector("[data-testid=waiting-friend]", state="detached")
    assert host.page.locator("[data-testid=zone-them] h2").text_content() == "Your friend"  # (anonymous)
    for tab in (host, guest):
        tab.close()
