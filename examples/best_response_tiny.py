"""How exploitable is a bot on the ``tiny`` variant: the exact value of a best response to it, per seat.

    python examples/best_response_tiny.py --bot hard --seed 0 --csv docs/images/tiny-best-response-hard.csv

A seeded bot playing a match is a deterministic policy; :mod:`converge.adapters.best_response` walks the game
(``python_converge(variant=tiny,start=player0)`` by default) with every chance outcome and every action of the
best responder, asking the bot only at the information states it reaches by its own choices, then finds the
responder's best strategy by backward induction over its information states. ``--seat`` says which seat the bot
plays (both by default: then the bot's exploitability, the mean of the two best responses' values, in the
game's units: a match is worth +1 or -1). ``--bot`` takes any bot name (``random``, ``greedy``, ``medium``,
``hard``, ``ismcts:N``...), ``uniform`` (every legal action alike: OpenSpiel's uniform random policy, not a
bot) or ``cfr+:N``, the average policy of N iterations of OpenSpiel's CFR+ on the game's exported tree (a
reference: a table over every information state, so OpenSpiel's ``TabularBestResponse`` measures it, and its
value to player 0 against itself is printed: the game's value, to within its exploitability).
``--simulations N`` gives a strong-search bot N simulations per decision instead of its own, in the same
parts. ``--deal N`` measures the subgame in which the first N cards of the deal are fixed (the first legal
ones, as in ``examples/openspiel_solve_tiny.py``): the responder knows those cards.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pyspiel

import converge.adapters.openspiel  # noqa: F401  (registers python_converge)
from converge.adapters.best_response import BotOpponent, Opponent, UniformOpponent, best_response, exploitability
from converge.adapters.efg import export_efg, subgame
from converge.bots import make_bot
from converge.bots.ismcts import ISMCTSBot

DEFAULT_GAME = "python_converge(variant=tiny,start=player0)"
UNIFORM = "uniform"
CFR_PLUS = "cfr+:"


class Row(NamedTuple):
    """One seat's measurement: the best response's value against the bot in ``bot_seat``, the bot's
    information states met (``asked``), those with more than one legal action (``choices``), those searched
    (``searches``; the strong search only, else 0), the CPU seconds of the bot's decisions and of the whole."""

    bot: str
    seed: int
    simulations: int
    deal: int
    bot_seat: int
    value: float
    histories: int
    asked: int
    choices: int
    searches: int
    bot_seconds: float
    seconds: float


def opponent(name: str, seed: int, simulations: int | None) -> tuple[Opponent, int]:
    """The policy named, and the strong search's simulations per decision (0: not the strong search)."""
    if name == UNIFORM:
        return UniformOpponent(), 0
    bot = make_bot(name, seed)
    if not isinstance(bot, ISMCTSBot):
        if simulations is not None:
            raise ValueError(f"--simulations is for the strong search's bots; {name!r} is not one")
        return BotOpponent(bot), 0
    if simulations is not None:
        bot.settings = dataclasses.replace(bot.settings, simulations=simulations)
    bot.threads = 1  # one core: the parts in turn (the decisions are the same for any number)
    return BotOpponent(bot), bot.settings.simulations


def measure(game: pyspiel.Game, name: str, seed: int, bot_seat: int, deal: int = 0,
            simulations: int | None = None) -> Row:
    """The best response's value against bot ``name`` (a fresh one, seeded ``seed``) in ``bot_seat``."""
    policy, budget = opponent(name, seed, simulations)
    start = time.process_time()
    found = best_response(subgame(game, deal), 1 - bot_seat, policy)
    seconds = time.process_time() - start
    made = policy.decisions() if isinstance(policy, BotOpponent) else []
    return Row(name, seed, budget, deal, bot_seat, found.value, found.histories, len(made),
               sum(d.options > 1 for d in made), sum(d.how == "search" for d in made),
               sum(d.seconds for d in made), seconds)


def measure_cfr_plus(game: pyspiel.Game, iterations: int, deal: int = 0) -> tuple[list[Row], float]:
    """The best responses' values against CFR+'s average policy after ``iterations`` (its seat 0, then 1),
    measured by OpenSpiel on the exported tree, and the policy's value to player 0 against itself."""
    start = time.process_time()
    efg = pyspiel.load_efg_game(export_efg(game, subgame(game, deal))[0])
    solver = pyspiel.CFRPlusSolver(efg)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    root = efg.new_initial_state()
    own = pyspiel.expected_returns(root, average, -1, True)[0]
    rows = []
    for seat in (0, 1):
        value = pyspiel.TabularBestResponse(efg, 1 - seat, average).value(root.history_str())
        rows.append(Row(f"{CFR_PLUS}{iterations}", 0, 0, deal, seat, value, 0, 0, 0, 0, 0.0,
                        time.process_time() - start))
    return rows, own


def write_csv(rows: Sequence[Row], path: Path) -> None:
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(Row._fields)
        for r in rows:
            out.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in r])


def measure_all(game: pyspiel.Game, args: argparse.Namespace, seats: Sequence[int]) -> list[Row]:
    """Each seat's measurement of the policy ``args`` name, printed as it comes."""
    if args.bot.startswith(CFR_PLUS):
        digits = args.bot[len(CFR_PLUS):]
        if not digits.isdigit():
            raise ValueError(f"--bot {args.bot}: {CFR_PLUS}N takes a whole number of iterations")
        rows, own = measure_cfr_plus(game, int(digits), args.deal)
        rows = [r for r in rows if r.bot_seat in seats]
        for row in rows:
            print(f"{args.bot} in seat {row.bot_seat}: the best response wins {row.value:+.4f}")
        print(f"{args.bot} against itself: {own:+.4f} to player 0; {rows[-1].seconds:.1f} CPU s in all")
        return rows
    rows = []
    for seat in seats:
        row = measure(game, args.bot, args.seed, seat, args.deal, args.simulations)
        rows.append(row)
        budget = f", {row.simulations:,} simulations" if row.simulations else ""
        print(f"{args.bot} (seed {args.seed}{budget}) in seat {seat}: the best response wins {row.value:+.4f}; "
              f"{row.histories:,} histories walked, the bot asked at {row.asked:,} information states "
              f"({row.choices:,} with a choice, {row.searches:,} searched) in {row.bot_seconds:.1f} CPU s; "
              f"{row.seconds:.1f} CPU s in all", flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default=DEFAULT_GAME, help="an OpenSpiel game string (default: %(default)s)")
    parser.add_argument("--bot", default="greedy",
                        help=f"a bot name, {UNIFORM} or {CFR_PLUS}N (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="the bot's seed (default: %(default)s)")
    parser.add_argument("--seat", choices=("0", "1", "both"), default="both", help="the seat the bot plays")
    parser.add_argument("--simulations", type=int, help="the strong search's simulations per decision")
    parser.add_argument("--deal", type=int, default=0, help="fix the first N chance outcomes (a subgame)")
    parser.add_argument("--csv", type=Path, help="write the measurements here")
    args = parser.parse_args(argv)
    game = pyspiel.load_game(args.game)
    seats = (0, 1) if args.seat == "both" else (int(args.seat),)
    rows: list[Row] = []
    try:
        rows = measure_all(game, args, seats)
    except ValueError as e:  # an unknown bot, --simulations for a bot without search, a --deal too long
        parser.error(str(e))
    if len(rows) == 2:
        print(f"exploitability of {args.bot}: {exploitability([r.value for r in rows]):.4f}")
    if args.csv:
        write_csv(rows, args.csv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
