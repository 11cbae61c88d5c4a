"""The card gallery (/cards) in a real browser, at a laptop's size and a phone's, on a server with a designer's
deck (``--deck-dir``): every card of the built-in decks and the designer's is on the page with its whole text,
the designer's marked custom; the filters by set, keyword, decks and words narrow them, the address keeps them
(a reload shows the same cards, the controls the same choices); axe-core finds no serious violation; nothing
overflows sideways on a phone. Screenshots go to ``out/screenshots/``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from converge.cards.loader import load_catalog
from converge.cards.model import CardSpec, Deck
from converge.engine.playset import BUILTIN_ORDER
from tests.browser_support import SHOTS, Tab, browser_fixture  # noqa: F401 (fixtures)
from tests.helpers import designer_deck
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)
from tests.web.test_browser_a11y import serious

SIZES = pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["1280x800", "390x844"])

#: The cards on show: each one's id, its skillset's key, the text the page prints on it and its label.
SHOWN_JS = """() => [...document.querySelectorAll('[data-testid=gallery-skillset] li[data-card]')]
  .filter((li) => li.offsetParent !== null)
  .map((li) => ({id: li.dataset.card, skillset: li.closest('section').dataset.skillset,
                 text: li.querySelector('.card').innerText,
                 label: li.querySelector('.card').getAttribute('aria-label')}))"""

#: How wide the page is against the window, and the innermost elements that reach past its right edge.
OVERFLOW_JS = """() => ({width: window.innerWidth, scroll: document.documentElement.scrollWidth,
  wide: [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5)
        .slice(0, 5).map((e) => e.tagName + '.' + e.className)})"""


@pytest.fixture(scope="module", name="decks")
def decks_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("gallery") / "decks"
    designer_deck(folder)
    return folder


@pytest.fixture(scope="module", name="server")
def server_fixture(decks: Path) -> Iterator[Server]:
    s = Server(decks.parent / "matches.sqlite3", None, "--deck-dir", str(decks))
    s.start()
    yield s
    s.stop()


def catalog(decks: Path) -> dict[str, Deck]:
    return load_catalog([decks])


def shown(page: Any) -> list[dict[str, str]]:
    cards: list[dict[str, str]] = page.evaluate(SHOWN_JS)
    return cards


def ids(page: Any) -> list[str]:
    return [c["id"] for c in shown(page)]


def settle(page: Any, count: str) -> None:
    """Wait for the count line to say ``count`` ("6 of 60 cards")."""
    page.wait_for_function("t => { const c = document.querySelector('[data-testid=gallery-count]');"
                           " return c && c.textContent === t; }", arg=count, timeout=10000)


def query(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def printed(card: CardSpec) -> list[str]:
    """What a card must show: its id, rank, name, goal with its stars, effect (with its keyword)."""
    return [card.id, str(card.rank), card.name, "★" * card.goal.stars, card.goal.text, card.effect_text]


@SIZES
def test_every_card_whole_and_the_filters_narrow_them_and_stay_in_the_address(
        server: Server, browser: Any, decks: Path, size: tuple[int, int]) -> None:
    w, h = size
    tab = Tab(browser, w, h)
    page = tab.page
    every = catalog(decks)
    mine = [k for k in every if k not in BUILTIN_ORDER]
    assert mine == ["tinkerer"]
    page.goto(server.base + "/cards")  # (no name, no player: a visitor)
    settle(page, "60 cards")
    on_page = {c["id"]: c for c in shown(page)}
    builtin = [c for k in BUILTIN_ORDER for c in every[k].cards]
    assert len(builtin) == 54 and {c.id for c in builtin} <= set(on_page)
    assert list(on_page) == [c.id for k in [*BUILTIN_ORDER, *mine] for c in every[k].cards]  # by skillset, by rank
    for k, deck in every.items():
        for card in deck.cards:
            got = on_page[card.id]
            assert got["skillset"] == k
            for part in printed(card):  # the whole text, cut nowhere (the hand cuts a long effect: not here)
                assert part in got["text"], (card.id, part, got["text"])
            assert card.effect_text in got["label"]  # (a screen reader's label)
    heads = page.locator("[data-testid=gallery-skillset] h2").all_inner_texts()
    assert heads[0].split() == ["Alchemist", "Catalysts", "of", "Change", "·", "Convert"]
    # the designer's skillset, marked as theirs (only theirs)
    custom = page.locator("[data-testid=gallery-skillset][data-custom='1']")
    assert custom.count() == 1 and custom.get_attribute("data-skillset") == "tinkerer"
    head = custom.locator("h2").inner_text()
    assert "custom deck" in head and "Home Brew" in head and page.locator("[data-testid=custom-tag]").count() == 1
    tab.shot(f"cards-{w}x{h}.png")
    tab.shot(f"cards-{w}x{h}-whole.png", full_page=True)
    report = {"all": serious(page)}
    room = page.evaluate(OVERFLOW_JS)
    assert room["scroll"] <= room["width"], room

    # a set, then a keyword of it: the address says both
    page.select_option("[data-testid=gallery-set]", "Sparks of Hope")
    settle(page, "18 of 60 cards")
    assert ids(page) == [c.id for k in ("delver", "astropath", "healer") for c in every[k].cards]
    page.select_option("[data-testid=gallery-keyword]", "Heal")
    settle(page, "6 of 60 cards")
    assert ids(page) == [c.id for c in every["healer"].cards]
    assert query(page) == {"set": ["Sparks of Hope"], "keyword": ["Heal"]}
    # a reload (or the link sent to someone) shows the same cards, the controls the same choices
    page.reload()
    settle(page, "6 of 60 cards")
    assert ids(page) == [c.id for c in every["healer"].cards]
    assert page.input_value("[data-testid=gallery-set]") == "Sparks of Hope"
    assert page.input_value("[data-testid=gallery-keyword]") == "Heal"
    assert page.locator("[data-testid=gallery-skillset]:visible").count() == 1
    tab.shot(f"cards-{w}x{h}-filtered.png")
    report["filtered"] = serious(page)

    # a keyword alone spans the decks: the designer's Convert deck beside the Alchemist
    page.select_option("[data-testid=gallery-set]", "")
    page.select_option("[data-testid=gallery-keyword]", "Convert")
    settle(page, "12 of 60 cards")
    assert ids(page) == [c.id for k in ("alchemist", "tinkerer") for c in every[k].cards]
    page.select_option("[data-testid=gallery-decks]", "custom")
    settle(page, "6 of 60 cards")
    assert ids(page) == [c.id for c in every["tinkerer"].cards]
    assert query(page) == {"keyword": ["Convert"], "decks": ["custom"]}
    page.select_option("[data-testid=gallery-keyword]", "")
    page.select_option("[data-testid=gallery-decks]", "")
    settle(page, "60 cards")
    assert query(page) == {}

    # words: every word somewhere in a card's text, whatever its case
    page.fill("[data-testid=gallery-q]", "Highest  ALCHEMIST")
    expected = [c.id for d in every.values() for c in d.cards
                if all(w in " ".join([c.id, c.name, c.skillset, d.set_name, c.goal.text, c.effect_text]).lower()
                       for w in ("highest", "alchemist"))]
    assert 0 < len(expected) < 60
    settle(page, f"{len(expected)} of 60 cards")
    assert ids(page) == expected and query(page) == {"q": ["Highest  ALCHEMIST"]}
    page.reload()
    settle(page, f"{len(expected)} of 60 cards")
    assert page.input_value("[data-testid=gallery-q]") == "Highest  ALCHEMIST"
    # none fits: the page says so, and shows them all again when asked
    page.fill("[data-testid=gallery-q]", "no card says this")
    settle(page, "0 of 60 cards")
    assert page.locator("[data-testid=gallery-none]").is_visible() and ids(page) == []
    page.click("[data-testid=gallery-none] a")
    settle(page, "60 cards")
    assert page.input_value("[data-testid=gallery-q]") == "" and page.url == server.base + "/cards"
    # an address naming a set this server does not play shows every card, not none
    page.goto(server.base + "/cards?set=Nowhere&keyword=Heal")
    settle(page, "6 of 60 cards")
    assert page.input_value("[data-testid=gallery-set]") == ""
    room = page.evaluate(OVERFLOW_JS)
    assert room["scroll"] <= room["width"], room
    assert report == {k: [] for k in report}, report
    tab.close()


@SIZES
def test_the_gallery_is_a_link_away_from_the_header_or_the_home_page(server: Server, browser: Any,
                                                                     size: tuple[int, int]) -> None:
    """The header's Cards link where there is room (a phone's header is full: the home page's link), and the
    header does not push the page sideways; the rules' glossary links it too."""
    w, h = size
    tab = Tab(browser, w, h)
    page = tab.page
    page.goto(server.base + "/")
    page.wait_for_selector("[data-testid=home]")
    nav = page.locator("[data-testid=nav-cards]")
    assert nav.is_visible() == (w > 640)
    room = page.evaluate(OVERFLOW_JS)
    assert room["scroll"] <= room["width"], room
    tab.shot(f"cards-link-{w}x{h}.png")
    (nav if w > 640 else page.locator("[data-testid=home-cards]")).click()
    page.wait_for_url(server.base + "/cards")
    settle(page, "60 cards")
    page.goto(server.base + "/rules")  # (the glossary: each skillset's keyword, and where its cards are)
    page.click("[data-testid=rules-cards-link]")
    page.wait_for_url(server.base + "/cards")
    settle(page, "60 cards")
    tab.close()
