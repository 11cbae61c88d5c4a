"""Play Converge in the terminal: against a bot, or two people at one screen (hot-seat).

The client is a thin loop around the engine's public API. Everything it shows a person comes from
``observation(player)`` of that person; bots see only their own observation too.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from converge.bots.base import Bot
from converge.cli.screen import CardStyle, menu, render, score_line
from converge.engine import ConvergeError, IllegalActionError, Match

HELP = """\
Each turn the artifact holder (the lead) plays a card, then the other player plays one.
Choose a card, then how to play it: discard it for its effect, declare it as a shared goal,
or add it to a faction (yours or theirs). At the end of the turn the goals are scored:
if the lead scores more, the lead wins the round; if the other scores more, the artifact
passes to them. First to win 2 rounds wins the match.

At a prompt type the number of a choice (or its name, e.g. ALC3, discard, mine, done), or:
  help   this text          rules  the full rules
  undo   take back your last decision (against a bot)
  quit   save the match record and leave
"""

InputFn = Callable[[str], str]

#: The longest word of input read as a choice; longer ones are refused without being echoed in full.
MAX_WORD = 32

#: Erase the screen and the terminal's scrollback (``ESC [3J``, which xterm, VTE, iTerm2, kitty, Windows
#: Terminal... support), cursor home: what the hot-seat screen sends before and after passing the device.
CLEAR_ALL = "\x1b[H\x1b[2J\x1b[3J"


def shorten(word: str, limit: int = MAX_WORD) -> str:
    """``word`` as typed, cut to ``limit`` characters (with "…") so that an answer is never echoed in full."""
    return word if len(word) <= limit else word[:limit] + "…"


class QuitGame(Exception):
    """The player asked to leave (or input ended)."""


def default_save_dir() -> Path:
    """Where match records go by default: the user's data directory."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "converge" / "matches"


def rules_text() -> str:
    """The project's RULES.md, shipped in the package."""
    return (resources.files("converge") / "RULES.md").read_text(encoding="utf-8")


@dataclass
class Seat:
    """Who sits in a seat: a person (``bot is None``) or a bot's choice function."""

    name: str
    bot: Bot | None = None


class TerminalGame:
    """One session of play in the terminal: a match, then rematches while the players want them."""

    def __init__(self, match: Match, seats: tuple[Seat, Seat], console: Console, read: InputFn,
                 save_path: Path | None, hotseat: bool = False):
        self.match = match
        self.seats = seats
        self.console = console
        self.read = read
        self.save_path = save_path
        self.hotseat = hotseat
        self.style = CardStyle(match.playset.decks)
        self.seen = [0, 0]  # events already narrated to each player
        self.last_viewer = -1
        self.undo_stack: list[tuple[int, Match]] = []  # (player, snapshot before their decision)

    # ------------------------------------------------------------------ helpers

    def humans(self) -> list[int]:
        return [p for p in (0, 1) if self.seats[p].bot is None]

    def say(self, text: str | Text, style: str = "") -> None:
        # Plain strings are never read as rich markup: they may hold what the player typed ("[/x]").
        self.console.print(Text(text, style=style) if isinstance(text, str) else text, style=style,
                           highlight=False)

    def narrate(self, viewer: int) -> None:
        """Print the events this viewer has not seen yet (their own view of them)."""
        events = self.match.observation(viewer)["events"]
        new = events[self.seen[viewer]:]
        self.seen[viewer] = len(events)
        for e in new:
            if e["kind"] == "dealt":  # the hand is on screen
                continue
            if e["kind"] == "draw" and e["player"] == viewer:  # "you drew X" follows
                continue
            style = "bold" if e["kind"] in ("round_end", "match_end", "artifact", "score") else "dim"
            if e["kind"] == "round_start":
                self.say(Text(f"— {e['text']} —", style="bold"))
                continue
            self.say(Text(f"  · {e['text']}", style=style))
            if e["kind"] == "round_end":
                self.round_summary(viewer)

    def round_summary(self, viewer: int) -> None:
        wins = self.match.round_wins
        me = viewer
        self.say(Text(f"Rounds: you {wins[me]} : {wins[1 - me]} them", style="bold"))

    def save(self) -> Path | None:
        if self.save_path is None:
            return None
        path = self.save_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.match.record(), indent=1), encoding="utf-8")
        return path

    # ------------------------------------------------------------------ the loop

    def play(self) -> int:
        """Play to the end (with rematches); return 0, or 0 after a quit once the record is saved."""
        while True:
            try:
                self.play_match()
            except QuitGame:
                path = self.save()
                self.say(f"Match saved to {path}" if path else "Match not saved.")
                return 0
            path = self.save()
            if path:
                self.say(f"Match record saved to {path} (replay it with: converge replay {path})")
            if not self.ask_rematch():
                return 0

    def play_match(self) -> None:
        m = self.match  # one match object all along: undo restores it in place
        for h in self.humans():
            if not self.hotseat:
                self.say(f"You are player {h}. Playset: {', '.join(m.playset.skillsets)}. "
                         "Type 'help' for how to play.", style="bold")
        while not m.is_terminal:
            p = m.current_player
            seat = self.seats[p]
            if seat.bot is not None:
                m.apply(seat.bot.decide(m.view(p)), player=p)
                continue
            self.undo_stack.append((p, m.snapshot()))
            self.human_decision(p)
        for h in self.humans() or [0]:
            self.show_end(h)

    def human_decision(self, p: int) -> None:
        if self.hotseat and self.last_viewer != p:
            self.pass_device(p)
        obs = self.match.observation(p)
        self.narrate(p)
        if self.last_viewer != p or obs["decision"].get("card") is None:  # a new play: the whole screen
            self.console.print(render(obs, self.style))
        self.last_viewer = p
        decision = obs["decision"]
        legal = decision["legal_actions"]
        self.console.print(menu(decision))
        while True:
            raw = self.prompt(f"[{p}] choice (1-{len(legal)}, help, rules, undo, quit): ")
            word = raw.strip().lower()
            if word in ("help", "?", "h"):
                self.say(HELP)
                continue
            if word == "rules":
                self.show_rules()
                continue
            if word == "quit":
                raise QuitGame
            if word == "undo":
                if self.undo(p):
                    return
                continue
            action = self.parse(word, legal)
            if action is None:
                continue
            self.match.apply(action, player=p)
            return

    def parse(self, word: str, legal: list[dict[str, Any]]) -> int | None:
        if not word:
            self.say("Type the number of a choice (or 'help').", style="yellow")
            return None
        if word.isascii() and word.isdigit():  # "12" (not "²", which int() refuses, nor "١٢")
            n = int(word) if len(word) <= MAX_WORD else 0
            if 1 <= n <= len(legal):
                return int(legal[n - 1]["id"])
            self.say(f"There is no choice {shorten(word)}: choose 1 to {len(legal)}.", style="yellow")
            return None
        if len(word) > MAX_WORD:  # no action name is that long: do not echo it all back
            self.say(f"'{shorten(word)}' is not one of the choices. Type a number from 1 to {len(legal)}.",
                     style="yellow")
            return None
        try:
            action = self.match.parse_action(word)
        except IllegalActionError as exc:
            self.say(f"{exc}. Type a number from 1 to {len(legal)}.", style="yellow")
            return None
        if action not in [a["id"] for a in legal]:
            self.say(f"'{word}' is not one of the choices now.", style="yellow")
            return None
        return action

    def prompt(self, text: str) -> str:
        try:
            return self.read(text)
        except (EOFError, KeyboardInterrupt):
            self.say("\nInput ended.")
            raise QuitGame from None

    def clear_all(self) -> None:
        """Erase the screen *and the scrollback*: nothing the last player saw can be scrolled back to."""
        if self.console.is_terminal:
            self.console.file.write(CLEAR_ALL)
            self.console.file.flush()

    def pass_device(self, p: int) -> None:
        self.clear_all()
        self.say(Text(f"Pass the device to player {p} ({self.seats[p].name}).", style="bold"))
        self.prompt(f"Player {p}, press Enter when only you can see the screen. ")
        self.clear_all()

    def show_rules(self) -> None:
        try:
            text = rules_text()
        except OSError:
            self.say("The rules file is missing from this installation.", style="yellow")
            return
        if self.console.is_terminal:
            with self.console.pager(styles=False):
                self.console.print(Markdown(text))
        else:
            self.console.print(Markdown(text))

    def undo(self, p: int) -> bool:
        """Take back ``p``'s last decision (and the bot's replies after it); only against bots."""
        if self.hotseat or len(self.humans()) != 1:
            self.say("Undo is only available against a bot.", style="yellow")
            return False
        self.undo_stack.pop()  # the snapshot of the decision being made now
        while self.undo_stack and self.undo_stack[-1][0] != p:
            self.undo_stack.pop()
        if not self.undo_stack:
            self.say("Nothing to undo yet.", style="yellow")
            self.undo_stack.append((p, self.match.snapshot()))
            return False
        _, snapshot = self.undo_stack.pop()  # the loop snapshots that decision again
        self.match.restore(snapshot)
        for seat in self.seats:
            if seat.bot is not None:
                seat.bot.reset()
        self.seen[p] = len(self.match.observation(p)["events"])
        self.say("Took back your last decision.", style="bold")
        self.last_viewer = -1
        return True

    def show_end(self, viewer: int) -> None:
        self.narrate(viewer)
        m = self.match
        wins = m.round_wins
        if self.hotseat:
            self.say(Text(f"Player {m.winner} wins the match, {wins[m.winner]} rounds to {wins[1 - m.winner]}.",
                          style="bold green"))
            return
        won = m.winner == viewer
        self.say(Text(f"You {'win' if won else 'lose'} the match, {wins[viewer]} rounds to {wins[1 - viewer]}.",
                      style="bold green" if won else "bold red"))
        self.say(score_line(m.observation(viewer)))

    def ask_rematch(self) -> bool:
        try:
            answer = self.read("Rematch? The loser starts with the artifact. [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        if answer.strip().lower() not in ("y", "yes"):
            return False
        old = self.match
        loser = 1 - old.winner
        for seat in self.seats:
            if seat.bot is not None:
                seat.bot.reset()
        self.match = Match.new(old.playset, seed=(old.seed + 1) % 2**63, start=loser)
        self.seen = [0, 0]
        self.undo_stack = []
        self.last_viewer = -1
        if self.save_path is not None:
            self.save_path = self.save_path.with_name(f"{self.save_path.stem}-rematch{self.save_path.suffix}")
        return True


def play_json(match: Match, human: int, opponent: Bot, stdin: TextIO, stdout: TextIO) -> int:
    """Machine play: one JSON observation per line out, one action (id or string) per line in.

    Errors are JSON lines ``{"error": "..."}``; the last line is the final observation.
    """
    def send(doc: dict[str, Any]) -> None:
        stdout.write(json.dumps(doc, separators=(",", ":")) + "\n")
        stdout.flush()

    while not match.is_terminal:
        p = match.current_player
        if p != human:
            match.apply(opponent.decide(match.view(p)), player=p)
            continue
        send(match.observation(human))
        while True:
            line = stdin.readline()
            if not line:
                return 1
            text = line.strip()
            if len(text) > MAX_WORD:
                send({"error": f"not an action id or name: {shorten(text)!r}"})
                continue
            try:
                number = text[1:] if text.startswith("-") else text
                action: int | str = int(text) if number.isascii() and number.isdigit() else text
                match.apply(action, player=human)
                break
            except ConvergeError as exc:
                send({"error": str(exc)})
    send(match.observation(human))
    return 0


def console_for(stream: TextIO | None = None, width: int | None = None) -> Console:
    """A rich console that honours NO_COLOR and is plain when not writing to a terminal."""
    return Console(file=stream or sys.stdout, width=width, no_color="NO_COLOR" in os.environ or None,
                   highlight=False, soft_wrap=False)


def default_record_path(seed: int) -> Path:
    return default_save_dir() / f"match-{time.strftime('%Y%m%d-%H%M%S')}-{seed}.json"
