"""The full-screen game (Textual): what ``converge play`` runs on a terminal.

The board stays on screen: the status line (round, artifact, rounds won, the other hand's size, the
playset), the goals with who scores each and why, both factions by skillset, the discard pile and the deck;
then the decision as a list (arrow keys and Enter, a number key, or the mouse) — choosing a card lists
your hand with each card's whole text —, and the narration of what happened. Keys in the footer: help,
rules, undo (a decision, or the whole turn; against a bot), hint, quit (asked first, as Ctrl+Q and Ctrl+C
are). The session saves the match after every move; the start screen offers the unfinished ones.

After every turn a summary says what was played and why the artifact moved, stayed, or the round ended,
and stays until you continue; a round's summary shows its final board; the match's lists the rounds and
offers a rematch. Hot-seat passes the device through a screen that shows nothing of either hand. Where rows
are short, the board gives each goal one line, the hand folds, and the choices always keep their rows.

Everything shown to a player comes from that player's observation (:class:`~converge.cli.session.Session`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Center, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Markdown, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from converge.bots.hint import Option as HintOption
from converge.bots.hint import follow_on, measured, note, verdict
from converge.cli.saves import SavedMatch
from converge.cli.screen import (
    CardStyle,
    board,
    decision_title,
    hand_view,
    numbered,
    option_text,
    status_line,
)
from converge.cli.session import (
    Session,
    UndoRefused,
    narration_lines,
    round_final_board,
    saved_text,
    their_move,
)
from converge.engine.schema import Board, FinalBoard, Observation, legal_actions_of
from converge.texts import how_to_play

#: The hint's search: enough to tell good options from bad ones in about a second.

ResultT = TypeVar("ResultT")

#: Seconds after a dialog closes during which Enter, space and clicks are taken for the same press repeated
#: (a double or triple press on "Keep playing", "I am ready"...), not for a choice in the game below.
DOUBLE_PRESS_SECONDS = 0.4


def help_text(undo: bool) -> RenderableType:
    """The help: how a turn goes, the keys (``undo``: whether undo is offered), the screen. Paragraphs are
    wrapped by the screen at its own width (a line broken by hand would be broken twice on a narrow one)."""
    keys = Table.grid(padding=(0, 2))
    keys.add_column(no_wrap=True, style="bold")
    keys.add_column()
    rows = [("↑ ↓ Enter", "choose (or a number key 1-9, or a click on a choice)"),
            ("?", "this help"), ("r", "how to play, with every effect"),
            ("h", "hint: the strong bot's chance to win the round after each of your choices")]
    if undo:
        rows += [("u", "undo your last decision"), ("U", "undo your whole turn (choose your card again)")]
    rows += [("q", "leave the match (it is saved after every move: converge play --resume continues it); "
                   "Ctrl+Q and Ctrl+C ask too, and pressed twice they leave")]
    for key, what in rows:
        keys.add_row(key, what)
    return Group(
        Text("How a turn goes", style="bold"),
        Text("The player holding the artifact (the lead) plays a card, then the other player plays one. Choose a "
             "card, then how to play it: discard it for its effect, declare it as a shared goal, or add it to a "
             "faction (yours or theirs). At the end of the turn every goal is scored: if the lead scores more, "
             "the lead wins the round; if the other player scores more, the artifact passes to them; if equal, "
             "it stays. First to win 2 rounds wins the match."),
        Text(),
        Text("Keys", style="bold"),
        keys,
        Text(),
        Text("The screen", style="bold"),
        Text("Goals: each goal with its stars, who scores it now (→) and why. Factions: your cards and theirs, "
             "grouped by skillset; a converted card shows its printed id and what it is now (ALC3→Sea5). "
             "Narration: what happened, as you saw it."),
        Text(),
        Text("Press Escape or Enter to go back."),
    )


class Dialog(ModalScreen[ResultT]):
    """A dialog over the game. It answers once: a key pressed again before it is gone (a double Enter) finds
    it no longer on top and does nothing; Textual's ``dismiss`` pops whatever screen is on top, so a second
    dismiss would pop the game's own screen (``ScreenStackError``)."""

    def answer(self, result: ResultT) -> None:
        if self.is_active:
            self.dismiss(result)


class HelpScreen(Dialog[None]):
    """The keys and how a turn goes."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,q,question_mark", "close", "Back")]

    def __init__(self, undo: bool) -> None:
        super().__init__()
        self.undo = undo

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(help_text(self.undo), id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-box").focus()

    def action_close(self) -> None:
        self.answer(None)


class RulesScreen(Dialog[None]):
    """How to play (the player-facing rules, with the glossary of effects)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter,q,r", "close", "Back")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rules-box"):
            yield Static(Text("Escape to go back to the game · ↑ ↓ Page Up/Down to scroll", style="dim"))
            yield Markdown(how_to_play(), id="rules-text")

    def on_mount(self) -> None:
        self.query_one("#rules-box").focus()

    def action_close(self) -> None:
        self.answer(None)


class ConfirmQuit(Dialog[bool]):
    """Leave the match? It is saved after every move, so leaving loses nothing (but with ``--no-save``)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("y", "answer(True)", "Quit"),
                                             Binding("n,escape", "answer(False)", "Keep playing")]

    def __init__(self, saved: Path | None) -> None:
        super().__init__()
        self.saved = saved

    def compose(self) -> ComposeResult:
        if self.saved is not None:
            said = (f"Leave the match? It is saved (in {self.saved}): converge play --resume continues it "
                    "where you left it.")
        else:
            said = "Leave the match? It is not saved (--no-save): it will be lost."
        with Vertical(id="confirm-box"):
            yield Static(said, id="confirm-text")
            yield Static(Text("Ctrl+Q or Ctrl+C again: quit", style="dim"), id="confirm-keys")
            # staying is the default: Enter on this dialog must not end the match
            yield OptionList(Option("Keep playing", id="no"), Option("Quit", id="yes"), id="confirm-options")

    @on(OptionList.OptionSelected, "#confirm-options")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.answer(event.option.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.answer(value)


class StartScreen(Dialog[int | None]):
    """The unfinished matches, to take one up again (and, with ``new``, a new match first): the index of the
    saved match chosen, -1 for the new match, None to leave."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "Leave"),
                                             *[Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)]]

    def __init__(self, saved: Sequence[SavedMatch], problems: Sequence[str], new: str | None) -> None:
        super().__init__()
        self.saved = saved
        self.problems = problems
        self.new = new

    def compose(self) -> ComposeResult:
        options = [Option(Text(f"{n}. Continue: {s.describe()}"), id=str(i))
                   for n, (i, s) in enumerate(enumerate(self.saved), start=2 if self.new else 1)]
        if self.new is not None:
            options.insert(0, Option(Text(f"1. {self.new}", style="bold"), id="new"))
        with Vertical(id="start-box"):
            yield Static(Text("Converge", style="bold"), id="start-title")
            yield Static("You have unfinished matches: take one up where it was left" +
                         (", or start a new one." if self.new else "."), id="start-text")
            yield OptionList(*options, id="start-options")
            if self.problems:
                with VerticalScroll(id="start-problems"):
                    yield Static(Text("\n".join(f"Skipped: {p}" for p in self.problems), style="dim"))

    def on_mount(self) -> None:
        self.query_one("#start-options").focus()

    @on(OptionList.OptionSelected, "#start-options")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.answer(-1 if event.option.id == "new" else int(event.option.id or 0))

    def action_leave(self) -> None:
        self.answer(None)

    def action_pick(self, n: int) -> None:
        """A number key: that line of the list."""
        options = self.query_one("#start-options", OptionList)
        if 1 <= n <= options.option_count:
            option = options.get_option_at_index(n - 1)
            self.answer(-1 if option.id == "new" else int(option.id or 0))


class PassScreen(Screen[None]):
    """Hot-seat: a screen that shows nothing of either hand, until the next player says they are alone."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,space", "ready", "I am ready")]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.player_name = name

    def compose(self) -> ComposeResult:
        with Vertical(id="pass-box"):
            yield Static(Text(f"Pass the device to {self.player_name}.", style="bold"), id="pass-title")
            yield Static(f"{self.player_name}: press Enter (or the button) when only you can see the screen.",
                         id="pass-text")
            with Center():
                yield Button(f"I am {self.player_name}: show my cards", id="ready", variant="primary")

    @on(Button.Pressed, "#ready")
    def action_ready(self) -> None:
        if self.is_active:  # once (see Dialog): a second press finds the game's screen on top
            self.dismiss(None)


class Narration(VerticalScroll):
    """The narration pane ("What happened"). It keeps its lines as text and draws them afresh at its own
    width, so they re-flow at any width and after a resize (a log widget keeps each line as it was wrapped
    when written); it scrolls to the newest line."""

    DEFAULT_CSS = """
    Narration { overflow-x: hidden; scrollbar-size: 0 0; }
    Narration > Static { width: 1fr; height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines: list[Text] = []
        self.text = Static()

    def compose(self) -> ComposeResult:
        yield self.text

    def clear(self) -> None:
        self.lines = []
        self.text.update("")

    def write(self, line: Text) -> None:
        self.lines.append(line)
        self.text.update(Text("\n").join(self.lines))
        self.call_after_refresh(self.scroll_end, animate=False)

    def on_resize(self) -> None:
        self.call_after_refresh(self.scroll_end, animate=False)


def rounds(n: int) -> str:
    return f"{n} round{'s' if n != 1 else ''}"


def holds(player: int, viewer: int, other: str) -> str:
    """``you hold`` / ``they hold`` / ``Player 2 holds``."""
    if player == viewer:
        return "you hold"
    return "they hold" if other == "them" else f"{other} holds"


class Mode(StrEnum):
    """What the game's screen is showing, and so which keys act (a string: tests and Textual read it)."""

    START = "start"  # before the first deal, or choosing a match to take up
    PASS = "pass"  # hot-seat: the device goes to the other player
    DECISION = "decision"  # a decision of the player at the screen
    THINKING = "thinking"  # the bot decides
    SUMMARY = "summary"  # a turn's or a round's summary, until Continue
    OVER = "over"  # the match is over: rematch or quit


@dataclass
class Choice:
    """One line of the menu: an action of the match, or a step of the interface (continue, rematch...)."""

    label: RenderableType
    action: int | None = None
    then: Callable[[], None] | None = None


class GameApp(App[int]):
    """One sitting of Converge in the terminal: a match against a bot or hot-seat, then rematches."""

    TITLE = "Converge"
    ENABLE_COMMAND_PALETTE = False
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 (Textual's own declaration)
    CSS_PATH = "tui.tcss"  # (the layout, narrow and wide, and the dialogs)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("r", "rules", "Rules"),
        Binding("u", "undo", "Undo"),
        Binding("U", "undo_turn", "Undo turn", key_display="U"),
        Binding("h", "hint", "Hint"),
        Binding("q", "quit_game", "Quit"),
        *[Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)],
        # Ctrl+C asks to leave on every screen, the dialogs' too (Textual's own binding does not reach past
        # a dialog, and only says how to quit); so does Ctrl+Q, Textual's binding for quitting
        Binding("ctrl+c", "help_quit", show=False, priority=True),
    ]

    def __init__(self, session: Session | None, hint_simulations: int | None = None,
                 saved: Sequence[SavedMatch] = (),
                 problems: Sequence[str] = (), resumed: bool = False) -> None:
        """``session``: the match to play (``resumed``: a saved one taken up again; None: one of ``saved``);
        ``saved``: unfinished matches to offer first, on the start screen, with ``problems``, the saved files
        that could not be read."""
        super().__init__()
        if session is None and not saved:
            raise ValueError("nothing to play: no new match and no saved one")
        self.new_session = session
        self.resumed = resumed
        self.saved = list(saved)
        self.problems = list(problems)
        self.choices: list[Choice] = []
        self.mode = Mode.START
        self.token = 0  # changes with every new screen state: late worker results are dropped
        self.hint_notes: dict[int, str] = {}
        self.hint_options: list[HintOption] = []  # the hint of the decision ``hint_token``
        self.hint_token = -1
        self.hint_simulations = hint_simulations  # None: the hint's budget, whose chances were measured
        self.farewell: list[str] = []
        self.logged = [0, 0]  # events of each viewer written to the narration pane
        #: where, in each viewer's log, the other player's move they have not been told of starts
        self.moved_from = [0, 0]
        self.crowded = False  # the decision on screen needs the narration's rows too (a narrow screen)
        self.message = Text()  # the last message said (:meth:`say`)
        self.after_pass = ""  # a message for the player the device is being passed to
        #: the summary on screen: its viewer, a round's final board (None: the board now), its end in their log
        self.summary_board: tuple[int, FinalBoard | None, int] = (-1, None, 0)
        #: and its text, choices and mode, to lay it out again at another size
        self.summary_view: tuple[Text, list[Choice], Mode] = (Text(), [], Mode.SUMMARY)
        #: until when (time.monotonic) Enter, space and clicks are the last dialog's press repeated
        self.bounce_until = 0.0
        self.double_press_seconds = DOUBLE_PRESS_SECONDS
        # (until the start screen is answered, the first match it offers stands for the one to be played)
        self.use(session if session is not None else Session.resumed(self.saved[0]))

    def use(self, session: Session) -> None:
        """Play ``session`` from now on (the new match, or a saved one taken up again)."""
        self.session = session
        self.style = CardStyle(session.match.playset.decks)
        self.hotseat = session.hotseat
        humans = session.humans()
        #: whose screen this is: the person at the device (-1: nobody yet, in hot-seat)
        self.viewer = -1 if self.hotseat or not humans else humans[0]

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Static(id="board")
                yield Static(id="hand")
                yield Static(id="their-move", classes="hidden")
                yield Static(id="message", classes="hidden")
                with VerticalScroll(id="title-box"):
                    yield Static(id="title")
                yield OptionList(id="options")
            yield Narration(id="log")
        yield Footer()

    def on_mount(self) -> None:
        log = self.query_one("#log", Narration)
        log.can_focus = False
        log.border_title = "What happened"
        if not self.saved:
            if self.resumed:
                self.take_up()
            else:
                self.begin()
            return
        new = None
        if self.new_session is not None:
            s = self.new_session
            new = ("New match: hot-seat" if s.hotseat else
                   f"New match against the {next(seat.name for seat in s.seats if seat.bot is not None)}")
        self.push_screen(StartScreen(self.saved, self.problems, new), self.started)

    def started(self, chosen: int | None) -> None:
        """The start screen's answer: a saved match (its index), the new match (-1), or leave (None)."""
        if chosen is None:
            self.exit(0)
            return
        if chosen < 0:
            assert self.new_session is not None
            self.use(self.new_session)
            self.begin()
            return
        self.use(Session.resumed(self.saved[chosen]))
        self.take_up()

    def take_up(self) -> None:
        """Play on a saved match taken up again (:meth:`Session.resumed`), saying where it was left."""
        s = self.session
        for v in (0, 1):  # each person's next "their move" line starts after their own last play
            mine = [i for i, e in enumerate(s.log[v]) if e["kind"] in ("play", "pass") and e["player"] == v]
            self.moved_from[v] = mine[-1] + 1 if mine else 0
        self.rebuild_log(self.viewer)
        self.begin()
        if not s.save_problem:
            taken_up = f"Taken up where it was left: round {s.match.round_no}, turn {s.match.turn_no}."
            if self.mode == Mode.PASS:  # (said to the player at the device once it has been passed)
                self.after_pass = taken_up
            else:
                self.say(taken_up)

    def begin(self) -> None:
        """Start playing: save the match at once (a quit on the first screen leaves it to take up again)."""
        self.session.save()
        self.refresh_bindings()
        self.advance()
        self.tell_save_problem()

    def tell_save_problem(self) -> None:
        """Say so when the last save failed (a full disk...): the player should know before playing on."""
        if self.session.save_problem:
            self.say(self.session.save_problem, severity="warning")

    def on_resize(self) -> None:
        """A decision or a summary is laid out for the screen's size: lay it out again (the narration re-flows
        itself)."""
        if self.mode in (Mode.DECISION, Mode.SUMMARY, Mode.OVER) and self.viewer >= 0:
            self.call_after_refresh(self.relayout)

    def relayout(self) -> None:
        if self.mode in (Mode.SUMMARY, Mode.OVER) and self.viewer >= 0:
            self.show_ending(*self.summary_view, keep_message=True)
            return
        if self.mode != Mode.DECISION or self.viewer < 0:
            return
        options = self.query_one("#options", OptionList)
        highlighted = options.highlighted
        self.show_decision(self.viewer, keep_message=True)
        if highlighted is not None and highlighted < options.option_count:
            options.highlighted = highlighted

    @property
    def wide(self) -> bool:
        return self.screen.has_class("-wide")

    def other(self, viewer: int) -> str:
        return self.session.other_name(viewer)

    # ------------------------------------------------------------------ the flow

    def advance(self) -> None:
        """Show what comes next: a summary the player has not read, the end of the match, a bot's move, the
        pass-the-device screen, or the player's decision."""
        self.token += 1
        s = self.session
        m = s.match
        v = self.viewer
        if v >= 0 and s.unread_turn_end(v):
            self.show_summary(v)
            return
        if m.is_terminal:  # read already (after an undo was refused...): the end again
            self.show_match_end(v if v >= 0 else 0, Text())
            return
        p = m.current_player
        if s.is_bot(p):
            self.run_bot(p)
            return
        if p != v:
            self.pass_device(p)
            return
        self.show_decision(p)

    def refresh_screen(self, viewer: int, final: FinalBoard | None = None, hand: str = "auto",
                       upto: int | None = None, goals: int | None = None) -> None:
        """The status line, the board (or a round's final board) and the hand of ``viewer`` (``hand``: "full",
        "lines" one line per card, "compact" one line, "none", or "auto": full on a wide screen), and the
        narration (up to ``upto`` in the viewer's log). ``goals``: a width, to give each goal one line of it."""
        obs = self.session.match.observation(viewer, events_from=self.session.seen[viewer])
        other = self.other(viewer)
        self.query_one("#status", Static).update(status_line(obs, self.style, other, final=final))
        self.query_one("#board", Static).update(self.board_of(final or obs, viewer, goals))
        hand_widget = self.query_one("#hand", Static)
        hand_widget.set_class(hand == "none", "hidden")
        if hand == "auto":
            hand = "full" if self.wide else "compact"
        if hand != "none":
            hand_widget.update(hand_view(obs["hand"] or [], self.style, full=hand == "full",
                                         lines=hand == "lines"))
        self.write_log(viewer, upto)

    def write_log(self, viewer: int, upto: int | None = None) -> None:
        """Add the viewer's new events to the narration pane, which holds the current round's; ``upto``: only
        the events before that index of the viewer's log (a summary's, not what came after it)."""
        s = self.session
        s.fetch(viewer)
        log = self.query_one("#log", Narration)
        events = s.log[viewer]
        end = len(events) if upto is None else min(upto, len(events))
        starts = [i for i in range(self.logged[viewer], end) if events[i]["kind"] == "round_start"]
        if starts and self.logged[viewer] <= starts[-1]:  # a new round (not written yet): its own narration
            log.clear()
            self.logged[viewer] = starts[-1]
        for text, kind in narration_lines(events, self.logged[viewer], end, viewer, self.other(viewer),
                                          self.session.match.holder):
            log.write(Text(text, style="bold" if kind else ""))
        self.logged[viewer] = max(self.logged[viewer], end)

    def rebuild_log(self, viewer: int) -> None:
        """The narration pane afresh, for ``viewer`` (after an undo, a rematch, or passing the device):
        this round's events as that viewer saw them."""
        log = self.query_one("#log", Narration)
        log.clear()
        if viewer < 0:
            return
        s = self.session
        s.fetch(viewer)
        events = s.log[viewer]
        # a summary not read yet is the moment on screen: nothing after it (the next round's deal...)
        upto = s.summary_end(viewer) if s.unread_turn_end(viewer) else len(events)
        starts = [i for i, e in enumerate(events[:upto]) if e["kind"] == "round_start"]
        self.logged[viewer] = starts[-1] if starts else 0
        self.write_log(viewer, upto)

    def say(self, message: str, severity: str = "information") -> None:
        """A message for the player, on the line above the decision until the next one."""
        widget = self.query_one("#message", Static)
        self.message = Text(message, style="bold yellow" if severity == "warning" else "bold cyan")
        widget.update(self.message)
        widget.remove_class("hidden")

    def message_rows(self, keep: bool) -> int:
        """The rows of the message on screen, if it is to stay (``keep``)."""
        shown = keep and not self.query_one("#message").has_class("hidden")
        return self.rows(self.message, self.text_width()) if shown else 0

    def set_menu(self, title: RenderableType, choices: Sequence[Choice], mode: Mode,
                 keep_message: bool = False, title_rows: int | None = None) -> None:
        """Show ``title`` and its ``choices``; ``title_rows``: the rows the title may take (a summary's, fitted
        to the screen; when it needs more, it shows its end: how the turn ended and what was drawn)."""
        self.mode = mode
        if not keep_message:
            self.query_one("#message", Static).add_class("hidden")
        if mode != Mode.DECISION:  # the other's move is told beside a decision only
            self.query_one("#their-move").add_class("hidden")
        self.choices = list(choices)
        self.query_one("#title", Static).update(title)
        box = self.query_one("#title-box")
        box.styles.max_height = title_rows  # (None: as the style sheet says, for a decision)
        if title_rows is not None and self.rows(title, self.text_width()) > title_rows:
            self.call_after_refresh(box.scroll_end, animate=False)
        else:
            box.scroll_home(animate=False)
        # a narrow screen has no room for the narration beside a summary, which says what matters of it, nor
        # beside a decision whose choices need every row
        folded = mode in (Mode.SUMMARY, Mode.OVER) or (mode == Mode.DECISION and self.crowded)
        self.query_one("#log").set_class(folded, "summary")
        options = self.query_one("#options", OptionList)
        options.clear_options()
        options.add_options([Option(c.label) for c in self.choices])
        options.disabled = mode == Mode.THINKING
        if self.choices:
            options.highlighted = 0
        options.focus()

    def show_decision(self, p: int, keep_message: bool = False) -> None:
        s = self.session
        s.before_decision(p)
        obs = s.match.observation(p, events_from=s.seen[p])
        decision = obs["decision"]
        assert decision is not None  # it is this player's decision
        select = decision["kind"] == "select"
        items = legal_actions_of(obs)
        cards = {str(a["action"]) for a in items}
        title = decision_title(decision, self.style, skip=cards)
        if select:
            lead = obs["lead"] == p
            led = "they" if self.other(p) == "them" else self.other(p)
            title.append("  (you lead this turn)" if lead else f"  ({led} led; you reply)", style="dim")
        notes = self.hint_notes if self.hint_token == self.token_of_decision() else {}

        def menu(short: bool) -> list[Choice]:
            return [Choice(option_text(a, decision, self.style, i, notes.get(int(a["id"]), ""), obs, short),
                           action=int(a["id"])) for i, a in enumerate(items, start=1)]

        s.fetch(p)
        move = self.their_move_text(p, their_move(s.log[p], self.moved_from[p], p))
        # The choices get the rows they need: the hand folds first, then (narrow) the narration below gives
        # its rows, then the goals take one line each, then each choice takes one line.
        wide = self.size.width >= 100
        one_line = self.text_width()
        choices = menu(short=False)
        plans = [(None, True), (one_line, True)] if wide else [(None, True), (None, False), (one_line, False)]
        said = self.message_rows(keep_message)
        for goals, narration in plans:
            hand = self.fit_hand(p, obs, title, choices, move, select, narration, goals, said)
            if hand is not None:
                break
        else:
            goals, narration = one_line, wide
            choices = menu(short=True)
            hand = self.fit_hand(p, obs, title, choices, move, select, narration, goals, said) or (
                "none" if select else "compact")
        self.crowded = not narration
        self.refresh_screen(p, hand=hand, goals=goals)
        widget = self.query_one("#their-move", Static)
        widget.set_class(move is None, "hidden")
        if move is not None:
            widget.update(move)
        self.set_menu(title, choices, Mode.DECISION, keep_message=keep_message)

    def their_move_text(self, p: int, moved: Sequence[str]) -> Text | None:
        """``Their move: they discard SEA1 for its effect: Search. …``: what the other player did since the
        viewer's last decision or summary, and what it caused; None when they did nothing since."""
        if not moved:
            return None
        other = self.other(p)
        text = Text("Their move: " if other == "them" else f"{other}'s move: ", style="bold magenta")
        text.append(" ".join(moved))
        return text

    def text_width(self) -> int:
        """The columns of text in the left part of the screen (the board, the decision)."""
        width = self.size.width
        left = self.query_one("#left").size.width or (width * 3 // 5 if width >= 100 else width)
        return max(10, left - 2)

    def board_of(self, doc: Board, viewer: int, goals: int | None) -> RenderableType:
        """The board of ``doc`` (an observation or a round's final board) as ``viewer`` sees it; ``goals``: a
        width, to give each goal one line of it."""
        return board(doc, self.style, viewer, self.session.match.playset.skillsets, self.other(viewer), goals)

    def board_rows(self, doc: Board, viewer: int, goals: int | None) -> int:
        """The rows the board takes, with the line under it."""
        return self.rows(self.board_of(doc, viewer, goals), self.text_width()) + 1

    def fit_hand(self, p: int, obs: Observation, title: RenderableType, choices: Sequence[Choice],
                 move: Text | None, select: bool, narration: bool, goals: int | None, said: int = 0) -> str | None:
        """How the hand is shown beside a decision so that everything fits (with the narration below on a
        narrow screen, or without; the goals one line each with ``goals``): its cards' whole text, else one
        line per card, else one line ("none" when the menu lists the hand); None when even that leaves the
        choices short of rows. Measured at the screen's size now."""
        width, height = self.size
        wide = width >= 100
        text_width = self.text_width()
        rows_left = height - 2 - (5 if narration and not wide else 0)  # status line, footer, narration below
        needed = self.board_rows(obs, p, goals) + min(self.rows(title, text_width), 16 if wide else 10) + said
        needed += sum(self.rows(c.label, text_width) for c in choices)
        if move is not None:
            needed += self.rows(move, text_width)
        if select:
            return "none" if needed <= rows_left else None
        cards = obs["hand"] or []
        full = self.rows(hand_view(cards, self.style, full=True), text_width) + (1 if wide else 0)
        if full <= 16 and needed + full <= rows_left:
            return "full"
        margin = 1 if wide else 0  # below the hand on a wide screen
        if needed + len(cards) + 1 + margin <= rows_left:
            return "lines"
        compact = self.rows(hand_view(cards, self.style, full=False), text_width)
        return "compact" if needed + compact + margin <= rows_left else None

    def rows(self, renderable: RenderableType, width: int) -> int:
        """How many rows ``renderable`` takes at ``width`` columns."""
        options = self.console.options.update_width(max(1, width))
        return len(self.console.render_lines(renderable, options, pad=False))

    def token_of_decision(self) -> int:
        """Identifies the decision on screen (the number of actions played): a hint belongs to one."""
        return len(self.session.match.history) * 2 + self.session.matches_played * 100_000

    def show_summary(self, v: int) -> None:
        s = self.session
        m = s.match
        start = s.summary_from[v]
        events = s.take_summary(v)
        end = s.summary_from[v]
        if self.hotseat:  # what ended a turn is public: both players read it now, at the device
            s.fetch(1 - v)
            s.summary_from[1 - v] = s.summary_end(1 - v)
            self.moved_from[1 - v] = max(self.moved_from[1 - v], s.summary_from[1 - v])
        self.moved_from[v] = max(self.moved_from[v], end)
        log = s.log[v]
        other = self.other(v)
        # the turn starts with its first play: not the round's set-up before it (the narration says that)
        start = next((i for i in range(start, end) if log[i]["kind"] in ("play", "pass")), start)
        round_ends = [e for e in events if e["kind"] == "round_end"]
        over = any(e["kind"] == "match_end" for e in events)
        final = round_final_board(m, int(round_ends[-1]["round"]), v) if round_ends else None
        self.summary_board = (v, final, end)
        self.query_one("#their-move").add_class("hidden")
        text = Text()
        if round_ends:
            text.append(f"Round {round_ends[-1]['round']} is over.", style="bold")
        else:
            text.append("End of the turn.", style="bold")
        for line, kind in narration_lines(log, start, end, v, other, m.holder):
            if kind == "round_start" or (over and "the match" in line):  # the match summary says who won
                continue
            text.append(f"\n{line}", style="bold" if kind else "")
        if over:
            self.show_match_end(v, text)
            return
        if round_ends:
            wins = m.round_wins
            text.append(f"\nRounds won: you {wins[v]} : {wins[1 - v]} {other}.", style="bold")
            label = Text(f"Continue to round {m.round_no} ({holds(m.holder, v, other)} the artifact)")
        else:
            label = Text("Continue")
        label.stylize("bold")
        self.show_ending(text, [Choice(numbered(1, label), then=self.advance)], Mode.SUMMARY)

    def show_ending(self, text: Text, choices: Sequence[Choice], mode: Mode, keep_message: bool = False) -> None:
        """A summary (``mode`` Mode.SUMMARY) or the match's end (Mode.OVER), laid out to fit the screen: the board
        (a round's: its final board, without the next round's hand), the hand in one line if there is room,
        the summary's text and its choices, which always fit. Where rows are short, the goals take one line
        each, the hand goes, then the text shows its end (scrolled)."""
        self.summary_view = (text, list(choices), mode)
        v, final, end = self.summary_board
        obs = self.session.match.observation(v, events_from=self.session.seen[v])
        doc = final or obs
        width, height = self.size
        text_width = self.text_width()
        rows_left = height - 2  # the status line and the footer
        margin = 1 if width >= 100 else 0  # below the hand on a wide screen
        one_line_hand = hand_view(obs["hand"] or [], self.style, full=False)
        hand_rows = {"compact": self.rows(one_line_hand, text_width) + margin, "none": 0}
        said = self.message_rows(keep_message)
        text_rows = self.rows(text, text_width)
        choice_rows = sum(self.rows(c.label, text_width) for c in choices)
        hands = ("compact", "none") if final is None and mode == Mode.SUMMARY else ("none",)
        plans = [(goals, hand) for goals in (None, text_width) for hand in hands]
        for goals, hand in plans:
            room = rows_left - self.board_rows(doc, v, goals) - hand_rows[hand] - choice_rows - said
            if text_rows <= room:
                break
        self.refresh_screen(v, final=final, hand=hand, upto=end, goals=goals)
        self.set_menu(text, choices, mode, keep_message=keep_message, title_rows=max(1, room))

    def show_match_end(self, v: int, text: Text) -> None:
        m = self.session.match
        other = self.other(v)
        wins = m.round_wins
        if v in (0, 1) and not self.hotseat:
            won = m.winner == v
            text.append(f"\n\nYou {'win' if won else 'lose'} the match, {rounds(wins[v])} to {wins[1 - v]}.",
                        style="bold green" if won else "bold red")
        else:
            text.append(f"\n\n{self.session.seats[m.winner].name} wins the match, {rounds(wins[m.winner])} to "
                        f"{wins[1 - m.winner]}.", style="bold green")
        for e in self.session.log[v]:
            if e["kind"] == "round_end":
                text.append(f"\n  {e['text']}")
        path = self.session.save_path
        if path is not None:
            text.append(f"\nRecord saved: {path}", style="dim")
        starts = holds(1 - m.winner, v, other).replace("hold", "start")
        if self.summary_board[0] != v:  # the end shown again (after an undo was refused...): the board now
            self.summary_board = (v, None, len(self.session.log[v]))
        self.show_ending(text, [Choice(numbered(1, Text(f"Rematch ({starts} with the artifact)", style="bold")),
                                       then=self.rematch),
                                Choice(numbered(2, Text("Quit", style="bold")), then=self.finish)], Mode.OVER)

    def pass_device(self, p: int) -> None:
        """Hot-seat: blank everything private, then the pass-the-device screen; the next player's screen is
        drawn only once they are there."""
        self.mode = Mode.PASS
        self.viewer = -1
        self.hint_notes = {}
        for widget in ("#title", "#hand", "#board", "#status"):
            self.query_one(widget, Static).update("")
        self.query_one("#options", OptionList).clear_options()
        self.query_one("#log", Narration).clear()
        self.choices = []

        def ready(_: None) -> None:
            self.viewer = p
            self.rebuild_log(p)
            self.advance()
            if self.after_pass:
                self.say(self.after_pass)
                self.after_pass = ""

        self.push_screen(PassScreen(self.session.seats[p].name), ready)

    # ------------------------------------------------------------------ choosing

    @on(OptionList.OptionSelected, "#options")
    def option_selected(self, event: OptionList.OptionSelected) -> None:
        self.choose(event.option_index)

    def action_pick(self, n: int) -> None:
        if 1 <= n <= len(self.choices) and self.mode in (Mode.DECISION, Mode.SUMMARY, Mode.OVER):
            self.choose(n - 1)

    def choose(self, index: int) -> None:
        if self.mode not in (Mode.DECISION, Mode.SUMMARY, Mode.OVER) or not 0 <= index < len(self.choices):
            return
        choice = self.choices[index]
        if choice.then is not None:
            choice.then()
            return
        assert choice.action is not None
        self.play(choice.action, self.viewer)

    def play(self, action: int, player: int) -> None:
        hinted = self.hint_options if self.hint_token == self.token_of_decision() else []
        self.session.apply(action, player)
        if not self.session.is_bot(player):  # the other's next move is told from here
            self.session.fetch(player)
            self.moved_from[player] = len(self.session.log[player])
        self.hint_notes = {}
        m = self.session.match
        if hinted and m.current_player == player:  # the next step of the same play: the same search's figures
            follow = follow_on(hinted, action, m.legal_actions())
            if follow is not None:
                self.show_hint(self.token_of_decision(), follow)
        self.advance()

    def show_hint(self, token: int, options: list[HintOption]) -> None:
        """Note each option's chance beside it in the menu of the decision ``token``."""
        self.hint_token = token
        self.hint_options = options
        self.hint_notes = {o.action: note(o, " to win the round") + ("" if rank or o.equal else " ← best")
                           for rank, o in enumerate(options)}

    # ------------------------------------------------------------------ bots and hints, in threads

    def run_bot(self, p: int) -> None:
        s = self.session
        bot = s.bot_for(p)
        view = s.match.view(p)
        token = self.token
        v = self.viewer
        if v >= 0:  # the board as it stands, leaving a few rows for the hand and what the bot is doing
            goals = None if self.board_rows(s.match.observation(v), v, None) <= self.size.height - 8 else (
                self.text_width())
            self.refresh_screen(v, hand="auto", goals=goals)
        self.set_menu(Text(f"{s.seats[p].name.capitalize()} is thinking…", style="dim"), [], Mode.THINKING)

        def decide() -> tuple[int, int, int]:
            return token, p, bot.decide(view)

        self.run_worker(decide, thread=True, name="bot", group="bot", exit_on_error=False)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        result: Any = worker.result
        if event.state == WorkerState.ERROR:
            self.say(f"Something went wrong: {worker.error}", severity="warning")
            return
        if event.state != WorkerState.SUCCESS:
            return
        if worker.name == "bot":
            token, p, action = result
            if token == self.token:
                self.play(action, p)
        elif worker.name == "hint":
            token, options = result
            if token != self.token_of_decision() or self.mode != Mode.DECISION:
                return
            self.show_hint(token, options)
            self.say(f"Hint, from what you can see (played on as well as the bot would): "
                     f"{verdict(options, measured(self.hint_simulations, self.session.match.view(self.viewer)))}")
            self.show_decision(self.viewer, keep_message=True)

    def action_hint(self) -> None:
        if self.mode != Mode.DECISION:
            self.say("A hint is for a decision of yours.", severity="warning")
            return
        from converge.bots.hint import hint

        token = self.token_of_decision()
        view = self.session.match.view(self.viewer)
        sims = self.hint_simulations
        seed = len(self.session.match.history)
        self.say("Thinking about your options…")

        def search() -> tuple[int, Any]:
            return token, hint(view, simulations=sims, seed=seed)

        self.run_worker(search, thread=True, name="hint", group="hint", exclusive=True, exit_on_error=False)

    # ------------------------------------------------------------------ the footer's keys

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.session.can_undo()))

    def action_rules(self) -> None:
        self.push_screen(RulesScreen())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer only what works: nothing of a match on the start screen, no undo in hot-seat
        (:meth:`Session.can_undo` says why)."""
        if self.mode == Mode.START and action in ("help", "rules", "undo", "undo_turn", "hint", "quit_game"):
            return False  # (the start screen: no match yet)
        if action in ("undo", "undo_turn"):
            return self.session.can_undo()
        return True

    def action_undo(self) -> None:
        self.undo(whole_turn=False)

    def action_undo_turn(self) -> None:
        self.undo(whole_turn=True)

    def undo(self, whole_turn: bool) -> None:
        if self.mode not in (Mode.DECISION, Mode.SUMMARY, Mode.OVER) or self.viewer < 0:
            self.say("Wait for your opponent's move first.", severity="warning")
            return
        try:
            message = self.session.undo(self.viewer, whole_play=whole_turn)
        except UndoRefused as exc:
            self.say(str(exc), severity="warning")
            return
        self.hint_notes = {}
        for v in (0, 1):
            self.moved_from[v] = min(self.moved_from[v], len(self.session.log[v]))
        self.rebuild_log(self.viewer)
        self.advance()
        self.say(message)

    def action_quit_game(self) -> None:
        """``q``: leave, once confirmed (at the end of a match, at once: its record is final)."""
        self.leave(again_confirms=False)

    async def action_quit(self) -> None:
        """Ctrl+Q (Textual's binding for quitting): the same question as ``q``; pressed again, it leaves."""
        self.leave(again_confirms=True)

    def action_help_quit(self) -> None:
        """Ctrl+C (which Textual leaves to copying text): the same; pressed again, it leaves."""
        self.leave(again_confirms=True)

    def leave(self, again_confirms: bool) -> None:
        """Ask before leaving a match in play; the match is saved after every move, so leaving loses
        nothing, and the question says how to take it up again. With the question on screen already,
        ``again_confirms`` (Ctrl+Q, Ctrl+C pressed again) answers it: leave."""
        if self.mode in (Mode.START, Mode.OVER):  # nothing in play: the start screen, or a match over (saved)
            self.finish()
            return
        dialog = self.screen
        if isinstance(dialog, ConfirmQuit):
            if again_confirms:
                dialog.answer(True)
            return

        def answer(leave: bool | None) -> None:
            if leave:
                self.farewell.append(saved_text(self.session.save(), False, self.session.humans()))
                self.exit(0)

        self.push_screen(ConfirmQuit(self.session.save_path), answer)

    def finish(self) -> None:
        path = self.session.save_path
        if path is not None and self.session.match.is_terminal and self.mode != Mode.START:
            self.farewell.append(saved_text(path, True, self.session.humans()))
        self.exit(0)

    # ------------------------------------------------------------------ a press repeated after a dialog

    def pop_screen(self) -> AwaitComplete:
        """Every dialog (and the pass-the-device screen) leaves through here: Enter, space or a click that
        follows within :data:`DOUBLE_PRESS_SECONDS` is its press repeated, not a choice in the game."""
        self.bounce_until = time.monotonic() + self.double_press_seconds
        return super().pop_screen()

    async def on_event(self, event: events.Event) -> None:
        """Drop the last dialog's press repeated (:meth:`pop_screen`). A key is weighed twice here: as it
        arrives, and as it comes back up from the widget it went to, when its binding is looked up on the
        screen on top *then*: a second Enter that reached the dialog just before it closed would otherwise
        choose in the game below."""
        if (isinstance(event, (events.Key, events.MouseDown, events.MouseUp, events.Click))
                and time.monotonic() < self.bounce_until
                and (not isinstance(event, events.Key) or event.key in ("enter", "space"))):
            return
        await super().on_event(event)

    def rematch(self) -> None:
        path = self.session.save_path
        if path is not None:
            self.farewell.append(f"Match record saved to {path}")
        self.session.rematch()
        self.logged = [0, 0]
        self.moved_from = [0, 0]
        self.hint_notes = {}
        humans = self.session.humans()
        self.viewer = -1 if self.hotseat or not humans else humans[0]
        self.rebuild_log(self.viewer)
        self.advance()
