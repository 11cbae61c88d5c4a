"""The ``converge`` command: decks, bot matches, replays, benchmarks and (for now) watching a match.

Every mistake in the input — an unknown skillset, a bad option value, a missing or malformed file, a
record that does not replay — ends with one line on stderr, ``converge: error: ...``, and exit code 2;
never a traceback. ``converge cards validate`` exits 1 when the deck files it checks have errors (one
line each on stdout). Error lines are at most :data:`MAX_ERROR` characters: they quote only the start
of a long input.

Files from the user are parsed here, whole, before anything else sees them: a file too large, nested too
deeply or holding a number too long for Python to read is refused with the same one-line error.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from converge import __version__
from converge.bots import BOTS, LEVELS, make_bot
from converge.cards.loader import (
    DeckError,
    DeckProblem,
    builtin_sources,
    dir_sources,
    load_catalog,
    load_decks,
)
from converge.cards.model import Deck
from converge.engine.errors import ConvergeError
from converge.engine.playset import SETS, catalog_order
from converge.engine.seeds import derive_seed, new_seed

EXIT_USAGE = 2
MAX_SEED = 2**63 - 1
#: The longest error line the command prints (characters).
MAX_ERROR = 300
#: The largest file the command reads (a match record or a deck file is a few kilobytes).
MAX_FILE_BYTES = 16 * 2**20


class UserError(Exception):
    """A mistake in the user's input: reported on one line, exit code 2."""


# ---------------------------------------------------------------------- messages


def clip(text: str, limit: int = MAX_ERROR) -> str:
    """The first line of ``text``, cut to ``limit`` characters (ending with "…" when cut)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 1] + "…"


def shown_path(path: str, limit: int = 100) -> str:
    """A file name as an error line shows it: whole, or its start and end when it is very long."""
    return path if len(path) <= limit else f"{path[:limit - 31]}…{path[-30:]}"


def quoted(text: str, limit: int = 40) -> str:
    """``text`` quoted as Python does (``'abc'``), only its first ``limit`` characters when it is longer."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text)} characters)"


# ---------------------------------------------------------------------- argument types


def _whole_number(text: str) -> int | None:
    """``text`` as an integer, or None (not a number, or too long to be one anybody means)."""
    if len(text) > 40:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def positive_int(text: str) -> int:
    value = _whole_number(text)
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, got {quoted(text)}")
    return value


def seed_int(text: str) -> int:
    value = _whole_number(text)
    if value is None or not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to 2**63-1, got {quoted(text)}")
    return value


def path_text(text: str) -> str:
    """A file or folder name: any text the system can take as one (not a NUL character, not empty)."""
    if not text or "\x00" in text:
        raise argparse.ArgumentTypeError("expected a file or folder name" + (", without a NUL character"
                                                                             if text else ""))
    return text


def playset_names(text: str) -> list[str]:
    names = [n.strip().lower() for n in text.split(",") if n.strip()]
    if len(names) != 3:
        raise argparse.ArgumentTypeError(f"a playset is three skillset names separated by commas, e.g. "
                                         f"alchemist,mechanist,archivist; got {quoted(text)}")
    if len(set(names)) != 3:
        raise argparse.ArgumentTypeError(f"a playset needs three different skillsets, got {quoted(text)}")
    return names


# ---------------------------------------------------------------------- helpers


def _number_limit() -> int:
    return sys.get_int_max_str_digits() or 4300


def unreadable_toml(name: str, text: str) -> DeckProblem | None:
    """The problem of a deck file that Python's TOML reader cannot even read (nested too deeply, a number
    too long), or None. Syntax errors are left to the deck loader, which names their line and column."""
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    except RecursionError:
        return DeckProblem(name, "", "", "not valid TOML: nested too deeply")
    except ValueError:  # the only other one: an integer longer than Python converts
        return DeckProblem(name, "", "", f"not valid TOML: a number is longer than {_number_limit()} digits")
    return None


def _refuse_large_files(path: str) -> None:
    """A :class:`UserError` when the deck file ``path`` (or a ``*.toml`` file of the folder ``path``) is
    larger than any deck file (before it is read into memory)."""
    p = Path(path)
    try:
        files = [p] if p.is_file() else sorted(p.glob("*.toml")) if p.is_dir() else []
        for f in files:
            if f.is_file() and f.stat().st_size > MAX_FILE_BYTES:
                raise UserError(f"{f} is too large to be a deck file (over {MAX_FILE_BYTES:,} bytes)")
    except OSError:
        return  # the loader says what is wrong with the path


def deck_sources(paths: Sequence[str]) -> tuple[list[tuple[str, str]], list[DeckProblem]]:
    """The deck files of ``paths`` (files or folders) as (name, text), and the problems of those that
    cannot be read as TOML at all (left out of the first list). A missing path is a :class:`UserError`."""
    sources: list[tuple[str, str]] = []
    for path in paths:
        _refuse_large_files(path)
        try:
            sources.extend(dir_sources(path))
        except DeckError as exc:  # a missing path, an empty folder, an unreadable file: a usage error
            raise UserError(str(exc.problems[0]) if exc.problems else str(exc)) from None
        except OSError as exc:  # a path the system refuses to look at (a name too long...)
            raise UserError(f"cannot read {shown_path(path)}: {exc.strerror or exc}") from None
    readable: list[tuple[str, str]] = []
    problems: list[DeckProblem] = []
    for name, text in sources:
        problem = unreadable_toml(name, text)
        if problem is None:
            readable.append((name, text))
        else:
            problems.append(problem)
    return readable, problems


def _deck_failure(problems: Sequence[object]) -> UserError:
    more = f" (and {len(problems) - 1} more; run `converge cards validate` on them)" if len(problems) > 1 else ""
    # the first problem is cut short if need be: the line keeps its end, which says what to do
    first = clip(printable(str(problems[0])) if problems else "invalid deck files",
                 MAX_ERROR - len("converge: error: cannot load the decks: ") - len(more))
    return UserError(f"cannot load the decks: {first}{more}")


def _catalog(deck_dirs: Sequence[str]) -> dict[str, Deck]:
    """The built-in decks and those of ``deck_dirs``, checked here first: a deck folder holding a file that
    cannot be read gives the one-line error, as any other invalid deck does."""
    if deck_dirs:
        _sources, problems = deck_sources(deck_dirs)
        if problems:
            raise _deck_failure(problems)
    try:
        return load_catalog(deck_dirs)
    except DeckError as exc:
        raise _deck_failure(exc.problems) from None


def _resolve_playset(args: argparse.Namespace, catalog: dict[str, Deck]) -> list[str] | None:
    """The playset the user asked for (``--playset`` or ``--set``), checked against the catalogue; None: any."""
    names: list[str] | None = None
    if getattr(args, "playset", None):
        names = list(args.playset)
    elif getattr(args, "set", None):
        names = list(SETS[args.set])
    if names is not None:
        unknown = [n for n in names if n not in catalog]
        if unknown:
            raise UserError(f"unknown skillset {unknown[0]!r} (known: {', '.join(catalog_order(catalog))})")
    return names


def _playset_and_seed(args: argparse.Namespace) -> tuple[list[str], int]:
    """The playset and seed of one match: as given, else a random seed and a playset drawn from it."""
    from converge.engine.playset import all_playsets

    catalog = _catalog(args.deck_dir)
    names = _resolve_playset(args, catalog)
    seed = args.seed if args.seed is not None else new_seed()  # 63 bits: not to be found from one's own hand
    if names is None:
        choices = all_playsets(catalog)
        names = list(choices[random.Random(f"converge-play:{seed}").randrange(len(choices))])
    return names, seed


def bot_seed(args: argparse.Namespace, match_seed: int, seat: int) -> int:
    """The seed of the bot in ``seat``: never one that leads to the match's seed (which deals every card).
    Derived from the match's seed when the user gave it (the match is then reproducible), else fresh."""
    return derive_seed("converge-bot", match_seed, seat) if args.seed is not None else new_seed()


def read_text_file(path: str, what: str) -> str:
    """The text of a user's file (UTF-8, at most :data:`MAX_FILE_BYTES`), or a :class:`UserError`."""
    name = shown_path(path)
    try:
        with Path(path).open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise UserError(f"no such file: {name}") from None
    except IsADirectoryError:
        raise UserError(f"{name} is a folder, not a {what} file") from None
    except OSError as exc:
        raise UserError(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise UserError(f"{name} is too large to be a {what} (over {MAX_FILE_BYTES:,} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{name} is not UTF-8 text (byte {exc.start})") from None


def read_json_file(path: str, what: str) -> Any:
    """A user's JSON file, parsed whole here: any problem (a missing file, bad JSON, nesting too deep, a
    number too long) is a one-line :class:`UserError` naming the file."""
    text = read_text_file(path, what)
    name = shown_path(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise UserError(f"{name} is not a {what}: its JSON is nested too deeply") from None
    except ValueError:  # the only other one: an integer longer than Python converts
        raise UserError(f"{name} is not a {what}: it holds a number longer than {_number_limit()} "
                        "digits") from None


# ---------------------------------------------------------------------- commands


def cmd_cards(args: argparse.Namespace) -> int:
    catalog = _catalog(args.deck_dir)
    keys = catalog_order(catalog)
    if args.skillset:
        wanted = args.skillset.strip().lower()
        if wanted not in catalog:
            raise UserError(f"unknown skillset {args.skillset!r} (known: {', '.join(keys)})")
        keys = [wanted]
    from converge.cli.render import print_decks

    print_decks([catalog[k] for k in keys])
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

    catalog = _catalog(args.deck_dir)
    names = _resolve_playset(args, catalog)
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


def _replay_match(path: str, doc: Any, deck_dirs: Sequence[str]) -> Any:
    """The match of the record ``doc`` before its first action, once the whole record is known to replay.

    The engine raises a :class:`ConvergeError` for a bad record (reported as it is); any other error it
    raises on a record read from a user's file is reported on one line too, naming the file."""
    from converge.engine.state import Match

    try:
        Match.replay(doc, deck_dirs)  # validates the whole record first (RecordError: exit 2)
        return Match.replay(doc, deck_dirs, upto=0)
    except ConvergeError:
        raise
    except RecursionError:
        raise UserError(f"{shown_path(path)} is not a match record: it is nested too deeply") from None
    except (TypeError, ValueError) as exc:
        raise UserError(f"{shown_path(path)} is not a valid match record: {exc}") from None


def cmd_replay(args: argparse.Namespace) -> int:
    from converge.cli.render import MatchPrinter

    doc = read_json_file(args.file, "match record")
    _catalog(args.deck_dir)
    start = _replay_match(args.file, doc, args.deck_dir)
    printer = MatchPrinter(start, sys.stdout, everything=not args.public)
    printer.header()
    printer.flush()
    for action in doc["actions"]:
        start.apply(action)
        printer.flush()
    printer.summary()
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.adapters:
        try:
            from converge.adapters.bench import report, run_adapter_bench
        except ImportError as exc:
            raise UserError(f"the adapters' benchmark needs the rl and bench extras ({exc.name} is missing): "
                            "pip install 'converge[rl,bench]'") from None
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
    print(f"Converge engine benchmark — {engine} engine, Python {sys.version.split()[0]}, one core")
    print(f"playset: {'/'.join(r.playset)}")
    runs = ", ".join(f"{x:,.0f}" for x in r.runs)
    print(f"random playouts: {r.rounds_per_second:,.0f} complete rounds/s "
          f"(median of {len(r.runs)} runs of {r.rounds_per_run:,} rounds: {runs})")
    print(f"clone():         {r.clone_us:.2f} µs per call (median of {len(r.runs)})")
    print(f"legal_actions(): {r.legal_actions_us:.2f} µs per call (median of {len(r.runs)})")
    if r.greedy_us is not None:
        print(f"greedy bot:      {r.greedy_us:.0f} µs per decision (mean, greedy vs random)")
    if r.ismcts_rate is not None:
        print(f"ISMCTS:          {r.ismcts_rate:,.0f} simulations/s (12 positions, 3,000 simulations each)")
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Two bots play a match, told turn by turn, with a pause after each turn (``--delay``)."""
    import time

    from converge.cli.render import MatchPrinter
    from converge.engine.playset import Playset
    from converge.engine.state import Match
    from converge.simulation.runner import play_match

    names, seed = _playset_and_seed(args)
    playset = Playset.from_names(names, args.deck_dir)
    bots = (make_bot(args.bot1, bot_seed(args, seed, 0)), make_bot(args.bot2, bot_seed(args, seed, 1)))
    out = sys.stdout
    delay = args.delay if args.delay is not None else (1.0 if out.isatty() else 0.0)
    holder: dict[str, Any] = {}

    def pause() -> None:
        if delay > 0:
            out.flush()
            time.sleep(delay)

    def on_action(match: Match, seat: int) -> None:
        printer = holder.get("printer")
        if printer is None:
            seats = [f"player 0 ({args.bot1})", f"player 1 ({args.bot2})"]
            printer = holder["printer"] = MatchPrinter(match, out, everything=not args.public, names=seats,
                                                       pause=pause)
            printer.header()
            if not args.public:  # everything is shown anyway; watching in public, the seed would deal the cards
                out.write(replay_line)
        printer.flush()

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


def _full_screen_possible() -> bool:
    """Whether ``converge play`` can be the full-screen game: input and output (Textual draws on stderr)
    are a terminal that can draw one (not a pipe, a file or ``TERM=dumb``)."""
    try:
        ttys = sys.stdin.isatty() and sys.stdout.isatty() and sys.stderr.isatty()
        return ttys and os.environ.get("TERM", "") not in ("", "dumb")
    except (AttributeError, ValueError):
        return False


def cmd_play(args: argparse.Namespace) -> int:
    from converge.cli.session import Seat
    from converge.cli.terminal import TerminalGame, console_for, default_record_path, play_json
    from converge.engine.playset import Playset
    from converge.engine.state import Match

    names, seed = _playset_and_seed(args)
    match = Match.new(Playset.from_names(names, args.deck_dir), seed=seed)
    human = args.seat if args.seat is not None else 0
    bot = make_bot(args.opponent, bot_seed(args, seed, 1 - human))
    if args.json:
        return play_json(match, human, bot, sys.stdin, sys.stdout)
    seats: tuple[Seat, Seat]
    if args.hotseat:
        seats = (Seat("Player 1"), Seat("Player 2"))
    else:
        seats = (Seat("you"), Seat(args.opponent, bot)) if human == 0 else (Seat(args.opponent, bot), Seat("you"))
    save = None if args.no_save else Path(args.save) if args.save else default_record_path()
    if save is not None:
        try:
            save.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot save records in {save.parent}: {exc.strerror or exc}") from None
        if save.parent.exists() and not os.access(save.parent, os.W_OK):
            raise UserError(f"cannot write records in {save.parent}")
    if not args.plain and _full_screen_possible():
        return _play_full_screen(match, seats, save, args.hotseat)
    console = console_for()

    def read(prompt: str) -> str:
        console.print(prompt, end="", highlight=False, markup=False)
        console.file.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        if not sys.stdin.isatty():  # scripted play: show what was typed, as a terminal would
            console.print(line.rstrip("\n"), highlight=False, markup=False)
        return line.rstrip("\n")

    game = TerminalGame(match, seats, console, read, save, hotseat=args.hotseat)
    try:
        return game.play()
    except OSError as exc:
        raise UserError(f"cannot save the match record: {exc.strerror or exc}") from None


def _play_full_screen(match: Any, seats: Any, save: Path | None, hotseat: bool) -> int:
    from converge.cli.session import Session
    from converge.cli.tui import GameApp

    app = GameApp(Session(match, seats, save, hotseat))
    try:
        code = app.run()
    except OSError as exc:
        raise UserError(f"cannot save the match record: {exc.strerror or exc}") from None
    for line in app.farewell:
        print(line)
    return code if isinstance(code, int) else 0


# ---------------------------------------------------------------------- parser


HOTSEAT_HELP = (
    "Hot-seat (--hotseat): before each player's turn a screen asks to pass the device and shows nothing of "
    "either hand. The full-screen game draws on the terminal's alternate screen, which leaves nothing in the "
    "scrollback; in the line mode (--plain, or through a pipe) the screen and the terminal's scrollback are "
    "erased before and after that screen. Either way nothing of the other player's hand is left on screen or in "
    "the scrollback. (Erasing the scrollback needs a terminal that supports it, as xterm, GNOME Terminal and "
    "other VTE terminals, iTerm2, kitty and Windows Terminal do; a terminal multiplexer may keep a history of "
    "its own.) It does not protect against someone watching the screen while the other player plays.")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        # argparse quotes what was typed in full (an unknown choice, unrecognised arguments): keep one line
        self.exit(EXIT_USAGE, f"converge: error: {printable(message, MAX_ERROR - len('converge: error: '))}\n")


def _deck_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deck-dir", action="append", default=[], metavar="DIR", type=path_text,
                   help="also load the *.toml decks of DIR (or one file); may be repeated")


def _playset_options(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--playset", "--decks", dest="playset", type=playset_names, metavar="A,B,C",
                       help="three skillsets, e.g. alchemist,mechanist,archivist")
    group.add_argument("--set", choices=sorted(SETS), help="one of the three published sets")


#: Every bot name, in the order every command lists them: the levels, weakest first, then the algorithms.
BOT_NAMES: tuple[str, ...] = (*LEVELS, *(name for name in BOTS if name not in LEVELS))

#: The commands, grouped as ``converge --help`` lists them, with what each does (also its --help's first line).
COMMANDS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Play", (
        ("play", "play a match in the terminal, against a bot or a friend"),
        ("watch", "watch two bots play a match, turn by turn"),
        ("replay", "tell a saved match turn by turn, with the scores"),
        ("serve", "online play in the browser: bots, friends, spectators (the web extra)"),
    )),
    ("Cards and balance", (
        ("cards", "the decks with each card's text; `cards validate` checks deck files"),
        ("simulate", "the balance simulator: bot matches on every playset, tables, plots"),
        ("balance", "simulate, then flag what is out of line (exit 1 when something is)"),
    )),
    ("Bots", (
        ("match", "a series of matches between two bots: wins, rounds, 95% interval"),
        ("ladder", "a round-robin between bots: win rates, 95% intervals, Elo"),
    )),
    ("Speed", (
        ("bench", "engine speed: random playouts per second, clone(), legal_actions()"),
        ("serve-bench", "the web server under load: concurrent bot matches over WebSockets"),
    )),
)
_SUMMARIES = {name: text for _, group in COMMANDS for name, text in group}
#: More of what a command does, after its summary, on its own --help.
_MORE = {
    "play": "Full screen on a terminal (Textual), line by line through a pipe or with --plain; --hotseat for "
            "two people at one screen, --json for programs.",
}


def commands_help() -> str:
    """The grouped list of commands, for ``converge --help``."""
    lines = ["commands:"]
    for title, group in COMMANDS:
        lines.append(f"  {title}:")
        for name, text in group:
            lines.append(f"    {name:<12} {text}")
    lines.append("")
    lines.append("`converge COMMAND --help` says more about each.")
    return "\n".join(lines)


def add_command(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand's parser, described by :data:`COMMANDS`."""
    summary = _SUMMARIES[name]
    description = summary[:1].upper() + summary[1:] + "." + (f" {_MORE[name]}" if name in _MORE else "")
    parser: argparse.ArgumentParser = sub.add_parser(name, description=description, **kwargs)
    return parser


def bot_choice(p: argparse.ArgumentParser, option: str, default: str, what: str) -> None:
    """A ``--bot1``-style option: any bot name, listed in :data:`BOT_NAMES` order."""
    p.add_argument(option, choices=BOT_NAMES, default=default, metavar="BOT",
                   help=f"{what}: {', '.join(BOT_NAMES)} (default: {default})")


def non_negative_seconds(text: str) -> float:
    try:
        value = float(text) if len(text) <= 40 else -1.0
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 60, got {quoted(text)}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="converge", description="Converge: the card game's engine, bots and tools.",
                     epilog=commands_help(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"converge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                help="one of the commands below")
    sub.required = True

    p = add_command(sub, "play", epilog=HOTSEAT_HELP)
    p.add_argument("--opponent", choices=BOT_NAMES, default="easy", metavar="BOT",
                   help=f"the bot you play against: {', '.join(BOT_NAMES)} (default: easy)")
    p.add_argument("--seed", type=seed_int, default=None, help="seed of the match (default: a random one)")
    _playset_options(p)
    _deck_dir(p)
    p.add_argument("--hotseat", action="store_true",
                   help="two people at one screen, passing the device (what it protects against: see below)")
    p.add_argument("--plain", action="store_true",
                   help="line by line instead of full screen (what pipes and scripts get anyway): for screen "
                        "readers, or a terminal that cannot draw the full-screen game")
    p.add_argument("--json", action="store_true",
                   help="for programs: one JSON observation per line out, one action per line in")
    p.add_argument("--save", metavar="FILE", type=path_text,
                   help="where to save the match record (default: under the user's data directory)")
    p.add_argument("--no-save", action="store_true", help="do not save the match record")
    p.add_argument("--seat", type=int, choices=(0, 1), default=None,
                   help="your seat against a bot (default: 0); the artifact starts as M2 says")
    p.set_defaults(func=cmd_play)

    p = add_command(sub, "watch")
    bot_choice(p, "--bot1", "medium", "player 0")
    bot_choice(p, "--bot2", "medium", "player 1")
    p.add_argument("--opponent", dest="bot2", choices=BOT_NAMES, default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)  # the former name of --bot2
    p.add_argument("--delay", type=non_negative_seconds, default=None, metavar="SECONDS",
                   help="pause after each turn (default: 1 on a terminal, 0 when the output is not one)")
    p.add_argument("--seed", type=seed_int, default=None, help="seed of the match (default: a random one)")
    _playset_options(p)
    _deck_dir(p)
    p.add_argument("--public", action="store_true", help="show only what a spectator sees")
    p.add_argument("--save", metavar="FILE", type=path_text,
                   help="save the match record to FILE (for `converge replay`)")
    p.set_defaults(func=cmd_watch)

    p = add_command(sub, "replay")
    p.add_argument("file", metavar="FILE", type=path_text, help="a match record (JSON)")
    _deck_dir(p)
    p.add_argument("--public", action="store_true",
                   help="show only what a spectator saw (default: everything, the match being over)")
    p.set_defaults(func=cmd_replay)

    __import__("converge.cli.serve_command", fromlist=["register"]).register(sub)  # serve, serve-bench

    p = add_command(sub, "cards")
    _deck_dir(p)
    p.add_argument("--skillset", metavar="NAME", help="show only this skillset")
    p.set_defaults(func=cmd_cards)
    cards_sub = p.add_subparsers(dest="cards_command", metavar="validate", parser_class=_Parser)
    v = cards_sub.add_parser("validate", help="check deck files or folders and print every error",
                             description="Check deck files or folders and print every error.")
    v.add_argument("paths", nargs="+", metavar="PATH", type=path_text,
                   help="a deck file (.toml) or a folder of them")
    v.set_defaults(func=cmd_validate)

    __import__("converge.cli.simulate_commands", fromlist=["register"]).register(sub)  # simulate, balance

    p = add_command(sub, "match")
    bot_choice(p, "--bot1", "greedy", "bot 1")
    bot_choice(p, "--bot2", "random", "bot 2")
    p.add_argument("-n", "--matches", dest="n", type=positive_int, default=200,
                   help="number of matches (default 200)")
    p.add_argument("--seed", type=seed_int, default=1, help="seed of the whole series (default 1)")
    _playset_options(p)
    _deck_dir(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_match)

    from converge.cli import ladder

    ladder.register(sub)

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


def printable(text: str, limit: int = MAX_ERROR) -> str:
    """``text`` on one line of at most ``limit`` characters: control characters (a newline in a file
    name...) written as escapes, the end cut off with "…" when it is too long."""
    head = text[:limit + 1]
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    if len(shown) > limit or len(text) > len(head):
        shown = shown[:limit - 1] + "…"
    return shown


def _fail(message: str) -> int:
    sys.stderr.write(f"converge: error: {printable(message, MAX_ERROR - len('converge: error: '))}\n")
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (also used as the console script's)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        code: int = args.func(args)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    except UserError as exc:
        return _fail(str(exc))
    except (ConvergeError, DeckError) as exc:
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
