"""Pages rendered on the server: the rules for players (with the glossary of effect keywords) and the
developer rulebook, as HTML from their Markdown (markdown-it-py; raw HTML in the Markdown is not passed
through). They are complete pages — they read without JavaScript — styled by the client's style sheet,
and the match page shows the same rules in a dialog from :func:`rules_doc`.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from markdown_it import MarkdownIt

from converge.texts import developer_rules, glossary, how_to_play

_GLOSSARY_HEADING = "## Glossary"


def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


def slug(keyword: str) -> str:
    """The fragment of a keyword's glossary entry: ``glossary-convert``."""
    return "glossary-" + re.sub(r"[^a-z0-9]+", "-", keyword.lower()).strip("-")


def glossary_html() -> str:
    """The glossary as a definition list, each keyword with its own anchor."""
    items = "".join(f'<dt id="{slug(k)}"><span class="kw-icon" data-keyword="{html.escape(k)}"></span>'
                    f"{html.escape(k)}</dt><dd>{html.escape(text)}</dd>" for k, text in glossary())
    return f'<dl class="glossary" data-testid="glossary">{items}</dl>'


@lru_cache(maxsize=1)
def rules_html() -> str:
    """The rules for players as HTML: how to play, then the glossary."""
    text = how_to_play()
    body = text.split(_GLOSSARY_HEADING, 1)[0]
    return (str(_markdown().render(body)) + '<h2 id="glossary">Glossary</h2>'
            "<p>Each skillset has a keyword effect; its six cards vary how strong it is (see "
            '<a href="/cards" data-testid="rules-cards-link">every card</a>).</p>' + glossary_html())


@lru_cache(maxsize=1)
def developer_html() -> str:
    return str(_markdown().render(developer_rules()))


def rules_doc() -> dict[str, object]:
    """``/api/rules``: the rules for players as Markdown and HTML, and the glossary."""
    return {"markdown": how_to_play(), "html": rules_html(),
            "glossary": [{"keyword": k, "text": t, "anchor": slug(k)} for k, t in glossary()]}


_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>{title} — Converge</title>
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/static/style.css">
</head>
<body>
  <header class="topbar">
    <a href="/" class="brand">Converge</a>
    <span class="spacer"></span>
    <nav class="topnav" aria-label="Site">
      <a href="/rules">Rules</a>
      <a href="/tutorial">Tutorial</a>
    </nav>
  </header>
  <main id="main" class="page {kind}">
    <article class="rules-body" data-testid="{kind}">
      {nav}
      {body}
    </article>
  </main>
</body>
</html>
"""


@lru_cache(maxsize=1)
def rules_page() -> str:
    nav = ('<p class="page-nav">New to Converge? <a href="/tutorial">Play the tutorial</a>. '
           'Looking for every ruling with its code and test? '
           '<a href="/rules/developer" data-testid="developer-rules-link">The developer rulebook</a>.</p>')
    return _PAGE.format(title="How to play", kind="rules-page", nav=nav, body=rules_html())


@lru_cache(maxsize=1)
def developer_page() -> str:
    nav = '<p class="page-nav"><a href="/rules">The rules for players</a> · <a href="/">Play</a></p>'
    return _PAGE.format(title="The developer rulebook", kind="developer-rules", nav=nav, body=developer_html())


__all__ = ["developer_html", "developer_page", "developer_rules", "glossary_html", "rules_doc", "rules_html",
           "rules_page", "slug"]
