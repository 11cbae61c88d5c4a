"""The ``converge`` command: it builds the parser of every subcommand and runs the one asked for; the
commands of watching (watch, replay), of the decks (cards, cards validate), of bot series (match) and the
engine's benchmark (bench) are here, the others in their own modules (:mod:`.play_command`,
:mod:`.serve_command`, :mod:`.simulate_commands`, :mod:`.ladder_command`...). What they share is in :mod:`.common`.

Every mistake in the input — an unknown skillset, a bad option value, a missing or malformed file, a
record that does not replay — ends with one line on stderr, ``converge: error: ...``, and exit code 2;
never a traceback. ``converge cards validate`` exits 1 when the deck files it checks have errors (one
line each on stdout).

Before any command runs, the extensions are loaded (:mod:`converge.extensions`): the installed ones and the
modules ``--plugin`` names, given before or after the command's name.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from converge import DISTRIBUTION, __version__, install_command
from converge.bots import bot_display_name, make_bot
from converge.cards.loader import DeckError, DeckProblem, builtin_sources, load_decks
from converge.cards.model import Deck
from converge.cli import (
    admin_command,
    calibrate_command,
    cards_print_command,
    config_command,
    db_command,
    ladder_command,
    play_command,
    puzzles_command,
    review_command,
    serve_command,
    simulate_commands,
    stability_command,
)
from converge.cli.common import (
    BOT_NAMES,
    EXIT_USAGE,
    MAX_ERROR,
    Parser,
    UserError,
    add_command,
    bot_choice,
    bot_seed,
    clip,
    commands_help,
    deck_dir_option,
    deck_sources,
    non_negative_seconds,
    path_text,
    playset_and_seed,
    playset_options,
    plugins_of,
    positive_int,
    printable,
    read_json_file,
    record_start,
    resolve_playset,
    seed_int,
    user_catalog,
)
from converge.engine.errors import ConvergeError
from converge.engine.playset import catalog_order
from converge.extensions import PluginError, load_extensions, share_with_children

# ---------------------------------------------------------------------- messages








# ---------------------------------------------------------------------- argument types












# ---------------------------------------------------------------------- helpers
























# ---------------------------------------------------------------------- commands


def cmd_cards(args: argparse.Namespace) -> int:
    catalog = user_catalog(args.deck_dir)
    keys = catalog_order(catalog)
    if args.skillset:
        wanted = args.skillset.strip().lower()
        if wanted not in catalog:
            raise UserError(f"unknown skillset {args.skillset!r} (known: {', '.join(keys)})")
        keys = [wanted]
    from converge.cli.render import print_decks

    print_decks([catalog[k] for k in keys])
    return 0


def cmd_kinds(args: argparse.Namespace) -> int:
    from converge.cards.reference import reference

    sys.stdout.write(reference(markdown=args.markdown))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    """Check user deck files together with the built-in decks (so goals may name any skillset); print
    every problem, one per line: file, card, field and message. Exit 1 when there are problems."""
    sources, unreadable = deck_sources(args.paths)
    user_files = [name for name, _ in sources] + [p.file for p in unreadable]
    problems: list[DeckProblem] = list(unreadable)
    decks: dict[str, Deck] = {}
    # A file identical to a built-in deck (the shipped decks' own folder, or an unchanged copy of one) is
    # that deck: it is checked once, not reported as defined twice.
    texts = {text for _, text in sources}
    builtins = [(name, text) for name, text in builtin_sources() if text not in texts]
    try:
        decks = load_decks(builtins + sources)
    except DeckError as exc:
        problems.extend(exc.problems)
    if problems:
        files = {p.file for p in problems}
        for problem in problems:
            print(printable(str(problem)))
        print(f"{len(problems)} error{'s' if len(problems) != 1 else ''} in {len(files)} "
              f"file{'s' if len(files) != 1 else ''}")
        return 1
    mine = [d for d in decks.values() if d.source in user_files]
    names = ", ".join(f"{d.skillset} ({len(d.cards)} cards)" for d in mine)
    print(f"OK: {len(user_files)} file{'s' if len(user_files) != 1 else ''} valid: {names}")
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from converge.simulation.runner import run_series

    catalog = user_catalog(args.deck_dir)
    names = resolve_playset(args, catalog)
    result = run_series(args.bot1, args.bot2, args.n, args.seed, names, args.deck_dir)
    if args.json:
        doc = result.to_dict()
        doc["playset"] = names
        print(json.dumps(doc, indent=2))
        return 0
    b1, b2 = result.bots
    label1, label2 = f"bot 1 ({b1})", f"bot 2 ({b2})"
    width = max(len(label1), len(label2))
    lo, hi = result.interval
    where = "/".join(names) if names else "a random playset per match"
    print(f"{result.matches} matches, seed {result.seed}, {where}; bot 1 is player 0 in matches 1, 3, 5, ...")
    print(f"{'':<{width}}  {'matches won':>11}  {'rounds won':>10}")
    print(f"{label1:<{width}}  {result.wins[0]:>11}  {result.rounds_won[0]:>10}")
    print(f"{label2:<{width}}  {result.wins[1]:>11}  {result.rounds_won[1]:>10}")
    print(f"average rounds per match: {result.average_rounds:.2f}")
    print(f"bot 1 match win rate: {result.win_rate:.1%} (95% Wilson interval {lo:.1%} to {hi:.1%})")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from converge.cli.render import MatchPrinter
    from converge.engine.state import Match

    doc = read_json_file(args.file, "match record")
    user_catalog(args.deck_dir)
    start = record_start(args.file, doc, args.deck_dir)
    assert isinstance(doc, dict)  # (a record that replays is an object)
    # Hands are private while a match goes on (I2, I3): a match quit mid-way may be taken up again, so its
    # replay shows only what a spectator saw; a finished one has no secret left.
    finished = Match.replay(doc, args.deck_dir).is_terminal
    printer = MatchPrinter(start, sys.stdout, everything=finished and not args.public)
    printer.header()
    if not finished and not args.public:
        print("This match is not finished: the replay shows only what a spectator saw, not the hands.")
    printer.flush()
    for action in doc["actions"]:
        start.apply(action)
        printer.flush()
    printer.summary()
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.adapters:
        try:
            from converge.adapters.speed import report, run_adapter_bench
        except ImportError as exc:
            raise UserError(f"the adapters' benchmark needs the rl and bench extras ({exc.name} is missing): "
                            f"{install_command('rl', 'bench')}") from None
        print(f"Steps per second, random legal actions, one core (median of {args.repeats} runs of "
              f"{args.steps:,} steps)")
        print(report(run_adapter_bench(args.steps, args.repeats)))
        return 0
    from converge.simulation.bench import run_bench

    r = run_bench(args.rounds, args.repeats, greedy=not args.no_greedy)
    if args.json:
        print(json.dumps(r.to_dict(), indent=2))
        return 0
    engine = "compiled (mypyc)" if r.compiled else "pure Python"
    core = "with the native core" if r.native_runs else "without the native core (no C compiler at install)"
    print(f"Converge engine benchmark — {engine} engine {core}, Python {sys.version.split()[0]}, one core, "
          "CPU time")
    print(f"playset: {'/'.join(r.playset)}")
    if r.native_runs:
        runs = ", ".join(f"{x:,.0f}" for x in r.native_runs)
        print(f"random playouts, native core: {r.rounds_per_second:,.0f} complete rounds/s "
              f"(median of {len(r.native_runs)} runs of {10 * r.rounds_per_run:,} rounds: {runs})")
    runs = ", ".join(f"{x:,.0f}" for x in r.runs)
    print(f"random playouts, the engine: {r.engine_rounds_per_second:,.0f} complete rounds/s "
          f"(median of {len(r.runs)} runs of {r.rounds_per_run:,} rounds: {runs})")
    print(f"clone():         {r.clone_us:.2f} µs per call (median of {len(r.runs)})")
    print(f"legal_actions(): {r.legal_actions_us:.2f} µs per call (median of {len(r.runs)})")
    if r.greedy_us is not None:
        print(f"greedy bot:      {r.greedy_us:.0f} µs per decision (mean, greedy vs random)")
    if r.ismcts_rate is not None:
        print(f"strong search:   {r.ismcts_rate:,.0f} simulations/s (12 positions, 3,000 simulations each, one "
              "part)")
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Two bots play a match, told turn by turn, with a pause after each turn (``--delay``)."""
    import time

    from converge.cli.render import SEATS, MatchPrinter
    from converge.engine.playset import Playset
    from converge.engine.state import Match
    from converge.simulation.runner import play_match

    names, seed = playset_and_seed(args)
    playset = Playset.from_names(names, args.deck_dir)
    bots = (make_bot(args.bot1, bot_seed(args, seed, 0)), make_bot(args.bot2, bot_seed(args, seed, 1)))
    out = sys.stdout
    delay = args.delay if args.delay is not None else (1.0 if out.isatty() else 0.0)
    holder: dict[str, MatchPrinter] = {}

    def pause() -> None:
        if delay > 0:
            out.flush()
            time.sleep(delay)

    def on_action(match: Match, seat: int) -> None:
        printer = holder.get("printer")
        if printer is None:
            seats = [f"{SEATS[0]} ({bot_display_name(args.bot1)})", f"{SEATS[1]} ({bot_display_name(args.bot2)})"]
            printer = holder["printer"] = MatchPrinter(match, out, everything=not args.public, names=seats,
                                                       pause=pause)
            printer.header()
            if not args.public:  # everything is shown anyway; watching in public, the seed would deal the cards
                out.write(replay_line)
        printer.flush()

    # every bot decides from its seed alone (a budget of simulations, never of time): the seed repeats the match
    replay_line = f"seed {seed} (replay this match with --seed {seed} --playset {','.join(names)})\n"
    match = play_match(playset, seed, bots, log_events=True, on_action=on_action)
    holder["printer"].summary()
    if args.public:
        out.write(replay_line)
    if args.save:
        try:
            Path(args.save).write_text(json.dumps(match.record(), indent=1) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {args.save}: {exc.strerror or exc}") from None
        out.write(f"record saved to {args.save} (converge replay {args.save})\n")
    return 0


# ---------------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="converge", description="Converge: the card game's engine, bots and tools.",
                     epilog=commands_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"converge {__version__} (installed as {DISTRIBUTION}, imported as converge)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser,
                                help="one of the commands below")
    sub.required = True

    play_command.register(sub)

    p = add_command(sub, "watch")
    bot_choice(p, "--bot1", "medium", "player 0")
    bot_choice(p, "--bot2", "medium", "player 1")
    p.add_argument("--opponent", dest="bot2", choices=BOT_NAMES, default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)  # the former name of --bot2
    p.add_argument("--delay", type=non_negative_seconds, default=None, metavar="SECONDS",
                   help="pause after each turn (default: 1 on a terminal, 0 when the output is not one)")
    p.add_argument("--seed", type=seed_int, default=None, help="seed of the match (default: a random one)")
    playset_options(p)
    deck_dir_option(p)
    p.add_argument("--public", action="store_true", help="show only what a spectator sees")
    p.add_argument("--save", metavar="FILE", type=path_text,
                   help="save the match record to FILE (for `converge replay`)")
    p.set_defaults(func=cmd_watch)

    p = add_command(sub, "replay")
    p.add_argument("file", metavar="FILE", type=path_text, help="a match record (JSON)")
    deck_dir_option(p)
    p.add_argument("--public", action="store_true",
                   help="show only what a spectator saw (default: everything for a finished match; a match "
                        "not finished is always shown as a spectator saw it)")
    p.set_defaults(func=cmd_replay)
    review_command.register(sub)
    puzzles_command.register(sub)  # puzzles, puzzles make

    serve_command.register(sub)  # serve, serve-bench
    config_command.register(sub)  # config check, config example
    db_command.register(sub)  # db backup, db restore, db upgrade, db status
    admin_command.register(sub)  # admin players, rename, ban, unban, close-table, delete-match, reports, audit

    p = add_command(sub, "cards")
    deck_dir_option(p)
    p.add_argument("--skillset", metavar="NAME", help="show only this skillset")
    p.set_defaults(func=cmd_cards)
    cards_sub = p.add_subparsers(dest="cards_command", metavar="{validate,kinds,print,tts}", parser_class=Parser)
    v = cards_sub.add_parser("validate", help="check deck files or folders and print every error",
                             description="Check deck files or folders and print every error.")
    v.add_argument("paths", nargs="+", metavar="PATH", type=path_text,
                   help="a deck file (.toml) or a folder of them")
    v.set_defaults(func=cmd_validate)
    k = cards_sub.add_parser("kinds", help="every goal and effect kind a card may use, with its parameters",
                             description="Every goal and effect kind a card file may use: its parameters (type, "
                                         "range, default), a line of TOML that loads, and what it prints.")
    k.add_argument("--markdown", action="store_true", help="print it as docs/card-kinds.md holds it")
    k.set_defaults(func=cmd_kinds)
    cards_print_command.register(cards_sub)  # cards print, cards tts

    simulate_commands.register(sub)  # simulate, balance

    p = add_command(sub, "match")
    bot_choice(p, "--bot1", "greedy", "bot 1")
    bot_choice(p, "--bot2", "random", "bot 2")
    p.add_argument("-n", "--matches", dest="n", type=positive_int, default=200,
                   help="number of matches (default 200)")
    p.add_argument("--seed", type=seed_int, default=1, help="seed of the whole series (default 1)")
    playset_options(p)
    deck_dir_option(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_match)

    ladder_command.register(sub)
    calibrate_command.register(sub)
    stability_command.register(sub)

    p = add_command(sub, "bench")
    p.add_argument("--rounds", type=positive_int, default=20000, help="rounds per run (default 20000)")
    p.add_argument("--repeats", type=positive_int, default=5, help="runs; the median is reported (default 5)")
    p.add_argument("--no-greedy", action="store_true", help="skip timing the bots")
    p.add_argument("--adapters", action="store_true",
                   help="instead: steps per second of the engine, OpenSpiel, PettingZoo and Gymnasium adapters "
                        "beside PettingZoo's connect_four_v3 and tictactoe_v3")
    p.add_argument("--steps", type=positive_int, default=20000,
                   help="steps per run with --adapters (default 20000)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_bench)
    return parser




def _fail(*messages: str, path: str = "") -> int:
    """One line per message, each cut to :data:`MAX_ERROR` characters besides ``path``, the name of the file it
    names (whole: the user needs all of it to find the file)."""
    room = MAX_ERROR - len("converge: error: ") + len(printable(path, 10 * len(path) + 1))
    for message in messages:
        sys.stderr.write(f"converge: error: {printable(message, room)}\n")
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (also used as the console script's)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        # the extensions first: any command may read a deck that names their kinds (and the processes it
        # starts inherit the modules named)
        load_extensions(plugins_of(args))
        share_with_children()
        code: int = args.func(args)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    except UserError as exc:
        return _fail(*exc.lines, path=exc.path)
    except (ConvergeError, DeckError, PluginError) as exc:
        return _fail(clip(str(exc)) or type(exc).__name__)
    except KeyboardInterrupt:
        sys.stderr.write("converge: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `converge replay x.json | head`: stop quietly
        _silence_stdout()
        return 0
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    return code


def _silence_stdout() -> None:
    """After the reader of our output went away, send the rest to /dev/null (no error at exit)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


__all__ = ["build_parser", "main"]
