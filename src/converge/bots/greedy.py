"""The greedy bot: one ply of look-ahead over its own complete plays, on public information only.

At the start of its play the bot enumerates every *complete play* it could make — the card, how to
play it, and every decision of its effect — by applying its own decisions to clones of the match, and
scores the position where each play ends with the engine's own :meth:`~converge.engine.state.Match.scores`.
It then follows the best play (remembered as a plan, so the later decisions of the same play cost
nothing).

What a simulation may look at (I1-I3). A clone holds the hidden cards too, so the simulation only goes
where the bot's own knowledge goes:

* it applies only the bot's own decisions and stops as soon as the decision passes to the opponent or the
  turn ends (so it never sees the opponent's play or a card drawn in T7);
* when the turn ended, it reads only public outcomes: who won the round (``round_results``), who holds the
  artifact, the scores;
* it stops *before* any decision that would depend on a hidden card: the card Assemble reveals from the
  deck, the cards Search shows. Such a play is scored as it stands when the reveal happens; when the real
  match reaches that decision the card is public (Assemble) or the bot's own to see (Search), and the bot
  plans again from there. Search picks the revealed card worth most in hand; the score is the same either
  way.

Ranking of plays (highest first): the round won (or the match); the artifact (as lead: a positive lead
after the play, which wins the round unless the opponent answers; as the other player: more points, which
takes the artifact); then the point lead; then the bot's own points; then the worth of the cards kept in
hand: the card played and cards expanded out of hand are a loss, cards recalled a gain, so the play that
gives up the least (fewest stars, lowest rank) wins; then a seeded random choice.

For speed, effects whose choices commute (Convert, Heal, Expand, Recall, Trade) enumerate their targets in
increasing order only, and the score-neutral Guard and Recall-from-the-discard-pile follow a fixed policy
(guard / recall the strongest cards).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Final

from converge.engine import actions as _actions
from converge.engine import playset as _tables
from converge.engine.state import Match

if TYPE_CHECKING:
    from converge.engine.playset import Playset

# The engine's codes, as Final names: compiled, they are read as constants, not looked up by name.
DISCARD: Final = _actions.DISCARD
CONVERT: Final = _tables.CONVERT
ASSEMBLE: Final = _tables.ASSEMBLE
RECALL: Final = _tables.RECALL
GUARD: Final = _tables.GUARD
SEARCH: Final = _tables.SEARCH
TRADE: Final = _tables.TRADE
EXPAND: Final = _tables.EXPAND
STUDY: Final = _tables.STUDY
HEAL: Final = _tables.HEAL

# Where a decision stands inside the bot's play.
SELECT: Final = 0
MODE: Final = 1
EFFECT: Final = 2
NUM_CARDS: Final = 18
_HIDDEN: Final = (ASSEMBLE, SEARCH)  # effects whose next decision shows a card of the deck
_ORDERED: Final = (CONVERT, HEAL, EXPAND, RECALL, TRADE)  # picks commute: enumerate targets in increasing order

# (stage, card whose effect resolves or the active card, ...) known at a decision
Context = tuple[int, int, int]  # (stage, active card, effect card)
Value = tuple[int, int, int, int]
Line = tuple[list[int], "Context | None"]


def card_worth(playset: Playset, card: int) -> int:
    """How much a card in hand is worth keeping (public card data): its goal's stars, then its rank."""
    return playset.goal_stars[card] * 10 + playset.printed_rank[card]


class GreedyBot:
    """Plays the complete play with the best end-of-play standing (see the module doc)."""

    def __init__(self, seed: int = 0) -> None:
        self.name = "greedy"
        self.seed = seed
        self.rng = random.Random(seed)
        self._key: tuple[int, int, int, int] | None = None
        self._plan: list[int] = []  # reversed: the next action is the last item
        self._end: Context | None = None  # where the plan stops, when it stops before a hidden reveal
        self._worth: dict[str, list[int]] = {}  # per playset digest
        #: Complete plays scored by the last plan (for benchmarks and tests).
        self.last_leaves = 0

    def reset(self) -> None:
        """Forget the plan in progress. Call it between matches: the plan is keyed by the match object,
        its round and its turn, and a plan is only followed while its next action is legal."""
        self._key = None
        self._plan = []
        self._end = None

    def __repr__(self) -> str:
        return f"GreedyBot(seed={self.seed})"

    # ------------------------------------------------------------------ deciding

    def choose(self, live: Any) -> int:
        # ``live`` is the live match, or any object with its public API (tests hand in a guarded proxy);
        # the compiled bot works on a real Match: the live one (which it only reads: its search runs on
        # clones), or a clone of anything else.
        match: Match = live if isinstance(live, Match) else live.clone()
        me = match.current_player
        legal = match.legal_actions()
        if me not in (0, 1) or not legal:
            raise ValueError("the greedy bot was asked to decide, but no player is to move")
        key = (id(live), match.round_no, match.turn_no, me)
        ctx: Context | None = None
        if key == self._key:
            if self._plan:
                action = self._plan.pop()
                if action in legal:
                    return action
            elif self._end is not None:
                ctx = self._end
        elif match.decision_kind() == "select":
            ctx = (SELECT, -1, -1)
        if ctx is None:
            ctx = self._context(match, me)
        self._key = key
        plan, self._end = self._best_play(match, me, ctx, legal)
        plan.reverse()
        action = plan.pop()
        self._plan = plan
        return action

    def _context(self, match: Match, me: int) -> Context:
        """Where this decision stands in the play, from the player's observation (when memory has no answer)."""
        decision = match.observation(me)["decision"] or {}
        index = match.playset.index_of
        if "card" not in decision:
            return (SELECT, -1, -1)
        active = index[str(decision["card"]).upper()]
        if "effect" not in decision:
            return (MODE, active, -1)
        studied = decision.get("studied")
        return (EFFECT, active, index[str(studied).upper()] if studied else active)

    def _worths(self, match: Match) -> list[int]:
        ps = match.playset
        got = self._worth.get(ps.digest)
        if got is None:
            if len(self._worth) > 256:
                self._worth.clear()
            got = self._worth[ps.digest] = [card_worth(ps, c) for c in range(NUM_CARDS)]
        return got

    # ------------------------------------------------------------------ planning

    def _best_play(self, match: Match, me: int, ctx: Context, legal: list[int]) -> Line:
        ps = match.playset
        worth = self._worths(match)
        stage, active, ecard = ctx
        if stage == EFFECT and ps.effect_code[ecard] == SEARCH:
            # The revealed cards are this player's to see; taking one changes no score.
            self.last_leaves = 1
            return [max(legal, key=lambda c: (worth[c] if c < NUM_CARDS else -1, c))], None
        search = _Search(match, me, worth)
        root = match.clone()
        root.log_events = False
        # A play that ends the round leaves the clone waiting for the next deal (a chance node) instead
        # of dealing it from the seed: nothing of the next round is looked at, and no time is spent on it.
        root.chance = True
        root.history = []  # never read by the search: the clones need not copy the match's action list
        search.run(root, stage, active, ecard, 0)
        self.last_leaves = search.leaves
        lines = search.best
        return lines[0] if len(lines) == 1 else lines[self.rng.randrange(len(lines))]


class _Search:
    """One depth-first enumeration of the bot's complete plays from a decision.

    Every node it looks at is a decision of the bot reached through its own decisions only; each leaf
    (where the play ends, or stops before a hidden card is shown) is scored by :meth:`leaf`.
    """

    __slots__ = ("me", "key", "results", "lead_is_me", "worth", "code", "args", "best_value", "best", "leaves",
                 "won")

    def __init__(self, match: Match, me: int, worth: list[int]) -> None:
        self.me = me
        self.key = (match.round_no, match.turn_no)
        self.results = len(match.round_results)
        self.lead_is_me = match.lead == me
        self.worth = worth
        self.code = match.playset.effect_code
        self.args = match.playset.effect_args
        self.best_value: Value = (-99, 0, 0, 0)  # below every real value
        self.best: list[Line] = []
        self.leaves = 0
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
            self.effect(node, active, ecard, -1, gain, [])

    def mode(self, node: Match, card: int, gain: int, path: list[int]) -> None:
        legal = node.legal_actions()
        final = len(legal) - 1
        me, key = self.me, self.key
        for i, action in enumerate(legal):
            if self.won:
                return
            child = node if i == final else node.clone()
            child.push(action)
            # declared or added (or an effect with nothing to do): the play is over
            if action != DISCARD or child.current_player != me or (child.round_no, child.turn_no) != key:
                self.leaf(child, gain, path, action, None)
            elif self.code[card] in _HIDDEN:
                self.leaf(child, gain, path, action, (EFFECT, card, card))
            else:
                self.effect(child, card, card, -1, gain, [*path, action])

    def effect(self, node: Match, active: int, ecard: int, last: int, gain: int, path: list[int]) -> None:
        legal = node.legal_actions()
        eff = self.code[ecard]
        if eff == GUARD or (eff == RECALL and not self.args[ecard][2]):
            legal = [self._policy(legal)]  # score-neutral: guard / recall the strongest cards
        elif last >= 0 and eff in _ORDERED:
            legal = [a for a in legal if a >= NUM_CARDS or a > last]
        me, key, worth, code = self.me, self.key, self.worth, self.code
        final = len(legal) - 1
        for i, action in enumerate(legal):
            if self.won:
                return
            child = node if i == final else node.clone()
            child.push(action)
            c_ecard, c_last, c_gain = ecard, last, gain
            hidden = False
            if eff == STUDY:
                c_ecard, c_last = action, -1
                hidden = code[action] in _HIDDEN
            elif eff == ASSEMBLE:
                hidden = True  # a second card would be revealed from the deck
            elif action < NUM_CARDS:
                if eff in _ORDERED:
                    c_last = action
                if eff == RECALL:
                    c_gain = gain + worth[action]
                elif eff == EXPAND:
                    c_gain = gain - worth[action]
            if child.current_player != me or (child.round_no, child.turn_no) != key:
                self.leaf(child, c_gain, path, action, None)
            elif hidden:
                self.leaf(child, c_gain, path, action, (EFFECT, active, c_ecard))
            else:
                self.effect(child, active, c_ecard, c_last, c_gain, [*path, action])

    def _policy(self, legal: list[int]) -> int:
        cards = [a for a in legal if a < NUM_CARDS]
        if not cards:
            return legal[0]
        worth = self.worth
        return max(cards, key=lambda c: (worth[c], c))

    def leaf(self, child: Match, gain: int, path: list[int], action: int, end: Context | None) -> None:
        """Score the play ``path + [action]``, which left the match in ``child``."""
        self.leaves += 1
        me = self.me
        s0, s1 = child.scores()
        mine, margin = (s0, s0 - s1) if me == 0 else (s1, s1 - s0)
        if (child.round_no, child.turn_no) == self.key:
            cat = (margin > 0) - (margin < 0)  # the turn goes on: the play stands as it is
        elif child.is_terminal:
            cat = 4 if child.winner == me else -4
            self.won = cat > 0
        elif len(child.round_results) != self.results:
            cat = 3 if child.round_results[-1][0] == me else -3
            self.won = cat > 0
        elif self.lead_is_me:  # the turn ended and nobody won: I kept the artifact on a tie, or lost it
            cat = 0 if child.holder == me else -1
        else:
            cat = 1 if child.holder == me else 0
        value = (cat, margin, mine, gain)
        best = self.best_value
        if value > best:
            self.best_value = value
            self.best = [([*path, action], end)]
        elif value == best:
            self.best.append(([*path, action], end))


__all__ = ["GreedyBot", "card_worth"]
