"""``converge serve`` (the web server and browser client) and ``converge serve-bench`` (its load benchmark).

Both need the ``web`` extra (``pip install 'converge-game[web]'``); without it they say so in one line.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
from collections.abc import Callable

from converge import install_command
from converge.cli.common import (
    BOT_NAMES,
    Subcommands,
    UserError,
    add_command,
    path_text,
    positive_int,
    quoted,
    user_catalog,
)
from converge.server.config import SQLITE_SYNC, ServerConfig
from converge.server.settings import Setting, Value

#: The modules the web extra brings, which the server and its commands (serve, serve-bench, config, db, admin)
#: import: the database and its migrations, the web framework and its server, players' names (disarm), mail
#: addresses, the metrics, the HTTP and WebSocket clients (converge admin, serve-bench).
WEB_MODULES = ("sqlalchemy", "alembic", "psycopg", "fastapi", "uvicorn", "orjson", "disarm", "email_validator",
               "prometheus_client", "httpx2", "websockets")


def _need_web() -> None:
    """Nothing, when the web extra is installed; else a UserError that says how to install it."""
    for module in WEB_MODULES:
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:
            found = False
        if not found:
            raise UserError(f"this command needs the 'web' extra ({module} is missing): {install_command('web')}")


def web_command(fn: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """The command ``fn``, which needs the web extra: without it, one line says how to install it, before
    anything of the server is imported."""

    @functools.wraps(fn)
    def run(args: argparse.Namespace) -> int:
        _need_web()
        return fn(args)

    return run


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {quoted(text)}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number from 0, got {quoted(text)}")
    return value


def positive_float(text: str) -> float:
    value = non_negative_float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {quoted(text)}")
    return value


def non_negative_int(text: str) -> int:
    if len(text) > 40 or not text.strip().isascii() or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number from 0, got {quoted(text)}")
    return int(text)


def port_number(text: str) -> int:
    if len(text) > 40 or not text.strip().isascii() or not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a port number, got {quoted(text)}")
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {quoted(text)}")
    return value


def serve_settings(args: argparse.Namespace) -> dict[str, Value]:
    """The effective settings of ``converge serve``: its flags, over the environment's secrets, over the file
    of ``--config``, over the defaults (:mod:`converge.server.settings`)."""
    from converge.server.settings import SETTINGS, SettingsError, load_file, resolve

    flags = {s.name: getattr(args, s.name) for s in SETTINGS if s.flag and hasattr(args, s.name)}
    for setting in SETTINGS:
        if setting.repeated and setting.name in flags:
            flags[setting.name] = tuple(flags[setting.name])
    try:
        tables = load_file(args.config) if args.config is not None else {}
        return resolve(tables, flags=flags, where=str(args.config))
    except SettingsError as exc:
        raise UserError(*exc.problems) from None


def checked_config(effective: dict[str, Value]) -> ServerConfig:
    """The server's :class:`ServerConfig`, with everything checked that can be before it starts (the deck
    files read whole, the proxy and mail settings); a UserError naming every mistake."""
    from converge.server.accounts.mailer import mailer_for
    from converge.server.settings import server_config
    from converge.server.transport.serving import uvicorn_options

    config = server_config(effective)
    problems: list[str] = []
    try:
        user_catalog(list(config.deck_dirs))
    except UserError as exc:
        problems += exc.lines
    mail_dir = config.resolved_mail_dir()
    for check in (lambda: uvicorn_options(config),
                  lambda: mailer_for(config.smtp_url, config.mail_from, config.public_url, mail_dir)):
        try:
            check()
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        raise UserError(*problems)
    return config


def cmd_serve(args: argparse.Namespace) -> int:
    from converge.server.app import create_app
    from converge.server.logs import configure_logging
    from converge.server.storage.database import StorageError
    from converge.server.transport import draining
    from converge.server.transport.serving import uvicorn_options

    effective = serve_settings(args)
    config = checked_config(effective)
    host, port = effective["server.host"].value, effective["server.port"].value
    log_level, log_format = effective["server.log_level"].value, effective["server.log_format"].value
    log_config = configure_logging(log_level, log_format)
    try:
        app = create_app(config=config)
    except StorageError as exc:
        raise UserError(str(exc)) from None
    where = app.state.hub.storage.url
    print(f"Converge server: http://{host}:{port}/  (matches stored in {where})", flush=True)
    draining.serve(app, host=host, port=port, log_level=log_level, log_config=log_config,
                   ws_per_message_deflate=effective["server.ws_deflate"].value, **uvicorn_options(config))
    return 0


#: serve-bench's flags that start or steer the servers it runs itself, which --target (a running site) leaves
#: alone: each is refused beside it.
OWN_SERVERS = ("servers", "db", "server_cpus", "kill_after", "restart_after", "drain_seconds", "bot_workers",
               "sqlite_sync")


def cmd_serve_bench(args: argparse.Namespace) -> int:
    from converge.bots import BOTS
    from converge.server.load_bench import format_bench, run_bench
    from converge.server.load_bench_target import run_target

    if args.bot not in BOTS:
        raise UserError(f"unknown bot {quoted(args.bot)} (known: {', '.join(BOT_NAMES)})")
    if args.target is not None:
        given = [f"--{name.replace('_', '-')}" for name in OWN_SERVERS if getattr(args, name) is not None]
        if given:
            flags = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
            raise UserError(f"--target plays against a site that is already running: {flags} "
                            f"{'is' if len(given) == 1 else 'are'} for the servers serve-bench starts itself")
    servers = args.servers or 1
    if args.kill_after is not None and servers < 2:
        raise UserError("--kill-after needs --servers 2 or more (someone must take over the killed one's matches)")
    if args.restart_after is not None and args.kill_after is not None:
        raise UserError("give --kill-after or --restart-after, not both")
    try:
        if args.target is not None:
            result = run_target(args.target, matches=args.matches, think_ms=args.think_ms, seed=args.seed,
                                timeout=args.timeout, opponent=args.opponent, bot=args.bot, clock_s=args.clock)
        else:
            result = run_bench(matches=args.matches, think_ms=args.think_ms, seed=args.seed, db=args.db,
                               server_cores=(args.server_cpus if args.server_cpus is not None
                                             else "0" if servers == 1 else ""),
                               timeout=args.timeout, servers=servers,
                               kill_after=args.kill_after, opponent=args.opponent, bot=args.bot,
                               clock_s=args.clock, bot_workers=1 if args.bot_workers is None else args.bot_workers,
                               sqlite_sync=args.sqlite_sync or "FULL", restart_after=args.restart_after,
                               drain_seconds=args.drain_seconds or 10.0)
    except (ValueError, RuntimeError) as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_bench(result))
    return 0 if result["lost"] == 0 and result["duplicated"] == 0 and result["errors"] == 0 else 1


def register(sub: Subcommands) -> None:
    """Add ``serve`` and ``serve-bench`` to the ``converge`` command's subparsers."""

    p = add_command(sub, "serve")
    p.add_argument("--config", metavar="FILE", type=path_text, default=None,
                   help="read the settings from this TOML file (`converge config example` writes one with every "
                        "setting); a flag given here wins over the file")
    add_setting_flags(p)
    p.set_defaults(func=web_command(cmd_serve))

    b = add_command(sub, "serve-bench")
    b.add_argument("--target", metavar="URL", default=None,
                   help="play against a site that is already running, through the address players use (its "
                        "proxy: http://127.0.0.1:8000, https://play.example.org) instead of starting servers "
                        "here: the same matches and checks, through the public API alone (finished matches' "
                        "records are public: no token is needed); the processes' CPU and bots are not measured. "
                        "The site's limits for one client address apply (60 new matches at once, 120 an hour, "
                        "128 connections by default)")
    b.add_argument("--matches", type=positive_int, default=200, help="concurrent matches (default 200)")
    b.add_argument("--think-ms", type=_think, default=(300, 900), metavar="LO-HI",
                   help="each client bot's pause before it acts, uniform in LO-HI ms (default 300-900: on average "
                        "the pause of the server's own bots, `serve --bot-delay 0.6`)")
    b.add_argument("--seed", type=int, default=1, help="seed of the client bots (default 1)")
    b.add_argument("--db", metavar="URL", default=None, type=path_text,
                   help="database URL (default: a fresh SQLite file)")
    b.add_argument("--server-cpus", default=None, metavar="LIST",
                   help="pin the server processes to these CPUs (taskset list; '' for none; default: CPU 0 for "
                        "one server, none for several, which share the machine with the database and clients)")
    b.add_argument("--timeout", type=positive_int, default=600, help="give up after this many seconds (600)")
    b.add_argument("--servers", type=positive_int, default=None, metavar="N",
                   help="server processes on one PostgreSQL (a throwaway cluster unless --db names one); each "
                        "match's two seats connect to different processes (default 1)")
    b.add_argument("--kill-after", type=positive_float, default=None, metavar="SECONDS",
                   help="kill one server process (SIGKILL) this long into play; its clients reconnect to another")
    b.add_argument("--restart-after", type=positive_float, default=None, metavar="SECONDS",
                   help="this long into play, restart every server process in turn as a rolling restart does: "
                        "SIGTERM (it drains), started again once it has exited, ready before the next")
    b.add_argument("--drain-seconds", type=positive_float, default=None, metavar="SECONDS",
                   help="each server's drain_seconds (default 10)")
    b.add_argument("--opponent", choices=("friend", "bot", "mixed"), default="friend",
                   help="friend: two clients per match; bot: one client against the server's bot; mixed: every "
                        "other match of each kind (default friend)")
    b.add_argument("--bot", default="random", metavar="NAME",
                   help="the server's bot with --opponent bot (default random)")
    b.add_argument("--bot-workers", type=non_negative_int, default=None, metavar="N",
                   help="bot worker processes per server (default 1)")
    b.add_argument("--sqlite-sync", choices=SQLITE_SYNC, default=None,
                   help="the SQLite server's durability, as `serve --sqlite-sync` sets it (default FULL)")
    b.add_argument("--clock", type=positive_int, default=None, metavar="SECONDS",
                   help="give each match a clock of this many seconds per player (default none)")
    b.add_argument("--json", action="store_true", help="print the result as JSON")
    b.set_defaults(func=web_command(cmd_serve_bench))


#: The help groups of ``converge serve --help``, by the settings file's section.
GROUPS = {
    "network": "behind a reverse proxy, and other origins",
    "limits": "connections and limits (an IPv6 address counts by its /64 network)",
    "lobby": "lobby and quick match",
    "hints": "hints and reviews (searched by the bot workers)",
    "turns": "turn-based matches",
    "accounts": "accounts: signing in on every device by an emailed link",
    "retention": "retention (a clean-up runs at start-up, then every hour)",
    "metrics": "metrics for Prometheus",
}


def add_setting_flags(parser: argparse.ArgumentParser) -> None:
    """A flag for each setting that has one, in its section's group. A flag not given is left out of the
    parsed arguments (argparse.SUPPRESS), so that the file's value, or the default, stands."""
    from converge.server.settings import SETTINGS

    groups: dict[str, argparse._ArgumentGroup] = {}
    for setting in SETTINGS:
        if setting.flag is None:
            continue
        section = setting.key.split(".")[0]
        title = GROUPS.get("hints" if section == "reviews" else section)
        if title is None:
            target: argparse._ActionsContainer = parser
        else:
            target = groups.get(title) or groups.setdefault(title, parser.add_argument_group(title))
        if setting.is_switch:
            target.add_argument(setting.flag, action="store_true", default=argparse.SUPPRESS, help=setting.help)
            continue
        target.add_argument(setting.flag, type=_flag_reader(setting), default=argparse.SUPPRESS,
                            action="append" if setting.repeated else "store", metavar=setting.metavar,
                            choices=setting.choices or None, help=setting.help)


def _flag_reader(setting: Setting) -> Callable[[str], object]:
    def read(text: str) -> object:
        try:
            return setting.read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    read.__name__ = setting.name  # (argparse names the type in some of its messages)
    return read


def _think(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi if sep else lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO-HI milliseconds, e.g. 100-400, got {text!r}") from None
    if a < 0 or b < a:
        raise argparse.ArgumentTypeError(f"expected 0 <= LO <= HI, got {text!r}")
    return a, b

