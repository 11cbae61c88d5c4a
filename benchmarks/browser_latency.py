"""How long a person waits in the browser against a bot: from a click to their next decision, over whole matches::

    python benchmarks/browser_latency.py --bot hard --matches 3

``converge serve`` runs on one core (CPU 0, its bot workers too) with its default settings, and headless
Chromium (Debian's ``/usr/bin/chromium``; nothing is downloaded) on the other, showing the opponent's moves
at once (the page's "At once" pace). At every decision the player clicks a card or a choice (the first
offered, or one drawn from ``--seed``); the time is from the click to the page showing the player's next
decision (or the round's or the match's end). Two figures: over the clicks after which the bot played — the
wait that matters — and over every click that reached the server. Needs the ``webtest`` extra
(Playwright) and Chromium.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("CONVERGE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
ACTIVE = "[data-testid=decision] [data-testid=action]:not([disabled])"
CARD = "[data-testid=playable-card]"
CONTINUE = "[data-testid=continue]"
OVER = "[data-testid=match-over]"
#: The page waits for the player: shown, nothing pending, and a decision (or a round's or the match's end).
READY_JS = """s => {
  const m = document.querySelector('[data-testid=match]');
  const d = document.querySelector('#decision');
  if (!m) return false;
  if (d && d.dataset.staged) return 'staged';
  if (m.dataset.seq === s || m.dataset.pending !== '0' || m.dataset.shown !== '1') return false;
  return !!document.querySelector('[data-testid=match-over], [data-testid=continue], [data-testid=playable-card], '
                                  + '[data-testid=decision] [data-testid=action]:not([disabled])');
}"""


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(folder: Path, port: int) -> subprocess.Popen[bytes]:
    import urllib.request

    log = (folder / "server.log").open("ab")
    proc = subprocess.Popen(["taskset", "-c", "0", sys.executable, "-m", "converge", "serve", "--port", str(port),
                             "--db", str(folder / "matches.sqlite3"), "--log-level", "warning"],
                            stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped: {(folder / 'server.log').read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1):
                return proc
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start")


def play(browser: Any, base: str, bot: str, rng: random.Random, first: bool) -> tuple[list[float], list[float]]:
    """One match against ``bot``: the waits after which the bot played, and those after every sent click."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    context.add_init_script("try { localStorage.setItem('converge.pace', 'instant'); } catch (e) {}")
    page = context.new_page()
    page.goto(base + "/")
    page.select_option("[data-testid=bot-level]", bot)
    page.click("[data-testid=create-bot]")
    page.wait_for_selector("[data-testid=match]")
    page.wait_for_function(READY_JS, arg="-1", timeout=120_000)
    after_bot: list[float] = []
    every: list[float] = []
    for _ in range(600):
        if page.locator(OVER).count():
            break
        if page.locator(CONTINUE).count():
            page.click(CONTINUE)
            page.wait_for_function(READY_JS, arg="-1", timeout=120_000)
            continue
        before = str(page.get_attribute("[data-testid=match]", "data-seq"))
        targets = page.locator(CARD)
        if not targets.count():
            targets = page.locator(ACTIVE)
        n = targets.count()
        target = targets.nth(0 if first else rng.randrange(n))
        started = time.perf_counter()
        target.click()
        state = page.wait_for_function(READY_JS, arg=before, timeout=120_000).json_value()
        waited = time.perf_counter() - started
        if state == "staged":  # a card held on the page until its next step: nothing sent yet
            continue
        every.append(waited)
        seq = int(str(page.get_attribute("[data-testid=match]", "data-seq")))
        if seq - int(before) > 1:  # the bot played in between
            after_bot.append(waited)
    context.close()
    return after_bot, every


def summary(name: str, waits: list[float]) -> str:
    if not waits:
        return f"{name}: none"
    qs = statistics.quantiles(waits, n=10) if len(waits) > 1 else [waits[0]] * 9
    return (f"{name}: {len(waits)} clicks, median {statistics.median(waits):.2f} s, "
            f"90th percentile {qs[8]:.2f} s, most {max(waits):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="hard", help="the bot's level on the home page (default hard)")
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None,
                        help="choose among the offered clicks at random from this seed (default: the first)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    os.sched_setaffinity(0, {1})  # the browser (started from here) on the other core
    rng = random.Random(args.seed)
    after_bot: list[float] = []
    every: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = start_server(Path(tmp), port)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for k in range(args.matches):
                    a, e = play(browser, f"http://127.0.0.1:{port}", args.bot, rng, args.seed is None)
                    after_bot += a
                    every += e
                    print(f"match {k + 1}: {summary('after the bot played', a)}", flush=True)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(summary(f"against {args.bot}, after the bot played", after_bot))
    print(summary("every click sent", every))


if __name__ == "__main__":
    main()
