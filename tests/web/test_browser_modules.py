"""The browser client's ES modules, without a browser: loaded by one <script type="module">, served as JavaScript
under the strict Content-Security-Policy, each small, importing only each other (no circle, none left out), and
none with code the CSP would refuse or that writes HTML or inline style."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from converge.server.api.routes.pages import web_dir
from tests.server_support import client_for

WEB = web_dir()
MODULES = {p.name: p.read_text(encoding="utf-8") for p in sorted(WEB.glob("*.js"))}
MAX_LINES = 500
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']""", re.M)


def imports(text: str) -> list[str]:
    return IMPORT.findall(text)


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


def test_no_module_is_over_500_lines() -> None:
    sizes = {name: text.count("\n") for name, text in MODULES.items()}
    assert {n: s for n, s in sizes.items() if s > MAX_LINES} == {}, sizes


def test_modules_import_only_each_other_without_a_circle_and_all_are_used() -> None:
    graph: dict[str, list[str]] = {}
    for name, text in MODULES.items():
        targets = imports(text)
        assert all(t.startswith("./") and t.endswith(".js") for t in targets), (name, targets)
        graph[name] = [t[2:] for t in targets]
        assert set(graph[name]) <= set(MODULES), (name, set(graph[name]) - set(MODULES))
    assert "import(" not in "".join(MODULES.values())  # (every module is known before the page runs)

    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import circle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for target in graph[name]:
            visit(target, (*path, name))
        done.add(name)

    visit("app.js", ())
    assert done == set(MODULES), f"modules app.js never loads: {sorted(set(MODULES) - done)}"


def test_no_module_writes_html_or_inline_style_or_evaluates_text() -> None:
    for name, text in MODULES.items():
        for bad in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                    ".style.", "setAttribute(\"style\"", "cssText"):
            assert bad not in text, f"{name}: {bad}"
        assert not re.search(r"setTimeout\(\s*[\"'`]", text), f"{name}: a timer with code as text"

