"""The game's own screen: the status line, the board, the hand, the decision (or a summary) as a menu, and
the narration, laid out to fit the terminal. Everything on it comes from the observation of the player at
the device (:class:`~converge.cli.play_session.Session`); the app (:mod:`converge.cli.tui.app`) says what to show
next, and this screen shows it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, ClassVar, cast

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from converge.bots.hint import Option as HintOption
from converge.bots.hint import note
from converge.cli.play_session import Session, narration_lines, round_final_board, their_move
from converge.cli.screen import (
    CardStyle,
    board,
    decision_title,
    hand_view,
    numbered,
    option_text,
    status_line,
)
from converge.cli.tui.dialogs import HelpScreen, RulesScreen
from converge.engine.schema import Board, FinalBoard, Observation, legal_actions_of

if TYPE_CHECKING:
    from converge.cli.tui.app import GameApp


def rounds(n: int) -> str:
    return f"{n} round{'s' if n != 1 else ''}"


def holds(player: int, viewer: int, other: str) -> str:
    """``you hold`` / ``they hold`` / ``Player 2 holds``."""
    if player == viewer:
        return "you hold"
    return "they hold" if other == "them" else f"{other} holds"


def decision_token(session: Session) -> int:
    """Identifies the decision on screen (the number of actions played): a hint belongs to one."""
    return len(session.match.history) * 2 + session.matches_played * 100_000


def hint_notes(options: Sequence[HintOption]) -> dict[int, str]:
    """What the menu says beside each option a hint weighed: its chance, and which is best."""
    return {o.action: note(o, " to win the round") + ("" if rank or o.equal else " ← best")
            for rank, o in enumerate(options)}


class Mode(StrEnum):
    """What the game's screen is showing, and so which keys act (a string: tests and Textual read it)."""

    START = "start"  # before the first deal, or choosing a match to take up
    PASS = "pass"  # hot-seat: the device goes to the other player
    DECISION = "decision"  # a decision of the player at the screen
    THINKING = "thinking"  # the bot decides
    SUMMARY = "summary"  # a turn's or a round's summary, until Continue
    OVER = "over"  # the match is over: rematch or quit


#: The modes in which the menu's choices can be chosen.
CHOOSING = (Mode.DECISION, Mode.SUMMARY, Mode.OVER)


@dataclass
class Choice:
    """One line of the menu: an action of the match, or a step of the interface (continue, rematch...)."""

    label: RenderableType
    action: int | None = None
    then: Callable[[], None] | None = None


class Narration(VerticalScroll):
    """The narration pane ("What happened"). It keeps its lines as text and draws them afresh at its own
    width, so they re-flow at any width and after a resize (a log widget keeps each line as it was wrapped
    when written); it scrolls to the newest line."""

    DEFAULT_CSS = """
    Narration { overflow-x: hidden; scrollbar-size: 0 0; }
    Narration > Static { width: 1fr; height: auto; }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None,
                 disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
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



class TableScreen(Screen[None]):
    """The table as the player at the device sees it, with the menu of what they may do now."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("r", "rules", "Rules"),
        Binding("u", "undo(False)", "Undo"),
        Binding("U", "undo(True)", "Undo turn", key_display="U"),
        Binding("h", "hint", "Hint"),
        Binding("q", "app.leave(False)", "Quit"),
        *[Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)],
    ]

    def __init__(self) -> None:
        super().__init__()
        self.choices: list[Choice] = []
        self.logged = [0, 0]  # events of each viewer written to the narration pane
        #: where, in each viewer's log, the other player's move they have not been told of starts
        self.moved_from = [0, 0]
        self.crowded = False  # the decision on screen needs the narration's rows too (a narrow screen)
        self.message = Text()  # the last message said (:meth:`say`)
        #: the summary on screen: its viewer, a round's final board (None: the board now), its end in their log
        self.summary_board: tuple[int, FinalBoard | None, int] = (-1, None, 0)
        #: and its text, choices and mode, to lay it out again at another size
        self.summary_view: tuple[Text, list[Choice], Mode] = (Text(), [], Mode.SUMMARY)

    @property
    def game(self) -> GameApp:
        return cast("GameApp", self.app)

    @property
    def session(self) -> Session:
        return self.game.session

    @property
    def style(self) -> CardStyle:
        return self.game.style

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
        self.game.open()

    # ------------------------------------------------------------------ the keys of the table

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer only what works: nothing of a match on the start screen (its footer, under the dialog, offers
        none), no undo in hot-seat (:meth:`Session.can_undo` says why)."""
        if self.game.mode == Mode.START:
            return False
        return self.session.can_undo() if action == "undo" else True

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.session.can_undo()))

    def action_rules(self) -> None:
        self.app.push_screen(RulesScreen())

    def action_undo(self, whole_turn: bool) -> None:
        self.game.undo(whole_turn)

    def action_hint(self) -> None:
        self.game.ask_hint()

    @on(OptionList.OptionSelected, "#options")
    def option_selected(self, event: OptionList.OptionSelected) -> None:
        self.choose(event.option_index)

    def action_pick(self, n: int) -> None:
        self.choose(n - 1)

    def choose(self, index: int) -> None:
        if self.game.mode not in CHOOSING or not 0 <= index < len(self.choices):
            return
        choice = self.choices[index]
        if choice.then is not None:
            choice.then()
            return
        assert choice.action is not None
        self.game.play(choice.action, self.game.viewer)

    # ------------------------------------------------------------------ layout

    def on_resize(self) -> None:
        """A decision or a summary is laid out for the screen's size: lay it out again (the narration re-flows
        itself)."""
        if self.game.mode in CHOOSING and self.game.viewer >= 0:
            self.call_after_refresh(self.relayout)

    def relayout(self) -> None:
        mode, viewer = self.game.mode, self.game.viewer
        if mode in (Mode.SUMMARY, Mode.OVER) and viewer >= 0:
            self.show_ending(*self.summary_view, keep_message=True)
            return
        if mode != Mode.DECISION or viewer < 0:
            return
        options = self.query_one("#options", OptionList)
        highlighted = options.highlighted
        self.show_decision(viewer, keep_message=True)
        if highlighted is not None and highlighted < options.option_count:
            options.highlighted = highlighted

    @property
    def wide(self) -> bool:
        return self.has_class("-wide")

    def other(self, viewer: int) -> str:
        return self.session.other_name(viewer)

    def text_width(self) -> int:
        """The columns of text in the left part of the screen (the board, the decision)."""
        width = self.size.width
        left = self.query_one("#left").size.width or (width * 3 // 5 if width >= 100 else width)
        return max(10, left - 2)

    def rows(self, renderable: RenderableType, width: int) -> int:
        """How many rows ``renderable`` takes at ``width`` columns."""
        console = self.app.console
        return len(console.render_lines(renderable, console.options.update_width(max(1, width)), pad=False))

    def board_of(self, doc: Board, viewer: int, goals: int | None) -> RenderableType:
        """The board of ``doc`` (an observation or a round's final board) as ``viewer`` sees it; ``goals``: a
        width, to give each goal one line of it."""
        return board(doc, self.style, viewer, self.session.match.playset.skillsets, self.other(viewer), goals)

    def board_rows(self, doc: Board, viewer: int, goals: int | None) -> int:
        """The rows the board takes, with the line under it."""
        return self.rows(self.board_of(doc, viewer, goals), self.text_width()) + 1

    # ------------------------------------------------------------------ what is on it

    def show_table(self, viewer: int, final: FinalBoard | None = None, hand: str = "auto",
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
                                          s.match.holder):
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
        self.game.mode = mode
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

    def show_thinking(self, name: str) -> None:
        """The board as it stands while a bot decides, leaving a few rows for the hand and what it is doing."""
        v = self.game.viewer
        if v >= 0:
            goals = None if self.board_rows(self.session.match.observation(v), v, None) <= self.size.height - 8 \
                else self.text_width()
            self.show_table(v, hand="auto", goals=goals)
        self.set_menu(Text(f"{name.capitalize()} is thinking…", style="dim"), [], Mode.THINKING)

    def blank(self) -> None:
        """Nothing of either hand on screen (hot-seat, while the device is passed)."""
        for widget in ("#title", "#hand", "#board", "#status"):
            self.query_one(widget, Static).update("")
        self.query_one("#options", OptionList).clear_options()
        self.query_one("#log", Narration).clear()
        self.choices = []

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
        hinted = self.game.hint
        notes = hint_notes(hinted[1]) if hinted is not None and hinted[0] == decision_token(s) else {}

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
        self.show_table(p, hand=hand, goals=goals)
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

    def show_summary(self, v: int) -> None:
        s = self.session
        m = s.match
        start = s.summary_from[v]
        events = s.take_summary(v)
        end = s.summary_from[v]
        if self.game.hotseat:  # what ended a turn is public: both players read it now, at the device
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
        self.show_ending(text, [Choice(numbered(1, label), then=self.game.advance)], Mode.SUMMARY)

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
        self.show_table(v, final=final, hand=hand, upto=end, goals=goals)
        self.set_menu(text, choices, mode, keep_message=keep_message, title_rows=max(1, room))

    def show_match_end(self, v: int, text: Text) -> None:
        s = self.session
        m = s.match
        other = self.other(v)
        wins = m.round_wins
        if v in (0, 1) and not self.game.hotseat:
            won = m.winner == v
            text.append(f"\n\nYou {'win' if won else 'lose'} the match, {rounds(wins[v])} to {wins[1 - v]}.",
                        style="bold green" if won else "bold red")
        else:
            text.append(f"\n\n{s.seats[m.winner].name} wins the match, {rounds(wins[m.winner])} to "
                        f"{wins[1 - m.winner]}.", style="bold green")
        for e in s.log[v]:
            if e["kind"] == "round_end":
                text.append(f"\n  {e['text']}")
        if s.save_path is not None:
            text.append(f"\nRecord saved: {s.save_path}", style="dim")
        starts = holds(1 - m.winner, v, other).replace("hold", "start")
        if self.summary_board[0] != v:  # the end shown again (after an undo was refused...): the board now
            self.summary_board = (v, None, len(s.log[v]))
        self.show_ending(text, [Choice(numbered(1, Text(f"Rematch ({starts} with the artifact)", style="bold")),
                                       then=self.game.rematch),
                                Choice(numbered(2, Text("Quit", style="bold")), then=self.game.finish)], Mode.OVER)
