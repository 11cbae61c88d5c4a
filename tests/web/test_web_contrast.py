"""Contrast, checked from the style sheet: every colour a deck may name has a rule of its own, a legal choice's
ring stands out on each and on the page (WCAG's 3:1 for what is not text), and each reads as text on a card
(4.5:1)."""

from __future__ import annotations

import re

from converge.cards.loader import COLORS, load_catalog
from converge.cards.palette import COLOR_NAMES
from converge.server.app import web_dir

CSS = (web_dir() / "style.css").read_text(encoding="utf-8")


def var(name: str) -> str:
    m = re.search(rf"--{name}:\s*(#[0-9a-fA-F]{{6}})", CSS)
    assert m, name
    return m.group(1)


def skillset_colour(name: str) -> str:
    m = re.search(rf"\.col-{name}(?:,[^{{]*)?\s*\{{\s*--c:\s*(#[0-9a-fA-F]{{6}})", CSS)
    assert m, f"no colour for .col-{name}"
    return m.group(1)


def luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_is_computed_as_wcag_says() -> None:
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0 and contrast("#777777", "#777777") == 1.0


#: Every colour a deck may name, as the server names it to the page (a user's deck may take any of them).
ALLOWED = {COLOR_NAMES.get(c, c) for c in COLORS}


def test_every_colour_a_deck_may_name_has_its_own_rule() -> None:
    """A user deck's `bright_red` was grey in the browser: every allowed colour has a rule of its own."""
    assert {COLOR_NAMES.get(deck.color, deck.color) for deck in load_catalog(()).values()} <= ALLOWED
    found = {name: skillset_colour(name) for name in sorted(ALLOWED)}
    assert len(set(found.values())) == len(found), found  # each its own shade
    assert skillset_colour("grey") not in found.values()  # (grey: a deck that named none)


def test_a_legal_choice_stands_out_on_every_skillset_colour() -> None:
    colours = ALLOWED
    assert len(colours) == len(COLORS) == 16
    dark, light, focus = var("ring-dark"), var("ring-light"), var("focus")
    for name in colours:
        c = skillset_colour(name)
        # the ring's inner band against the card's coloured border, its outer band against the page
        assert contrast(dark, c) >= 3, f"the ring's dark band on {name} ({c})"
        assert contrast(dark, light) >= 3 and contrast(dark, focus) >= 3
        # the skillset colour as text (rank, skillset name) on a card
        assert contrast(c, "#232733") >= 4.5, f"{name} text on a card"
    for page in (var("bg"), var("panel"), "#191c25", "#2a2416"):  # page, zones, hand, decision strip
        assert contrast(light, page) >= 3 and contrast(focus, page) >= 3
        assert contrast(var("text"), page) >= 4.5 and contrast(var("muted"), page) >= 4.5
