"""Nothing lost in the terminal game: the match saved after every move (atomically), a double or triple press
in every dialog, Ctrl+C and Ctrl+Q at every screen, a closed terminal, a crash; then ``converge play
--resume`` (and the start screen) take the match up where it was left, and it plays on exactly as the
original would have. Driven by Textual's own harness (``App.run_test()`` and Pilot), as a player would."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import random
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from converge import Match
from converge.bots.base import Bot
from converge.cli import saves
from converge.cli.play_session import Session
from converge.cli.saves import SavedMatch, Seat
from converge.cli.tui import ConfirmQuit, GameApp, HelpScreen, PassScreen, RulesScreen, StartScreen
from converge.engine.view import PlayerView
from tests.tui_support import make_app, screen_text, settle, until

Body = Callable[[Pilot[int]], Awaitable[None]]


def run(app: GameApp, body: Body, size: tuple[int, int] = (80, 24)) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await body(pilot)

    asyncio.run(main())
    assert app.return_code in (None, 0), "the game stopped on an error"


def dialog_text(app: GameApp) -> str:
    """The text of the dialog on top, as written (a screen's text has the dialog's borders in its lines)."""
    return " ".join(str(w.content) for w in app.screen.query(Static))


def saved_history(path: Path) -> list[int]:
    return list(json.loads(path.read_text(encoding="utf-8"))["actions"])


async def at_once(pilot: Pilot[int], *keys: str) -> None:
    """Keys pressed faster than the game handles them (a bouncing key, a quick double press): all of them
    arrive before the first is handled, as a terminal delivers keys typed quickly."""
    app = pilot.app
    for key in keys:
        app.post_message(events.Key(key, "\r" if key == "enter" else None))
    await settle(pilot)
    await pilot.pause()


def play_on_after_resume(path: Path, size: tuple[int, int] = (80, 24)) -> GameApp:
    """``converge play --resume PATH`` as the full-screen game does it: the match is where it was left, and
    plays on to its next decision."""
    saved = saves.load(path)
    before = saved.match.history[:]
    assert not saved.match.is_terminal
    app = GameApp(Session.resumed(saved), hint_simulations=300, resumed=True)

    async def body(pilot: Pilot[int]) -> None:
        assert app.session.match.history[:len(before)] == before  # (then the bot's move, if it is to play)
        if isinstance(app.screen, PassScreen):
            await pilot.press("enter")
            await settle(pilot)
        assert app.mode in ("decision", "summary"), app.mode
        if app.session.match.history == before:
            assert "Taken up where it was left" in screen_text(app)
        played = len(app.session.match.history)
        await pilot.press("1")
        await settle(pilot)
        assert len(app.session.match.history) > played or app.mode == "decision"
        assert saved_history(path) == app.session.match.history  # and it is saved as it goes on

    run(app, body, size)
    return app


# ---------------------------------------------------------------------- saved after every move


def test_the_match_is_saved_as_it_starts_and_after_every_move(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    app = make_app(seed=5, save=save)
    lengths: list[int] = []

    async def body(pilot: Pilot[int]) -> None:
        assert saved_history(save) == []  # saved as it starts: a quit at the first screen loses nothing
        for _ in range(12):
            await pilot.press("1")
            await settle(pilot)
            assert saved_history(save) == app.session.match.history  # the bot's replies too
            lengths.append(len(app.session.match.history))

    run(app, body)
    assert lengths[-1] > 6
    assert not [p for p in tmp_path.iterdir() if p.name != "m.json"], "a temporary file was left behind"
    assert os.stat(save).st_mode & 0o077 == 0  # the record holds the seed: its owner's only


def test_a_failed_write_leaves_the_last_save_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save = tmp_path / "m.json"
    saves.write_atomically(save, "first")

    def full_disk(_src: object, _dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        saves.write_atomically(save, "second")
    assert save.read_text() == "first" and [p.name for p in tmp_path.iterdir()] == ["m.json"]
    match = Match.new(["alchemist", "searcher", "astropath"], seed=1, start=0)
    session = Session(match, (Seat("you"), Seat("Easy bot", "easy", 1)), save)
    assert session.save() is None and session.save_problem is not None
    assert "No space left on device" in session.save_problem


# ---------------------------------------------------------------------- double and triple presses


@pytest.mark.parametrize("presses", [2, 3])
def test_a_repeated_enter_on_keep_playing_neither_crashes_nor_plays(presses: int, tmp_path: Path) -> None:
    """The issue's crash: q, then Enter twice quickly on "Keep playing" (ScreenStackError, exit 0, nothing
    saved). Each press after the first finds the dialog gone and is not taken as a choice in the game."""
    save = tmp_path / "m.json"
    app = make_app(seed=4, save=save)

    async def body(pilot: Pilot[int]) -> None:
        app.double_press_seconds = 60.0  # (however slow the machine: the repeats are the dialog's)
        await pilot.press("1", "2")
        await settle(pilot)
        history = app.session.match.history[:]
        await pilot.press("q")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmQuit))
        await at_once(pilot, *["enter"] * presses)
        assert app.is_running and not isinstance(app.screen, ConfirmQuit)
        assert app.session.match.history == history  # no card was played by the repeats
        app.bounce_until = 0.0
        await pilot.press("ctrl+q", "ctrl+q")  # asked, then confirmed
        assert await until(pilot, lambda: not app.is_running)

    run(app, body)
    assert app.return_code == 0 and any("converge play --resume" in line for line in app.farewell)
    assert saved_history(save) == app.session.match.history
    play_on_after_resume(save)


@pytest.mark.parametrize("dialog", ["help", "rules", "quit", "pass", "start"])
def test_a_double_then_a_triple_enter_in_every_dialog(dialog: str, tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    if dialog == "start":  # the start screen offers a match saved before (here: one move in)
        earlier = make_app(seed=6, save=tmp_path / "earlier.json")
        run(earlier, lambda pilot: pilot.press("1"))
        app = GameApp(make_app(seed=4, save=save).session, hint_simulations=300,
                      saved=[saves.load(tmp_path / "earlier.json")])
    else:
        app = make_app(seed=4, save=save, hotseat=dialog == "pass")
    kind, key = {"help": (HelpScreen, "question_mark"), "rules": (RulesScreen, "r"), "quit": (ConfirmQuit, "q"),
                 "pass": (PassScreen, ""), "start": (StartScreen, "")}[dialog]

    async def body(pilot: Pilot[int]) -> None:
        app.double_press_seconds = 60.0  # (however slow the machine, the repeats are the dialog's)
        for presses in (2, 3):
            if presses == 3:  # the dialog again
                if dialog == "pass":  # (the next player's turn: the device is passed again)
                    await pilot.press("1", "2")
                elif dialog == "start":
                    break  # (it is shown once)
                else:
                    await pilot.press(key)
            elif key:
                await pilot.press(key)
            assert await until(pilot, lambda: isinstance(app.screen, kind))
            history = app.session.match.history[:]
            await at_once(pilot, *["enter"] * presses)
            assert await until(pilot, lambda: not isinstance(app.screen, kind))
            assert app.is_running and app.mode == "decision"
            assert app.session.match.history == history  # the repeats chose nothing in the game
            app.bounce_until = 0.0
        await pilot.press("ctrl+c")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmQuit))
        await pilot.press("ctrl+c")  # again: leave
        assert await until(pilot, lambda: not app.is_running)

    run(app, body)
    assert app.return_code == 0
    play_on_after_resume(app.session.save_path or save)


# ---------------------------------------------------------------------- Ctrl+C and Ctrl+Q everywhere


@pytest.mark.parametrize("dialog", ["help", "rules", "quit"])
def test_the_tables_keys_do_nothing_under_a_dialog(dialog: str, tmp_path: Path) -> None:
    """A number key, undo or hint pressed while a dialog is open neither plays nor takes back anything beneath
    it, nor asks for a hint: those are the table's keys; the dialog stays, and once closed the game plays on."""
    app = make_app(seed=4, save=tmp_path / "m.json")
    kind, key = {"help": (HelpScreen, "question_mark"), "rules": (RulesScreen, "r"),
                 "quit": (ConfirmQuit, "q")}[dialog]

    async def body(pilot: Pilot[int]) -> None:
        await settle(pilot)
        await pilot.press("1")  # (one step in, so that undo would have something to take back)
        await settle(pilot)
        history = app.session.match.history[:]
        await pilot.press(key)
        assert await until(pilot, lambda: isinstance(app.screen, kind))
        await pilot.press("1", "2", "u", "U", "h")
        await settle(pilot)
        assert app.session.match.history == history and app.hint is None
        assert isinstance(app.screen, kind)
        await pilot.press("escape")
        assert await until(pilot, lambda: not isinstance(app.screen, kind))
        await pilot.press("1")
        await settle(pilot)
        assert len(app.session.match.history) > len(history)  # one step past: the game plays on

    run(app, body)


def test_q_on_the_pass_screen_asks_to_leave_and_n_passes_on(tmp_path: Path) -> None:
    app = make_app(seed=4, save=tmp_path / "m.json", hotseat=True)

    async def body(pilot: Pilot[int]) -> None:
        assert await until(pilot, lambda: isinstance(app.screen, PassScreen))
        await pilot.press("q")
        assert await until(pilot, lambda: isinstance(app.screen, ConfirmQuit))
        await pilot.press("n")
        assert await until(pilot, lambda: isinstance(app.screen, PassScreen))
        app.bounce_until = 0.0
        await pilot.press("enter")  # one step past: the player at the device plays
        assert await until(pilot, lambda: app.mode == "decision")
        await pilot.press("ctrl+c", "ctrl+c")

    run(app, body)


async def _to_decision(pilot: Pilot[int]) -> None:
    app = pilot.app
    assert isinstance(app, GameApp)
    await pilot.press("1")  # choose a card: now how to play it
    await settle(pilot)
    assert app.mode == "decision" and app.session.match.decision_kind == "mode"


async def _to_summary(pilot: Pilot[int]) -> None:
    app = pilot.app
    assert isinstance(app, GameApp)
    for _ in range(20):
        if app.mode == "summary":
            return
        await pilot.press("1")
        await settle(pilot)
    raise AssertionError("no summary")


class _HeldBot:
    """The seat's bot, held back until the test lets it answer: a key pressed while the bot thinks."""

    def __init__(self, bot: Bot, gate: threading.Event) -> None:
        self.bot, self.gate, self.name = bot, gate, bot.name

    def decide(self, view: PlayerView) -> int:
        assert self.gate.wait(60)
        return self.bot.decide(view)

    def reset(self) -> None:
        self.bot.reset()


async def _to_thinking(pilot: Pilot[int]) -> None:
    app = pilot.app
    assert isinstance(app, GameApp)
    session = app.session
    gate = threading.Event()
    bot_for = session.bot_for

    def held(player: int) -> Bot:
        return _HeldBot(bot_for(player), gate)

    session.bot_for = held  # type: ignore[method-assign]
    await pilot.press("1", "2")  # a card, declared: the bot is to reply
    assert await until(pilot, lambda: app.mode == "thinking")
    app.call_later(gate.set)  # it answers once the next key has been handled


async def _to_screen(pilot: Pilot[int], key: str, kind: type) -> None:
    await pilot.press(key)
    assert await until(pilot, lambda: isinstance(pilot.app.screen, kind))


SCREENS: dict[str, Body] = {
    "first decision": lambda pilot: settle(pilot),
    "how to play the card": _to_decision,
    "summary": _to_summary,
    "bot thinking": _to_thinking,
    "help": lambda pilot: _to_screen(pilot, "question_mark", HelpScreen),
    "rules": lambda pilot: _to_screen(pilot, "r", RulesScreen),
    "leave?": lambda pilot: _to_screen(pilot, "q", ConfirmQuit),
}


@pytest.mark.parametrize("screen", [*SCREENS, "pass the device"])
def test_ctrl_q_and_ctrl_c_ask_then_leave_with_the_match_saved(screen: str, tmp_path: Path) -> None:
    """At every screen: Ctrl+Q asks (and "n" keeps playing, on the same screen), Ctrl+C asks, and pressed
    again it leaves; the match is saved, and --resume plays on."""
    save = tmp_path / "m.json"
    app = make_app(seed=8, playset=("archivist", "delver", "astropath"), save=save,
                   hotseat=screen == "pass the device")

    async def body(pilot: Pilot[int]) -> None:
        if screen != "pass the device":
            await SCREENS[screen](pilot)
        else:
            assert isinstance(app.screen, PassScreen)
        before = type(app.screen)
        if screen != "leave?":  # (there, the question is on screen already)
            await pilot.press("ctrl+q")
            assert await until(pilot, lambda: isinstance(app.screen, ConfirmQuit))
            await pilot.press("n")
            assert await until(pilot, lambda: type(app.screen) is before)
            await pilot.press("ctrl+c")
            assert await until(pilot, lambda: isinstance(app.screen, ConfirmQuit))
            assert app.is_running  # asked, not gone
        assert await until(pilot, lambda: "Leave the match?" in screen_text(app))
        assert "converge play --resume continues it" in dialog_text(app)
        await pilot.press("ctrl+c")
        assert await until(pilot, lambda: not app.is_running)
        await app.workers.wait_for_complete()

    run(app, body)
    assert app.return_code == 0
    assert saved_history(save) == app.session.match.history
    play_on_after_resume(save)


def test_leaving_a_match_not_saved_says_it_is_lost() -> None:
    app = make_app(seed=8)  # --no-save

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("ctrl+q")
        assert await until(pilot, lambda: "It is not saved" in screen_text(app))
        assert "It is not saved (--no-save): it will be lost." in dialog_text(app)
        await pilot.press("escape")
        assert await until(pilot, lambda: not isinstance(app.screen, ConfirmQuit))

    run(app, body)


# ---------------------------------------------------------------------- resuming plays on as the original


def _play(session: Session, steps: int, rng: random.Random) -> None:
    """``steps`` decisions of the person (a seeded choice each), the bot's replies between them."""
    m = session.match
    while steps > 0 and not m.is_terminal:
        p = m.current_player
        if session.is_bot(p):
            session.apply(session.bot_action(p), p)
            continue
        legal = m.legal_actions()
        session.apply(legal[rng.randrange(len(legal))], p)
        steps -= 1


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**40), stop=st.integers(0, 40),
       level=st.sampled_from(["beginner", "easy", "ismcts:40"]))
def test_a_resumed_match_plays_on_exactly_as_the_original(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                                         stop: int, level: str) -> None:
    """The bot is seeded for each decision from its seat's seed and the actions played: taken up from its file
    at any point, the match goes on with the same bot decisions as if it had never stopped."""
    folder = tmp_path_factory.mktemp("resume")
    seats = (Seat("you"), Seat(f"{level} bot", level, seed % 1000))
    original = Session(Match.new(["alchemist", "searcher", "astropath"], seed=seed), seats, folder / "a.json")
    original.save()  # (as the terminal does when the match starts)
    _play(original, stop, random.Random(seed))
    resumed = Session.resumed(saves.load(folder / "a.json"))
    assert resumed.match.history == original.match.history
    _play(original, 30, random.Random(7))
    _play(resumed, 30, random.Random(7))
    assert resumed.match.history == original.match.history


# ---------------------------------------------------------------------- the start screen


def _saved_unfinished(folder: Path, seed: int, moves: int) -> Path:
    path = folder / f"match-{seed}.json"
    session = Session(Match.new(["alchemist", "searcher", "astropath"], seed=seed),
                      (Seat("you"), Seat("Easy bot", "easy", 1)), path)
    session.save()
    _play(session, moves, random.Random(seed))
    return path


def test_the_start_screen_offers_unfinished_matches_and_says_what_it_skipped(tmp_path: Path) -> None:
    first = _saved_unfinished(tmp_path, 1, 3)
    second = _saved_unfinished(tmp_path, 2, 5)
    over = _saved_unfinished(tmp_path, 3, 500)
    assert saves.load(over).match.is_terminal
    (tmp_path / "broken.json").write_text('{"format": "converge-record", "actions": [', encoding="utf-8")
    (tmp_path / "other.json").write_text('{"format": "converge-record", "playset": 7}', encoding="utf-8")
    offered, problems = saves.unfinished(tmp_path)
    assert {s.path for s in offered} == {first, second}  # the finished match is not offered
    assert len(problems) == 2 and all("\n" not in p for p in problems)
    assert any("broken.json is not valid JSON" in p for p in problems)
    new = make_app(seed=9, save=tmp_path / "new.json").session
    app = GameApp(new, hint_simulations=300, saved=offered, problems=problems)
    chosen: list[SavedMatch] = []

    async def body(pilot: Pilot[int]) -> None:
        assert isinstance(app.screen, StartScreen)
        text = " ".join(screen_text(app).split())
        assert "1. New match against the Easy bot" in text
        assert "2. Continue: against the Easy bot, round 1" in text and "3. Continue:" in text
        assert "Skipped:" in text and "broken.json is not valid JSON" in dialog_text(app)
        assert "Undo" not in text.split("█")[-1]  # the footer offers nothing of a match not chosen yet
        assert not (tmp_path / "new.json").exists()  # nothing is written until a match is chosen
        await pilot.press("3")
        await settle(pilot)
        chosen.append(next(s for s in offered if s.path == app.session.save_path))
        assert app.session.match.history == chosen[0].match.history
        await pilot.press("1")
        await settle(pilot)

    run(app, body)
    assert saved_history(chosen[0].path) == app.session.match.history
    assert not (tmp_path / "new.json").exists()


def test_the_start_screen_starts_the_new_match_too(tmp_path: Path) -> None:
    _saved_unfinished(tmp_path, 1, 3)
    offered, _ = saves.unfinished(tmp_path)
    app = GameApp(make_app(seed=9, save=tmp_path / "new.json").session, hint_simulations=300,
                  saved=offered)

    async def body(pilot: Pilot[int]) -> None:
        await pilot.press("enter")  # the new match is the first line
        await settle(pilot)
        assert app.mode == "decision" and app.session.save_path == tmp_path / "new.json"
        assert saved_history(tmp_path / "new.json") == []

    run(app, body)


# ---------------------------------------------------------------------- the command line


def _converge(args: list[str], stdin: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    env.update(XDG_DATA_HOME=str(data), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "converge", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


def test_play_quit_then_resume_in_the_line_mode_as_the_docs_say(tmp_path: Path) -> None:
    """docs/playing.md: a match left is saved in ~/.local/share/converge/matches; ``converge play --resume``
    offers it and plays on where it was left; a damaged file there is named on one line and skipped."""
    folder = tmp_path / "converge" / "matches"
    left = _converge(["play", "--seed", "3"], "1\n2\nquit\n", tmp_path)
    assert left.returncode == 0 and "Traceback" not in left.stdout + left.stderr
    [saved] = folder.glob("match-*.json")
    assert f"converge play --resume {saved}" in " ".join(left.stdout.split())
    played = saved_history(saved)
    assert len(played) >= 2
    (folder / "damaged.json").write_text("{not json", encoding="utf-8")
    again = _converge(["play", "--seed", "4"], "quit\n", tmp_path)  # a new match: told there is one to take up
    assert "You have 1 unfinished match: converge play --resume takes it up where it was left." in again.stdout
    resumed = _converge(["play", "--resume"], "2\n1\nquit\n", tmp_path)  # the older of the two: the first saved
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stdout + resumed.stderr
    skipped = [line for line in resumed.stderr.splitlines() if "damaged.json" in line]
    assert skipped == [f"converge: skipped: {folder / 'damaged.json'} is not valid JSON: Expecting property name "
                       "enclosed in double quotes at line 1, column 2"]
    assert "Unfinished matches, the last saved first:" in resumed.stdout
    assert f"Taking up the match saved in {saved}" in resumed.stdout
    after = saved_history(saved)
    assert after[:len(played)] == played and len(after) > len(played)  # played on, saved as it went


def test_resume_refuses_what_it_cannot_take_up(tmp_path: Path) -> None:
    nothing = _converge(["play", "--resume"], "", tmp_path)
    assert nothing.returncode == 2 and nothing.stderr.startswith("converge: error: no unfinished match to take up")
    mixed = _converge(["play", "--resume", "--seed", "3"], "", tmp_path)
    assert mixed.returncode == 2 and "--seed is for a new match" in mixed.stderr
    over = tmp_path / "over.json"
    finished = _converge(["play", "--seed", "3", "--save", str(over)], "1\n" * 400 + "n\n", tmp_path)
    assert finished.returncode == 0 and Match.replay(json.loads(over.read_text())).is_terminal
    done = _converge(["play", "--resume", str(over)], "", tmp_path)
    assert done.returncode == 2 and "is a finished match: converge replay" in done.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "converge-record", "playset": ["x"], "seed": 1, "actions": []}', encoding="utf-8")
    refused = _converge(["play", "--resume", str(bad)], "", tmp_path)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert "does not replay" in refused.stderr
    for out in (nothing, mixed, done, refused):
        assert "Traceback" not in out.stdout + out.stderr


def test_seats_are_numbered_1_and_2_as_the_game_names_them(tmp_path: Path) -> None:
    second = _converge(["play", "--json", "--seed", "3", "--seat", "2"], "", tmp_path)
    assert json.loads(second.stdout.splitlines()[0])["viewer"] == 1  # Player 2's view
    for command in (["play", "--seat", "0"], ["review", "x.json", "--seat", "0"]):
        old = _converge(command, "", tmp_path)
        assert old.returncode == 2 and "seats are numbered 1 and 2" in old.stderr
        assert "the first seat is --seat 1" in old.stderr


def test_a_crash_exits_with_an_error_and_the_match_stays_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """The issue: a crash exited 0. The game stops with status 1, and the match is saved up to its last move."""
    from converge.cli import play_command

    save = tmp_path / "m.json"
    session = make_app(seed=5, save=save).session
    moves = {"n": 0}

    original_play = GameApp.play

    def crash(self: GameApp, action: int, player: int) -> None:
        moves["n"] += 1
        if moves["n"] > 3:
            raise RuntimeError("a bug")
        original_play(self, action, player)

    monkeypatch.setattr(GameApp, "play", crash)
    original_run = GameApp.run

    def run_headless(self: GameApp) -> object:
        async def keys(pilot: Pilot[int]) -> None:
            for _ in range(10):
                await pilot.press("1")
                await pilot.pause()

        return original_run(self, headless=True, auto_pilot=keys)

    monkeypatch.setattr(GameApp, "run", run_headless)
    assert play_command._full_screen(session, [], []) == 1
    err = capsys.readouterr().err
    said = " ".join(err.split())
    assert f"The match is saved in {save}, up to its last move: converge play --resume {save}" in said
    assert saved_history(save) == session.match.history and len(session.match.history) >= 2


def test_closing_the_terminal_leaves_the_match_saved_to_its_last_move(tmp_path: Path) -> None:
    """A closed terminal hangs up the game (SIGHUP): it stops where it is, and its file holds every move."""
    save = tmp_path / "m.json"
    controller, worker = pty.openpty()
    fcntl.ioctl(worker, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

    def own_terminal() -> None:  # the game's controlling terminal, as a terminal window's shell gives it
        signal.signal(signal.SIGHUP, signal.SIG_DFL)  # (a runner started under nohup would pass on its SIG_IGN)
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", XDG_DATA_HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "converge", "play", "--seed", "5", "--save", str(save)],
                            stdin=worker, stdout=worker, stderr=worker, env=env, preexec_fn=own_terminal)
    os.close(worker)
    try:
        def saved_moves() -> int:
            try:
                return len(saved_history(save))
            except (OSError, ValueError):
                return -1

        def wait_for(done: Callable[[], bool]) -> None:
            end = time.monotonic() + 60
            while not done():
                assert time.monotonic() < end, "the game did not get there"
                if select.select([controller], [], [], 0.05)[0]:
                    os.read(controller, 65536)

        wait_for(lambda: saved_moves() == 0)  # saved as it starts
        os.write(controller, b"1")
        wait_for(lambda: saved_moves() >= 1)
        os.write(controller, b"2")
        wait_for(lambda: saved_moves() >= 2)
        wait_for(lambda: saved_moves() == len(saved_history(save)) and proc.poll() is None)
        before = saved_history(save)
        os.close(controller)  # the terminal window is closed
        assert proc.wait(timeout=60) != 0
    finally:
        if proc.poll() is None:
            proc.kill()
    after = saved_history(save)  # (the bot may have answered, and saved its move, as the window closed)
    assert after[:len(before)] == before and len(before) >= 2
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]
    play_on_after_resume(save)
