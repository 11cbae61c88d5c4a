"""What wins at a puzzle's decision, how the opponent replies, and an attempt judged step by step.

The exact endgame solver (:mod:`converge.bots.endgame`) values each option of a decision once the deck is
empty: ``sure == 1`` when one way of playing on — its choices depending only on what the player sees — wins the
round in every world consistent with the player's view, whatever the opponent does. A puzzle's decision is one
where the winning options are few and the others are not; at each of the mover's later steps (how to play the
card, its targets, their next play) every option that still wins in every case is accepted, as a chess puzzle
accepts any mate in one at its last move.

The opponent's replies are the solver's too: from the opponent's own view, the option that wins the round in the
most worlds (ties: the first by the solver's order), so that a reply never depends on anything its player
could not see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from converge.bots.endgame import solve

if TYPE_CHECKING:
    from converge.bots.estimates import Estimate
    from converge.engine.state import Match
    from converge.engine.view import PlayerView

#: Positions the solver may visit at one decision of a puzzle (ten times a hint's: a puzzle is judged once and
#: its claims are shipped; the solver's default bound leaves larger endgames to the search).
NODES = 3_000_000


class Unsolved(Exception):
    """The decision cannot be solved exactly (the deck is not empty, or the endgame is too large)."""


def options(view: PlayerView) -> list[Estimate]:
    """Each option of the view's decision with what the solver makes of it (``wins`` of ``visits`` worlds won
    against the best replies; ``sure``: 1 wins in every case, -1 loses in every case), best first."""
    found = solve(view, depth=1, nodes=NODES)
    if found is None:
        raise Unsolved("this decision cannot be solved exactly")
    return found.estimates


def winning(view: PlayerView) -> list[int]:
    """The options of the view's decision that win the round in every case, in the solver's order."""
    return [e.action for e in options(view) if e.sure == 1]


def reply(match: Match) -> int:
    """The current player's choice at ``match``'s decision, as the solver makes it from their own view (see
    the module doc); a decision with one option is that option."""
    legal = match.legal_actions()
    if len(legal) == 1:
        return legal[0]
    return options(match.view(match.current_player))[0].action


def same_play(match: Match, mover: int, round_index: int) -> bool:
    """Whether ``match`` waits on ``mover`` again within the round ``round_index`` (their next step)."""
    return not match.is_terminal and match.rounds_finished == round_index and match.current_player == mover


@dataclass
class Progress:
    """An attempt so far: ``status`` is ``"playing"`` (the mover's next step is awaited), ``"solved"`` (the round
    is won) or ``"failed"`` (an action that does not win in every case: ``wrong`` is it). ``match`` is the
    puzzle's match after the attempt's actions and the opponent's replies; ``accepted`` the options that win at
    each of the mover's steps taken, in order; ``replies`` the opponent's actions played in between."""

    status: str
    match: Match
    accepted: list[list[int]] = field(default_factory=list)
    replies: list[int] = field(default_factory=list)
    wrong: int | None = None


def follow(start: Match, actions: list[int], max_steps: int = 40) -> Progress:
    """Judge ``actions``, the mover's steps from ``start`` (a puzzle's position, the mover to play), one by
    one: each must be legal (else :class:`ValueError`) and win in every case (else the attempt failed there);
    after each, the opponent's replies are played until the mover decides again or the round ends. Raises
    :class:`Unsolved` when a decision on the way cannot be solved, which a puzzle's own line never meets."""
    match = start.clone()
    mover, round_index = match.current_player, match.rounds_finished
    progress = Progress("playing", match)
    for action in actions[:max_steps]:
        if not same_play(match, mover, round_index):
            break
        if action not in match.legal_actions():
            raise ValueError(f"action {action} is not one of this decision's options")
        good = winning(match.view(mover))
        progress.accepted.append(good)
        if action not in good:
            progress.status, progress.wrong = "failed", action
            return progress
        match.apply(action)
        while not match.is_terminal and match.rounds_finished == round_index and match.current_player != mover:
            answer = reply(match)
            progress.replies.append(answer)
            match.apply(answer)
    if match.is_terminal or match.rounds_finished > round_index:
        progress.status = "solved" if match.round_winners[round_index] == mover else "failed"
    return progress


def main_line(start: Match, max_plays: int = 3) -> tuple[list[int], int] | None:
    """The puzzle's line from ``start``: the mover's steps (the first winning option at each, by the solver's
    order) and the opponent's replies, to the end of the round; with the number of the mover's plays (cards)
    in it. None when the line needs more than ``max_plays`` plays or meets a decision too large to solve."""
    match = start.clone()
    mover, round_index = match.current_player, match.rounds_finished
    line: list[int] = []
    plays = 0
    try:
        while not match.is_terminal and match.rounds_finished == round_index:
            if match.current_player == mover:
                if match.decision_kind == "select":
                    plays += 1
                    if plays > max_plays:
                        return None
                good = winning(match.view(mover))
                if not good:
                    return None
                action = good[0]
            else:
                action = reply(match)
            line.append(action)
            match.apply(action)
    except Unsolved:
        return None
    return (line, plays) if match.round_winners[round_index] == mover else None
