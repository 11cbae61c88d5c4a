"""Journeys that docs/browser.md tells a player to follow, followed in a real browser as a player would, and one
step past each (issue 38): a first visit (the bots with their ratings, the seat, the leaderboard, My matches, a
name and its provisional rating), with no error in the browser's console; a rated lobby match watched by a
spectator, who reads the players' names in the points per goal and at the end, with no "null"; hints in a friend
match once both allow them, never in a rated one; the cards to pick from a search or the discard pile, read
like the hand; a hint of six options at 1280×800, with the opponent's faction and the hand in the window.
Screenshots at 1280×800 and 390×844 go to ``out/screenshots/``."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

import converge
from converge.bots import LEVELS
from converge.cards.loader import COLORS, load_catalog
from converge.server.lobby.ratings import BOT_RATINGS
from tests.browser_support import OVER, SETTLED, Tab, browser_fixture, check_layout, server_fixture  # noqa: F401
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser import CONTINUE, click_one, ready
from tests.web.test_browser_lobby import choose_name
from tests.web.test_browser_story import HAND_JS, in_view, open_table_match

SIZES = [(1280, 800), (390, 844)]
STRAY = re.compile(r"\b(null|undefined|NaN)\b")


def no_stray_words(tab: Tab) -> None:
    """Nothing on the page reads "null", "undefined" or "NaN": a value a view forgot to leave out."""
    text = tab.page.locator("body").inner_text()
    found = STRAY.search(text)
    assert not found, text[max(0, found.start() - 80):found.end() + 80]


def no_console_error(tab: Tab) -> None:
    assert not tab.problems, tab.problems  # (a refused request is a console error too: a 401...)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_first_visit_explains_the_bots_the_seat_and_ratings_and_logs_no_error(
        server: Server, browser: Any, width: int, height: int) -> None:
    tab = Tab(browser, width, height)
    page = tab.page
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=player-panel]")
    page.wait_for_load_state("networkidle")
    no_console_error(tab)  # the page asks for no signed-in player's matches before there is a player
    # the bots a player chooses from: the levels, each with its rating, or why it has none
    offered = page.locator("[data-testid=bot-level] option").all_inner_texts()
    rated = {level: f"rating {round(BOT_RATINGS[level])}" for level in LEVELS if level in BOT_RATINGS}
    assert offered == [f"{level.capitalize()} bot · {rated.get(level, 'not rated yet')}" for level in LEVELS]
    assert "Expert bot has no rating yet: its strength has not been measured." in \
        page.locator("[data-testid=bot-ratings]").inner_text()
    # the seat says what it means: who starts is drawn at random either way
    assert page.locator("[data-testid=bot-seat] option").all_inner_texts() == \
        ["Player 1", "Player 2", "Either, drawn at random"]
    assert "drawn at random either way" in page.locator("[data-testid=bot-seat-note]").inner_text()
    assert in_view(tab, "[data-testid=nav-leaderboard]")  # in the header, on a phone too
    no_stray_words(tab)
    tab.shot(f"journey-first-visit-{width}x{height}.png")

    # one step past: the leaderboard from the header, with the bots' ratings
    page.click("[data-testid=nav-leaderboard]")
    page.wait_for_selector("[data-testid=leaderboard]")
    bots = page.locator("[data-testid=bot-ratings]").inner_text()
    assert "Beginner bot 1000" in bots and f"Hard bot {round(BOT_RATINGS['hard'])}" in bots, bots
    assert "Expert bot has no rating yet" in bots and "random" not in bots.lower()
    # My matches before any: what to do first, and still no error in the console
    page.goto(server.base + "/history")
    page.wait_for_selector("[data-testid=history]")
    assert "Choose a name on the home page first" in page.locator("[data-testid=history]").inner_text()
    page.wait_for_load_state("networkidle")
    no_console_error(tab)

    # a name: the rating is shown with its ? explained
    choose_name(tab, server, "Fay" if width > 600 else "Gus")
    assert page.locator("[data-testid=me-rating]").inner_text() == "1500?"
    note = page.locator("[data-testid=provisional-note]").inner_text()
    assert "provisional" in note and "±350" in note, note
    no_stray_words(tab)
    tab.shot(f"journey-named-{width}x{height}.png")
    no_console_error(tab)
    tab.close()


def test_a_spectator_of_a_rated_match_reads_the_players_names_and_nobody_is_offered_hints(
        server: Server, browser: Any) -> None:
    ida, jon = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    choose_name(ida, server, "Ida")
    choose_name(jon, server, "Jon")
    url = open_table_match(ida, jon, server, "Ida")
    watcher = Tab(browser, 1280, 800)
    watcher.page.goto(url)
    watcher.page.wait_for_selector("[data-testid=match][data-seat='-1']")
    # a rated match has no hints: nothing to allow, and the page says why
    for tab in (ida, jon):
        assert tab.page.locator("[data-testid=allow-hints]").count() == 0
        assert tab.page.locator("[data-testid=hints-status]").inner_text() == \
            "Hints are off in a rated match: a hint would play for you."
        assert tab.page.locator("[data-testid=hint]").count() == 0
    jon.shot("journey-rated-settings-390x844.png", full_page=True)

    # play until a goal is scored at an end of turn: the spectator's points per goal name the players
    rng = random.Random(38)
    why, clicks = "", 0
    while clicks < 400 and not (ida.over() and jon.over()):
        whys = watcher.page.locator(":is([data-testid=turn-goals], [data-testid=score-table], "
                                    "[data-testid=summary-goals]) .why")
        if any(" vs " in t for t in whys.all_inner_texts()):
            why = " ".join(whys.all_inner_texts())
            break
        if watcher.page.locator(CONTINUE).count():  # (a spectator's page waits at a round's end)
            watcher.page.click(CONTINUE)
        acted = False
        for tab in (ida, jon):
            if not tab.over() and ready(tab):
                _declare_often(tab, rng)
                acted = clicks = clicks + 1
        if not acted:
            ida.page.wait_for_timeout(20)
    assert "Ida" in why and "Jon" in why and not re.search(r"\bP[01]\b|[Pp]layer [01]", why), why
    watcher.shot("journey-spectator-goals-1280x800.png")

    # Ida resigns: the spectator's banner says who resigned and who won, and what anyone may do next
    ida.page.click("[data-testid=resign]")
    ida.page.click("[data-testid=resign-confirm]")
    for _ in range(3):  # (a spectator's page waits at each round's summary until Continue)
        watcher.page.wait_for_selector(f"{OVER}, {CONTINUE}")
        if watcher.page.locator(CONTINUE).count() and not watcher.page.locator(OVER).count():
            watcher.page.click(CONTINUE)
    watcher.page.wait_for_selector(OVER)
    banner = watcher.page.locator(OVER).inner_text()
    assert "Ida resigned: Jon won the match." in banner, banner
    actions = watcher.page.locator("[data-testid=over-actions]").first.inner_text()
    assert "Replay step by step" in actions and "Rematch" not in actions
    no_stray_words(watcher)
    watcher.shot("journey-spectator-resigned-1280x800.png")
    # one step past: the spectator replays the match from the start
    watcher.page.locator("[data-testid=replay]").first.click()
    watcher.page.wait_for_selector("[data-testid=replaybar]")
    assert watcher.page.locator("[data-testid=replay-step]").inner_text().startswith("Step 0 of ")
    for tab in (ida, jon, watcher):
        tab.close()


def test_in_a_friend_match_hints_come_once_both_players_allow_them(server: Server, browser: Any) -> None:
    host, guest = Tab(browser, 1280, 800), Tab(browser, 390, 844)
    host.page.goto(server.base + "/")
    host.page.select_option("[data-testid=friend-playset]", "catalysts")
    host.page.click("[data-testid=create-friend]")
    invite = host.page.locator("[data-testid=invite-link-now]").input_value()
    guest.page.goto(invite)
    guest.page.wait_for_selector("[data-testid=match][data-status=active]")
    for tab in (host, guest):
        assert tab.page.locator("[data-testid=hints-status]").inner_text() == "Hints are off."
    host.page.check("[data-testid=allow-hints]")
    host.page.wait_for_selector("[data-testid=hints-status]:text-is('Hints stay off until your opponent allows "
                                "them too.')")
    guest.page.check("[data-testid=allow-hints]")
    for tab in (host, guest):
        tab.page.wait_for_selector("[data-testid=hints-status]:text-is('Hints are on: you both allow them.')")
    mover = next(t for t in (host, guest) if t.page.locator("[data-testid=hint]").count())
    mover.page.click("[data-testid=hint]")
    box = mover.page.locator("[data-testid=hint-box]")
    box.wait_for(timeout=30000)
    said = box.inner_text()
    assert re.search(r"^Hint: (Your best choice is “[^”]+”: with it|“.+” are about equal, your best choices: "
                     r"with (either|any of them)|Your \d best choices, listed first, are about equal: with any "
                     r"of them), (about \d+|fewer than 1|more than 9|more than 19) in (10|20) "
                     r"rounds like this are won \(\d+(–\d+)?%\)\. The hint sees what you see, never hidden "
                     r"cards\.", said), said
    mover.shot(f"journey-friend-hint-{mover.size}.png")
    # one step past: the best choice is marked where it lies, and playing it moves the match on
    before = mover.seq()
    mover.page.locator("[data-testid=zone-hand] .card.suggested").click()
    mover.page.wait_for_function(
        "s => { const m = document.querySelector('[data-testid=match]');"
        " const d = document.querySelector('#decision');"
        " return m && (m.dataset.seq !== s || (d && d.dataset.staged)); }", arg=before, timeout=15000)
    for tab in (host, guest):
        no_stray_words(tab)
        tab.close()


#: Each card offered in the strip to pick (a search's, the discard pile's): its name, goal and effect shown and
#: whether cut (a phone shows the whole text; a laptop the effect's first lines, the rest in the tip).
PICKS_JS = HAND_JS.replace("[data-testid=zone-hand] .card", "[data-testid=picks] .card")


def _match_against_the_beginner(tab: Tab, server: Server) -> None:
    page = tab.page
    page.goto(server.base + "/")
    page.select_option("[data-testid=bot-level]", "beginner")
    page.select_option("[data-testid=bot-playset]", "custom")
    for k, name in enumerate(["alchemist", "archivist", "healer"]):
        page.select_option(f"[data-testid=bot-skillset-{k}]", name)
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match]")


def _play_mode_often(tab: Tab, rng: random.Random, action: int) -> None:
    """One decision, as click_one, but a held card is played with ``action`` (18: discarded for its effect,
    19: declared as a goal) more often."""
    mode = tab.page.locator(f"[data-testid=decision] [data-testid=action][data-action='{action}']:not([disabled])")
    if mode.count() and rng.random() < 0.7:
        before = tab.seq()
        mode.click()
        tab.page.wait_for_function("s => { const m = document.querySelector('[data-testid=match]');"
                                   " return m && m.dataset.seq !== s && m.dataset.pending === '0'; }",
                                   arg=before, timeout=15000)
        return
    click_one(tab, rng)


def _discard_often(tab: Tab, rng: random.Random) -> None:
    _play_mode_often(tab, rng, 18)  # (Recall, Heal...: cards to pick)


def _declare_often(tab: Tab, rng: random.Random) -> None:
    _play_mode_often(tab, rng, 19)  # (goals: points per goal to read)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_cards_to_pick_read_like_the_hand_and_a_six_option_hint_keeps_the_table_in_the_window(
        server: Server, browser: Any, width: int, height: int) -> None:
    tag = f"{width}x{height}"
    tab = Tab(browser, width, height)
    page = tab.page
    rng = random.Random(width + 38)
    picked = hinted = converted = False
    _match_against_the_beginner(tab, server)
    for _ in range(1200):
        if picked and ((hinted and converted) or width < 600):
            break
        page.wait_for_selector(f"{SETTLED}, {OVER}", timeout=30000)
        if tab.over():  # (the deal is random: another match until both were met)
            url = page.url
            page.locator("[data-testid=rematch]").first.click()
            page.wait_for_function("u => location.href !== u", arg=url, timeout=15000)
            page.wait_for_selector("[data-testid=match][data-status=active]")
            continue
        if not converted and page.locator("#app .card.converted .was").count():
            _converted_cards_say_what_they_were(tab)
            converted = True
        picks = page.locator("[data-testid=picks] .card.size-full")
        if not picked and picks.count():
            for card in page.evaluate(PICKS_JS):
                name, goal, effect = card["texts"]
                assert name and goal and effect, card  # the text a player reads, without hovering
                assert name in card["full"] and effect in card["full"] and goal.lstrip("★ ") in card["full"], card
                if width < 600:
                    assert card["cut"] == [False, False, False], card  # (a phone has no hover)
            check_layout(page)
            no_stray_words(tab)
            tab.shot(f"journey-picks-{tag}.png")
            picked = True
        mine = page.locator("[data-testid=decision]:not([data-staged])")
        legal = (mine.get_attribute("data-legal") or "") if mine.count() else ""
        if width > 600 and not hinted and len(legal.split(",")) >= 6 and \
                page.locator("[data-testid=hint]").count():
            page.click("[data-testid=hint]")
            page.wait_for_selector("[data-testid=hint-box]", timeout=30000)
            assert page.locator("[data-testid=hint-box] .hint-options li").count() == 6
            _table_in_the_window(tab)
            tab.shot(f"journey-hint-six-{tag}.png")
            hinted = True
        if ready(tab) or page.locator(CONTINUE).count():
            _discard_often(tab, rng)
    assert picked and ((hinted and converted) or width < 600), (picked, hinted, converted)
    tab.close()


def _converted_cards_say_what_they_were(tab: Tab) -> None:
    """A converted card says its printed skillset and rank in words ("was Archivist 6"), not "ARC6 was ARC"."""
    for card in tab.page.evaluate("() => [...document.querySelectorAll('#app .card.converted')].map((c) => "
                                  "[c.dataset.card, c.querySelector('.was').textContent, c.dataset.full])"):
        _id, was, full = card
        printed = re.search(r"\(printed (\w+) (\d)\)", full)
        assert printed, card
        skill, rank = printed.groups()
        assert was in (f"was {skill} {rank}", f"was {skill}", f"was rank {rank}"), card


def _table_in_the_window(tab: Tab) -> None:
    """With the page at its top: the opponent's faction wholly in the window, not covered by the strip (which
    may stay at the window's foot over the player's own zone), every choice in the window (check_layout), and
    the hint wholly in it; the hand too, unless the choice lies on the board (then the strip and the hand stay
    below the board, not over it, and scrolling shows the hand)."""
    m = check_layout(tab.page)
    got = tab.page.evaluate("""() => {
      window.scrollTo(0, 0);
      const box = (s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return [r.top, r.bottom];
      };
      return {them: box('[data-testid=zone-them]'), hand: box('[data-testid=zone-hand]'),
              tray: box('.tray'), hint: box('[data-testid=hint-box]'), height: innerHeight,
              onBoard: document.querySelectorAll('.zone:not(.hand) .playable').length};
    }""")
    (them_top, them_bottom), (hand_top, hand_bottom) = got["them"], got["hand"]
    assert them_top >= 0 and them_bottom <= got["tray"][0] + 0.5, (got, "the opponent's faction is covered or off")
    assert got["hint"][0] >= 0 and got["hint"][1] <= got["height"] + 0.5, (got, "the hint is cut")
    if not got["onBoard"]:
        assert hand_top >= 0 and hand_bottom <= got["height"] + 0.5, (got, "the hand is cut")
    assert m["hand"] is not None


def _colour_decks(folder: Path) -> list[str]:
    """A deck of each allowed colour the built-in decks do not use (copies of the Alchemist deck, renamed),
    in ``folder``: their skillsets' keys."""
    builtin = (Path(converge.__file__).parent / "cards" / "decks" / "alchemist.toml").read_text(encoding="utf-8")
    used = {deck.color for deck in load_catalog(()).values()}
    keys = []
    for k, colour in enumerate(c for c in COLORS if c not in used):
        word = "Hue" + "abcdefghijklmnop"[k]  # (a skillset is one word of letters)
        prefix = "H" + "ABCDEFGHIJKLMNOP"[k]
        text = builtin.replace("Alchemist", word).replace("ALC", prefix).replace('color = "magenta"',
                                                                                  f'color = "{colour}"')
        text = text.replace('name = "', f'name = "{word} ')  # (card names are unique across the decks)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{word.lower()}.toml").write_text(text, encoding="utf-8")
        keys.append(word.lower())
    return keys


#: Each skillset the server offers, with the colour the page gives its cards (the computed --c of a card of
#: its class) and the colour a deck that names none would have.
COLOURS_JS = """async () => {
  const options = await (await fetch('/api/options')).json();
  const shade = (cls) => {
    const card = document.createElement('div');
    card.className = 'card ' + cls;
    document.body.append(card);
    const c = getComputedStyle(card).getPropertyValue('--c').trim();
    card.remove();
    return c;
  };
  return {grey: shade('col-grey'),
          shades: Object.fromEntries(options.skillsets.map((s) => [s.key, [s.color, shade('col-' + s.color)]]))};
}"""


def test_every_colour_a_deck_may_name_has_its_own_shade_in_the_browser(tmp_path: Path, browser: Any) -> None:
    """A custom deck's `bright_red` was grey in the browser: a server with a deck of every allowed colour, and a
    match of three of them, whose cards wear their colours."""
    decks = tmp_path / "decks"
    keys = _colour_decks(decks)
    server = Server(tmp_path / "matches.sqlite3", None, "--bot-delay", "0.02", "--deck-dir", str(decks))
    server.start()
    tab = Tab(browser, 1280, 800)
    try:
        page = tab.page
        page.goto(server.base + "/")
        page.wait_for_selector("[data-testid=player-panel]")
        got = page.evaluate(COLOURS_JS)
        assert len(got["shades"]) == 9 + len(keys) and len(COLORS) == len({c for c, _ in got["shades"].values()})
        for key, (colour, shade) in got["shades"].items():
            assert shade and shade != got["grey"], (key, colour, shade)
        assert len({shade for _, shade in got["shades"].values()}) == len(COLORS)  # each its own
        # one step past: a match of three of them, whose cards wear their colours
        page.select_option("[data-testid=bot-level]", "beginner")
        page.select_option("[data-testid=bot-playset]", "custom")
        for k, key in enumerate(keys[:3]):
            page.select_option(f"[data-testid=bot-skillset-{k}]", key)
        page.click("[data-testid=create-bot]")
        page.wait_for_selector("[data-testid=zone-hand] .card")
        worn = page.evaluate("() => [...document.querySelectorAll('#app .card')].map((c) => "
                             "getComputedStyle(c).getPropertyValue('--c').trim())")
        assert worn and all(c and c != got["grey"] for c in worn), worn
        tab.shot("journey-bright-colours-1280x800.png")
    finally:
        tab.close()
        server.stop()
