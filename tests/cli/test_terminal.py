"""Playing in the terminal: piped and pseudo-terminal play, bad input at every prompt, hot-seat privacy,
NO_COLOR, 80 columns, undo, quit, and the --json protocol driven by a second process."""

from __future__ import annotations

import io
import itertools
import json
import os
import pty
import random
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from converge import Match
from converge.bots import make_bot
from converge.cli.play_session import Session
from converge.cli.screen import CardStyle, render
from converge.cli.terminal import CLEAR_ALL, QuitGame, Seat, TerminalGame, play_json
from tests.helpers import finished_matches, setup

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CONVERGE = [sys.executable, "-m", "converge"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS")}
    env.update(extra)
    return env


def _run_piped(args: list[str], stdin: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CONVERGE, *args], input=stdin, capture_output=True, text=True, timeout=120,
                          env=_env(XDG_DATA_HOME=str(tmp_path), **env))


# ---------------------------------------------------------------------- whole matches


def test_whole_match_through_piped_input(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    done = _run_piped(["play", "--seed", "3", "--save", str(save)], "1\n" * 400 + "n\n", tmp_path, NO_COLOR="1")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert re.search(r"You (win|lose) the match, \d rounds? to \d\.", done.stdout)
    record = json.loads(save.read_text(encoding="utf-8"))
    replayed = Match.replay(record)
    assert replayed.is_terminal
    assert ("You win the match" in done.stdout) == (replayed.winner == 0)
    said = " ".join(done.stdout.split())
    assert f"review your decisions with: converge review {save} --seat 1" in said  # the next thing to do


def test_record_saved_under_the_user_data_directory_by_default(tmp_path: Path) -> None:
    seed = 987654321987
    done = _run_piped(["play", "--seed", str(seed), "--decks", "healer,alchemist,searcher"], "1\n" * 400 + "n\n",
                      tmp_path, NO_COLOR="1")
    assert "playset Alchemist, Searcher, Healer" in done.stdout
    assert done.returncode == 0, done.stderr
    saved = list((tmp_path / "converge" / "matches").glob("match-*.json"))
    assert len(saved) == 1 and Match.replay(json.loads(saved[0].read_text())).is_terminal
    # the file's name is chosen at the start and shown: it must not give the seed, which deals every card
    assert str(seed) not in saved[0].name and str(seed) not in done.stdout


def test_a_rematch_is_not_dealt_from_anything_the_finished_match_shows(tmp_path: Path) -> None:
    """M2's rematch: its deal is not a function of the finished match (whose record, seed included, anyone may
    read once it is over), so neither player can work out the rematch's hands, artifact or deck."""
    finished = finished_matches(1)[0]
    deals = set()
    for _ in range(4):
        seats = (Seat("you"), Seat("greedy", "greedy", 1))
        session = Session(finished.clone(), seats, tmp_path / "r.json")
        session.rematch()
        m = session.match
        deals.add((tuple(m.observation(0)["hand"]), tuple(m.observation(1)["hand"]), m.seed))
        assert m.round_first_holders == [1 - finished.winner]  # the loser starts (M2)
        assert session.save_path is not None and session.save_path.name == "r-rematch-1.json"
    assert len(deals) == 4  # the same finished match, four different rematches
    session.match.random_playout(random.Random(1))
    session.rematch()
    assert session.save_path.name == "r-rematch-2.json"


def _read_until_any(fd: int, markers: tuple[bytes, ...], timeout: float = 60) -> bytes:
    """Read the terminal until one of ``markers`` appears (or the program closes it)."""
    out = b""
    end = time.monotonic() + timeout
    while not any(m in out for m in markers):
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out waiting for {markers!r}; got {out[-500:]!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the program ended and closed the terminal
            break
        if not chunk:
            break
        out += chunk
    return out


def test_whole_match_through_a_pseudo_terminal_with_plain() -> None:
    controller, worker = pty.openpty()
    proc = subprocess.Popen([*CONVERGE, "play", "--plain", "--seed", "8", "--set", "sparks", "--no-save"],
                            stdin=worker, stdout=worker, stderr=worker,
                            env=_env(COLUMNS="80", LINES="24", TERM="xterm-256color"), close_fds=True)
    os.close(worker)
    screen = b""
    try:
        for _ in range(500):
            chunk = _read_until_any(controller, (b"choice (1-", b"Rematch?"))
            screen += chunk
            if b"Rematch?" in chunk:
                os.write(controller, b"n\n")
                break
            os.write(controller, b"1\n")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(controller)
    text = screen.decode("utf-8", "replace")
    assert "\x1b[" in text, "a real terminal gets colour"
    assert re.search(r"You (win|lose) the match", ANSI.sub("", text))


def _in_a_terminal(args: list[str], answer: Any, done: bytes, last: bytes = b"") -> str:
    """Run ``converge ARGS`` in a pseudo-terminal, answering each prompt (``answer(prompt_seen)`` -> bytes)
    until ``done`` appears, answered with ``last``; what the screen showed, without colour codes."""
    controller, worker = pty.openpty()
    proc = subprocess.Popen([*CONVERGE, *args], stdin=worker, stdout=worker, stderr=worker,
                            env=_env(COLUMNS="100", LINES="40", TERM="xterm-256color"), close_fds=True)
    os.close(worker)
    screen = b""
    try:
        for _ in range(800):
            chunk = _read_until_any(controller, (b"choice (1-", done), timeout=120)
            screen += chunk
            if done in chunk:
                os.write(controller, last)
                break
            if b"choice (1-" not in chunk:  # the program ended
                break
            os.write(controller, answer(ANSI.sub("", chunk.decode("utf-8", "replace"))))
        assert proc.wait(timeout=120) == 0, screen[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(controller)
    return ANSI.sub("", screen.decode("utf-8", "replace"))


def test_play_a_match_then_review_and_practise_it_in_a_terminal(tmp_path: Path) -> None:
    """The way a player meets ``converge review``: a match played in a terminal (always the first choice: not
    good play) ends by naming the command; run as said, with ``--practise``, it judges each decision, then
    puts the player back at a marked one, judges the new answer, and goes on to the next."""
    save = tmp_path / "m.json"
    played = _in_a_terminal(["play", "--plain", "--seed", "8", "--set", "sparks", "--save", str(save)],
                            lambda _seen: b"1\n", b"Rematch?", b"n\n")
    said = re.search(r"converge review (\S+) --seat (\d)", " ".join(played.split()))
    assert said and Path(said.group(1)) == save, played[-600:]
    answers = iter([b"x\n", b"1\n"])

    def practise(seen: str) -> bytes:
        return next(answers, b"skip\n") if "Your choice" in seen else b"skip\n"

    shown = _in_a_terminal(["review", str(save), "--seat", said.group(2), "--simulations", "300", "--practise"],
                           practise, b"\x00never")  # (it ends by itself, after the last practice)
    assert "Review of Player 1's decisions" in shown and "never the cards revealed later" in shown
    assert re.search(r"Totals: .* in \d+ decisions with a choice\.", shown), shown[-800:]
    assert "Practice 1 of " in shown, shown[-800:]
    assert "Type a number from 1 to" in shown  # "x" is not an answer: asked again, nothing judged
    assert re.search(r"\d+% to win the round — (the best choice|\d+ points? below the best)", shown)
    assert "In the match you played" in shown
    assert "Traceback" not in shown


# ---------------------------------------------------------------------- scripted sessions in-process


class Script:
    """Feeds answers to the game's prompts and records every prompt it was asked."""

    def __init__(self, answers: Iterator[str] | list[str]):
        self.answers = iter(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self.answers)
        except StopIteration:
            raise EOFError from None


def _game(match: Match, answers: list[str] | Iterator[str], tmp_path: Path, hotseat: bool = False,
          width: int = 80) -> tuple[TerminalGame, io.StringIO, Script]:
    out = io.StringIO()
    console = Console(file=out, width=width, no_color=True, highlight=False)
    script = Script(answers)
    seats = (Seat("p0"), Seat("p1")) if hotseat else (Seat("you"), Seat("greedy", "greedy", 1))
    return TerminalGame(Session(match, seats, tmp_path / "rec.json", hotseat), console, script), out, script


@pytest.mark.parametrize("bad", ["0", "99", "-1", "xyz", "", "ALC9", "declare please", "💥" * 50, "[/x]",
                                 "[bold]ALC1", "²", "٣", "9" * 5000, "x" * 5000])
def test_invalid_input_at_every_kind_of_prompt(tmp_path: Path, bad: str) -> None:
    # card prompt, mode prompt, effect target prompt, skillset prompt, faction prompt: a bad answer first
    m = setup(hands=(["ALC1", "MEC3"], ["ARC2"]), factions=(["MEC5"], []), holder=0)
    answers = [bad, "ALC1", bad, "discard", bad, "MEC5", bad, "Archivist", "quit"]
    game, out, script = _game(m, answers, tmp_path)
    assert game.play() == 0
    text = out.getvalue()
    assert "Traceback" not in text
    assert game.match.zones.skill[game.match.playset.index_of["MEC5"]] == 2  # converted to Archivist after all
    assert len(script.prompts) == len(answers)  # every bad answer was asked again
    assert (tmp_path / "rec.json").exists()  # quit saved the record


def test_mode_and_faction_prompts_reject_bad_input_then_accept(tmp_path: Path) -> None:
    m = setup(hands=(["MEC3", "ALC1"], ["ARC2"]), holder=0)
    game, out, _ = _game(m, ["MEC3", "5", "discard", "7", "theirs", "quit"], tmp_path)
    game.play()
    assert "There is no choice 5" in out.getvalue() and "There is no choice 7" in out.getvalue()
    assert len(game.match.zones.factions[1]) == 1  # Assemble put the revealed card in the opponent's faction


def test_help_rules_undo_and_quit(tmp_path: Path) -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=11, start=0)
    game, out, _ = _game(m, ["help", "rules", "1", "1", "undo", "quit"], tmp_path)
    game.play()
    text = out.getvalue()
    assert "At a prompt type the number of a choice" in text
    assert "How to play Converge" in text and "Glossary" in text  # the rules for players
    assert "Test: tests/" not in text and "T6" not in text  # not the developer rulebook
    assert "Took back your last decision." in text
    assert len(game.match.history) == 1  # back to just after the card choice: the mode was taken back
    record = json.loads((tmp_path / "rec.json").read_text())
    assert Match.replay(record).history == game.match.history


def test_undo_takes_back_the_bots_replies_too(tmp_path: Path) -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=2, start=0)
    answers = ["1", "2"]  # play the first card as a goal: the bot replies, the turn ends
    game, _, script = _game(m, [*answers, "1", "undo", "quit"], tmp_path)
    game.play()
    # after undo the human is back before their last decision (the card choice of turn 2)
    assert game.match.current_player == 0
    assert len(script.prompts) == 5


def test_hotseat_never_shows_one_player_the_others_hand(tmp_path: Path) -> None:
    m = Match.new(["protector", "searcher", "merchant"], seed=21, start=0)
    seen_by: dict[int, list[str]] = {0: [], 1: []}
    out = io.StringIO()
    game: TerminalGame

    def read(prompt: str) -> str:
        text = out.getvalue()
        out.seek(0)
        out.truncate()
        match = game.match
        viewer = match.current_player if not match.is_terminal else -1
        if viewer >= 0:
            seen_by[viewer].append(text)
            secret = set(match.zones.hands[1 - viewer]) - {match.playset.index_of[c] for c in
                                                     match.observation(viewer)["known_opponent_hand"]}
            # what this viewer was shown since the device was passed, in this round (earlier rounds'
            # narration may name cards that this round's deal put in the other hand)
            shown = text.split("Pass the device")[-1].split("— Round")[-1]
            for c in secret:
                assert match.playset.card_ids[c] not in shown, \
                    f"player {viewer} was shown {match.playset.card_ids[c]} from the other hand"
            if "Your hand" in shown:  # the hand section of the screen
                hand_block = shown.split("Your hand")[-1].split("Choose")[0]
                for c in match.zones.hands[viewer]:
                    assert match.playset.card_ids[c] in hand_block
        return "" if "press Enter" in prompt else "1"

    console = Console(file=out, width=80, no_color=True, highlight=False)
    game = TerminalGame(Session(m, (Seat("a"), Seat("b")), None, hotseat=True), console, read)
    game.play_match()
    assert seen_by[0] and seen_by[1]
    assert m.is_terminal or game.match.is_terminal


def test_hotseat_leaves_nothing_of_the_other_hand_in_the_scrollback() -> None:
    """A terminal keeps what was written since the scrollback was last erased: at each of a player's
    prompts, that holds no card of the other player's hand (nor of this round's hidden cards they know)."""
    m = Match.new(["alchemist", "searcher", "merchant"], seed=5, start=0)
    out = io.StringIO()
    game: TerminalGame
    checked = {0: 0, 1: 0}

    def read(prompt: str) -> str:
        terminal = out.getvalue().split(CLEAR_ALL)[-1]  # all a terminal still holds, scrollback included
        match = game.match
        if "press Enter" in prompt:
            assert "Pass the device" in terminal and terminal.count("\n") <= 2  # nothing else is left
            return ""
        viewer = match.current_player
        secret = set(match.zones.hands[1 - viewer]) - {match.playset.index_of[c] for c in
                                                 match.observation(viewer)["known_opponent_hand"]}
        shown = terminal.split("— Round")[-1]  # earlier rounds may name cards dealt again since
        for c in secret:
            assert not re.search(rf"\b{match.playset.card_ids[c]}\b", shown), \
                f"player {viewer}'s terminal still holds {match.playset.card_ids[c]} of the other hand"
        checked[viewer] += 1
        return "1"

    console = Console(file=out, width=80, force_terminal=True, color_system=None, highlight=False)
    game = TerminalGame(Session(m, (Seat("a"), Seat("b")), None, hotseat=True), console, read)
    game.play_match()
    assert game.match.is_terminal and checked[0] > 5 and checked[1] > 5
    passes = out.getvalue().count("Pass the device")
    assert passes > 5 and out.getvalue().count(CLEAR_ALL) == 2 * passes  # before and after each pass


def test_hotseat_erases_the_scrollback_of_a_real_terminal() -> None:
    controller, worker = pty.openpty()
    proc = subprocess.Popen([*CONVERGE, "play", "--plain", "--hotseat", "--seed", "8", "--set", "sparks",
                             "--no-save"],
                            stdin=worker, stdout=worker, stderr=worker,
                            env=_env(COLUMNS="80", LINES="24", TERM="xterm-256color"), close_fds=True)
    os.close(worker)
    screen = b""
    try:
        for _ in range(6):
            chunk = _read_until_any(controller, (b"choice (1-", b"press Enter"))
            screen += chunk
            os.write(controller, b"\n" if b"press Enter" in chunk else b"1\n")
    finally:
        proc.kill()
        proc.wait(timeout=30)
        os.close(controller)
    text = screen.decode("utf-8", "replace")
    parts = text.split("Pass the device")
    assert len(parts) >= 3
    for before, after in itertools.pairwise(parts[:-1]):
        # erased (screen and scrollback) before the pass screen, and again once Enter was pressed
        assert "\x1b[3J" in before.split("choice (1-")[-1], before[-300:]
        assert "\x1b[3J" in after.split("press Enter")[1].split("choice (1-")[0], after[:300]


def test_play_help_says_what_hotseat_protects_against(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.helpers import run

    code, out, _ = run(capsys, "play", "--help")
    text = " ".join(out.split())
    assert code == 0
    assert "nothing of the other player's hand is left on screen or in the scrollback" in text
    assert "does not protect against someone watching the screen" in text


def test_json_play_answers_hostile_lines_with_one_short_error_each() -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=4, start=0)
    before = m.observation(0)
    lines = ["²", "٣٣", "[/x]", "9" * 5000, "-" + "9" * 5000, "x" * 100_000, "-", "--1", "1e3", "0x1", "\x00"]
    stdin = io.StringIO("".join(line + "\n" for line in lines))
    stdout = io.StringIO()
    assert play_json(m, 0, make_bot("random", 1), stdin, stdout) == 1  # input ended
    replies = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert replies[0] == before
    errors = replies[1:]
    assert len(errors) == len(lines) and all(set(e) == {"error"} and len(e["error"]) <= 300 for e in errors)
    assert m.observation(0) == before  # nothing was played


def test_undo_is_refused_in_hotseat(tmp_path: Path) -> None:
    m = Match.new(["protector", "searcher", "merchant"], seed=2, start=0)
    game, out, _ = _game(m, ["", "undo", "quit"], tmp_path, hotseat=True)
    game.play()
    assert "Undo is only available against a bot." in out.getvalue()


# ---------------------------------------------------------------------- the screen


def _crowded() -> Match:
    m = setup(["delver", "astropath", "healer"],
              hands=(["DEL1", "DEL2", "AST3", "HEA4", "HEA5"], ["DEL3"]),
              factions=(["DEL4", "DEL5", "DEL6", "AST1"], ["HEA1", "HEA2", "HEA3", "AST2", "AST4"]),
              goals=["HEA6", "AST5"],
              conversions={"HEA2": {"skillset": "Delver", "rank": 6}}, guards={"DEL4": 0})
    return m


def test_crowded_state_fits_80_columns_and_marks_conversions() -> None:
    m = _crowded()
    out = io.StringIO()
    Console(file=out, width=80, no_color=True, highlight=False).print(
        render(m.observation(0), CardStyle(m.playset.decks)))
    lines = out.getvalue().splitlines()
    assert lines and max(len(line.rstrip()) for line in lines) <= 80
    text = out.getvalue()
    assert "HEA2→Del6" in text  # a converted card shows its printed values (its id) and what it is now
    assert "Highest rank total" in text or "Most" in text or "★" in text
    for card in ("DEL1", "DEL2", "AST3", "HEA4", "HEA5"):
        assert card in text
    assert "DEL3" not in text  # the opponent's hand


def test_no_color_means_no_escape_codes_and_colour_otherwise() -> None:
    m = _crowded()
    for no_color, expect in ((True, False), (False, True)):
        out = io.StringIO()
        Console(file=out, width=80, force_terminal=True, no_color=no_color or None,
                color_system="standard").print(render(m.observation(0), CardStyle(m.playset.decks)))
        has_colour = bool(re.search(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*38;", out.getvalue()))
        assert has_colour is expect


def test_no_color_environment_gives_plain_piped_output(tmp_path: Path) -> None:
    done = _run_piped(["play", "--seed", "5", "--no-save"], "1\n" * 400 + "n\n", tmp_path, NO_COLOR="1",
                      FORCE_COLOR="1")
    assert done.returncode == 0
    assert not re.search(r"\x1b\[[0-9;]*(3[0-7]|38;)", done.stdout)  # no colour (bold and italic stay)


# ---------------------------------------------------------------------- --json, driven by another process


DRIVER = r"""
import json, subprocess, sys
proc = subprocess.Popen([sys.executable, "-m", "converge", "play", "--json", "--seed", "9", "--opponent",
                         "greedy"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
decisions = errors = 0
sent_garbage = False
while True:
    line = proc.stdout.readline()
    if not line:
        break
    doc = json.loads(line)
    if "error" in doc:
        errors += 1
        continue
    if doc["is_terminal"]:
        print(json.dumps({"winner": doc["winner"], "decisions": decisions, "errors": errors,
                          "wins": doc["round_wins"]}))
        break
    if not sent_garbage:
        proc.stdin.write("not-an-action\n"); proc.stdin.flush(); sent_garbage = True
    legal = doc["decision"]["legal_actions"]
    proc.stdin.write(legal[-1]["action"] + "\n"); proc.stdin.flush()
    decisions += 1
proc.stdin.close()
sys.exit(proc.wait())
"""


def test_json_mode_is_played_by_a_second_process() -> None:
    done = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True, timeout=120,
                          env=_env())
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["winner"] in (0, 1) and max(result["wins"]) == 2
    assert result["decisions"] > 5 and result["errors"] == 1


def test_json_observations_hold_no_hidden_card(tmp_path: Path) -> None:
    done = _run_piped(["play", "--json", "--seed", "12"], "", tmp_path)
    line = done.stdout.splitlines()[0]
    first = json.loads(line)
    m = Match.new(first["playset"], seed=12)
    public = set(first["discard"]) | set(first["goals"]) | {c["id"] for f in first["factions"] for c in f}
    hidden = {m.playset.card_ids[c] for c in m.hidden_from(0)} - public
    assert hidden and not hidden & set(re.findall(r"[A-Z]{3}[1-6]", line))
    assert "seed" not in first and done.returncode == 1  # input ended before the match did


def test_quit_raises_no_traceback_on_end_of_input(tmp_path: Path) -> None:
    m = Match.new(["alchemist", "mechanist", "archivist"], seed=1, start=0)
    game, out, _ = _game(m, [], tmp_path)
    assert game.play() == 0
    assert "Input ended." in out.getvalue() and "Match saved to" in out.getvalue()
    with pytest.raises(QuitGame):
        game.prompt("again: ")
