"""``converge review FILE``: a finished match reviewed for one player (see :mod:`converge.bots.review`).

Each of the player's decisions is judged from what they could see then: the option played and its chance
to win the round, the best option and its chance, and a mark when the chance lost reaches an inaccuracy,
a mistake or a blunder; then the player's chance turn by turn, and the totals. ``--practise`` puts the
player back at each marked decision, as they saw it, to choose again.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from converge.cli.common import (
    Subcommands,
    UserError,
    add_command,
    deck_dir_option,
    path_text,
    positive_int,
    read_json_file,
    record_start,
    seat_number,
    user_catalog,
)

if TYPE_CHECKING:
    from rich.console import RenderableType

    from converge.bots.review import Judged
    from converge.cli.screen import CardStyle
    from converge.engine.schema import Observation
    from converge.engine.state import Match

#: A bar of the chart per tenth of chance.
_BARS = " ▁▂▃▄▅▆▇█"
_KINDS = {"select": "card", "mode": "how to play it", "target": "target", "skillset": "skillset",
          "faction": "faction", "second": "second card"}


_PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def _points(n: int) -> str:
    """ "1 point", "5 points"."""
    return f"{n} point" if n == 1 else f"{n} points"


def _said(label: str) -> str:
    """An option's label after "played" or "best": "play ALC3 ..." is said "ALC3 ..."."""
    return label[5:] if label.startswith("play ") else label


def chart(chances: list[float]) -> str:
    """A sparkline of chances (0..1), one character each.

    >>> chart([0.0, 0.5, 1.0])
    ' ▄█'
    """
    return "".join(_BARS[min(len(_BARS) - 1, round(c * (len(_BARS) - 1)))] for c in chances)


def cmd_review(args: argparse.Namespace) -> int:
    from converge.bots.review import BLUNDER, INACCURACY, MISTAKE, review
    from converge.cli.screen import CardStyle, menu, render
    from converge.engine.state import Match

    doc = read_json_file(args.file, "match record")
    user_catalog(args.deck_dir)
    start = record_start(args.file, doc, args.deck_dir)
    assert isinstance(doc, dict)  # (a record that replays is an object)
    actions = list(doc["actions"])
    if not Match.replay(doc, args.deck_dir).is_terminal:
        raise UserError("this match is not finished: a review would tell what the other player could not see "
                        "yet (play it to the end first)")
    from converge.bots.hint import shipped_calibration

    seat = args.seat
    name = f"Player {seat + 1}"
    simulations = args.simulations or shipped_calibration().budget.simulations
    print(f"Review of {name}'s decisions (--seat {2 - seat} for Player {2 - seat}'s), each judged from what "
          f"{name} could see then, never the cards revealed later ({simulations:,} simulations each).")
    print(f"Marks, by the chance to win the round given up: inaccuracy from {100 * INACCURACY:.0f} points, "
          f"mistake from {100 * MISTAKE:.0f}, blunder from {100 * BLUNDER:.0f}.")
    result = review(start, actions, seat, simulations=args.simulations, seed=args.seed)
    for d in result.decisions:
        kind = _KINDS.get(d.kind, d.kind)
        played, best = d.points(d.played_chance), d.points(d.best_chance)
        line = f"  R{d.round_no} T{d.turn_no:<2} {kind:<14} played {_said(d.played_label)} ({played}%)"
        if d.best != d.played:
            line += f"; best {_said(d.best_label)} ({best}%), {_points(d.lost_points)} lost"
        if d.mark:
            line += f" — {d.mark}"
        print(line)
    rounds: dict[int, list[float]] = {}
    for r, _, c in result.chances_by_turn():
        rounds.setdefault(r, []).append(c)
    print(f"{name}'s chance to win the round after each turn's play:")
    for r, chances in rounds.items():
        print(f"  round {r}: {chart(chances)}  ({' '.join(f'{c:.0%}' for c in chances)})")
    counts = result.counts()
    print("Totals: " + ", ".join(f"{n} {_PLURALS[m] if n != 1 else m}" for m, n in counts.items())
          + f" in {len(result.decisions)} decisions with a choice.")
    if args.practise:
        _practise(start, actions, seat, result.marked(), CardStyle(start.playset.decks), render, menu, input)
    return 0


def _practise(start: Match, actions: list[int], seat: int, marked: list[Judged], style: CardStyle,
              render: Callable[[Observation, CardStyle], RenderableType],
              menu: Callable[[Observation, CardStyle], RenderableType], read: Callable[[str], str]) -> None:
    from rich.console import Console

    from converge.engine.schema import legal_actions_of

    console = Console(highlight=False)
    if not marked:
        print("No marked decision to practise.")
        return
    for n, d in enumerate(marked, start=1):
        match = start.clone()
        for action in actions[:d.index]:
            match.apply(action)
        obs = match.observation(seat)  # the seat's own view of the moment
        print(f"\nPractice {n} of {len(marked)}: round {d.round_no}, turn {d.turn_no}.")
        console.print(render(obs, style))
        console.print(menu(obs, style))
        legal = legal_actions_of(obs)
        chances = {a: (label, c) for a, label, c in d.choices}
        while True:
            try:
                answer = read(f"Your choice (1-{len(legal)}, or skip): ").strip().lower()
            except EOFError:
                return
            if answer == "skip":
                break
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                picked = legal[int(answer) - 1]["id"]
                label, chance = chances.get(picked, (legal[int(answer) - 1]["label"], 0.0))
                below = f"{_points(d.points(d.best_chance) - d.points(chance))} below the best"
                verdict = "the best choice" if picked == d.best else \
                    f"{below}, {_said(d.best_label)} ({d.points(d.best_chance)}%)"
                print(f"{_said(label)}: {d.points(chance)}% to win the round — {verdict}. In the match you "
                      f"played {_said(d.played_label)} ({d.points(d.played_chance)}%).")
                break
            print(f"Type a number from 1 to {len(legal)}, or skip.")


def register(sub: Subcommands) -> None:
    """Add ``converge review`` to the command's subparsers."""
    p = add_command(sub, "review")
    p.add_argument("file", metavar="FILE", type=path_text, help="the record of a finished match (JSON)")
    p.add_argument("--seat", type=seat_number, default=0, help="whose decisions: 1 (Player 1, default) or 2")
    p.add_argument("--simulations", type=positive_int, default=None,
                   help="the search at each decision (default: the hint's, the budget its chances were measured "
                        "on)")
    p.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--practise", "--practice", action="store_true",
                   help="then choose again at each marked decision, as you saw it")
    deck_dir_option(p)
    p.set_defaults(func=cmd_review)


__all__ = ["chart", "register"]
