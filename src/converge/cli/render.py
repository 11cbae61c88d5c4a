"""Text output of the command line: the card tables and a match told turn by turn."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from converge.cards.model import Deck
from converge.engine.events import END_REASONS, MATCH_END, PASS, PLAY, ROUND_END, ROUND_START, SCORE, Event
from converge.engine.narration import Narrator
from converge.engine.state import Match


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# ---------------------------------------------------------------------- cards


def card_rows(deck: Deck) -> list[tuple[str, str, str, str, str]]:
    """``(id, name, rank, goal with stars, effect)`` of each card of a deck."""
    return [(c.id, c.name, str(c.rank), f"{c.goal.text} {'★' * c.goal.stars}", c.effect_text) for c in deck.cards]


def print_decks_plain(decks: Sequence[Deck], out: TextIO) -> None:
    """One block per deck, one line per card: for pipes, files and ``NO_COLOR``-free logs."""
    for i, deck in enumerate(decks):
        if i:
            out.write("\n")
        out.write(f"{deck.skillset} — {deck.set_name or 'user deck'} — keyword: {deck.keyword or '-'}\n")
        for cid, name, rank, goal, effect in card_rows(deck):
            out.write(f"  {cid:<6} {rank}  {name}\n         Goal: {goal}\n         {effect}\n")


def print_decks_rich(decks: Sequence[Deck], out: TextIO, color: bool) -> None:
    """A table per deck, coloured with the deck's colour."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, no_color=not color, force_terminal=color, highlight=False)
    for deck in decks:
        style = deck.color if color else ""
        table = Table(title=f"{deck.skillset} — {deck.set_name or 'user deck'} — keyword: {deck.keyword or '-'}",
                      title_style=f"bold {style}".strip(), border_style=style or None, expand=False)
        table.add_column("id", style=style or None, no_wrap=True)
        table.add_column("name", no_wrap=True)
        table.add_column("rank", justify="right")
        table.add_column("goal")
        table.add_column("discard effect")
        for row in card_rows(deck):
            table.add_row(*row)
        console.print(table)


def print_decks(decks: Sequence[Deck], out: TextIO | None = None) -> None:
    """The decks with each card's generated text: rich tables on a terminal, plain lines otherwise."""
    stream = out if out is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        print_decks_rich(decks, stream, use_color(stream))
    else:
        print_decks_plain(decks, stream)


# ---------------------------------------------------------------------- matches

#: How the seats are named wherever a match is told: the hot-seat game, replay and watch.
SEATS: tuple[str, str] = ("Player 1", "Player 2")


class MatchPrinter:
    """Tells a match turn by turn from its event log, as the events arrive.

    ``everything=False`` shows the public view (what a spectator sees: the narration for viewer -1).
    ``everything=True`` adds each player's private events (cards dealt, drawn, seen, taken), marked
    with the player who saw them: for a finished match or a bot-vs-bot demonstration, where nothing is
    secret any more.

    The seats are "Player 1" and "Player 2", as the hot-seat game names them (``names`` adds who sits
    there, e.g. "Player 1 (Hard bot)", in the header).
    """

    def __init__(self, match: Match, out: TextIO, everything: bool = False, names: Sequence[str] = (),
                 pause: Callable[[], None] | None = None) -> None:
        self.match = match
        self.pause = pause  # called after each turn's scores are told (``converge watch`` paces itself)
        self.out = out
        self.everything = everything
        self.names = list(SEATS)
        self.players = list(names) or list(SEATS)  # who sits there, for the header
        self.seen = 0
        self.turn = 0
        self.in_turn = False
        self.narrators = {v: Narrator(match.playset, v, SEATS) for v in (-1, 0, 1)}

    def _line(self, text: str) -> None:
        self.out.write(text + "\n")

    def header(self) -> None:
        m = self.match
        self._line(f"Converge — {' / '.join(m.playset.skillsets)}")
        if self.players != list(SEATS):
            self._line(f"{self.players[0]} against {self.players[1]}")

    def flush(self) -> None:
        """Print the events logged since the last call."""
        m = self.match
        events = m.events
        while self.seen < len(events):
            event = events[self.seen]
            self.seen += 1
            self._event(m, event)

    def _event(self, m: Match, event: Event) -> None:
        kind, visibility, player = event[0], event[1], event[2]
        lines = {v: n.line(event) for v, n in self.narrators.items() if visibility < 0 or visibility == v}
        if visibility >= 0 and not self.everything:
            return
        if kind == ROUND_START:
            self.in_turn = False
            self._line("")
            self._line(f"=== Round {event[4]} === (round wins {self._wins_before()})")
        elif not self.in_turn and kind in (PLAY, PASS):
            self.turn += 1
            self.in_turn = True
            self._line(f"-- Turn {self.turn} (lead: {self.names[player]})")
        if visibility >= 0:
            text = f"[{self.names[visibility]} only] {lines[visibility]}"
        else:
            text = lines[-1]
        indent = "   " if self.in_turn else " "
        if kind == SCORE:
            self._line(f"{indent}scores after the turn: {self.names[0]} {event[4]}, {self.names[1]} {event[5]}")
            self.in_turn = False
            if self.pause is not None:
                self.pause()
            return
        if kind == ROUND_END:
            self._line(f" {self.names[player]} wins round {event[5]} ({END_REASONS[event[4]].replace('_', ' ')})")
            return
        if kind == MATCH_END:
            self._line(f" {self.names[player]} wins the match")
            return
        self._line(indent + text)

    def _name(self, player: int) -> str:
        return self.names[player] if player in (0, 1) else "the deal"

    def _wins_before(self) -> str:
        wins = [0, 0]
        for w in self.match.round_winners:
            wins[w] += 1
        return f"{wins[0]}-{wins[1]}"

    def summary(self) -> None:
        m = self.match
        self._line("")
        rounds = ", ".join(f"round {i + 1}: {self.names[w]} ({END_REASONS[r].replace('_', ' ')})"
                           for i, (w, r) in enumerate(m.round_results))
        self._line(f"Rounds — {rounds or 'none finished'}")
        if m.is_terminal:
            self._line(f"Result: {self.names[m.winner]} wins the match "
                       f"{m.round_wins[m.winner]}-{m.round_wins[1 - m.winner]}")
        else:
            self._line(f"Result: the match is not finished (round wins {m.round_wins[0]}-{m.round_wins[1]}; "
                       f"{self._name(m.current_player)} was to play)")


