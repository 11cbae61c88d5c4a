"""Driving the full-screen game in tests with Textual's own harness (``App.run_test()`` and its Pilot):
build an app on a seeded match, wait for the bot without timing, read the screen as text."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from textual.pilot import Pilot

from converge import Match
from converge.bots import bot_display_name
from converge.cli.play_session import Session
from converge.cli.saves import Seat
from converge.cli.tui import GameApp

SIZES = [(80, 24), (120, 40)]
#: The sizes the screens are held to where space is short: a small terminal, a common one, a roomy one.
ALL_SIZES = [(80, 24), (100, 32), (120, 40)]
#: ``make fuzz`` plays the whole-match tests at every size (``CONVERGE_ALL_SIZES=1``); see :func:`one_size`.
EVERY_SIZE = os.environ.get("CONVERGE_ALL_SIZES") == "1"


def one_size(index: int, sizes: list[tuple[int, int]] = SIZES) -> list[tuple[int, int]]:
    """The sizes a whole match through the full-screen game is played at: in ``make test`` one of ``sizes``
    (the tests take turns, so each size plays some whole matches; a whole match drawn frame by frame costs half
    a minute), in ``make fuzz`` all of them. The screens' fit at every size has its own, shorter tests."""
    return list(sizes) if EVERY_SIZE else [sizes[index]]


def make_app(seed: int = 5, playset: tuple[str, str, str] = ("alchemist", "searcher", "astropath"),
             hotseat: bool = False, save: Path | None = None, start: int | str = 0,
             opponent: str = "easy") -> GameApp:
    match = Match.new(list(playset), seed=seed, start=start)
    seats = ((Seat("Player 1"), Seat("Player 2")) if hotseat
             else (Seat("you"), Seat(bot_display_name(opponent), opponent, 1)))
    return GameApp(Session(match, seats, save, hotseat), hint_simulations=300)


async def settle(pilot: Pilot[int]) -> None:
    """Wait until the bot (or a hint) has finished and the app has taken its result (no timing)."""
    app = pilot.app
    for _ in range(200):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if not app.workers and getattr(app, "mode", "") != "thinking":
            return
    raise AssertionError("the app kept thinking")


async def until(pilot: Pilot[int], seen: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Let the app run until ``seen()`` holds (a scroll's animation, a screen's pop take frames, more of
    them on a busy machine); False if it never did within ``seconds``."""
    for _ in range(int(seconds / 0.05)):
        if seen():
            return True
        await pilot.pause(0.05)
    return seen()


def screen_text(app: GameApp) -> str:
    """The whole screen as it is drawn now (the top screen, with what shows through), as plain text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True, color_system=None,
                      legacy_windows=False)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return console.export_text()


class FrameRecorder:
    """Every frame the app draws, as screen text, with a check run on each as it is drawn."""

    def __init__(self, app: GameApp, check: Callable[[GameApp, str], None] | None = None) -> None:
        self.app = app
        self.frames: list[str] = []
        self.check = check
        original = app._display

        def display(screen: object, renderable: object) -> None:
            original(screen, renderable)  # type: ignore[arg-type]
            if renderable is None or not app.is_running:
                return
            text = screen_text(app)
            self.frames.append(text)
            if self.check is not None:
                self.check(app, text)

        app._display = display  # type: ignore[method-assign]


async def play_to_end(pilot: Pilot[int], choose: Callable[[Pilot[int]], object] | None = None,
                      limit: int = 600) -> int:
    """Answer every decision and summary with the first choice until the match is over; the number of
    answers given. ``choose`` answers instead of pressing 1 (a click, arrow keys...)."""
    app = pilot.app
    assert isinstance(app, GameApp)
    for n in range(limit):
        await settle(pilot)
        if app.mode == "over":
            return n
        if isinstance(app.screen, type(app.screen)) and app.screen is not app.screen_stack[0]:
            await pilot.press("enter")  # the pass-the-device screen
            continue
        if choose is None:
            await pilot.press("1")
        else:
            await choose(pilot)  # type: ignore[misc]
    raise AssertionError("the match did not end")
