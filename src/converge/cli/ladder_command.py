"""``converge ladder``: a round-robin between bots with fixed seeds, win rates with 95% intervals, Elo."""

from __future__ import annotations

import argparse
import json
import os
import sys

from converge import install_command
from converge.bots import is_bot_name
from converge.bots.external import is_import_path
from converge.cli.common import BOT_NAMES, Subcommands, UserError, add_command, positive_int, quoted, seed_int
from converge.simulation.ladder import OPENSPIEL, run_ladder, time_summary


def _contestants(text: str) -> list[str]:
    # an agent's import path keeps its case (mypkg.agents:PPOAgent); a bot's name does not matter
    names = [n if is_import_path(n) else n.lower() for n in (n.strip() for n in text.split(",")) if n]
    for name in names:
        if name != OPENSPIEL and not is_bot_name(name) and not is_import_path(name):
            raise argparse.ArgumentTypeError(f"unknown bot {quoted(name)} (known: {', '.join(BOT_NAMES)}, "
                                             f"{OPENSPIEL}, ismcts:N for N simulations per decision, or an "
                                             "agent's import path such as mypkg.agents:PPOAgent)")
    if len(names) < 2 or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError("a ladder needs at least two different bots, e.g. random,greedy,hard")
    return names


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {quoted(text)}") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError(f"expected seconds between 0 and 60, got {quoted(text)}")
    return value


def cmd_ladder(args: argparse.Namespace) -> int:
    if OPENSPIEL in args.bots:
        try:
            import converge.adapters.openspiel_bot  # noqa: F401
        except ImportError:
            sys.stderr.write("converge: error: the openspiel contestant needs the rl extra: "
                             f"{install_command('rl')}\n")
            return 2
    out = sys.stdout

    def progress(done: int, total: int) -> None:
        if not args.json and (done == total or done % max(1, total // 20) == 0):
            sys.stderr.write(f"\r{done}/{total} matches")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    try:
        result = run_ladder(args.bots, args.n, args.seed, args.workers, openspiel_seconds=args.openspiel_seconds,
                            on_outcome=progress)
    except ValueError as exc:  # an agent that does not import or has no decide(view)
        raise UserError(str(exc)) from None
    if args.json:
        out.write(json.dumps(result.to_dict(), indent=1) + "\n")
        return 0
    out.write(f"Ladder: {', '.join(args.bots)} — {args.n} matches per pair, seed {args.seed}\n\n")
    for p in result.pairings:
        lo, hi = p.interval
        out.write(f"  {p.a:>10} vs {p.b:<10} {p.a_wins:>4}/{p.matches:<4} = {p.rate:6.1%}  "
                  f"95% CI [{lo:.1%}, {hi:.1%}]\n")
    out.write("\nElo (random = 1000 when it plays; 400 points = 10:1 odds)\n")
    for name, rating in sorted(result.elo().items(), key=lambda kv: -kv[1]):
        t = time_summary(result.times.get(name, []))
        out.write(f"  {name:>10} {rating:7.0f}   decisions {t['decisions']:>6}, "
                  f"median {t['median'] * 1000:8.1f} ms, max {t['max'] * 1000:8.1f} ms\n")
    return 0


def register(sub: Subcommands) -> None:
    """Add ``converge ladder`` to the command's subparsers."""
    p = add_command(sub, "ladder")
    p.add_argument("--bots", type=_contestants, default=["random", "greedy", "hard"],
                   help=f"comma-separated bots, of {', '.join(BOT_NAMES)} (default random,greedy,hard), "
                        f"ismcts:N (N simulations per decision); also '{OPENSPIEL}': OpenSpiel's ISMCTSBot "
                        "(rl extra), and your own agent by its import path, e.g. examples.agents:RandomAgent (a "
                        "class with decide(view); docs/bots.md)")
    p.add_argument("--per-pair", dest="n", type=positive_int, default=100, metavar="N",
                   help="matches per pair of bots (default 100)")
    p.add_argument("-n", dest="n", type=positive_int, default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)  # the former name of --per-pair
    p.add_argument("--seed", type=seed_int, default=1, help="seed of the whole ladder (default 1)")
    p.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                   help="processes (default: all cores)")
    p.add_argument("--openspiel-seconds", type=_seconds, default=1.0,
                   help="time per decision of the openspiel contestant (default 1.0)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_ladder)
