"""What a bot is, and what it may look at.

A bot is asked for a decision with the live :class:`~converge.engine.state.Match` whose
:attr:`~converge.engine.state.Match.current_player` is the bot's seat, and returns one of that
player's legal action ids. It is a client of the engine's public API and, like every client, may only
use what its player is allowed to know (I1-I3):

* the player's :meth:`~converge.engine.state.Match.observation` and the public facts it also holds
  (``round_no``, ``turn_no``, ``lead``, ``holder``, ``round_results``, ``scores()``, the playset's
  printed cards);
* :meth:`~converge.engine.state.Match.legal_actions` while it is the bot's own decision (the
  observation lists the same actions);
* :meth:`~converge.engine.state.Match.clone` and ``apply`` / ``push`` (an action taken from
  ``legal_actions()``) on the clone, **only** to follow its own decisions, and only until the
  simulation would depend on something hidden (a card revealed from the deck, a draw, the opponent's
  play): see :mod:`converge.bots.greedy`.

A bot never reads the opponent's hand, the deck, the artifact, the seed or the action history.
Every bot is seeded: the same seed and the same observations give the same decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from converge.engine.state import Match


@runtime_checkable
class Bot(Protocol):
    """A player that chooses actions."""

    #: The bot's registry name, e.g. ``"greedy"``.
    name: str

    def choose(self, match: Match) -> int:
        """One legal action id of ``match.current_player`` (the bot's seat)."""
        ...

    def reset(self) -> None:
        """Forget everything about the previous match (the seeded RNG keeps its state)."""
        ...
