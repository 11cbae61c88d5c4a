"""The full-screen game's flow: which match is played, what comes next (a summary, a bot's move, the device
passed, a decision), bots and hints searched in threads, undo, rematch and leaving. What is shown is the
table screen's (:mod:`converge.cli.tui.table`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from converge.bots.base import Bot
from converge.bots.hint import Option as HintOption
from converge.bots.hint import follow_on, hint, measured, verdict
from converge.cli.play_session import Session, UndoRefused, saved_text
from converge.cli.saves import SavedMatch
from converge.cli.screen import CardStyle
from converge.cli.tui.dialogs import ConfirmQuit, DialogHost, PassScreen, StartScreen
from converge.cli.tui.table import CHOOSING, Mode, TableScreen, decision_token
from converge.engine.view import PlayerView


class GameApp(DialogHost):
    """One sitting of Converge in the terminal: a match against a bot or hot-seat, then rematches."""

    TITLE = "Converge"
    ENABLE_COMMAND_PALETTE = False
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 (Textual's own declaration)
    CSS_PATH = "tui.tcss"  # (the layout, narrow and wide, and the dialogs)
    BINDINGS: ClassVar[list[BindingType]] = [
        # Ctrl+C asks to leave on every screen, the dialogs' too (Textual's own binding does not reach past
        # a dialog, and only says how to quit); so does Ctrl+Q, Textual's binding for quitting. (The table's
        # keys are the table screen's: a dialog over it takes its own.)
        Binding("ctrl+q,ctrl+c", "leave(True)", show=False, priority=True),
    ]

    class BotMoved(Message):
        """A bot's move, found in its thread for the screen ``token``."""

        def __init__(self, token: int, player: int, action: int) -> None:
            super().__init__()
            self.token, self.player, self.action = token, player, action

    class HintFound(Message):
        """A hint, found in its thread for the decision ``token``, and its sentence."""

        def __init__(self, token: int, options: list[HintOption], said: str) -> None:
            super().__init__()
            self.token, self.options, self.said = token, options, said

    #: what the screen shows, and so which keys act (the footer follows it)
    mode: var[Mode] = var(Mode.START, bindings=True)

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
        self.table = TableScreen()
        self.token = 0  # changes with every new screen state: a late bot's move is dropped
        self.hint: tuple[int, list[HintOption]] | None = None  # the last hint, and the decision it is for
        self.hint_simulations = hint_simulations  # None: the hint's budget, whose chances were measured
        self.farewell: list[str] = []
        self.after_pass = ""  # a message for the player the device is being passed to
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

    def get_default_screen(self) -> Screen[None]:
        return self.table

    def open(self) -> None:
        """The first screen, once the table is laid out: the start screen's list of saved matches, or the
        match."""
        if not self.saved:
            self.begin(taken_up=self.resumed)
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
        assert chosen >= 0 or self.new_session is not None
        self.use(self.new_session if chosen < 0 and self.new_session else Session.resumed(self.saved[chosen]))
        self.begin(taken_up=chosen >= 0)

    def begin(self, taken_up: bool) -> None:
        """Start playing: save the match at once (a quit on the first screen leaves it to take up again), and
        say so when the save failed (a full disk...): the player should know before playing on. A saved match
        ``taken_up`` again (:meth:`Session.resumed`) plays on, saying where it was left."""
        s = self.session
        if taken_up:
            for v in (0, 1):  # each person's next "their move" line starts after their own last play
                mine = [i for i, e in enumerate(s.log[v]) if e["kind"] in ("play", "pass") and e["player"] == v]
                self.table.moved_from[v] = mine[-1] + 1 if mine else 0
            self.table.rebuild_log(self.viewer)
        s.save()
        self.advance()
        if s.save_problem:
            self.table.say(s.save_problem, severity="warning")
        elif taken_up:
            said = f"Taken up where it was left: round {s.match.round_no}, turn {s.match.turn_no}."
            if self.mode == Mode.PASS:  # (said to the player at the device once it has been passed)
                self.after_pass = said
            else:
                self.table.say(said)

    # ------------------------------------------------------------------ the flow

    def advance(self) -> None:
        """Show what comes next: a summary the player has not read, the end of the match, a bot's move, the
        pass-the-device screen, or the player's decision."""
        self.token += 1
        s = self.session
        m = s.match
        v = self.viewer
        if v >= 0 and s.unread_turn_end(v):
            self.table.show_summary(v)
        elif m.is_terminal:  # read already (after an undo was refused...): the end again
            self.table.show_match_end(v if v >= 0 else 0, Text())
        elif s.is_bot(m.current_player):
            p = m.current_player
            self.table.show_thinking(s.seats[p].name)
            self.decide(self.token, p, s.bot_for(p), m.view(p))
        elif m.current_player != v:
            self.pass_device(m.current_player)
        else:
            self.table.show_decision(v)

    def pass_device(self, p: int) -> None:
        """Hot-seat: blank everything private, then the pass-the-device screen; the next player's screen is
        drawn only once they are there."""
        self.mode = Mode.PASS
        self.viewer = -1
        self.hint = None
        self.table.blank()

        def ready(_: None) -> None:
            self.viewer = p
            self.table.rebuild_log(p)
            self.advance()
            if self.after_pass:
                self.table.say(self.after_pass)
                self.after_pass = ""

        self.push_screen(PassScreen(self.session.seats[p].name), ready)

    def play(self, action: int, player: int) -> None:
        s = self.session
        hinted = self.hint[1] if self.hint is not None and self.hint[0] == decision_token(s) else []
        s.apply(action, player)
        if not s.is_bot(player):  # the other's next move is told from here
            s.fetch(player)
            self.table.moved_from[player] = len(s.log[player])
        self.hint = None
        if hinted and s.match.current_player == player:  # the next step of the same play: the same search's
            follow = follow_on(hinted, action, s.match.legal_actions())  # figures
            self.hint = None if follow is None else (decision_token(s), follow)
        self.advance()

    # ------------------------------------------------------------------ bots and hints, in threads

    @work(thread=True, group="bot", exit_on_error=False)
    def decide(self, token: int, p: int, bot: Bot, view: PlayerView) -> None:
        self.post_message(self.BotMoved(token, p, bot.decide(view)))

    @on(BotMoved)
    def bot_moved(self, moved: BotMoved) -> None:
        """The bot's move, played unless the screen moved on meanwhile (an undo, a rematch)."""
        if moved.token == self.token:
            self.play(moved.action, moved.player)

    def ask_hint(self) -> None:
        if self.mode != Mode.DECISION:
            self.table.say("A hint is for a decision of yours.", severity="warning")
            return
        self.table.say("Thinking about your options…")
        self.search_hint(decision_token(self.session), self.session.match.view(self.viewer),
                         len(self.session.match.history))

    @work(thread=True, group="hint", exclusive=True, exit_on_error=False)
    def search_hint(self, token: int, view: PlayerView, seed: int) -> None:
        options = hint(view, simulations=self.hint_simulations, seed=seed)
        self.post_message(self.HintFound(token, options, verdict(options, measured(self.hint_simulations, view))))

    @on(HintFound)
    def hint_found(self, found: HintFound) -> None:
        """The hint, said and noted beside each option if its decision is still on screen."""
        if found.token == decision_token(self.session) and self.mode == Mode.DECISION:
            self.hint = (found.token, found.options)
            self.table.say(f"Hint, from what you can see (played on as well as the bot would): {found.said}")
            self.table.show_decision(self.viewer, keep_message=True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.table.say(f"Something went wrong: {event.worker.error}", severity="warning")

    # ------------------------------------------------------------------ undo and leaving

    def undo(self, whole_turn: bool) -> None:
        if self.mode not in CHOOSING or self.viewer < 0:
            self.table.say("Wait for your opponent's move first.", severity="warning")
            return
        try:
            message = self.session.undo(self.viewer, whole_play=whole_turn)
        except UndoRefused as exc:
            self.table.say(str(exc), severity="warning")
            return
        self.hint = None
        for v in (0, 1):
            self.table.moved_from[v] = min(self.table.moved_from[v], len(self.session.log[v]))
        self.table.rebuild_log(self.viewer)
        self.advance()
        self.table.say(message)

    def action_leave(self, again_confirms: bool) -> None:
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

    def rematch(self) -> None:
        path = self.session.save_path
        if path is not None:
            self.farewell.append(f"Match record saved to {path}")
        self.session.rematch()
        self.table.logged = [0, 0]
        self.table.moved_from = [0, 0]
        self.hint = None
        humans = self.session.humans()
        self.viewer = -1 if self.hotseat or not humans else humans[0]
        self.table.rebuild_log(self.viewer)
        self.advance()
