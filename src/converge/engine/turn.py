"""Rounds and turns: the phases of a decision, the match's fixed numbers, and :class:`TurnState` — who holds
the artifact, who leads, whose decision it is and what is being played.

Every module of the engine that needs to know where a match stands reads these names from here, so that
they are defined once (the effect kinds' steps are in :mod:`converge.engine.effects`).
"""

from __future__ import annotations

from typing import Final

from converge.engine.errors import ConvergeError, quote

# Phases
SELECT: Final = 0  # the current player chooses a card from hand
MODE: Final = 1  # ... then how to play it
EFFECT: Final = 2  # ... then the decisions of its discard effect
OVER: Final = 3  # the match is over
DEAL: Final = 4  # chance mode: the next card of the deal order is drawn
START: Final = 5  # chance mode: who holds the artifact in round 1 is drawn

#: The "player" of a chance node (chance mode only; see :meth:`Match.new`).
CHANCE: Final = -2

#: The kinds of decision (:attr:`Match.decision_kind`), the effect steps' names included.
DECISION_KINDS: Final = ("select", "mode", "target", "skillset", "faction", "second", "chance", "over")


class TurnState:
    """Rounds and turns: who holds the artifact, who leads, whose decision it is, what is being played.

    ``phase`` is one of SELECT, MODE, EFFECT, OVER, DEAL, START; ``player`` decides now; ``turn_step``
    is 0 for the lead's play and 1 for the other player's; ``active`` is the card chosen to play.
    """

    __slots__ = ("round_no", "round_wins", "round_results", "first_holders", "holder", "lead", "turn_step",
                 "turn_no", "phase", "player", "active", "winner", "dealt", "deal_holder")

    round_no: int
    round_wins: list[int]
    round_results: list[tuple[int, int]]
    first_holders: list[int]
    holder: int
    lead: int
    turn_step: int
    turn_no: int
    phase: int
    player: int
    active: int
    winner: int
    dealt: list[int]
    deal_holder: int

    def __init__(self, blank: bool = False) -> None:
        """The state before the first round (or, ``blank``, nothing yet: for :meth:`copy` to fill in)."""
        if blank:
            return
        self.round_no = 0
        self.round_wins = [0, 0]
        self.round_results = []
        self.first_holders = []
        self.holder = -1
        self.lead = -1
        self.turn_step = 0
        self.turn_no = 0
        self.phase = SELECT
        self.player = 0
        self.active = -1
        self.winner = -1
        self.dealt = []
        self.deal_holder = -1

    def copy(self) -> TurnState:
        t = TurnState(True)
        t.round_no = self.round_no
        t.round_wins = self.round_wins[:]
        t.round_results = self.round_results[:]
        t.first_holders = self.first_holders[:]
        t.holder = self.holder
        t.lead = self.lead
        t.turn_step = self.turn_step
        t.turn_no = self.turn_no
        t.phase = self.phase
        t.player = self.player
        t.active = self.active
        t.winner = self.winner
        t.dealt = self.dealt[:]
        t.deal_holder = self.deal_holder
        return t


def seat(player: object) -> int:
    """``player`` as a seat, 0 or 1; a :class:`ConvergeError` for anything else."""
    if isinstance(player, bool) or not isinstance(player, int) or player not in (0, 1):
        raise ConvergeError(f"a player is 0 or 1, got {quote(player)}")
    return player
