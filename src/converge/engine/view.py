"""A player's view: everything one player may know of a match, and nothing else — what bots decide on.

A :class:`PlayerView` holds a *redacted* copy of the match (:meth:`~converge.engine.state.Match.redacted`):
the cards hidden from the player are dealt again by a fixed draw, the other player's private events
and the action history are gone. So a bot that only ever sees views cannot learn a hidden card, however
it looks at them: the information boundary is data, not manners.

>>> from converge import Match
>>> m = Match.new(["alchemist", "mechanist", "archivist"], seed=2)
>>> v = m.view(m.current_player)
>>> v.legal_actions() == m.legal_actions(), v.observation() == m.observation(m.current_player)
(True, True)
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Literal

from converge.engine import native
from converge.engine.effects import EffectKind
from converge.engine.observation import follow_up
from converge.engine.schema import Observation
from converge.engine.turn import seat

if TYPE_CHECKING:
    from converge.engine.playset import Playset
    from converge.engine.state import Match


class PlayerView:
    """What ``player`` may know of a match at one moment (a snapshot: later actions do not change it)."""

    __slots__ = ("player", "playset", "match_id", "_world", "_observation", "_native")

    def __init__(self, match: Match, player: object) -> None:
        self.player: int = seat(player)
        self.playset: Playset = match.playset
        #: Identifies the match the view was taken from (not its content): bots key their memory on it.
        self.match_id: int = id(match)
        self._world = match.redacted(player)
        self._observation: Observation | None = None
        self._native: native.NativeState | Literal[False] | None = False  # not made yet

    def observation(self) -> Observation:
        """``match.observation(player)``: the JSON view (computed once per view; do not modify it)."""
        if self._observation is None:
            self._observation = self._world.observation(self.player)
        return self._observation

    def redacted(self) -> Match:
        """The redacted copy of the match the view holds (do not modify it): what the player knows, the cards
        hidden from them dealt again by a fixed draw — not the real ones. What reads only the player's side of
        a match (an encoder of their tensors, their observation) reads the same from it as from the match."""
        return self._world

    def legal_actions(self) -> list[int]:
        """The player's legal actions when the decision is theirs, else an empty list."""
        w = self._world
        return w.legal_actions() if w.current_player == self.player else []

    def follow_up(self, action: int) -> PlayerView | None:
        """The player's view after ``action`` when it only opens another choice of theirs with nothing in
        between — how to play the card just chosen, the faction of a card to place — else None. Such a
        choice is a step of one play: a client may hold it and send both at once, a hint may judge both."""
        if follow_up(self._world, action, self.player) is None:
            return None
        after = self._world.clone(history=False)
        after.apply(action)
        return PlayerView(after, self.player)

    def sample_world(self, rng: random.Random, chance: bool = False) -> Match:
        """A whole match consistent with this view, the hidden cards dealt at random by ``rng`` (see
        :meth:`~converge.engine.state.Match.sample_world`): the bot's own to search, play and change."""
        return self._world.sample_world(self.player, rng, chance)

    def endgame_worlds(self) -> list[Match] | None:
        """Once the deck is empty, every whole match consistent with this view, each as likely (see
        :meth:`~converge.engine.state.Match.endgame_worlds`): the bot's own to solve; None before."""
        return self._world.endgame_worlds(self.player)

    def native_state(self) -> native.NativeState | None:
        """The view's redacted match in the native core (:mod:`converge.engine.native`), for a search to sample
        its worlds from; None where the core is absent or cannot play the playset. Made once per view."""
        if self._native is False:
            w = self._world
            usable = native.tables(w.playset) is not None and w.current_player == self.player
            self._native = native.state_of(w) if usable else None
        return self._native

    # Public facts of the match (every player sees them).

    @property
    def current_player(self) -> int:
        return self._world.current_player

    @property
    def decision_kind(self) -> str:
        return self._world.decision_kind

    @property
    def round_no(self) -> int:
        return self._world.round_no

    @property
    def turn_no(self) -> int:
        return self._world.turn_no

    @property
    def round_results(self) -> list[tuple[int, int]]:
        return self._world.round_results

    @property
    def round_wins(self) -> list[int]:
        return self._world.round_wins

    @property
    def holder(self) -> int:
        return self._world.holder

    @property
    def lead(self) -> int:
        return self._world.lead

    def scores(self) -> tuple[int, int]:
        return self._world.scores()

    # The player's own decision (-1 / None when the decision is not theirs).

    @property
    def _deciding(self) -> bool:
        return self._world.current_player == self.player

    @property
    def active_card(self) -> int:
        """The card the player is playing (chosen, not yet played or still resolving), or -1."""
        return self._world.turn.active if self._deciding else -1

    @property
    def effect_card(self) -> int:
        """The card whose discard effect the player is resolving (the played card or one it studies), or -1."""
        return self._world.effect.card if self._deciding else -1

    @property
    def effect_kind(self) -> EffectKind | None:
        """The kind of the effect the player is resolving, or None."""
        return self._world.effect.kind if self._deciding else None

    def __repr__(self) -> str:
        return f"<PlayerView of player {self.player}: {self._world!r}>"
