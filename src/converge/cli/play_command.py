"""``converge play``: a match in the terminal, against a bot or hot-seat — the full-screen game on a terminal
(:mod:`.tui`), line by line otherwise (:mod:`.terminal`), ``--json`` for programs — and ``--resume``, which
takes up a match saved before (:mod:`.saves`).

The match is saved after every move, in the user's data directory unless ``--save`` says where: however the
program ends (a quit, a closed terminal, a crash), the match can be taken up again where it was left.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from converge.bots import bot_display_name, make_bot
from converge.cli.common import (
    BOT_NAMES,
    Subcommands,
    UserError,
    add_command,
    bot_seed,
    deck_dir_option,
    path_text,
    playset_and_seed,
    playset_options,
    seat_number,
    seed_int,
)

if TYPE_CHECKING:
    from converge.cli.play_session import Session
    from converge.cli.saves import SavedMatch

HOTSEAT_HELP = (
    "Hot-seat (--hotseat): before each player's turn a screen asks to pass the device and shows nothing of "
    "either hand. The full-screen game draws on the terminal's alternate screen, which leaves nothing in the "
    "scrollback; in the line mode (--plain, or through a pipe) the screen and the terminal's scrollback are "
    "erased before and after that screen. Either way nothing of the other player's hand is left on screen or in "
    "the scrollback. (Erasing the scrollback needs a terminal that supports it, as xterm, GNOME Terminal and "
    "other VTE terminals, iTerm2, kitty and Windows Terminal do; a terminal multiplexer may keep a history of "
    "its own.) It does not protect against someone watching the screen while the other player plays.")

#: The options that describe a new match: --resume takes up a saved one instead.
NEW_MATCH_OPTIONS = (("seed", "--seed"), ("playset", "--playset"), ("set", "--set"), ("opponent", "--opponent"),
                     ("hotseat", "--hotseat"), ("seat", "--seat"), ("save", "--save"), ("no_save", "--no-save"),
                     ("json", "--json"))


def full_screen_possible() -> bool:
    """Whether ``converge play`` can be the full-screen game: input and output (Textual draws on stderr)
    are a terminal that can draw one (not a pipe, a file or ``TERM=dumb``)."""
    try:
        ttys = sys.stdin.isatty() and sys.stdout.isatty() and sys.stderr.isatty()
        return ttys and os.environ.get("TERM", "") not in ("", "dumb")
    except (AttributeError, ValueError):
        return False


def cmd_play(args: argparse.Namespace) -> int:
    if args.resume is not None:
        return _resume(args)
    from converge.cli.play_session import Session
    from converge.cli.render import SEATS
    from converge.cli.saves import Seat, default_save_dir, unfinished
    from converge.cli.terminal import default_record_path, play_json
    from converge.engine.playset import Playset
    from converge.engine.state import Match

    names, seed = playset_and_seed(args)
    match = Match.new(Playset.from_names(names, args.deck_dir), seed=seed)
    human = args.seat if args.seat is not None else 0
    opponent = args.opponent or "easy"
    if args.json:
        return play_json(match, human, make_bot(opponent, bot_seed(args, seed, 1 - human)), sys.stdin, sys.stdout)
    seats: tuple[Seat, Seat]
    if args.hotseat:
        seats = (Seat(SEATS[0]), Seat(SEATS[1]))
    else:
        bot = Seat(bot_display_name(opponent), opponent, bot_seed(args, seed, 1 - human))  # "Hard bot"
        seats = (Seat("you"), bot) if human == 0 else (bot, Seat("you"))
    save = None if args.no_save else Path(args.save) if args.save else default_record_path()
    if save is not None:
        try:
            save.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot save records in {save.parent}: {exc.strerror or exc}") from None
        if save.parent.exists() and not os.access(save.parent, os.W_OK):
            raise UserError(f"cannot write records in {save.parent}")
    deck_dirs = tuple(str(Path(d).resolve()) for d in args.deck_dir)  # (a resumed match finds them from anywhere)
    session = Session(match, seats, save, args.hotseat, deck_dirs)
    # unfinished matches are offered first (not with --no-save: a match not to be kept is asked for)
    saved, problems = unfinished(default_save_dir()) if save is not None else ([], [])
    if not args.plain and full_screen_possible():
        return _full_screen(session, saved, problems)
    if saved:
        n = len(saved)
        print(f"You have {n} unfinished match{'es' if n != 1 else ''}: converge play --resume takes "
              f"{'one' if n != 1 else 'it'} up where it was left.")
    return _line_mode(session)


def _resume(args: argparse.Namespace) -> int:
    """``converge play --resume [FILE]``: take up a saved match (the one in FILE, or one of the unfinished
    matches in the data directory), where it was left."""
    from converge.cli.play_session import Session
    from converge.cli.saves import SaveProblem, default_save_dir, load, unfinished
    from converge.cli.terminal import choose_saved, console_for, line_reader

    given = [flag for name, flag in NEW_MATCH_OPTIONS if getattr(args, name, None) not in (None, False)]
    if given:
        raise UserError(f"--resume takes up a saved match as it was: {given[0]} is for a new match")
    saved: list[SavedMatch]
    problems: list[str]
    if isinstance(args.resume, str):  # --resume FILE (--resume alone is True)
        try:
            one = load(Path(args.resume))
        except SaveProblem as exc:
            raise UserError(str(exc), path=exc.path) from None
        if one.match.is_terminal:
            raise UserError(f"{args.resume} is a finished match: converge replay {args.resume} tells it")
        saved, problems = [one], []
    else:
        folder = default_save_dir()
        saved, problems = unfinished(folder)
        for problem in problems:
            sys.stderr.write(f"converge: skipped: {problem}\n")
        if not saved:
            raise UserError(f"no unfinished match to take up in {folder} (converge play starts one)")
    if not args.plain and full_screen_possible():
        if len(saved) == 1:
            return _full_screen(Session.resumed(saved[0]), [], [], resumed=True)
        return _full_screen(None, saved, problems)
    console = console_for()
    chosen = saved[0] if len(saved) == 1 else choose_saved(saved, console, line_reader(console))
    if chosen is None:
        return 0
    return _line_mode(Session.resumed(chosen), resumed=True)


def _line_mode(session: Session, resumed: bool = False) -> int:
    from converge.cli.terminal import TerminalGame, console_for, line_reader

    console = console_for()
    return TerminalGame(session, console, line_reader(console), resumed=resumed).play()


def _full_screen(session: Session | None, saved: list[SavedMatch], problems: list[str],
                 resumed: bool = False) -> int:
    """Play full screen; the exit status is 1 when the game stopped on an error (the match is saved
    all the same, after its last move: the last line says how to take it up again)."""
    from converge.cli.tui import GameApp

    app = GameApp(session, saved=saved, problems=problems, resumed=resumed)
    app.run()
    for line in app.farewell:
        print(line)
    code = app.return_code or 0
    if code != 0 and app.session.save_path is not None and not app.session.match.is_terminal:
        print(f"The game stopped on an error. The match is saved in {app.session.save_path}, up to its last "
              f"move: converge play --resume {app.session.save_path} takes it up again.", file=sys.stderr)
    return code


def register(sub: Subcommands) -> None:
    """Add ``converge play`` to the command's subparsers."""
    p = add_command(sub, "play", epilog=HOTSEAT_HELP)
    p.add_argument("--opponent", choices=BOT_NAMES, default=None, metavar="BOT",
                   help=f"the bot you play against: {', '.join(BOT_NAMES)} (default: easy)")
    p.add_argument("--seed", type=seed_int, default=None, help="seed of the match (default: a random one)")
    playset_options(p)
    deck_dir_option(p)
    p.add_argument("--hotseat", action="store_true",
                   help="two people at one screen, passing the device (what it protects against: see below)")
    p.add_argument("--plain", action="store_true",
                   help="line by line instead of full screen (what pipes and scripts get anyway): for screen "
                        "readers, or a terminal that cannot draw the full-screen game")
    p.add_argument("--json", action="store_true",
                   help="for programs: one JSON observation per line out, one action per line in")
    p.add_argument("--save", metavar="FILE", type=path_text,
                   help="where to save the match; it is saved after every move, so that a quit, a closed "
                        "terminal or a crash loses nothing (default: a new file in "
                        "~/.local/share/converge/matches, or $XDG_DATA_HOME/converge/matches)")
    p.add_argument("--no-save", action="store_true", help="do not save the match")
    p.add_argument("--seat", type=seat_number, default=None, metavar="{1,2}",
                   help="your seat against a bot: 1 (Player 1, default) or 2 (who holds the artifact first is "
                        "drawn either way)")
    p.add_argument("--resume", nargs="?", const=True, default=None, metavar="FILE", type=path_text,
                   help="take up an unfinished match where it was left: the one saved in FILE, or (without "
                        "FILE) one of those saved in the user's data directory")
    p.set_defaults(func=cmd_play)


__all__ = ["HOTSEAT_HELP", "cmd_play", "full_screen_possible", "register"]
