"""What a bot is, and what it may look at.

A bot is asked for a decision with a :class:`~converge.engine.view.PlayerView` of its seat — never the
live match — and returns one of that player's legal action ids. The view holds what the player may know
and nothing else (I1-I3): the observation, the legal actions, the public facts of the match, and
``sample_world(rng)``, a whole match consistent with the view (the hidden cards dealt at random) that
the bot may search, play and change as it likes. A bot that plans on sampled worlds cannot learn a hidden
card, because the view does not hold one.

Every bot is seeded: the same seed and the same views give the same decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from converge.engine.view import PlayerView


@runtime_checkable
class Bot(Protocol):
    """A player that chooses actions."""

    #: The bot's registry name, e.g. ``"greedy"``.
    name: str

    def decide(self, view: PlayerView) -> int:
        """One legal action id of the view's player, whose decision it is."""
        ...

    def reset(self) -> None:
        """Forget everything about the previous match (the seeded RNG keeps its state)."""
        ...
