"""The two pictures of the README and the site's home page, made again from the game itself:

    python docs/screenshots.py               # both: docs/images/terminal.svg and docs/images/browser-table.png
    python docs/screenshots.py terminal      # only the terminal's (Textual's own SVG export; a seeded match)

The terminal's is the full-screen game at 100×32 a few turns into a seeded match against the easy bot, as
Textual exports it, without the web font it names (a reader's browser would fetch it from a CDN). The
browser's is the match page at 1280×800 a few turns into a match against the easy bot, served by
``converge serve`` and drawn by Debian's Chromium through Playwright (the ``web`` and ``webtest`` extras,
as the browser tests run; the deal is the server's, so each run shows another).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

IMAGES = Path(__file__).resolve().parent / "images"
#: The web font of Textual's SVG, which a reader's browser would fetch: the SVG keeps the local font only.
REMOTE_FONT = re.compile(r',\s*url\("https?://[^"]*"\)\s*format\("[a-z0-9]+"\)')
CHROMIUM = os.environ.get("CONVERGE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def without_remote_fonts(svg: str) -> str:
    return REMOTE_FONT.sub("", svg)


def board_is_full(observation: Any) -> bool:
    """A board worth showing: a goal declared and a card in each faction, and the player to choose a card."""
    decision = observation["decision"]
    return (bool(observation["goals"]) and all(observation["factions"]) and decision is not None
            and decision["kind"] == "select")


async def _terminal() -> str:
    from converge import Match
    from converge.bots import bot_display_name
    from converge.cli.play_session import Seat, Session
    from converge.cli.tui import GameApp

    match = Match.new(["alchemist", "searcher", "astropath"], seed=5, start=0)
    app = GameApp(Session(match, (Seat("you"), Seat(bot_display_name("easy"), "easy", 1)), None, False))
    rng = random.Random(3)
    async with app.run_test(size=(100, 32)) as pilot:
        for _ in range(200):
            for _ in range(200):  # until the bot has played and the app has shown it
                await app.workers.wait_for_complete()
                await pilot.pause()
                if not app.workers and app.mode != "thinking":
                    break
            if app.mode == "decision" and board_is_full(app.session.match.observation(0)):
                return without_remote_fonts(app.export_screenshot(title="converge play"))
            await pilot.press("1" if app.mode != "decision" else str(rng.randint(1, 2)))
    raise SystemExit("the match never reached a full board")


def terminal() -> Path:
    path = IMAGES / "terminal.svg"
    path.write_text(asyncio.run(_terminal()), encoding="utf-8")
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def browser() -> Path:
    from playwright.sync_api import sync_playwright

    path = IMAGES / "browser-table.png"
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "converge", "serve", "--port", str(port), "--db",
                                   str(Path(tmp) / "matches.sqlite3"), "--bot-delay", "0.02"])
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/api/status", timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            with sync_playwright() as p:
                chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                context = chromium.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
                context.add_init_script("try { localStorage.setItem('converge.pace', 'instant'); } catch (e) {}")
                page = context.new_page()
                page.goto(base + "/")
                page.select_option("[data-testid=bot-level]", "easy")
                page.click("[data-testid=create-bot]")
                _play_until_the_board_is_full(page)
                page.mouse.move(1, 1)  # no card under the pointer: no tip over the table
                page.screenshot(path=str(path))
                chromium.close()
            _fewer_colours(path)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return path


def _fewer_colours(path: Path) -> None:
    """256 colours (Pillow, of the ``rl`` extra): a third of the bytes, and the page looks the same."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        fewer = image.convert("RGB").quantize(256, dither=Image.Dither.NONE)
    fewer.save(path, optimize=True)


def _play_until_the_board_is_full(page: Any) -> None:
    settled = ("[data-testid=match][data-shown='1'][data-pending='0'] :is([data-testid=decision], "
               "[data-testid=round-summary], [data-testid=match-summary])")
    rng = random.Random(1)
    for _ in range(300):
        page.wait_for_selector(settled, timeout=30000)
        if page.locator("[data-testid=round-summary], [data-testid=match-summary]").count():
            raise SystemExit("the round ended before the board was full: run it again")
        goals = page.locator("[data-testid=zone-goals] [data-card]").count()
        factions = [page.locator(f"[data-testid=zone-{z}] [data-card]").count() for z in ("them", "you")]
        ids = [a for a in (page.get_attribute("#decision", "data-legal") or "").split(",") if a]
        if goals >= 2 and min(factions) >= 1 and page.get_attribute("#decision", "data-kind") == "select":
            return
        before = page.get_attribute("[data-testid=match]", "data-seq")
        # declare or place more often than discard, so that the board fills
        pick = next((a for a in ("19", "20", "21") if a in ids and rng.random() < 0.6), None) or rng.choice(ids)
        page.click(f"#app [data-action='{pick}']")
        page.wait_for_function(
            "s => { const m = document.querySelector('[data-testid=match]'); return !m || m.dataset.seq !== s"
            " || document.querySelector('#decision[data-staged]'); }", arg=before, timeout=30000)
    raise SystemExit("the board never filled")


if __name__ == "__main__":
    IMAGES.mkdir(exist_ok=True)
    which = sys.argv[1:] or ["terminal", "browser"]
    for name in which:
        print(terminal() if name == "terminal" else browser())
