"""``converge serve`` (the web server and browser client) and ``converge serve-bench`` (its load benchmark).

Both need the ``web`` extra (``pip install 'converge-game[web]'``); without it they say so in one line.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from typing import Any

from converge import install_command
from converge.cli.common import BOT_NAMES, UserError, add_command, path_text, positive_int, quoted, user_catalog
from converge.server.config import SQLITE_SYNC, ServerConfig, default_bot_workers

#: Where ``converge serve`` reads the SMTP server's URL (with its password) when ``--smtp`` is not given.
SMTP_ENV = "CONVERGE_SMTP_URL"


def _need_web() -> None:
    try:
        import alembic  # noqa: F401  (the schema's migrations: converge.server.storage.migrate)
        import disarm  # noqa: F401  (players' names: converge.server.lobby.identity)
        import email_validator  # noqa: F401  (mail addresses: converge.server.accounts.addresses)
        import fastapi  # noqa: F401
        import sqlalchemy  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise UserError(f"the web server needs the 'web' extra ({exc.name} is missing): "
                          f"{install_command('web')}") from None


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


def cmd_serve(args: argparse.Namespace) -> int:
    _need_web()
    import uvicorn

    from converge.bots import BOTS
    from converge.server.app import create_app
    from converge.server.config import default_db_path
    from converge.server.storage.database import StorageError
    from converge.server.transport.serving import uvicorn_options

    if args.replacement_bot is not None and args.replacement_bot not in BOTS:
        raise UserError(f"unknown bot {quoted(args.replacement_bot)} (known: {', '.join(BOT_NAMES)})")
    user_catalog(args.deck_dir)  # every deck file checked (and read whole) before the server starts
    db = args.db or f"sqlite:///{default_db_path()}"
    config = ServerConfig(db_url=db, bot_delay=args.bot_delay, replace_after=args.replace_after,
                          bot_workers=args.bot_workers, bot_queue=args.bot_queue,
                          replacement_bot=args.replacement_bot, sqlite_sync=args.sqlite_sync,
                          rate=args.rate, burst=2 * args.rate,
                          deck_dirs=tuple(args.deck_dir),
                          max_connections_per_seat=args.seat_connections,
                          max_spectators_per_match=args.spectators,
                          max_spectators_per_address=args.spectators_per_address,
                          matches_per_hour=args.matches_per_hour,
                          keep_finished_days=args.keep_finished,
                          delete_unstarted_after_hours=args.delete_unstarted_after,
                          delete_abandoned_after_days=args.delete_abandoned_after,
                          quick_match_bot_after_s=args.bot_offer_after, players_per_hour=args.players_per_hour,
                          renames_per_hour=args.renames_per_hour, rename_interval_s=args.rename_interval,
                          max_lobby_connections=args.lobby_connections,
                          max_lobby_connections_per_address=args.lobby_connections_per_address,
                          max_header_bytes=args.max_header_bytes, max_header_line=args.max_header_line,
                          allowed_origins=tuple(args.allowed_origin), proxy_headers=args.proxy_headers,
                          forwarded_allow_ips=args.forwarded_allow_ips,
                          hint_simulations=args.hint_simulations, review_simulations=args.review_simulations,
                          review_seconds=args.review_seconds,
                          smtp_url=args.smtp or os.environ.get(SMTP_ENV) or None, mail_from=args.mail_from,
                          public_url=args.public_url, vacation_days=args.vacation_days)
    try:
        options = uvicorn_options(config)
        from converge.server.accounts.mailer import mailer_for

        mailer_for(config.smtp_url, config.mail_from, config.public_url)  # (checked before anything starts)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        app = create_app(config=config)
    except StorageError as exc:
        raise UserError(str(exc)) from None
    where = app.state.hub.storage.url
    print(f"Converge server: http://{args.host}:{args.port}/  (matches stored in {where})", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level,
                ws_per_message_deflate=args.ws_deflate, **options)
    return 0


def cmd_serve_bench(args: argparse.Namespace) -> int:
    _need_web()
    from converge.bots import BOTS
    from converge.server.bench import format_bench, run_bench

    if args.bot not in BOTS:
        raise UserError(f"unknown bot {quoted(args.bot)} (known: {', '.join(BOT_NAMES)})")
    if args.kill_after is not None and args.servers < 2:
        raise UserError("--kill-after needs --servers 2 or more (someone must take over the killed one's matches)")
    try:
        result = run_bench(matches=args.matches, think_ms=args.think_ms, seed=args.seed, db=args.db,
                           server_cores=(args.server_cpus if args.server_cpus is not None
                                         else "0" if args.servers == 1 else ""),
                           timeout=args.timeout, servers=args.servers,
                           kill_after=args.kill_after, opponent=args.opponent, bot=args.bot, clock_s=args.clock,
                           bot_workers=args.bot_workers, sqlite_sync=args.sqlite_sync)
    except (ValueError, RuntimeError) as exc:
        raise UserError(str(exc)) from None
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(format_bench(result))
    return 0 if result["lost"] == 0 and result["duplicated"] == 0 and result["errors"] == 0 else 1


def register(sub: Any) -> None:
    """Add ``serve`` and ``serve-bench`` to the ``converge`` command's subparsers."""

    p = add_command(sub, "serve")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=8000, help="port (default 8000)")
    p.add_argument("--db", metavar="URL", type=path_text,
                   help="database: an SQLite file path or sqlite:///PATH, or postgresql://user:pw@host/db "
                        "(default: server.sqlite3 in the user's data directory)")
    p.add_argument("--bot-delay", type=non_negative_float, default=0.6, metavar="SECONDS",
                   help="pause before each bot decision, so people can follow (default 0.6)")
    p.add_argument("--replace-after", type=non_negative_float, default=120.0, metavar="SECONDS",
                   help="a bot takes the seat of a player who left a friend match after this long; 0: never "
                        "(default 120)")
    p.add_argument("--bot-workers", type=non_negative_int, default=default_bot_workers(), metavar="N",
                   help="processes in which the server's bots think, so that no one's move waits for a bot; 0: "
                        f"a thread of the server (default {default_bot_workers()}: one per core but one)")
    p.add_argument("--bot-queue", type=positive_int, default=ServerConfig().bot_queue, metavar="N",
                   help="bot decisions that may wait per worker before new bot matches are refused as busy "
                        f"(default {ServerConfig().bot_queue})")
    p.add_argument("--replacement-bot", metavar="NAME", default=None,
                   help="the bot that stands in for a player who left (default: the middle level)")
    p.add_argument("--rate", type=positive_float, default=20.0, metavar="N",
                   help="messages a second a WebSocket connection may send (bursts of twice that; default 20)")
    p.add_argument("--sqlite-sync", choices=SQLITE_SYNC, default="FULL",
                   help="SQLite durability: FULL survives power loss, NORMAL only crashes (default FULL)")
    p.add_argument("--deck-dir", action="append", default=[], metavar="DIR", type=path_text,
                   help="also load the *.toml decks of DIR; may be repeated")
    p.add_argument("--log-level", choices=("critical", "error", "warning", "info", "debug"), default="info")
    p.add_argument("--ws-deflate", action="store_true",
                   help="compress WebSocket messages (permessage-deflate): less bandwidth, more CPU and memory "
                        "per connection (default off)")
    d = ServerConfig()
    net = p.add_argument_group("behind a reverse proxy, and other origins")
    net.add_argument("--proxy-headers", action="store_true",
                     help="take the client's address, scheme and host from a reverse proxy's X-Forwarded-For, "
                          "-Proto and -Host (per-client limits, the origin check)")
    net.add_argument("--forwarded-allow-ips", type=_trusted, default=d.forwarded_allow_ips, metavar="LIST",
                     help="with --proxy-headers: the proxies trusted, comma-separated addresses or networks, * "
                          f"for any (default {','.join(d.forwarded_allow_ips)})")
    net.add_argument("--allowed-origin", action="append", default=[], type=_origin, metavar="URL",
                     help="also let pages of this origin (scheme://host[:port]) open WebSockets and make changes; "
                          "the server's own origin always may, others are refused; may be repeated")
    lim = p.add_argument_group("connections and limits (an IPv6 address counts by its /64 network)")
    lim.add_argument("--seat-connections", type=positive_int, default=d.max_connections_per_seat, metavar="N",
                     help="open connections per seat (a player's tabs); one more closes that seat's oldest, so "
                          "a player can always connect, whatever spectators do "
                          f"(default {d.max_connections_per_seat})")
    lim.add_argument("--spectators", type=positive_int, default=d.max_spectators_per_match, metavar="N",
                     help=f"spectator connections per match (default {d.max_spectators_per_match})")
    lim.add_argument("--spectators-per-address", type=positive_int, default=d.max_spectators_per_address,
                     metavar="N", help="spectator connections from one client address, over all matches "
                                       f"(default {d.max_spectators_per_address})")
    lim.add_argument("--matches-per-hour", type=non_negative_int, default=d.matches_per_hour, metavar="N",
                     help="matches one client address may store per hour, through any door (created, rematches, "
                          "lobby tables, quick matches, bot offers; each player of a pairing pays); 0: no limit "
                          f"(default {d.matches_per_hour})")
    lim.add_argument("--lobby-connections", type=positive_int, default=d.max_lobby_connections, metavar="N",
                     help=f"lobby connections (home pages) in all (default {d.max_lobby_connections})")
    lim.add_argument("--lobby-connections-per-address", type=positive_int,
                     default=d.max_lobby_connections_per_address, metavar="N",
                     help="lobby connections from one client address "
                          f"(default {d.max_lobby_connections_per_address})")
    lim.add_argument("--max-header-bytes", type=positive_int, default=d.max_header_bytes, metavar="BYTES",
                     help="a request's line and headers together, at most (431 beyond; default "
                          f"{d.max_header_bytes})")
    lim.add_argument("--max-header-line", type=positive_int, default=d.max_header_line, metavar="BYTES",
                     help="one line of a request's head, at most (414 for the request line, 431 for a header; "
                          f"default {d.max_header_line})")
    lob = p.add_argument_group("lobby and quick match")
    lob.add_argument("--bot-offer-after", type=non_negative_float, default=d.quick_match_bot_after_s,
                     metavar="SECONDS", help="a quick-match player waiting this long is offered a bot of their "
                                             f"level (default {d.quick_match_bot_after_s:g})")
    lob.add_argument("--players-per-hour", type=non_negative_int, default=d.players_per_hour, metavar="N",
                     help="new players (names or anonymous) one client address may make an hour; 0: no limit "
                          f"(default {d.players_per_hour})")
    lob.add_argument("--renames-per-hour", type=non_negative_int, default=d.renames_per_hour, metavar="N",
                     help="name changes one player may make in any hour; 0: no limit "
                          f"(default {d.renames_per_hour})")
    lob.add_argument("--rename-interval", type=non_negative_float, default=d.rename_interval_s, metavar="SECONDS",
                     help="the shortest time between two name changes of one player; 0: none "
                          f"(default {d.rename_interval_s:g})")
    adv = p.add_argument_group("hints and reviews (searched by the bot workers)")
    adv.add_argument("--hint-simulations", type=positive_int, default=d.hint_simulations, metavar="N",
                     help=f"the hint's search (default {d.hint_simulations:,} simulations, at most "
                          f"{d.hint_seconds:g} s)")
    adv.add_argument("--review-simulations", type=positive_int, default=d.review_simulations, metavar="N",
                     help=f"the search at each decision of a finished match's review (default "
                          f"{d.review_simulations:,})")
    adv.add_argument("--review-seconds", type=positive_float, default=d.review_seconds, metavar="SECONDS",
                     help=f"the most one review may take; the decisions judged by then are kept (default "
                          f"{d.review_seconds:g})")
    p.add_argument("--vacation-days", type=non_negative_float, default=d.vacation_days, metavar="DAYS",
                   help="each player's vacation in a turn-based match: time beyond a move's, for the whole match "
                        f"(default {d.vacation_days:g})")
    acc = p.add_argument_group("accounts: signing in on every device by an emailed link")
    acc.add_argument("--smtp", metavar="URL", default=None,
                     help="the SMTP server mail goes through: smtp://user:password@host:587 (STARTTLS when "
                          f"offered) or smtps://...:465; or the environment variable {SMTP_ENV}, which keeps "
                          "the password out of the process list. Without one, mails (sign-in links) are "
                          "written to the server's log, for a local server")
    acc.add_argument("--mail-from", default=d.mail_from, metavar="ADDRESS",
                     help=f"the mails' sender (default {d.mail_from!r})")
    acc.add_argument("--public-url", default=None, metavar="URL",
                     help="this server's address as players reach it (https://play.example.org): the start of "
                          "the links in mails; needed with --smtp")
    ret = p.add_argument_group("retention (a clean-up runs at start-up, then every hour)")
    ret.add_argument("--keep-finished", type=non_negative_float, default=d.keep_finished_days, metavar="DAYS",
                     help="days the record of a finished match is kept for replays; 0: forever (default 0)")
    ret.add_argument("--delete-unstarted-after", type=non_negative_float, default=d.delete_unstarted_after_hours,
                     metavar="HOURS", help="delete a match in which nobody ever played a move after this long; "
                                           f"0: never (default {d.delete_unstarted_after_hours:g})")
    ret.add_argument("--delete-abandoned-after", type=non_negative_float, default=d.delete_abandoned_after_days,
                     metavar="DAYS", help="delete a match in progress with no move for this long; 0: never "
                                          f"(default {d.delete_abandoned_after_days:g})")
    p.set_defaults(func=cmd_serve)

    b = add_command(sub, "serve-bench")
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
    b.add_argument("--servers", type=positive_int, default=1, metavar="N",
                   help="server processes on one PostgreSQL (a throwaway cluster unless --db names one); each "
                        "match's two seats connect to different processes (default 1)")
    b.add_argument("--kill-after", type=positive_float, default=None, metavar="SECONDS",
                   help="kill one server process (SIGKILL) this long into play; its clients reconnect to another")
    b.add_argument("--opponent", choices=("friend", "bot", "mixed"), default="friend",
                   help="friend: two clients per match; bot: one client against the server's bot; mixed: every "
                        "other match of each kind (default friend)")
    b.add_argument("--bot", default="random", metavar="NAME",
                   help="the server's bot with --opponent bot (default random)")
    b.add_argument("--bot-workers", type=non_negative_int, default=1, metavar="N",
                   help="bot worker processes per server (default 1)")
    b.add_argument("--sqlite-sync", choices=SQLITE_SYNC, default="FULL",
                   help="the SQLite server's durability, as `serve --sqlite-sync` sets it (default FULL)")
    b.add_argument("--clock", type=positive_int, default=None, metavar="SECONDS",
                   help="give each match a clock of this many seconds per player (default none)")
    b.add_argument("--json", action="store_true", help="print the result as JSON")
    b.set_defaults(func=cmd_serve_bench)


def _origin(text: str) -> str:
    from converge.server.security.origins import normalize_origin

    try:
        return normalize_origin(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc}, got {quoted(text)}") from None


def _trusted(text: str) -> tuple[str, ...]:
    from converge.server.transport.serving import trusted_proxies

    try:
        return trusted_proxies(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _think(text: str) -> tuple[int, int]:
    lo, sep, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi if sep else lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO-HI milliseconds, e.g. 100-400, got {text!r}") from None
    if a < 0 or b < a:
        raise argparse.ArgumentTypeError(f"expected 0 <= LO <= HI, got {text!r}")
    return a, b

