"""Shared helpers of the browser tests: Debian's Chromium (/usr/bin/chromium; no browser is downloaded) driven
by Playwright against ``converge serve``; a tab per person, failing on any page error or CSP violation; and
the checks of the table's layout at a decision."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
CHROMIUM = os.environ.get("CONVERGE_CHROMIUM", "/usr/bin/chromium")
if not Path(CHROMIUM).exists():
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")

from tests.server_support import Server  # noqa: E402

SHOTS = ROOT / "out" / "screenshots"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
ACTIVE = "[data-testid=decision] [data-testid=action]:not([disabled])"
OVER = "[data-testid=match-over]"
#: What the page shows when it waits for the player: a decision, a round's end or the match's end.
SETTLED = ("[data-testid=match][data-shown='1'][data-pending='0'] :is([data-testid=decision], "
           "[data-testid=round-summary], [data-testid=match-summary])")


@pytest.fixture(scope="module", name="server")
def server_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("web") / "matches.sqlite3", None, "--bot-delay", "0.02",
               "--replace-after", "0")
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="module", name="browser")
def browser_fixture() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Tab:
    """A page in its own browser context (its own storage: another person), failing on any page error or
    Content-Security-Policy violation. ``pace``: how the page shows the opponent's moves (its setting)."""

    def __init__(self, browser: Any, width: int = 1400, height: int = 1000, pace: str = "instant",
                 reduced_motion: str = "reduce") -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           reduced_motion=reduced_motion)
        self.context.add_init_script(f"try {{ localStorage.setItem('converge.pace', '{pace}'); }} catch (e) {{}}")
        self.page = self.context.new_page()
        self.size = f"{width}x{height}"
        self.problems: list[str] = []
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text}")

    def seq(self) -> str:
        return str(self.page.get_attribute("[data-testid=match]", "data-seq"))

    def over(self) -> bool:
        return bool(self.page.locator(OVER).count())

    def shot(self, name: str, full_page: bool = False) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.mouse.move(1, 1)  # no card under the pointer: no tip over the table
        self.page.screenshot(path=str(SHOTS / name), full_page=full_page)

    def close(self) -> None:
        assert not [p for p in self.problems if "Content Security Policy" in p or "page error" in p], self.problems
        self.context.close()


#: Measures the table at a decision: the decision strip's and the hand's boxes, where each legal choice is,
#: the page's width against the window's.
LAYOUT_JS = """() => {
  window.scrollTo(0, 0);
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, w: r.width, h: r.height};
  };
  const strip = document.querySelector('#decision');
  const hand = document.querySelector('[data-testid=zone-hand]');
  const legal = (strip.dataset.legal || '').split(',').filter(Boolean);
  const choices = legal.map((id) => {
    const e = document.querySelector('#app [data-action="' + id + '"]');
    return {id, box: e ? box(e) : null};
  });
  // the innermost elements that reach past the window's right edge: what to mend when the page overflows
  const wide = [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5
                   && ![...e.children].some((c) => c.getBoundingClientRect().right > window.innerWidth + 0.5))
    .slice(0, 5).map((e) => e.tagName.toLowerCase()
                     + (e.className ? '.' + String(e.className).split(' ').join('.') : '')
                     + ' ' + JSON.stringify((e.textContent || '').trim().slice(0, 60))
                     + ' right=' + Math.round(e.getBoundingClientRect().right));
  return {prompt: box(strip), hand: hand ? box(hand) : null, choices, kind: strip.dataset.kind, wide,
          staged: strip.dataset.staged || null, width: window.innerWidth, height: window.innerHeight,
          scrollWidth: document.documentElement.scrollWidth, bodyWidth: document.body.scrollWidth,
          scrollY: window.scrollY};
}"""


def intersects(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def check_layout(page: Any) -> dict[str, Any]:
    """At a decision: the strip and the hand do not overlap, every legal choice is inside the window with the
    page scrolled to the top, and nothing overflows sideways. Returns the measures."""
    m: dict[str, Any] = page.evaluate(LAYOUT_JS)
    where = f"{m['kind']} decision at {m['width']}x{m['height']}"
    assert m["hand"] is not None, where
    assert not intersects(m["prompt"], m["hand"]), f"the decision strip covers the hand: {where} {m}"
    assert m["choices"], where
    for choice in m["choices"]:
        b = choice["box"]
        assert b is not None, f"legal choice {choice['id']} is not on the page: {where}"
        inside = b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["w"] <= m["width"] + 0.5 and \
            b["y"] + b["h"] <= m["height"] + 0.5
        if not inside:  # (the deal is the server's random draw: keep what the page looked like)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"outside-{m['width']}x{m['height']}.png"), full_page=True)
        assert inside, f"legal choice {choice['id']} is outside the window: {where} {b} (see {SHOTS})"
    assert m["scrollWidth"] <= m["width"] and m["bodyWidth"] <= m["width"], \
        f"the page overflows sideways: {where}; reaching past the window: {m['wide']}"
    return m
