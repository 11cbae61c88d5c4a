"""Exact endgames: once the deck is empty, a decision is solved in every world, not sampled.

With the deck empty, what a player does not know is only which of the cards hidden from them the opponent
holds (the card left over is the artifact), so the worlds consistent with the view are few — one for each
card that may be the artifact — and each as likely (:meth:`~converge.engine.view.PlayerView.endgame_worlds`).
Each world is solved by a minimax in which both players see everything (alpha-beta on a round won or lost,
with a transposition table, the replies tried best-scoring first). An option's value is the share of the
worlds in which it wins the round against the best replies; its next steps of the same play are valued the
same way, and a card is worth its best placement, as in a hint.

Two claims go further, each checked as stated:

* **wins in every case** (``sure == 1``): there is one way of playing on — its choices depending only on what
  the player sees — that wins the round in every world, whatever the opponent does (even knowing everything).
  Winning each world is not enough: the winning line may differ between worlds the player cannot tell apart,
  so the worlds are followed together, grouped by what the player sees after each reply.
* **loses in every case** (``sure == -1``): in every world, against the best replies, the round is lost
  whatever the player does (even knowing everything).

A budget of positions bounds the work; an endgame too large for it is left to the search. This module is the
specification; ``src/converge/native/solve.c`` is the same on the native core, and ``tests/bots/test_endgame.py``
checks both against a brute force on constructed positions with every effect kind in play.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TypeAlias

from converge.bots.estimates import Estimate, Found, prefer
from converge.engine import native
from converge.engine.native import FIELDS, fields_of

if TYPE_CHECKING:
    from converge.bots.search import SearchView
    from converge.engine.state import Match

#: Positions an endgame may visit before it is left to the search, by default (a fifth of a second or so on
#: the native core; a search's budget sets its own: :class:`~converge.bots.search.Settings`).
NODES = 300_000
#: How deep a line of play the solver follows before it leaves the endgame to the search (solve.h's MAX_PLIES):
#: with a mechanic that returns cards to a hand, a round with an empty deck can go on and on.
MAX_PLIES = 64


#: An option of a decision solved: ``(action, worlds, wins, then, sure)``, ``then`` the same for each of the
#: player's next steps of the same play (the native solver's tree, as the one here).
Solved: TypeAlias = tuple[int, int, int, list["Solved"], int]


class _Budget(Exception):
    """The budget of positions, or of plies, ran out."""


def solve(view: SearchView, depth: int = 3, nodes: int = NODES) -> Found | None:
    """The exact values of the view's decision (see the module doc), or None when the deck is not empty or the
    endgame is larger than ``nodes`` positions. Each estimate holds the worlds (as its ``visits``), the worlds
    won (``wins``), whether it ``sure``-ly wins or loses, and the player's next steps of the same play."""
    state = view.native_state()
    if state is not None:
        found: tuple[list[Solved], int, int] | None = native.core.endgame(state, view.player, depth, nodes)
        if found is None:
            return None
        tree, worlds, _ = found
    else:
        solved = _solve_on_engine(view, depth, nodes)
        if solved is None:
            return None
        tree, worlds = solved
    estimates = [_estimate(item) for item in tree]
    estimates.sort(key=lambda e: (-e.value(), -prefer(e.action), e.action))
    best = estimates[0].value()
    finalists = [e.action for e in estimates if e.value() == best]
    return Found(estimates, {}, finalists, 0, worlds=worlds)


def _estimate(item: Solved) -> Estimate:
    action, worlds, wins, then, sure = item
    return Estimate(action, worlds, float(wins), [_estimate(t) for t in then], sure)


# ---------------------------------------------------------------------- on the engine (the specification)


def _solve_on_engine(view: SearchView, depth: int, nodes: int) -> tuple[list[Solved], int] | None:
    worlds = view.endgame_worlds()
    if not worlds:
        return None
    solver = _Solver(view.player, len(view.round_results), nodes)
    try:
        return solver.level(worlds, 1, depth), len(worlds)
    except _Budget:
        return None


class _Solver:
    def __init__(self, me: int, round_index: int, nodes: int) -> None:
        self.me, self.round_index, self.budget = me, round_index, nodes
        self.nodes = 0
        self.table: dict[tuple[int | tuple[int, ...], ...], int] = {}

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Budget

    def ended(self, m: Match) -> bool:
        return m.rounds_finished > self.round_index or m.is_terminal

    def outcome(self, m: Match) -> int:
        return int(m.round_winners[self.round_index] == self.me)

    def world(self, m: Match, ply: int = 0) -> int:
        """``solve_world``: whether the player wins from ``m``, both seeing everything and playing their best."""
        if self.ended(m):
            return self.outcome(m)
        self._count()
        if ply >= MAX_PLIES:
            raise _Budget
        key = _key(m)
        known = self.table.get(key)
        if known is not None:
            return known
        mine = int(m.current_player == self.me)
        value = 1 - mine
        scored: list[tuple[int, int, Match]] = []
        for i, a in enumerate(m.legal_actions()):
            after = m.clone(False, False)
            after.push(a)
            if self.ended(after):
                if self.outcome(after) == mine:
                    value = mine
                    break
                continue
            s0, s1 = after.scores()
            scored.append((s0 - s1 if m.current_player == 0 else s1 - s0, i, after))
        else:
            scored.sort(key=lambda x: (-x[0], x[1]))  # the mover's best margin first
            for _, _, after in scored:
                if self.world(after, ply + 1) == mine:
                    value = mine
                    break
        self.table[key] = value
        return value

    def every_case(self, worlds: list[Match]) -> bool:
        """``wins_in_every_case``: one way of playing on, the same in worlds that look the same, wins in all."""
        if self.ended(worlds[0]):
            return all(self.outcome(w) for w in worlds)
        if not all(self.world(w) for w in worlds):
            return False
        if len(worlds) == 1:
            return True
        self._count()
        if worlds[0].current_player == self.me:
            return any(self.every_case(_after(worlds, a)) for a in worlds[0].legal_actions())
        groups: dict[str, list[Match]] = {}
        for w in worlds:
            for a in w.legal_actions():
                after = w.clone(False, False)
                after.push(a)
                groups.setdefault(_seen(after, self.me), []).append(after)
        return all(self.every_case(g) for g in groups.values())

    def level(self, worlds: list[Match], level: int, depth: int) -> list[Solved]:
        """``endgame_level``: ``(action, worlds, wins, then, sure)`` for each option of the worlds' decision."""
        out = []
        for a in worlds[0].legal_actions():
            after = _after(worlds, a)
            wins = sum(self.world(w) for w in after)
            sure = -1 if wins == 0 else int(self.every_case(after)) if wins == len(worlds) else 0
            first = after[0]
            again = (first.current_player == self.me and first.rounds_finished == self.round_index
                     and first.decision_kind not in ("select", "over", "chance"))
            then = self.level(after, level + 1, depth) if again and level < depth else []
            out.append((a, len(worlds), wins, then, sure))
        return out


def _after(worlds: list[Match], action: int) -> list[Match]:
    out = []
    for w in worlds:
        m = w.clone(False, False)
        m.push(action)
        out.append(m)
    return out


_IGNORED = frozenset(("known", "turn_no", "round_no", "decisions", "first_holders", "round_wins"))
_KEPT = tuple(i for i, name in enumerate(FIELDS) if name not in _IGNORED)


def _key(m: Match) -> tuple[int | tuple[int, ...], ...]:
    """The state of a world (its fields in the native core's form), less what cannot change how the round ends
    (what each player knows, the turn's number...): a key for the table of solved positions."""
    fields = fields_of(m)
    return tuple(tuple(v) if isinstance(v, list) else v for v in (fields[i] for i in _KEPT))


def _seen(m: Match, me: int) -> str:
    """What the player sees of ``m``: its observation, without the events (solve.c's seen_by)."""
    return json.dumps(m.observation(me, events=False), sort_keys=True)
