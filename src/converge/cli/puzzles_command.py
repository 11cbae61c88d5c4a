"""``converge puzzles``: play the puzzles in the terminal (:mod:`.puzzle_play`); ``converge puzzles make``: find
puzzles in finished matches' records, or in a bot-vs-bot series (:mod:`converge.puzzles.make`).

``make`` reads records as the terminal saves them (``converge play --save``, ``watch --save``), a JSON list of
records, or JSON lines (one record a line: a server's export); a match not finished is skipped and said so
(a puzzle never comes from a match in progress). It writes a puzzle set (:mod:`converge.puzzles.model`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from converge.cli.common import (
    Subcommands,
    UserError,
    add_command,
    path_text,
    positive_int,
    read_text_file,
    seed_int,
    shown_path,
)


def _records(path: str) -> list[object]:
    """The records of a file: one record, a list of them, or JSON lines."""
    text = read_text_file(path, "match record")
    name = shown_path(path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        out = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise UserError(f"{name}, line {n}: not a JSON record ({exc.msg})", path=name) from None
        return out
    except (RecursionError, ValueError):
        raise UserError(f"{name} is not a match record", path=name) from None
    return list(doc) if isinstance(doc, list) else [doc]


def cmd_make(args: argparse.Namespace) -> int:
    from converge.engine.errors import ConvergeError
    from converge.engine.state import Match
    from converge.puzzles.make import from_series, puzzles_of, unique
    from converge.puzzles.model import write_set

    began = time.monotonic()
    found = []
    if args.records:
        for path in args.records:
            for i, doc in enumerate(_records(path)):
                where = f"{shown_path(path)}, record {i + 1}"
                try:
                    if not Match.replay(doc).is_terminal:
                        print(f"{where}: skipped, the match is not finished", file=sys.stderr)
                        continue
                    found += puzzles_of(doc, "records", rate=not args.no_rating)  # type: ignore[arg-type]
                except ConvergeError as exc:
                    raise UserError(f"{where}: {exc}") from None
    if args.bots:
        def progress(done: int, count: int) -> None:
            print(f"  {done:,} of {args.bots:,} matches, {count:,} puzzles ({time.monotonic() - began:.0f} s)",
                  file=sys.stderr)

        found += from_series(args.bots, args.seed, args.workers, rate=not args.no_rating, progress=progress)
    if not args.records and not args.bots:
        raise UserError("give match records (FILE ...) or --bots N for a bot-vs-bot series")
    puzzles = unique(found)
    out = Path(args.out)
    try:
        write_set(out, puzzles)
    except OSError as exc:
        raise UserError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    print(f"{len(puzzles):,} puzzles written to {args.out} in {time.monotonic() - began:.0f} s")
    return 0


def cmd_puzzles(args: argparse.Namespace) -> int:
    from converge.cli.puzzle_play import play_puzzles

    return play_puzzles(args)


def register(sub: Subcommands) -> None:
    """Add ``converge puzzles`` and ``converge puzzles make``."""
    p = add_command(sub, "puzzles")
    p.add_argument("--file", metavar="FILE", type=path_text, default=None,
                   help="play the puzzles of this set (default: the ones that come with converge)")
    p.add_argument("--theme", metavar="THEME", default=None, help="only puzzles of this theme (see --themes)")
    p.add_argument("--themes", action="store_true", help="list the themes and how many puzzles each has")
    p.add_argument("--id", dest="puzzle_id", metavar="ID", default=None, help="play this puzzle")
    p.set_defaults(func=cmd_puzzles)
    sub2 = p.add_subparsers(dest="puzzles_command", metavar="{make}")
    m = sub2.add_parser("make", help="find puzzles in match records or a bot-vs-bot series",
                        description="Find puzzles in finished matches' records (FILE ...: a record, a list of "
                                    "records, or one record a line) or in a bot-vs-bot series (--bots N), "
                                    "and write them as a puzzle set.")
    m.add_argument("records", nargs="*", metavar="FILE", type=path_text, help="match records (JSON)")
    m.add_argument("--bots", type=positive_int, default=0, metavar="N",
                   help="also play N bot-vs-bot matches (medium against medium) and take puzzles from them")
    m.add_argument("--seed", type=seed_int, default=0, help="seed of the bot-vs-bot series (default 0)")
    m.add_argument("--workers", type=positive_int, default=1, help="processes for the series (default 1)")
    m.add_argument("--no-rating", action="store_true",
                   help="skip the bots' attempts that set each puzzle's starting rating (faster)")
    m.add_argument("--out", "-o", metavar="FILE", type=path_text, default="puzzles.json",
                   help="the puzzle set to write (default puzzles.json)")
    m.set_defaults(func=cmd_make)
