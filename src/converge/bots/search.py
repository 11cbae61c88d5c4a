"""The strong search: information-set Monte Carlo tree search whose answer does not depend on its seed.

One search judges one decision of one player from that player's view alone (a
:class:`~converge.engine.view.PlayerView`: nothing hidden is in it). It repeatedly samples a *world* — the
hidden cards dealt again consistently with everything the player knows — and plays a simulation in it down a
tree shared across worlds (single-observer ISMCTS: Cowling, Powley & Whitehouse, 2012): UCB1 over
availability counts below the root, then a playout to the end of the round, whose winner is the reward.

What makes its answer stable, where a plain ISMCTS says what its seed found:

* **Common random numbers at the root.** Simulations come in *sweeps*: a sweep samples one world and one
  stream of random numbers, and plays one simulation from each option still in the running in that same
  world with that same stream. Two options are thus compared on the same deals and the same playout draws,
  and the difference between them is measured far more sharply than either value alone.
* **Every option estimated.** The root is not explored by UCB, which starves the options that look worse:
  the budget goes by *sequential halving* (Karnin, Koren & Somekh, 2013): every option gets an equal share of
  the first phase, the better half goes on to the next with a larger share, and so on, so the options are
  ranked by many simulations each and the best of them by the most.
* **Paired outcomes.** Each option's outcome in each sweep is kept, so that a hint can tell two options apart
  only where the paired difference is clear (:func:`paired_difference`), and say "about equal" elsewhere.
* **Parts.** A budget is spent in independent parts (seeded apart) whose trees are summed: with the native
  core the parts run on all cores at once, and the result is the same however many run together.

The playout is epsilon-greedy on placements (see :meth:`~converge.engine.state.Match.placement_playout`):
with probability ``greedy`` a card to choose is played with its best end-of-turn placement for its player.

This module is the search's specification, in Python, on the engine; ``src/converge/native/search.c`` is the
same search on the native core, and ``tests/bots/test_search.py`` holds them equal, draw for draw, on the
same seeds (:class:`~converge.engine.native.SplitMix` gives the Python search the core's random numbers). The
native search runs wherever the core can play the playset; elsewhere (a deck with a mechanic written in
Python, or an install without a C compiler) this one does, on the same budget.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias

from converge.bots.estimates import ABSENT, Estimate, Found, prefer
from converge.engine import native
from converge.engine.native import NativeState, SplitMix
from converge.engine.seeds import derive_seed

if TYPE_CHECKING:
    import random

    from converge.engine.state import Match

class SearchView(Protocol):
    """What a search reads of a view (a :class:`~converge.engine.view.PlayerView` is one). Typed as a
    protocol, not the class, so that a test can hand a search a view that peeks — its planted leak — and show
    that the hint's checks catch one."""

    player: int

    @property
    def round_results(self) -> list[tuple[int, int]]: ...

    def legal_actions(self) -> list[int]: ...

    def sample_world(self, rng: random.Random, chance: bool = False) -> Match: ...

    def endgame_worlds(self) -> list[Match] | None: ...

    def native_state(self) -> NativeState | None: ...


#: A root child of a search part: ``(action, visits, wins, then)``, ``then`` the same for each child that is
#: the player's own next decision (and was simulated).
Branch: TypeAlias = tuple[int, int, float, list["Branch"]]
#: What a part of a search returns (the native search as this one): ``(tree, outcomes, finalists, simulations)``.
Part: TypeAlias = tuple[list[Branch], dict[int, bytes], list[int], int]


@dataclass(frozen=True)
class Settings:
    """How a search spends its budget: ``simulations`` in all, in ``parts`` independent searches (summed),
    UCB1's ``exploration`` constant below the root, the playout's ``greedy`` share; once the deck is empty, an
    endgame is solved exactly when it takes at most ``exact`` positions (0: never; see
    :mod:`converge.bots.endgame`). Where the native core cannot search (a deck with a mechanic written in
    Python, or an install without a C compiler) the search runs on the engine, about fifteen times slower:
    there it spends one ``engine_share``-th of the simulations and of an endgame's positions, so that it takes
    about as long (1: all of them, however long they take)."""

    simulations: int
    parts: int = 1
    exploration: float = 0.7
    greedy: float = 0.5
    exact: int = 300_000
    engine_share: int = 1

    def __post_init__(self) -> None:
        if self.simulations < 1 or self.parts < 1 or self.engine_share < 1:
            raise ValueError("a search needs at least one simulation and one part")
        if not 0.0 <= self.greedy <= 1.0:
            raise ValueError("the greedy share of playout plays is a probability, 0 to 1")


# ---------------------------------------------------------------------- the search


def search(view: SearchView, settings: Settings, seed: int, depth: int = 3, threads: int = 0) -> Found:
    """Judge the view's decision and return what was found: solved exactly once the deck is empty (when the
    endgame fits in ``settings.exact`` positions), else searched (see the module doc). ``depth``: how many of
    the player's own steps of a play the estimates hold. ``threads``: how many parts may run at once on the
    native core (0: one per part; the result is the same for any number)."""
    legal = view.legal_actions()
    if not legal:
        raise ValueError("there is no decision of this player to search")
    state = view.native_state()
    if settings.exact:
        from converge.bots.endgame import solve  # (it builds on this module's estimates)

        # On the engine an endgame's positions cost as much more as its simulations do: the same share of them.
        positions = settings.exact if state is not None else settings.exact // settings.engine_share
        solved = solve(view, depth, positions)
        if solved is not None:
            return solved
    seeds = [derive_seed("converge-search", seed, i) for i in range(settings.parts)]
    per_part = max(1, settings.simulations // settings.parts)
    if state is None:
        per_part = max(1, per_part // settings.engine_share)
        found = [_part(view, legal, per_part, s, settings) for s in seeds]
    else:
        found = _native_parts(state, view.player, per_part, seeds, settings, threads or settings.parts)
    return _merge(legal, found, depth)


def _native_parts(state: NativeState, me: int, simulations: int, seeds: list[int], settings: Settings,
                  threads: int) -> list[Part]:
    def one(s: int) -> Part:
        part: Part = native.core.search(state, me, simulations, s, settings.exploration, settings.greedy)
        return part

    if threads <= 1 or len(seeds) == 1:
        return [one(s) for s in seeds]
    out: dict[int, Part] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            out[i] = one(seeds[i])
        except BaseException as exc:  # reported below, in the caller's thread
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(len(seeds))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    return [out[i] for i in range(len(seeds))]


class _Node:
    __slots__ = ("avail", "children", "player", "reward", "visits")

    def __init__(self, player: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0  # from the point of view of ``player``, who chose the edge into this node
        self.player = player


def _part(view: SearchView, legal: list[int], simulations: int, seed: int, settings: Settings) -> Part:
    """One part of a search on the engine: the specification of ``search.c``'s ``search``. Returns what the
    native search returns: ``(root, outcomes, finalists, simulations)``."""
    me = view.player
    round_index = len(view.round_results)
    root = _Node(-1)
    master = SplitMix(seed)
    survivors = list(legal)
    outcomes: dict[int, bytearray] = {a: bytearray() for a in legal}
    phases = max(1, (len(legal) - 1).bit_length())  # ceil(log2(options))
    left, done = simulations, 0
    for phase in range(phases):
        per = max(1, left // ((phases - phase) * len(survivors)))
        for _ in range(per):
            rng = SplitMix(master.next64())
            world = view.sample_world(rng, True)  # type: ignore[arg-type]
            after = rng.state
            for a in legal:
                if a in survivors:
                    won = _simulate(world.clone(False, False), root, a, me, round_index, SplitMix(after), settings)
                    outcomes[a].append(won)
                    done += 1
                else:
                    outcomes[a].append(ABSENT)
        left -= per * len(survivors)
        if phase < phases - 1:
            ranked = sorted(survivors, key=lambda a: _rank_key(root.children[a], a))
            survivors = sorted(ranked[:(len(ranked) + 1) // 2])
    return _tree(root, me), {a: bytes(o) for a, o in outcomes.items()}, survivors, done


def _rank_key(node: _Node, action: int) -> tuple[float, int, int]:
    return -node.reward / node.visits, -prefer(action), action


def _simulate(world: Match, root: _Node, first: int, me: int, round_index: int, rng: SplitMix,
              settings: Settings) -> int:
    """One simulation from the root's option ``first``: down the tree, a playout, and the outcome back up."""
    c = settings.exploration
    node = root.children.get(first)
    if node is None:
        node = root.children[first] = _Node(me)
    node.avail += 1
    world.push(first)
    path = [node]
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
            child = children[a] = _Node(player)
            child.avail = 1
            world.push(a)
            path.append(child)
            break
        best_a, best_v = legal[0], -1.0
        for a in legal:
            ch = children[a]
            v = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
            if v > best_v:
                best_a, best_v = a, v
        node = children[best_a]
        world.push(best_a)
        path.append(node)
    if world.rounds_finished == round_index:  # a playout to the end of the round
        if settings.greedy > 0.0:
            world.placement_playout(rng, settings.greedy)  # type: ignore[arg-type]
        else:
            world.random_playout(rng, 1, False)  # type: ignore[arg-type]
    won = int(world.round_winners[round_index] == me)
    for n in path:
        n.visits += 1
        n.reward += won if n.player == me else 1 - won
    return won


def _tree(root: _Node, me: int) -> list[Branch]:
    """The root's children as the native search returns them: ``(action, visits, wins, then)``, ``then`` the
    same for each child that is the player's own next decision (and was simulated)."""

    def walk(node: _Node) -> list[Branch]:
        return [(a, ch.visits, ch.reward, walk(ch)) for a, ch in node.children.items()
                if ch.player == me and ch.visits]

    return [(a, ch.visits, ch.reward, walk(ch)) for a, ch in root.children.items()]


class _Total:
    """An action's visits and wins summed over the parts, and the same for its next steps, by action."""

    __slots__ = ("then", "visits", "wins")

    def __init__(self) -> None:
        self.visits = 0
        self.wins = 0.0
        self.then: dict[int, _Total] = {}


def _merge(legal: Sequence[int], parts: list[Part], depth: int) -> Found:
    """The parts of a search summed: visits and wins by the same path of actions, outcomes side by side."""
    totals: dict[int, _Total] = {}

    def add(into: dict[int, _Total], items: list[Branch]) -> None:
        for a, visits, wins, then in items:
            slot = into.setdefault(a, _Total())
            slot.visits += visits
            slot.wins += wins
            add(slot.then, then)

    def estimate(a: int, slot: _Total | None, level: int) -> Estimate:
        if slot is None:
            return Estimate(a, 0, 0.0, [])
        then = [] if level <= 1 else [estimate(b, s, level - 1) for b, s in slot.then.items()]
        then.sort(key=lambda e: (-e.visits, -prefer(e.action), e.action))
        return Estimate(a, slot.visits, slot.wins, then)

    outcomes: dict[int, bytearray] = {a: bytearray() for a in legal}
    finalists: set[int] = set()
    simulations = 0
    for tree, part_outcomes, survivors, done in parts:
        add(totals, tree)
        for a in legal:
            outcomes[a] += part_outcomes[a]
        finalists.update(survivors)
        simulations += done
    estimates = [estimate(a, totals.get(a), depth) for a in legal]
    estimates.sort(key=lambda e: (-e.visits, -prefer(e.action), e.action))
    return Found(estimates, {a: bytes(o) for a, o in outcomes.items()}, sorted(finalists), simulations)


def native_available(view: SearchView) -> bool:
    """Whether a search of this view runs on the native core."""
    return native.available() and view.native_state() is not None
