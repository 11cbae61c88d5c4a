"""The colours of a card as the browser draws it, read from the browser's own style sheet (``web/style.css``,
shipped in the package): the one place they are written. The printed cards (:mod:`converge.cards.printing`)
take them from here, so that a colour changed for the browser changes on paper too.

What is read: the page's colours (``:root``: text, muted text, the accent of the stars, the lines), a card's
background (``.card``'s ``--c-bg``), each skillset colour (``.col-NAME``'s ``--c``) and the two stripes of a
card's back (``.back``'s gradient). Only the sheet's top-level rules count (not those of its ``@media``
queries, which change sizes for small screens, not colours).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources

#: The browser's names for the deck colours that are not CSS-friendly (the terminal's names, rich's): a deck's
#: ``color = "orange3"`` is ``.col-orange`` in the style sheet.
COLOR_NAMES = {"orange3": "orange", "gold3": "gold"}

#: The style sheet's class for a deck that names no colour the sheet knows.
FALLBACK = "grey"

_HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


@dataclass(frozen=True)
class CardPalette:
    """The colours of a card, as ``#rrggbb``."""

    #: a card's face (``.card --c-bg``)
    background: str
    #: the name and goal (``--text``), the id and effect text (``--muted``), the stars (``--accent``)
    text: str
    muted: str
    accent: str
    #: a card back's two diagonal stripes and its edge (``.back``)
    back_stripes: tuple[str, str]
    line: str
    #: each skillset colour by its class name in the sheet (``magenta`` for ``.col-magenta``)
    skillsets: Mapping[str, str]

    def skillset_colour(self, deck_color: str) -> str:
        """The colour the browser gives a deck whose ``color`` is ``deck_color`` (grey for one it lacks)."""
        name = COLOR_NAMES.get(deck_color, deck_color)
        return self.skillsets.get(name, self.skillsets[FALLBACK])


def _top_level_rules(css: str) -> Iterator[tuple[list[str], str]]:
    """Each top-level rule of ``css`` as (its selectors, its body); at-rules (``@media``) are skipped."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    depth, start, body_start, selector = 0, 0, 0, ""
    for i, ch in enumerate(css):
        if ch == "{":
            if depth == 0:
                selector, body_start = css[start:i].strip(), i + 1
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                if not selector.startswith("@"):
                    yield [s.strip() for s in selector.split(",")], css[body_start:i]
                start = i + 1


def parse_palette(css: str) -> CardPalette:
    """The card colours of the style sheet ``css``; a ValueError names the one it lacks."""
    rules: dict[str, dict[str, str]] = {}
    for selectors, body in _top_level_rules(css):
        declarations = {name.strip(): value.strip() for name, value in
                        re.findall(r"([-\w]+)\s*:\s*([^;]+)", body)}
        for s in selectors:  # (a later rule wins, as in CSS)
            rules.setdefault(s, {}).update(declarations)

    def colour(selector: str, name: str) -> str:
        m = _HEX.fullmatch(rules.get(selector, {}).get(name, ""))
        if not m:
            raise ValueError(f"the style sheet has no colour {name} in {selector}")
        return m.group(0).lower()

    stripes = list(dict.fromkeys(c.lower() for c in _HEX.findall(rules.get(".back", {}).get("background", ""))))
    if len(stripes) != 2:
        raise ValueError("the style sheet's .back has not two stripe colours")
    skillsets = {m.group(1): colour(s, "--c") for s in rules if (m := re.fullmatch(r"\.col-(\w+)", s))}
    if FALLBACK not in skillsets:
        raise ValueError(f"the style sheet has no .col-{FALLBACK}")
    return CardPalette(background=colour(".card", "--c-bg"), text=colour(":root", "--text"),
                       muted=colour(":root", "--muted"), accent=colour(":root", "--accent"),
                       back_stripes=(stripes[0], stripes[1]), line=colour(":root", "--line"), skillsets=skillsets)


@cache
def card_palette() -> CardPalette:
    """The card colours of the browser's style sheet, as the package ships it."""
    css = resources.files("converge").joinpath("web", "style.css").read_text(encoding="utf-8")
    return parse_palette(css)
