"""How exploitable a player is on a small game: the value of a best response to it, exactly.

A best response to a player's policy is the strategy of the other seat that wins the most against it in
expectation, knowing the policy (not the hidden cards); its value, in the game's units (a match is worth +1 or
-1), says how much the policy gives away. The *exploitability* of a policy that plays both seats is the mean
of the two best responses' values, ``(BR against seat 1 + BR against seat 0) / 2`` (``pyspiel.exploitability``'s
definition: 0 for an equilibrium of this zero-sum game, at most 1).

OpenSpiel computes it for a policy given as a table over every information state; a search bot has no table,
and asking it at all 140,000 information states of ``tiny`` would take days. But a seeded bot playing a match
is a deterministic policy (:class:`BotOpponent`), and a best response to it only needs its decisions at the
information states it can reach by its own choices: :func:`best_response` walks the game with every chance
outcome and every action of the responder, and at the bot's decisions only the one the bot makes. The bot is
asked once per information state (the same information state is the same views so far, so the same bot state
and the same decision); the bot's state (its seeded generator and any plan of the play in progress) is carried
down the walk, so that each decision is made by the bot as it would stand at that point of a match it plays
from the start. Then the responder's value is a backward induction over its own information states (perfect
recall): at each, the action with the best sum, over the histories it holds, of their reach (chance and the
opponent) times the value below.

What is measured is a bot *in one match*: a fresh bot of that seed (a bot that has played earlier matches has
a generator further on, so another deterministic policy of the same kind).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import pyspiel

from converge.bots.base import Bot
from converge.bots.ismcts import ISMCTSBot


class Opponent(Protocol):
    """The policy of the seat the best response plays against: at one of its decisions, the actions it plays
    with their probabilities, given what it carried down the walk to there; and what it carries on."""

    def initial(self) -> Any:
        """What it carries at the root of the walk."""
        ...

    def act(self, state: pyspiel.State, carried: Any) -> tuple[list[tuple[int, float]], Any]:
        """Its actions at ``state`` (its decision) with their probabilities, and what it carries below."""
        ...


class UniformOpponent:
    """Every legal action alike (OpenSpiel's ``UniformRandomPolicy``)."""

    def initial(self) -> None:
        return None

    def act(self, state: pyspiel.State, carried: None) -> tuple[list[tuple[int, float]], None]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal], None


@dataclass
class Decision:
    """One decision a bot made during the walk: the action, the CPU seconds it took, and whether it had a
    choice (more than one legal action) and, for the strong search, how it was made."""

    action: int
    seconds: float
    options: int
    #: ``"search"``, ``"exact"`` (an endgame solved exactly), ``"plan"`` (a step of the play already judged),
    #: ``"forced"`` (one legal action) or ``""`` (not the strong search: unknown).
    how: str


@dataclass
class BotOpponent:
    """A seeded bot as a deterministic policy: asked once per information state, in the state it would be in
    there (a copy of the bot is carried down the walk; the walk never changes a copy once made).

    ``table`` holds each decision made, by the bot's information-state string. ``verify``: at an information
    state met again, ask the bot again (a copy as it stands on this path) and raise ``AssertionError`` when it
    decides otherwise (what makes a table of decisions per information state valid; for tests). ``overrides``
    plants decisions: at those information states the action given is played instead of the bot's (the bot is
    still asked, so that its state goes on as it would)."""

    bot: Bot
    verify: bool = False
    overrides: dict[str, int] = field(default_factory=dict)
    table: dict[str, tuple[Decision, Bot]] = field(default_factory=dict)

    def initial(self) -> Bot:
        return self.bot

    def act(self, state: pyspiel.State, carried: Bot) -> tuple[list[tuple[int, float]], Bot]:
        key = state.information_state_string()
        known = self.table.get(key)
        if known is None or self.verify:
            decision, after = self._decide(state, carried)
            if known is None:
                known = self.table[key] = (decision, after)
            elif decision.action != known[0].action:
                raise AssertionError(f"the bot decided {decision.action} then {known[0].action} at one "
                                     f"information state:\n{key}")
        action = self.overrides.get(key, known[0].action)
        return [(action, 1.0)], known[1]

    def _decide(self, state: pyspiel.State, carried: Bot) -> tuple[Decision, Bot]:
        bot = copy.deepcopy(carried)
        view = state.core.match.view(state.current_player())
        options = len(state.legal_actions())
        if isinstance(bot, ISMCTSBot):
            bot.last_iterations = -1  # analyse() sets it: > 0 searched, 0 solved exactly
        start = time.process_time()
        action = bot.decide(view)
        seconds = time.process_time() - start
        how = ""
        if isinstance(bot, ISMCTSBot):
            n = bot.last_iterations
            how = "forced" if options == 1 else "plan" if n < 0 else "exact" if n == 0 else "search"
        return Decision(action, seconds, options, how), bot

    def decisions(self) -> list[Decision]:
        return [d for d, _ in self.table.values()]


@dataclass(frozen=True)
class BestResponse:
    """A best response's value (to ``responder``, in the game's units) and the size of what was walked:
    histories, and the responder's information states."""

    responder: int
    value: float
    histories: int
    infosets: int


_TERMINAL, _MIXED, _RESPONDER = 0, 1, 2


def best_response(root: pyspiel.State, responder: int, opponent: Opponent) -> BestResponse:
    """The value to ``responder`` of its best response to ``opponent`` (who plays the other seat) in the game
    below ``root`` (any state: a subgame keeps the cards dealt so far, and the responder knows them)."""
    kinds: list[int] = []
    values: list[float] = []  # a terminal's return to the responder
    children: list[list[tuple[int, float]]] = []  # (child, probability); at the responder's: (child, action)
    infoset_of: list[int] = []
    infosets: dict[str, int] = {}
    members: list[list[tuple[int, float]]] = []  # per responder information state: (node, reach)

    def walk(state: pyspiel.State, reach: float, carried: Any) -> int:
        node = len(kinds)
        kinds.append(_TERMINAL)
        values.append(0.0)
        children.append([])
        infoset_of.append(-1)
        if state.is_terminal():
            values[node] = float(state.returns()[responder])
            return node
        if state.is_chance_node():
            kinds[node] = _MIXED
            children[node] = [(walk(state.child(a), reach * p, carried), p) for a, p in state.chance_outcomes()
                              if p > 0]
            return node
        if state.current_player() != responder:
            kinds[node] = _MIXED
            played, after = opponent.act(state, carried)
            children[node] = [(walk(state.child(a), reach * p, after), p) for a, p in played if p > 0]
            return node
        kinds[node] = _RESPONDER
        key = state.information_state_string()
        number = infosets.setdefault(key, len(infosets))
        if number == len(members):
            members.append([])
        members[number].append((node, reach))
        infoset_of[node] = number
        children[node] = [(walk(state.child(a), reach, carried), float(a)) for a in state.legal_actions()]
        return node

    top = walk(root, 1.0, opponent.initial())
    chosen: dict[int, int] = {}  # responder information state -> index of its best action
    value_of: dict[int, float] = {}

    def value(node: int) -> float:
        got = value_of.get(node)
        if got is not None:
            return got
        kind = kinds[node]
        if kind == _TERMINAL:
            got = values[node]
        elif kind == _MIXED:
            got = math.fsum(p * value(c) for c, p in children[node])
        else:
            got = value(children[node][best(infoset_of[node])][0])
        value_of[node] = got
        return got

    def best(number: int) -> int:
        got = chosen.get(number)
        if got is None:
            held = members[number]
            width = len(children[held[0][0]])
            sums = [math.fsum(r * value(children[n][i][0]) for n, r in held) for i in range(width)]
            got = chosen[number] = max(range(width), key=lambda i: (sums[i], -i))
        return got

    return BestResponse(responder, value(top), len(kinds), len(infosets))


def exploitability(values: Sequence[float]) -> float:
    """The exploitability of a policy from its best responses' values (player 0's against its seat 1, player
    1's against its seat 0): their mean."""
    return sum(values) / len(values)


__all__ = ["BestResponse", "BotOpponent", "Decision", "Opponent", "UniformOpponent", "best_response",
           "exploitability"]
