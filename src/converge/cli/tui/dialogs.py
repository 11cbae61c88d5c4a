"""The full-screen game's dialogs (help, rules, leave?, the start screen, hot-seat's pass-the-device screen),
and the app they answer to: each answers once, and a press repeated after one closes is not taken for a
choice in the game beneath."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, TypeVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events, on
from textual.app import App, ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Center, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Markdown, OptionList, Static
from textual.widgets.option_list import Option

from converge.cli.saves import SavedMatch
from converge.texts import how_to_play

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

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter,space", "ready", "I am ready"),
                                             Binding("q", "app.leave(False)", "Quit")]

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


class DialogHost(App[int]):
    """An app whose dialogs (and pass-the-device screen) leave through :meth:`pop_screen`: Enter, space or a
    click that follows within :data:`DOUBLE_PRESS_SECONDS` is the dialog's press repeated, not a choice in the
    game."""

    def __init__(self) -> None:
        super().__init__()
        #: until when (time.monotonic) Enter, space and clicks are the last dialog's press repeated
        self.bounce_until = 0.0
        self.double_press_seconds = DOUBLE_PRESS_SECONDS

    def pop_screen(self) -> AwaitComplete:
        self.bounce_until = time.monotonic() + self.double_press_seconds
        return super().pop_screen()

    async def on_event(self, event: events.Event) -> None:
        """Drop the last dialog's press repeated. A key is weighed twice here: as it arrives, and as it comes
        back up from the widget it went to, when its binding is looked up on the screen on top *then*: a
        second Enter that reached the dialog just before it closed would otherwise choose in the game below."""
        if (isinstance(event, (events.Key, events.MouseDown, events.MouseUp, events.Click))
                and time.monotonic() < self.bounce_until
                and (not isinstance(event, events.Key) or event.key in ("enter", "space"))):
            return
        await super().on_event(event)
