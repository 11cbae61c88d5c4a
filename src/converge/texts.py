"""Texts for players, shared by the terminal and the browser: how to play, and the glossary of the effect
keywords (generated from the registered effect kinds, so it names every kind a deck may use).

The developer rulebook (RULES.md: every ruling with its code and test) is a separate text.

>>> "## Glossary" in how_to_play() and "**Convert**" in how_to_play()
True
"""

from __future__ import annotations

from importlib import resources

from converge.engine.effects import effect_kinds


def glossary() -> list[tuple[str, str]]:
    """``(keyword, what it does)`` for every registered effect kind, in registration order."""
    return [(k.keyword, k.doc[:1].upper() + k.doc[1:] + ".") for k in effect_kinds().values()]


def how_to_play() -> str:
    """The rules for players, in Markdown, with the glossary of effect keywords at the end."""
    text = (resources.files("converge") / "HOW_TO_PLAY.md").read_text(encoding="utf-8").rstrip()
    lines = [text, "", "## Glossary", "",
             "Each skillset has a keyword effect; its six cards vary how strong it is.", ""]
    lines += [f"- **{keyword}**: {doc}" for keyword, doc in glossary()]
    return "\n".join(lines) + "\n"


def developer_rules() -> str:
    """RULES.md: the rules with every ruling the project adopts, its code and its test (for developers)."""
    return (resources.files("converge") / "RULES.md").read_text(encoding="utf-8")
