"""The strong bot: single-observer information-set Monte Carlo tree search (SO-ISMCTS).

At each decision the bot repeatedly samples a *world* — the hidden cards (the opponent's hand, the deck
order, the artifact) dealt again consistently with everything its player knows, via its view's
:meth:`~converge.engine.view.PlayerView.sample_world` — and runs one tree-search iteration in it. The tree is
shared across worlds and keyed by actions; each edge counts how often it was *available* (legal in a
sampled world), and selection uses UCB1 over those availability counts (Cowling, Powley & Whitehouse,
2012). Playouts follow a cheap policy until the round ends; the reward is winning the current round.

The playout policy is *epsilon-greedy on placements*: when a player is to choose a card, with probability
``greedy`` (default 0.5) it plays the card and placement — declare it, or add it to its own or the other
faction — with the best end-of-turn standing for itself (scored with the engine's own scores: for the second
player of a turn, whether the lead would win the round, keep or lose the artifact, then the point margin;
for the lead, the margin), ties broken at random; otherwise it plays uniformly at random, never "done"
while something else is possible (declining the rest of an effect is rarely best). Uniformly random
playouts gave values that no number of simulations sharpened (twice the simulations, the same strength);
placements that a player would obviously make tell the search much more per simulation. ``greedy=0`` is
the uniformly random policy.

The bot is seeded: with a budget in simulations, the same seed and the same observation give the same
decision. With a budget in seconds the number of simulations depends on the machine.
"""

from __future__ import annotations

import gc
import math
import random
import time
from typing import TYPE_CHECKING, Protocol

from converge.engine.actions import DECLARE, DISCARD

if TYPE_CHECKING:
    from converge.engine.state import Match
    from converge.engine.view import PlayerView


class SearchView(Protocol):
    """What a search reads of a view (a :class:`~converge.engine.view.PlayerView` is one). Typed as a
    protocol, not the class, so that a test can hand ``analyse`` a view that peeks — its planted leak — and
    show that the hint's checks catch one."""

    player: int

    @property
    def round_results(self) -> list[tuple[int, int]]: ...

    def legal_actions(self) -> list[int]: ...

    def sample_world(self, rng: random.Random, chance: bool = False) -> Match: ...


class _Node:
    __slots__ = ("avail", "children", "player", "reward", "visits")

    def __init__(self, player: int = -1) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0  # from the point of view of ``player``, who chose the edge into this node
        self.player = player


class ISMCTSBot:
    """Information-set MCTS with a budget in simulations (``iterations``) and/or seconds (``seconds``);
    ``greedy`` is the playout policy's share of greedy placements (0: uniformly random playouts)."""

    def __init__(self, seed: int = 0, iterations: int = 2000, seconds: float | None = None,
                 exploration: float = 0.7, name: str = "ismcts", greedy: float = 0.5):
        if iterations <= 0 and not seconds:
            raise ValueError("ISMCTS needs a positive budget of iterations or seconds")
        if not 0.0 <= greedy <= 1.0:
            raise ValueError("the greedy share of playout plays is a probability, 0 to 1")
        self.greedy = greedy
        self.seed = seed
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.name = name
        self.last_iterations = 0

    def reset(self) -> None:
        """The tree is rebuilt at every decision; nothing else is remembered."""

    def decide(self, view: PlayerView) -> int:
        legal = view.legal_actions()
        if not legal:
            raise ValueError("the ISMCTS bot was asked to decide, but it is not its decision")
        if len(legal) == 1:
            return legal[0]
        root = self._search(view)
        best: int = max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1,
                                              prefer(a)))
        return best

    def analyse(self, view: SearchView, depth: int = 3) -> list[Estimate]:
        """Search the view's decision and say what the search made of each legal action, most simulated
        first: what a hint is made of. Only the view is looked at.

        Each :class:`Estimate` holds the action's simulations and wins (rounds won by the player, whatever
        they did next while the search explored), and ``then``: the same for the player's own next
        decisions after it (a card's placement, its targets), as long as the decisions stay theirs, to
        ``depth`` steps."""
        legal = view.legal_actions()
        if not legal:
            raise ValueError("there is no decision of this player to analyse")
        root = self._search(view)
        out = [_estimate(a, root.children.get(a), view.player, depth) for a in legal]
        out.sort(key=lambda e: (-e.visits, -prefer(e.action), e.action))
        return out

    def _search(self, view: SearchView) -> _Node:
        me = view.player
        rounds = len(view.round_results)
        root = _Node()
        rng = self.rng
        deadline = time.perf_counter() + self.seconds if self.seconds else math.inf
        limit = self.iterations if self.iterations > 0 else 10**9
        n = 0
        collecting = gc.isenabled()
        gc.disable()  # the tree holds no cycles; a full collection mid-search only adds pauses
        try:
            while n < limit:
                if n & 15 == 0 and time.perf_counter() > deadline:
                    break
                self._iterate(view.sample_world(rng, True), root, me, rounds, rng)
                n += 1
        finally:
            if collecting:
                gc.enable()
        self.last_iterations = n
        return root

    def _iterate(self, world: Match, root: _Node, me: int, round_index: int, rng: random.Random) -> None:
        c = self.exploration
        node = root
        path: list[tuple[_Node, int]] = []
        # Selection and expansion, while the current round lasts.
        while world.rounds_finished == round_index:
            legal = world.legal_actions()
            player = world.current_player
            children = node.children
            untried = []
            for a in legal:
                child = children.get(a)
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
            if untried:
                a = untried[int(rng.random() * len(untried))]
                child = _Node(player)
                child.avail = 1
                children[a] = child
                world.push(a)
                path.append((child, player))
                break
            best_a, best_v = legal[0], -1.0
            for a in legal:
                ch = children[a]
                v = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if v > best_v:
                    best_a, best_v = a, v
            node = children[best_a]
            world.push(best_a)
            path.append((node, player))
        # Playout to the end of the round (see the module doc).
        if world.rounds_finished == round_index:
            if self.greedy > 0.0:
                world.placement_playout(rng, self.greedy)
            else:
                world.random_playout(rng, 1, False)
        won = 1.0 if world.round_winners[round_index] == me else 0.0
        for node_, player in path:
            node_.visits += 1
            node_.reward += won if player == me else 1.0 - won

    def __repr__(self) -> str:
        budget = f"{self.seconds}s" if self.seconds else f"{self.iterations} simulations"
        return f"ISMCTSBot({budget}, seed={self.seed})"


class Estimate:
    """What a search made of one action: its simulations, the rounds they won for the player who chose it,
    and the estimates of that player's own next decisions (most simulated first)."""

    __slots__ = ("action", "then", "visits", "wins")

    def __init__(self, action: int, visits: int, wins: float, then: list[Estimate]) -> None:
        self.action = action
        self.visits = visits
        self.wins = wins
        self.then = then

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Estimate) and (self.action, self.visits, self.wins, self.then) == (
            other.action, other.visits, other.wins, other.then)

    def __repr__(self) -> str:
        return f"Estimate({self.action}, {self.visits}, {self.wins}, {self.then!r})"


def _estimate(action: int, node: _Node | None, me: int, depth: int) -> Estimate:
    if node is None:
        return Estimate(action, 0, 0.0, [])
    then = [] if depth <= 1 else [_estimate(a, child, me, depth - 1) for a, child in node.children.items()
                                   if child.player == me and child.visits]
    then.sort(key=lambda e: (-e.visits, -prefer(e.action), e.action))
    return Estimate(action, node.visits, node.reward, then)


def prefer(action: int) -> int:
    """Tie-break between equally visited actions: keep cards in play over discarding them."""
    return 0 if action == DISCARD else 1 if action == DECLARE else 2
