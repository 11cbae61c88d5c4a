"""The card colours read from the browser's style sheet, the one place they are written."""

from __future__ import annotations

import pytest

from converge.cards.loader import COLORS
from converge.cards.palette import COLOR_NAMES, card_palette, parse_palette

SHEET = """:root { --text: #EECCAA; --muted: #999999; --accent: #ffcc00; --line: #333333; }
/* a comment { with braces } */
.card { --c-bg: #222222; position: relative; }
.col-red { --c: #ff0000; }
.col-grey, .col-gray { --c: #888888; }
.back { background: repeating-linear-gradient(45deg, #111111, #111111 3px, #222233 3px, #222233 6px); }
@media (max-width: 40rem) { .col-red { --c: #00ff00; } .card { --c-bg: #ffffff; } }
"""


def test_every_colour_a_deck_may_name_is_the_browsers_own() -> None:
    palette = card_palette()
    grey = palette.skillsets["grey"]
    for colour in COLORS:
        assert palette.skillset_colour(colour) == palette.skillsets[COLOR_NAMES.get(colour, colour)] != grey
    assert palette.skillset_colour("chartreuse") == grey  # (a colour the sheet lacks: the browser's grey)


def test_the_sheets_top_level_rules_give_the_colours_not_its_media_queries() -> None:
    palette = parse_palette(SHEET)
    assert palette.background == "#222222" and palette.text == "#eeccaa" and palette.accent == "#ffcc00"
    assert palette.skillsets == {"red": "#ff0000", "grey": "#888888", "gray": "#888888"}
    assert palette.back_stripes == ("#111111", "#222233")


def test_a_sheet_without_a_cards_colour_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match=r"--c-bg in \.card"):
        parse_palette(SHEET.replace("--c-bg: #222222;", ""))
