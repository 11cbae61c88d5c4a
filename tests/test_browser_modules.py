"""The browser client's ES modules, without a browser: loaded by one <script type="module">, served as JavaScript
under the strict Content-Security-Policy, none with code the CSP would refuse or that writes HTML or inline
style."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from converge.server.routes.pages import web_dir
from tests.server_support import client_for

WEB = web_dir()
MODULES = {p.name: p.read_text(encoding="utf-8") for p in sorted(WEB.glob("*.js"))}


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append(dict(attrs))


def test_the_page_loads_one_module_the_entry_point() -> None:
    page = _Scripts()
    page.feed((WEB / "index.html").read_text(encoding="utf-8"))
    assert page.scripts == [{"type": "module", "src": "/static/app.js"}]


def test_every_module_is_served_as_javascript_under_the_csp(tmp_path: Path) -> None:
    with client_for(tmp_path) as client:
        for name in MODULES:
            r = client.get(f"/static/{name}")
            assert r.status_code == 200, name
            # A module of any other type is refused by the browser (and the server says nosniff). Which of the two
            # JavaScript types comes depends on the host's mime.types: text/javascript on Debian, application/...
            # (which browsers take as well) where Python's own table decides.
            kind = r.headers["content-type"].split(";")[0]
            assert kind in ("text/javascript", "application/javascript"), (name, kind)
            assert "script-src 'self'" in r.headers["content-security-policy"]
            assert r.headers["x-content-type-options"] == "nosniff"


def test_no_module_writes_html_or_inline_style_or_evaluates_text() -> None:
    for name, text in MODULES.items():
        for bad in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                    ".style.", "setAttribute(\"style\"", "cssText"):
            assert bad not in text, f"{name}: {bad}"
        assert not re.search(r"setTimeout\(\s*[\"'`]", text), f"{name}: a timer with code as text"

