"""The greedy bot: one ply of look-ahead over its own complete plays, on its own information only.

At the start of its play the bot enumerates every *complete play* it could make — the card, how to
play it, and every decision of its effect — by applying its own decisions to copies of a world sampled
from its view (:meth:`~converge.engine.view.PlayerView.sample_world`), and scores the position where each
play ends with the engine's own :meth:`~converge.engine.state.Match.scores`.
It then follows the best play (remembered as a plan, so the later decisions of the same play cost
nothing).

What a simulation looks at. The world is sampled, so its hidden cards are guesses; the simulation only
goes where the bot's own knowledge goes, so that the guesses never matter:

* it applies only the bot's own decisions and stops as soon as the decision passes to the opponent or the
  turn ends (so it never sees the opponent's play or a card drawn in T7);
* when the turn ended, it reads only public outcomes: who won the round (``round_results``), who holds the
  artifact, the scores;
* it stops *before* any decision of an effect that may show a hidden card (an effect kind that
  ``reveals``: Assemble, Search). Such a play is scored as it stands when the reveal happens; when the real
  match reaches that decision the card is shown, and the bot plans again from there.

Ranking of plays (highest first): the round won (or the match); the artifact (as lead: a positive lead
after the play, which wins the round unless the opponent answers; as the other player: more points, which
takes the artifact); then the point lead; then the bot's own points; then the worth of the cards kept in
hand: the card played and cards expanded out of hand are a loss, cards recalled a gain, so the play that
gives up the least (fewest stars, lowest rank) wins; then a seeded random choice.

What the bot assumes of an effect comes from its kind (:class:`~converge.engine.effects.EffectKind`): effects
whose picks ``commute`` enumerate their targets in increasing order only; a ``score_neutral`` effect (Guard,
Search, Recall from the discard pile) follows a fixed policy (the card worth most); ``hand_change`` says
whether a pick puts a card into the hand or takes one out.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Final

from converge.engine import actions as _actions
from converge.engine.sizes import NUM_CARDS
from converge.engine.state import Match

if TYPE_CHECKING:
    from converge.engine.effects import EffectKind
    from converge.engine.playset import Playset
    from converge.engine.view import PlayerView

DISCARD: Final = _actions.DISCARD

# Where a decision stands inside the bot's play.
SELECT: Final = 0
MODE: Final = 1
EFFECT: Final = 2

Value = tuple[int, int, int, int]


def card_worth(playset: Playset, card: int) -> int:
    """How much a card in hand is worth keeping (public card data): its goal's stars, then its rank."""
    return playset.goal_stars[card] * 10 + playset.printed_rank[card]


class GreedyBot:
    """Plays the complete play with the best end-of-play standing (see the module doc)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"
        self.seed = seed
        self.rng = random.Random(seed)
        self.worlds = random.Random(seed + 1)  # draws the sampled worlds (which never change a decision)
        self._key: tuple[int, int, int, int] | None = None
        self._plan: list[int] = []  # reversed: the next action is the last item
        self._worth: dict[str, list[int]] = {}  # per playset digest
        #: Complete plays scored by the last plan (for benchmarks and tests).

    def reset(self) -> None:
        """Forget the plan in progress (a plan is also dropped when its match, round or turn changes)."""
        self._key = None
        self._plan = []

    def __repr__(self) -> str:
        return f"GreedyBot(seed={self.seed})"

    # ------------------------------------------------------------------ deciding

    def decide(self, view: PlayerView) -> int:
        me = view.player
        legal = view.legal_actions()
        if not legal:
            raise ValueError("the greedy bot was asked to decide, but it is not its decision")
        key = (view.match_id, view.round_no, view.turn_no, me)
        if key == self._key and self._plan:
            action = self._plan.pop()
            if action in legal:
                return action
        kind = view.decision_kind
        if kind == "select":
            stage = SELECT
        elif kind == "mode":
            stage = MODE
        else:
            stage = EFFECT
        self._key = key
        plan = self._best_play(view, me, stage, view.active_card, view.effect_card)
        plan.reverse()
        action = plan.pop()
        self._plan = plan
        return action

    def _worths(self, playset: Playset) -> list[int]:
        got = self._worth.get(playset.digest)
        if got is None:
            if len(self._worth) > 256:
                self._worth.clear()
            got = self._worth[playset.digest] = [card_worth(playset, c) for c in range(len(playset.cards))]
        return got

    # ------------------------------------------------------------------ planning

    def _best_play(self, view: PlayerView, me: int, stage: int, active: int, ecard: int) -> list[int]:
        search = _Search(view, me, self._worths(view.playset))
        # A play that ends the round leaves the world waiting for the next deal (a chance node) instead of
        # dealing it: nothing of the next round is looked at, and no time is spent on it.
        root = view.sample_world(self.worlds, True)
        search.run(root, stage, active, ecard, 0)
        lines = search.best
        return lines[0] if len(lines) == 1 else lines[self.rng.randrange(len(lines))]


class _Search:
    """One depth-first enumeration of the bot's complete plays from a decision.

    Every node it looks at is a decision of the bot reached through its own decisions only; each leaf
    (where the play ends, or stops before a hidden card is shown) is scored by :meth:`leaf`.
    """

    __slots__ = ("me", "key", "results", "lead_is_me", "worth", "kinds", "args", "best_value", "best", "won")

    def __init__(self, view: PlayerView, me: int, worth: list[int]) -> None:
        self.me = me
        self.key = (view.round_no, view.turn_no)
        self.results = len(view.round_results)
        self.lead_is_me = view.lead == me
        self.worth = worth
        self.kinds: tuple[EffectKind, ...] = view.playset.effect_kind
        self.args: tuple[tuple[int, ...], ...] = view.playset.effect_args
        self.best_value: Value = (-99, 0, 0, 0)  # below every real value
        self.best: list[list[int]] = []
        self.won = False  # a play wins the round: nothing can be better (the next round is dealt afresh)

    def run(self, node: Match, stage: int, active: int, ecard: int, gain: int) -> None:
        """Enumerate the plays from ``node`` (which is consumed)."""
        if stage == SELECT:
            legal = node.legal_actions()
            final = len(legal) - 1
            worth = self.worth
            for i, card in enumerate(legal):
                if self.won:
                    return
                child = node if i == final else node.clone()
                child.push(card)  # choosing a card never ends the play
                self.mode(child, card, gain - worth[card], [card])
        elif stage == MODE:
            self.mode(node, active, gain, [])
        else:
            self.effect(node, ecard, -1, gain, [])

    def mode(self, node: Match, card: int, gain: int, path: list[int]) -> None:
        legal = node.legal_actions()
        final = len(legal) - 1
        me, key = self.me, self.key
        for i, action in enumerate(legal):
            if self.won:
                return
            child = node if i == final else node.clone()
            child.push(action)
            # declared or added (or an effect with nothing to do): the play is over; an effect that may
            # show a hidden card: the bot plans again once it is shown
            if (action != DISCARD or child.current_player != me or (child.round_no, child.turn_no) != key
                    or self.kinds[card].reveals):
                self.leaf(child, gain, path, action)
            else:
                self.effect(child, card, -1, gain, [*path, action])

    def effect(self, node: Match, ecard: int, last: int, gain: int, path: list[int]) -> None:
        legal = node.legal_actions()
        kind, args = self.kinds[ecard], self.args[ecard]
        if kind.score_neutral(args):
            legal = [self._policy(legal)]
        elif last >= 0 and kind.commutes:
            legal = [a for a in legal if a >= NUM_CARDS or a > last]
        me, key, worth = self.me, self.key, self.worth
        final = len(legal) - 1
        for i, action in enumerate(legal):
            if self.won:
                return
            child = node if i == final else node.clone()
            child.push(action)
            c_ecard, c_last, c_gain = ecard, last, gain
            hidden = kind.reveals  # a further decision would show another hidden card
            if child.current_player == me and child.effect_card >= 0 and child.effect_card != ecard:
                c_ecard, c_last = child.effect_card, -1  # it resolves another card's effect now (Study)
                hidden = self.kinds[c_ecard].reveals
            elif action < NUM_CARDS:
                if kind.commutes:
                    c_last = action
                c_gain = gain + kind.hand_change * worth[action]
            if child.current_player != me or (child.round_no, child.turn_no) != key or hidden:
                self.leaf(child, c_gain, path, action)
            else:
                self.effect(child, c_ecard, c_last, c_gain, [*path, action])

    def _policy(self, legal: list[int]) -> int:
        cards = [a for a in legal if a < NUM_CARDS]
        if not cards:
            return legal[0]
        worth = self.worth
        return max(cards, key=lambda c: (worth[c], c))

    def leaf(self, child: Match, gain: int, path: list[int], action: int) -> None:
        """Score the play ``path + [action]``, which left the match in ``child``."""
        me = self.me
        s0, s1 = child.scores()
        mine, margin = (s0, s0 - s1) if me == 0 else (s1, s1 - s0)
        if (child.round_no, child.turn_no) == self.key:
            cat = (margin > 0) - (margin < 0)  # the turn goes on: the play stands as it is
        elif child.is_terminal:
            cat = 4 if child.winner == me else -4
            self.won = cat > 0
        elif child.rounds_finished != self.results:
            cat = 3 if child.round_winners[-1] == me else -3
            self.won = cat > 0
        elif self.lead_is_me:  # the turn ended and nobody won: I kept the artifact on a tie, or lost it
            cat = 0 if child.holder == me else -1
        else:
            cat = 1 if child.holder == me else 0
        value = (cat, margin, mine, gain)
        best = self.best_value
        if value > best:
            self.best_value = value
            self.best = [[*path, action]]
        elif value == best:
            self.best.append([*path, action])


__all__ = ["GreedyBot", "card_worth"]
