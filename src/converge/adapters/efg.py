"""A small game's whole tree as a Gambit extensive-form (``.efg``) text, for OpenSpiel's exact solvers.

OpenSpiel's CFR, CFR+, MCCFR and ``exploitability`` walk a game's whole tree at every iteration. Through
``python_converge`` each step of that walk is a Python call into the engine, too slow for the thousands of
iterations a solver needs; OpenSpiel's own Gambit exporter (``open_spiel.python.algorithms.gambit``) writes the
same format but builds its text by repeated concatenation, quadratic in the tree. :func:`export_efg` walks the
tree once, through the OpenSpiel game's own API (``legal_actions``, ``chance_outcomes``, ``child``,
``information_state_string``, ``returns``), and writes it in linear time; ``pyspiel.load_efg_game`` then loads it
as a C++ game on which every OpenSpiel algorithm runs at C++ speed. Only a small variant fits
(:mod:`converge.engine.variant`): ``tiny`` has a few hundred thousand histories.

Each information state of a player is one Gambit information set (numbered in the order met); an action is
labelled by its action id in ``python_converge`` and a chance outcome by its card id, so a policy of one game
reads as a policy of the other. ``root`` may be any state of the game (a subgame: the cards dealt so far stay
as dealt, and the information sets are those of the states below it).

>>> import pyspiel, converge.adapters.openspiel  # doctest: +SKIP
>>> game = pyspiel.load_game("python_converge(variant=tiny,start=player0)")  # doctest: +SKIP
>>> solved = pyspiel.load_efg_game(export_efg(game))  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pyspiel


@dataclass(frozen=True)
class TreeSize:
    """What an export held: nodes of each kind and information sets of each player."""

    chance: int
    decisions: int
    terminals: int
    infosets: tuple[int, int]


def subgame(game: pyspiel.Game, dealt: int) -> Any:
    """The state after the game's first ``dealt`` chance outcomes, each the first legal one: the root of a
    smaller tree (the cards dealt so far known to both players' best responses; quick checks use it)."""
    root = game.new_initial_state()
    for _ in range(dealt):
        if not root.is_chance_node():
            raise ValueError(f"cannot deal {dealt} chance outcomes: the game has only {len(root.history())} "
                             "before its first decision")
        root.apply_action(root.legal_actions()[0])
    return root


def export_efg(game: pyspiel.Game, root: Any = None, name: str | None = None) -> tuple[str, TreeSize]:
    """The tree of ``game`` (from ``root``, by default its initial state) as Gambit ``.efg`` text, with its size.

    A two-player game with terminal rewards only (``python_converge`` is one); memory and time grow with the
    number of histories, so keep to a small variant.
    """
    if game.num_players() != 2:
        raise ValueError("export_efg writes two-player games")
    state = root if root is not None else game.new_initial_state()
    title = (name or str(game)).replace('"', "'")
    lines = [f'EFG 2 R "{title}" {{ "Player 0" "Player 1" }}', '""', ""]
    infosets: tuple[dict[str, int], dict[str, int]] = ({}, {})
    chance = decisions = terminals = 0
    stack: list[tuple[Any, int]] = [(state, 0)]
    while stack:
        s, depth = stack.pop()
        pad = " " * depth
        if s.is_terminal():
            terminals += 1
            r0, r1 = s.returns()
            lines.append(f'{pad}t "" {terminals} "" {{ {r0!r} {r1!r} }}')
            continue
        if s.is_chance_node():
            chance += 1
            outcomes = s.chance_outcomes()
            branches = " ".join(f'"{a}" {Fraction(p).limit_denominator(1 << 20)}' for a, p in outcomes)
            lines.append(f'{pad}c "" {chance} "" {{ {branches} }} 0')
            actions = [a for a, _ in outcomes]
        else:
            decisions += 1
            player = s.current_player()
            table = infosets[player]
            key = s.information_state_string(player)
            number = table.get(key)
            if number is None:
                number = table[key] = len(table) + 1
            actions = s.legal_actions()
            labels = " ".join(f'"{a}"' for a in actions)
            lines.append(f'{pad}p "" {player + 1} {number} "{player}-{number}" {{ {labels} }} 0')
        for a in reversed(actions):  # preorder: the first child is written first
            stack.append((s.child(a), depth + 1))
    size = TreeSize(chance, decisions, terminals, (len(infosets[0]), len(infosets[1])))
    return "\n".join(lines) + "\n", size


__all__ = ["TreeSize", "export_efg", "subgame"]
