"""Play Converge in the terminal, line by line: for pipes, scripts, screen readers and ``--plain``; and the
``--json`` protocol for programs. (On a terminal, ``converge play`` is the full-screen game: tui.py.)

The client is a thin loop around a :class:`~converge.cli.play_session.Session`. Everything it shows a person
comes from ``observation(player)`` of that person; bots see only their own view too.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from converge.cli.play_session import (
    Session,
    UndoRefused,
    equal_scores_line,
    narration_lines,
    round_final_board,
    saved_text,
)
from converge.cli.saves import SavedMatch, Seat, default_save_dir
from converge.cli.screen import CardStyle, board, menu, render
from converge.engine import ConvergeError, IllegalActionError, Match
from converge.engine.schema import EventDoc, LegalAction, legal_actions_of
from converge.texts import how_to_play

if TYPE_CHECKING:
    from converge.bots.base import Bot
    from converge.bots.hint import Option

__all__ = ["CLEAR_ALL", "QuitGame", "Seat", "TerminalGame", "choose_saved", "console_for", "default_record_path",
           "default_save_dir", "help_text", "line_reader", "play_json"]


def help_text(undo: bool) -> str:
    """The line mode's help; ``undo``: whether undo is offered (against a bot; not in hot-seat)."""
    undo_lines = ("  undo       take back your last decision\n"
                  "  undo turn  take back your whole turn: choose your card again\n") if undo else ""
    return (
        "Each turn the artifact holder (the lead) plays a card, then the other player plays one.\n"
        "Choose a card, then how to play it: discard it for its effect, declare it as a shared goal,\n"
        "or add it to a faction (yours or theirs). At the end of the turn the goals are scored:\n"
        "if the lead scores more, the lead wins the round; if the other scores more, the artifact\n"
        "passes to them. First to win 2 rounds wins the match.\n\n"
        "At a prompt type the number of a choice (or its name, e.g. ALC3, discard, mine, done), or:\n"
        "  help       this text               rules      how to play, with every effect\n"
        "  hint       the strong bot's options, with its estimated chance to win the round\n"
        f"{undo_lines}"
        "  quit       leave (the match is saved after every move: converge play --resume continues it)\n")

InputFn = Callable[[str], str]

#: The longest word of input read as a choice; longer ones are refused without being echoed in full.
MAX_WORD = 32

#: Erase the screen and the terminal's scrollback (``ESC [3J``, which xterm, VTE, iTerm2, kitty, Windows
#: Terminal... support), cursor home: what the hot-seat screen sends before and after passing the device.
CLEAR_ALL = "\x1b[H\x1b[2J\x1b[3J"

#: The hint's search: enough to tell good options from bad ones in about a second.


def shorten(word: str, limit: int = MAX_WORD) -> str:
    """``word`` as typed, cut to ``limit`` characters (with "…") so that an answer is never echoed in full."""
    return word if len(word) <= limit else word[:limit] + "…"


class QuitGame(Exception):
    """The player asked to leave (or input ended)."""


def rules_text() -> str:
    """The rules for players (how to play, with the glossary of effects)."""
    return how_to_play()


class TerminalGame:
    """One session of play, line by line: a match, then rematches while the players want them."""

    def __init__(self, session: Session, console: Console, read: InputFn,
                 hint_simulations: int | None = None, resumed: bool = False):
        self.session = session
        self.console = console
        self.read = read
        self.hotseat = session.hotseat
        self.hint_simulations = hint_simulations  # None: the hint's budget, whose chances were measured
        self.resumed = resumed  # a saved match taken up again: say so, and where it stands
        self.style = CardStyle(session.match.playset.decks)
        self.last_viewer = -1
        #: the last hint, the number of actions played when it was asked, and the option then played
        self.last_hint: tuple[int, list[Option], int] | None = None

    @property
    def match(self) -> Match:
        return self.session.match

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return self.session.seats

    # ------------------------------------------------------------------ output

    def say(self, text: str | Text, style: str = "", wrap: bool = True) -> None:
        """Print a line. Plain strings are never read as rich markup: they may hold what the player typed
        ("[/x]"). ``wrap=False`` keeps it on one line (a file path, to be copied whole)."""
        self.console.print(Text(text, style=style) if isinstance(text, str) else text, style=style,
                           highlight=False, soft_wrap=not wrap)

    def other(self, viewer: int) -> str:
        return self.session.other_name(viewer)

    def narrate(self, viewer: int) -> None:
        """Print the events this viewer has not read yet (their own view of them)."""
        s = self.session
        start = len(s.log[viewer])
        s.fetch(viewer)
        log = s.log[viewer]
        for i in range(start, len(log)):
            e = log[i]
            kind = e["kind"]
            if kind == "dealt":  # the hand is on screen
                continue
            if kind == "draw" and e["player"] == viewer:  # "you drew X" follows
                continue
            if kind == "round_start":
                self.say(Text(f"— {e['text']} —", style="bold"))
                continue
            bold = kind in ("round_end", "match_end", "artifact", "score")
            self.say(Text(f"  · {e['text']}", style="bold" if bold else "dim"))
            stays = equal_scores_line(log, i, viewer, self.other(viewer), self.match.holder)
            if stays:
                self.say(Text(f"  · {stays}", style="bold"))
            if kind == "round_end":
                self.round_summary(viewer, e)

    def round_summary(self, viewer: int, event: EventDoc) -> None:
        """The ended round's final goals, who scored each and why, and the rounds won so far."""
        final = round_final_board(self.match, int(event["round"]), viewer)
        if final is not None:
            self.say(Text(f"Round {event['round']} — the board at its end:", style="bold"))
            self.console.print(board(final, self.style, viewer, self.match.playset.skillsets, self.other(viewer)))
        wins = [sum(1 for e in self.session.log[viewer] if e["kind"] == "round_end" and e["player"] == p)
                for p in (0, 1)]
        self.say(Text(f"Rounds won: you {wins[viewer]} : {wins[1 - viewer]} {self.other(viewer)}", style="bold"))

    # ------------------------------------------------------------------ the loop

    def intro(self) -> None:
        m = self.match
        opponent = ("two players at one screen" if self.hotseat else
                    f"you against the {next(s.name for s in self.seats if s.bot is not None)}")
        self.say(f"Converge — playset {', '.join(m.playset.skillsets)}; {opponent}. Type 'help' for how to play.",
                 style="bold")
        if not self.resumed:
            return
        self.say(f"Taking up the match saved in {self.session.save_path}, where it was left: round {m.round_no}, "
                 f"turn {m.turn_no}.", wrap=False)
        humans = self.session.humans()
        if self.hotseat or not humans:  # what each player saw is theirs: the pass-the-device screen comes first
            return
        v = humans[0]
        log = self.session.log[v]
        for line, kind in narration_lines(log, self.session.round_start(v), len(log), v, self.other(v), m.holder):
            self.say(Text(line if kind == "round_start" else f"  · {line}", style="bold" if kind else "dim"))

    def play(self) -> int:
        """Play to the end (with rematches); return 0, also after a quit (the match is saved after every
        move, and once more as it starts)."""
        self.intro()
        self.session.save()
        self.warn_unsaved()
        while True:
            try:
                self.play_match()
            except QuitGame:
                self.say(saved_text(self.session.save(), False, self.session.humans()), wrap=False)
                return 0
            path = self.session.save_path
            if path:
                self.say(saved_text(path, True, self.session.humans()), wrap=False)
            if not self.ask_rematch():
                return 0

    def warn_unsaved(self) -> None:
        """Say so when the last save failed (a full disk...): the player should know before going on."""
        if self.session.save_problem:
            self.say(self.session.save_problem, style="yellow", wrap=False)

    def play_match(self) -> None:
        s = self.session
        while not self.match.is_terminal:
            p = self.match.current_player
            if s.is_bot(p):
                s.apply(s.bot_action(p), p)
                continue
            self.human_decision(p)
            self.warn_unsaved()
        for h in s.humans() or [0]:
            self.show_end(h)

    def human_decision(self, p: int) -> None:
        if self.hotseat and self.last_viewer != p:
            self.pass_device(p)
        self.narrate(p)
        obs = self.match.observation(p, events_from=self.session.seen[p])
        decision = obs["decision"]
        assert decision is not None  # it is this player's decision
        select = decision["kind"] == "select"
        if self.last_viewer != p or select:  # a new play: the whole screen (the menu lists the hand)
            self.console.print(render(obs, self.style, other=self.other(p), show_hand=not select))
        self.last_viewer = p
        self.session.before_decision(p)
        legal = legal_actions_of(obs)
        self.console.print(menu(obs, self.style))
        label = f"{self.seats[p].name}, your choice" if self.hotseat else "Your choice"
        undo = self.session.can_undo()
        while True:
            raw = self.prompt(f"{label} (1-{len(legal)}, or help, rules, hint, {'undo, ' if undo else ''}quit): ")
            word = " ".join(raw.strip().lower().split())
            if word in ("help", "?", "h"):
                self.say(help_text(undo))
                continue
            if word == "rules":
                self.show_rules()
                continue
            if word == "hint":
                self.show_hint(p)
                continue
            if word == "quit":
                raise QuitGame
            if word in ("undo", "undo turn"):
                try:
                    message = self.session.undo(p, whole_play=word == "undo turn")
                except UndoRefused as exc:
                    self.say(str(exc), style="yellow")
                    continue
                self.say(message, style="bold")
                self.last_viewer = -1
                self.last_hint = None
                return
            action = self.parse(word, legal)
            if action is None:
                continue
            if self.last_hint is not None and self.last_hint[0] == len(self.match.history):
                self.last_hint = (self.last_hint[0], self.last_hint[1], action)
            self.session.apply(action, p)
            return

    def parse(self, word: str, legal: list[LegalAction]) -> int | None:
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
        name = self.seats[p].name
        self.say(Text(f"Pass the device to {name}.", style="bold"))
        self.prompt(f"{name}, press Enter when only you can see the screen. ")
        self.clear_all()

    def show_rules(self) -> None:
        text = rules_text()
        if self.console.is_terminal:
            with self.console.pager(styles=False):
                self.console.print(Markdown(text))
        else:
            self.console.print(Markdown(text))

    def show_hint(self, p: int) -> None:
        from converge.bots.hint import follow_on, hint, measured, note, verdict

        m = self.match
        legal = legal_actions_of(m.observation(p, events_from=self.session.seen[p]))
        numbers = {a["id"]: i for i, a in enumerate(legal, start=1)}
        labels = {a["id"]: a["label"] for a in legal}
        options = None
        if self.last_hint is not None and self.last_hint[0] == len(m.history) - 1:
            # the next step of the play the last hint was about: the same search's figures, so they agree
            options = follow_on(self.last_hint[1], self.last_hint[2], [a["id"] for a in legal])
        if options is None:
            self.say("Thinking…", style="dim")
            options = hint(m.view(p), simulations=self.hint_simulations, seed=len(m.history))
        self.last_hint = (len(m.history), options, -1)
        self.say(Text("Hint — from what you can see, never the hidden cards: " +
                      verdict(options, measured(self.hint_simulations, m.view(p))), style="bold"))
        self.say("Your chance to win this round with each choice (played on as well as the bot would):")
        for rank, o in enumerate(options):
            label = labels.get(o.action, o.label)
            best = "  ← best" if rank == 0 and not o.equal else ""
            self.say(f"  {numbers.get(o.action, '?'):>2}. {label}: {note(o)}{best}")

    def show_end(self, viewer: int) -> None:
        self.narrate(viewer)
        m = self.match
        wins = m.round_wins
        rounds = [e for e in self.session.log[viewer] if e["kind"] == "round_end"]
        if self.hotseat:
            winner = self.seats[m.winner].name
            self.say(Text(f"{winner} wins the match, {wins[m.winner]} round{'s' if wins[m.winner] != 1 else ''} "
                          f"to {wins[1 - m.winner]}.", style="bold green"))
        else:
            won = m.winner == viewer
            self.say(Text(f"You {'win' if won else 'lose'} the match, {wins[viewer]} round"
                          f"{'s' if wins[viewer] != 1 else ''} to {wins[1 - viewer]}.",
                          style="bold green" if won else "bold red"))
        for e in rounds:
            self.say(f"  {e['text']}")

    def ask_rematch(self) -> bool:
        try:
            answer = self.read("Rematch? The loser starts with the artifact. [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        if answer.strip().lower() not in ("y", "yes"):
            return False
        self.session.rematch()
        self.warn_unsaved()
        self.last_hint = None
        self.last_viewer = -1
        self.say(f"Match {self.session.matches_played + 1} — playset "
                 f"{', '.join(self.match.playset.skillsets)}", style="bold")
        return True


def play_json(match: Match, human: int, opponent: Bot, stdin: TextIO, stdout: TextIO) -> int:
    """Machine play: one JSON observation per line out, one action (id or string) per line in.

    Errors are JSON lines ``{"error": "..."}``; the last line is the final observation.
    """
    def send(doc: Mapping[str, object]) -> None:
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


def line_reader(console: Console) -> InputFn:
    """Reads a line typed at a prompt (printed on ``console``) from standard input, EOFError at its end;
    through a pipe, what was read is shown after the prompt, as a terminal would have echoed it."""
    def read(prompt: str) -> str:
        console.print(prompt, end="", highlight=False, markup=False)
        console.file.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        if not sys.stdin.isatty():  # scripted play: show what was typed, as a terminal would
            console.print(line.rstrip("\n"), highlight=False, markup=False)
        return line.rstrip("\n")

    return read


def choose_saved(saved: list[SavedMatch], console: Console, read: InputFn) -> SavedMatch | None:
    """``converge play --resume`` in the line mode: the unfinished matches as a numbered menu; the one
    chosen, or None (``quit``, or the end of input)."""
    console.print(Text("Unfinished matches, the last saved first:", style="bold"))
    for n, s in enumerate(saved, start=1):
        console.print(f"  {n:>2}. {s.describe()}", highlight=False, markup=False)
    while True:
        try:
            answer = read(f"Which match do you take up again? (1-{len(saved)}, or quit): ").strip().lower()
        except (EOFError, KeyboardInterrupt):
            return None
        if answer in ("quit", "q"):
            return None
        if answer.isascii() and answer.isdigit() and len(answer) <= 4 and 1 <= int(answer) <= len(saved):
            return saved[int(answer) - 1]
        console.print(Text(f"Type a number from 1 to {len(saved)}, or quit.", style="yellow"))


def default_record_path() -> Path:
    """A new file for a match record: named by the time and a random tag, never the match's seed (which
    would deal its cards to anyone who saw the name)."""
    return default_save_dir() / f"match-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.json"
