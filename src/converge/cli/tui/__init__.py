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

Everything shown to a player comes from that player's observation (:class:`~converge.cli.play_session.Session`).

The package: :mod:`.app` (the flow), :mod:`.table` (the game's screen and its layout), :mod:`.dialogs`, and
``tui.tcss`` (the style sheet).
"""

from converge.cli.tui.app import GameApp
from converge.cli.tui.dialogs import ConfirmQuit, HelpScreen, PassScreen, RulesScreen, StartScreen
from converge.cli.tui.table import Choice, Mode, Narration, TableScreen

__all__ = ["Choice", "ConfirmQuit", "GameApp", "HelpScreen", "Mode", "Narration", "PassScreen", "RulesScreen",
           "StartScreen", "TableScreen"]
