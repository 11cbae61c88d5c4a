"""What the ``converge`` commands share: one-line user errors, argument types, the user's files read whole,
the deck catalogue, and the table of commands each subcommand's parser is described by.

Every mistake in the input ends with one line on stderr, ``converge: error: ...``, and exit code
:data:`EXIT_USAGE`; never a traceback. Error lines are at most :data:`MAX_ERROR` characters besides the
name of the file they name (given whole: :func:`shown_path`): they quote only the start of a long input.
Files from the user are parsed here, whole, before anything else sees them: a file too large, nested too
deeply or holding a number too long for Python to read is refused with the same one-line error.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeAlias

from converge.bots import BOTS, LEVELS
from converge.cards.loader import DeckError, DeckProblem, dir_sources, load_catalog
from converge.cards.model import Deck
from converge.engine.playset import SETS, all_playsets, catalog_order
from converge.engine.seeds import derive_seed, new_seed
from converge.extensions import is_module_name

if TYPE_CHECKING:
    from converge.engine.state import Match

EXIT_USAGE = 2


MAX_SEED = 2**63 - 1


#: The longest error line the command prints (characters).
MAX_ERROR = 300


#: The largest file the command reads (a match record or a deck file is a few kilobytes).
MAX_FILE_BYTES = 16 * 2**20


class UserError(Exception):
    """A mistake in the user's input: reported on one line, exit code 2; several mistakes found at once
    (``UserError(first, second)``: a settings file's), one line each. ``path``: the name of the file the
    line names, as it shows it (:func:`shown_path`): the cap on the line's length (:data:`MAX_ERROR`) does
    not count it, so that a long path is given whole and the line still says what is wrong."""

    def __init__(self, *lines: object, path: str = "") -> None:
        super().__init__(*lines)
        self.path = path

    @property
    def lines(self) -> list[str]:
        return [str(arg) for arg in self.args] or [""]


def clip(text: str, limit: int = MAX_ERROR) -> str:
    """The first line of ``text``, cut to ``limit`` characters (ending with "…" when cut)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 1] + "…"


#: The longest file name, and the longest path, a system holds (bytes): Linux's NAME_MAX and PATH_MAX.
NAME_MAX = 255
PATH_MAX = 4096


def could_name_a_file(path: str) -> bool:
    """Whether ``path`` is short enough to name a file: its whole, and each of its names, within the limits
    of the system (:data:`PATH_MAX`, :data:`NAME_MAX`)."""
    data = path.encode("utf-8", "surrogateescape")
    return len(data) < PATH_MAX and all(len(part) <= NAME_MAX for part in data.split(b"/"))


def shown_path(path: str, limit: int = 100) -> str:
    """A file name as an error or warning line shows it: whole, for the user to find the file, whatever its
    length; only a name longer than the system allows (which names no file: thousands of characters given
    as an argument) is shown by its start and end, so that the line still says what is wrong."""
    if could_name_a_file(path) or len(path) <= limit:
        return path
    return f"{path[:limit - 31]}…{path[-30:]}"


def quoted(text: str, limit: int = 40) -> str:
    """``text`` quoted as Python does (``'abc'``), only its first ``limit`` characters when it is longer."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"… ({len(text)} characters)"


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
                name = shown_path(str(f))
                raise UserError(f"{name} is too large to be a deck file (over {MAX_FILE_BYTES:,} bytes)",
                                path=name)
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
            name = shown_path(path)
            raise UserError(f"cannot read {name}: {exc.strerror or exc}", path=name) from None
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


def user_catalog(deck_dirs: Sequence[str]) -> dict[str, Deck]:
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


def resolve_playset(args: argparse.Namespace, catalog: dict[str, Deck]) -> list[str] | None:
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


def playset_and_seed(args: argparse.Namespace) -> tuple[list[str], int]:
    """The playset and seed of one match: as given, else a random seed and a playset drawn from it."""
    catalog = user_catalog(args.deck_dir)
    names = resolve_playset(args, catalog)
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
        raise UserError(f"no such file: {name}", path=name) from None
    except IsADirectoryError:
        raise UserError(f"{name} is a folder, not a {what} file", path=name) from None
    except OSError as exc:
        raise UserError(f"cannot read {name}: {exc.strerror or exc}", path=name) from None
    if len(data) > MAX_FILE_BYTES:
        raise UserError(f"{name} is too large to be a {what} (over {MAX_FILE_BYTES:,} bytes)", path=name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{name} is not UTF-8 text (byte {exc.start})", path=name) from None


def read_json_file(path: str, what: str) -> object:
    """A user's JSON file, parsed whole here: any problem (a missing file, bad JSON, nesting too deep, a
    number too long) is a one-line :class:`UserError` naming the file."""
    text = read_text_file(path, what)
    name = shown_path(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                        path=name) from None
    except RecursionError:
        raise UserError(f"{name} is not a {what}: its JSON is nested too deeply", path=name) from None
    except ValueError:  # the only other one: an integer longer than Python converts
        raise UserError(f"{name} is not a {what}: it holds a number longer than {_number_limit()} "
                        "digits", path=name) from None


def record_start(path: str, doc: object, deck_dirs: Sequence[str]) -> Match:
    """The match of the record ``doc`` before its first action, once the whole record is known to replay.

    The engine raises a :class:`ConvergeError` for a bad record (reported as it is); any other error it
    raises on a record read from a user's file is reported on one line too, naming the file."""
    from converge.engine.errors import ConvergeError
    from converge.engine.state import Match

    try:
        Match.replay(doc, deck_dirs)  # validates the whole record first (RecordError: exit 2)
        return Match.replay(doc, deck_dirs, upto=0)
    except ConvergeError:
        raise
    except RecursionError:
        name = shown_path(path)
        raise UserError(f"{name} is not a match record: it is nested too deeply", path=name) from None
    except (TypeError, ValueError) as exc:
        name = shown_path(path)
        raise UserError(f"{name} is not a valid match record: {exc}", path=name) from None


#: Where a parser keeps its ``--plugin`` values: the prefix of an attribute of the arguments, one per parser
#: (:func:`plugins_of` gathers them).
PLUGIN_DEST = "plugins:"


def plugin_module(text: str) -> str:
    """A ``--plugin`` value: a module name such as ``mymech`` or ``mymech.kinds`` (not a file)."""
    name = text.strip()
    if not is_module_name(name):
        hint = " (not a file: put its folder on PYTHONPATH and name the module)" if "/" in name or \
            name.endswith(".py") else ""
        raise argparse.ArgumentTypeError(f"expected a module name such as mymech or mymech.kinds{hint}, got "
                                         f"{quoted(text)}")
    return name


class Parser(argparse.ArgumentParser):
    """The parser of ``converge`` and of each of its commands: a mistake is one line, and every one of them
    takes ``--plugin MODULE``, before or after the command's name (``converge --plugin mymech balance`` or
    ``converge balance --plugin mymech``), which :func:`plugins_of` gathers."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        # --plugin is added as the parser is used, after the command's own options (its usage and help list
        # them first). A command's parser fills a namespace of its own, copied over its parent's: each parser
        # keeps its values under a name of its own, so that `converge --plugin a balance --plugin b` loads both.
        dest = PLUGIN_DEST + self.prog
        if not any(action.dest == dest for action in self._actions):
            self.add_argument("--plugin", action="append", type=plugin_module, metavar="MODULE", dest=dest,
                              default=argparse.SUPPRESS,
                              help="load this extension module (new card mechanics: docs/extending.md) first; "
                                   "may be repeated; installed extensions load without it")
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        # argparse quotes what was typed in full (an unknown choice, unrecognised arguments): keep one line
        self.exit(EXIT_USAGE, f"converge: error: {printable(message, MAX_ERROR - len('converge: error: '))}\n")


def plugins_of(args: argparse.Namespace) -> list[str]:
    """The modules ``--plugin`` named, wherever it was given on the command line, in order, each once."""
    names = [name for key, values in vars(args).items() if key.startswith(PLUGIN_DEST) for name in values]
    return list(dict.fromkeys(names))


def deck_dir_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deck-dir", action="append", default=[], metavar="DIR", type=path_text,
                   help="also load the *.toml decks of DIR (or one file); may be repeated")


def playset_options(p: argparse.ArgumentParser) -> None:
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
        ("review", "a finished match's decisions judged, mistakes marked, and practised again"),
        ("puzzles", "\"win this round\" puzzles from real play; `puzzles make` finds them in matches"),
        ("serve", "online play in the browser: bots, friends, spectators (the web extra)"),
    )),
    ("Cards and balance", (
        ("cards", "the decks with each card's text; `cards validate` checks files, `cards print` makes a PDF"),
        ("simulate", "the balance simulator: bot matches on every playset, tables, plots"),
        ("balance", "simulate, then flag what is out of line (exit 1 when something is)"),
    )),
    ("Bots", (
        ("match", "a series of matches between two bots: wins, rounds, 95% interval"),
        ("ladder", "a round-robin between bots: win rates, 95% intervals, Elo"),
        ("calibrate", "how far a hint's chances can be trusted: reliability, calibration error, Brier"),
        ("stability", "whether a hint says the same whatever its seed, against a longer search"),
    )),
    ("Hosting a server", (
        ("config", "a server's settings file: `config check` validates it and prints the effective settings"),
        ("db", "the server's database: backup, restore, upgrade"),
        ("admin", "moderation: players renamed or banned, tables closed, matches deleted, reports, the audit"),
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


#: The ``converge`` command's subparsers, to which each command's ``register`` adds its own (a string: argparse's
#: class is generic only to type checkers).
Subcommands: TypeAlias = "argparse._SubParsersAction[Parser]"


def add_command(sub: Subcommands, name: str, epilog: str | None = None) -> argparse.ArgumentParser:
    """A subcommand's parser, described by :data:`COMMANDS` (``epilog``: what its --help ends with)."""
    summary = _SUMMARIES[name]
    description = summary[:1].upper() + summary[1:] + "." + (f" {_MORE[name]}" if name in _MORE else "")
    return sub.add_parser(name, description=description, epilog=epilog)


def seat_number(text: str) -> int:
    """A seat as players read it, ``1`` or ``2`` (Player 1, Player 2: the names the game shows); the index
    of the seat, 0 or 1. ``0`` is refused with the number it now is (``play --seat`` counted from 0)."""
    if text.strip() == "0":
        raise argparse.ArgumentTypeError("seats are numbered 1 and 2, as the game names them (Player 1, "
                                         "Player 2): the first seat is --seat 1")
    if text.strip() not in ("1", "2"):
        raise argparse.ArgumentTypeError(f"expected 1 or 2 (Player 1 or Player 2), got {quoted(text)}")
    return int(text) - 1


def bot_name(text: str) -> str:
    """A bot's name as the command line takes it: a level, an algorithm, or ``ismcts:N``."""
    from converge.bots import is_bot_name

    if not is_bot_name(text):
        raise argparse.ArgumentTypeError(f"unknown bot {quoted(text)} (known: {', '.join(BOT_NAMES)}, or "
                                         "ismcts:N for N simulations per decision, e.g. ismcts:2000)")
    return text.strip().lower()


def bot_choice(p: argparse.ArgumentParser, option: str, default: str, what: str) -> None:
    """A ``--bot1``-style option: any bot name, listed in :data:`BOT_NAMES` order, or ``ismcts:N``."""
    p.add_argument(option, type=bot_name, default=default, metavar="BOT",
                   help=f"{what}: {', '.join(BOT_NAMES)}, or ismcts:N (N simulations per decision, no time "
                        f"limit) (default: {default})")


def non_negative_seconds(text: str) -> float:
    try:
        value = float(text) if len(text) <= 40 else -1.0
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"expected seconds from 0 to 60, got {quoted(text)}")
    return value


def printable(text: str, limit: int = MAX_ERROR) -> str:
    """``text`` on one line of at most ``limit`` characters: control characters (a newline in a file
    name...) written as escapes, the end cut off with "…" when it is too long."""
    head = text[:limit + 1]
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    if len(shown) > limit or len(text) > len(head):
        shown = shown[:limit - 1] + "…"
    return shown
