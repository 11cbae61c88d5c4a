"""The server's settings."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: The SQLite ``synchronous`` settings a server is offered: FULL (each commit survives a power cut) and NORMAL
#: (each survives the process dying, not the machine).
SQLITE_SYNC = ("FULL", "NORMAL")


def default_db_path() -> Path:
    """Where matches are stored by default: the user's data directory."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "converge" / "server.sqlite3"


@dataclass
class ServerConfig:
    """Everything :func:`converge.server.app.create_app` can be told."""

    #: An SQLAlchemy URL (``sqlite:///path``, ``postgresql://user:pw@host/db``) or a file path (SQLite).
    db_url: str = ""
    #: SQLite's ``synchronous`` setting: FULL makes each commit survive a power cut, not only a crash.
    sqlite_sync: str = "FULL"
    #: Seconds a bot waits before each of its decisions. No pause by default: the page shows the opponent's moves
    #: at the pace each person chose ("At once" to "Slow"), and a pause here would only delay them for all.
    bot_delay: float = 0.0
    #: Worker processes for bot decisions (0: a thread of the server's process; see server.botpool).
    bot_workers: int = 0
    #: Bot decisions that may wait per worker before the server refuses new bot matches ("busy").
    bot_queue: int = 4
    #: Seconds after the last connection of a player in a friend match closes before a bot takes their
    #: seat (they take it back by reconnecting); 0 turns this off.
    replace_after: float = 120.0
    #: The bot that stands in for a player who left (None: the default level).
    replacement_bot: str | None = None
    #: Per-connection rate limit: messages per second and burst.
    rate: float = 20.0
    burst: float = 40.0
    #: Rate-limited messages a connection may send before it is closed. The first of a run of them gets
    #: one error reply; the others are dropped without a word.
    max_strikes: int = 200
    #: Largest WebSocket message (bytes) and HTTP request body accepted.
    max_message: int = 4096
    max_body: int = 16384
    #: Largest request head (request line and headers, bytes) and largest line of it; a head over either is
    #: refused (431, 414 for a request line) before the application sees it
    #: (:mod:`converge.server.transport.serving`).
    max_header_bytes: int = 16384
    max_header_line: int = 8192
    #: Seconds a client has to send a request's head, from its connection or from the first byte of each request
    #: (408, then closed: a client that dribbles its headers holds no connection longer); a connection that
    #: sends nothing in that time is closed.
    header_timeout: float = 10.0
    #: Open connections (HTTP and WebSocket) from one client address (an IPv6 address counts by its /64
    #: network), counted by the server itself before anything is read; a trusted proxy's are not counted
    #: (``proxy_headers``: the limits that follow count its clients); 0: no limit.
    max_connections_per_client: int = 128
    #: Origins (``https://play.example.org``) whose pages may use the server besides its own, which is the
    #: scheme, host and port the request says (Host; behind a trusted proxy, X-Forwarded-Host and -Proto).
    #: Browsers' WebSockets and writes from any other origin are refused (:class:`~converge.server.security.
    #: OriginPolicy`).
    allowed_origins: tuple[str, ...] = ()
    #: Take the client's address, scheme and host from X-Forwarded-For, -Proto and -Host, when the peer is
    #: one of ``forwarded_allow_ips`` (addresses or networks; ``*``: any): a reverse proxy in front.
    proxy_headers: bool = False
    forwarded_allow_ips: tuple[str, ...] = ("127.0.0.1", "::1")
    #: Seconds a new WebSocket connection has to say hello.
    hello_timeout: float = 10.0
    #: Open connections of one seat (a player's tabs and devices). Seats never compete with spectators
    #: for room: a new connection of a seat that has this many closes the seat's oldest one, so a player
    #: can always connect, whatever anyone else does.
    max_connections_per_seat: int = 4
    #: Open spectator connections to one match, and from one client address to the whole server
    #: (an IPv6 address counts by its /64 network).
    max_spectators_per_match: int = 64
    max_spectators_per_address: int = 16
    #: Open lobby connections (``/ws/lobby``, from the moment they open, before their hello), from one client
    #: address and in all: a home page holds one (a household or a school shares an address).
    max_lobby_connections_per_address: int = 32
    max_lobby_connections: int = 2000
    #: Outgoing messages queued for one slow connection before it is dropped (it reconnects).
    send_queue: int = 512
    #: Matches created per client address: per second and burst.
    create_rate: float = 2.0
    create_burst: float = 60.0
    #: Matches (rematches included) one client address may create per hour, which bounds the storage an
    #: address can take; 0: no limit.
    matches_per_hour: int = 120
    #: Retention. Days the record of a finished match is kept (for replays); 0: forever.
    keep_finished_days: float = 0.0
    #: Hours after which a match nobody ever played a move in is deleted; 0: never.
    delete_unstarted_after_hours: float = 24.0
    #: Days after which a match still in progress, with no move since, is deleted as abandoned; 0: never.
    delete_abandoned_after_days: float = 30.0
    #: Seconds between two runs of the retention clean-up (the first runs once the server has started).
    retention_every_s: float = 3600.0
    #: Seconds an idle match (no connection, nothing running) stays in memory.
    idle_evict: float = 600.0
    #: With several server processes on one PostgreSQL: seconds between the rounds in which a process takes
    #: over the matches whose owner died and learns who is connected elsewhere.
    coordination_interval: float = 1.0
    #: The shortest and longest per-player clock a match may be created with (seconds).
    clock_min_s: int = 30
    clock_max_s: int = 3 * 3600
    #: Turn-based matches: the shortest and longest time per move they may be created with (hours), and
    #: seconds between two looks for a player who ran out of it (0: never look).
    move_min_h: int = 1
    move_max_h: int = 14 * 24
    #: Each player's vacation in a turn-based match (days): time a decision may take beyond its move's, for
    #: the whole match, before running out loses.
    vacation_days: float = 7.0
    turn_check_every_s: float = 60.0
    #: A background job (the turn-based time check, the "your turn" mails, the retention clean-up, the
    #: coordination, the lobby's refresh) whose run fails is tried again after ``job_retry_first_s`` seconds,
    #: then after twice as long each time, at most ``job_retry_longest_s`` (and never later than its own next
    #: run): a database back after an outage is used again within that long (:mod:`converge.server.ops.jobs`).
    job_retry_first_s: float = 1.0
    job_retry_longest_s: float = 30.0
    #: Extra deck folders (as ``converge --deck-dir``).
    deck_dirs: tuple[str, ...] = ()
    #: Move the objects alive at start-up (the libraries') out of the garbage collector's full collections.
    gc_freeze: bool = True
    #: Hints (the strong bot's options for a player's decision): how many simulations the search runs (0: the
    #: budget the shipped calibration map was fitted on, whose chances were measured; another is said to be the
    #: bot's estimates), and its seed. The same view always gives the same hint.
    hint_simulations: int = 0
    hint_seed: int = 0
    #: Reviews of finished matches (:mod:`converge.bots.review`): the search at each decision (0: the hint's),
    #: and the most seconds one review may take (the decisions judged by then are kept, the review says it is
    #: partial).
    review_simulations: int = 0
    review_seconds: float = 60.0
    #: Serve the interactive API docs (/docs) — off: the page would need a looser CSP.
    docs: bool = False
    #: The lobby and quick match (:mod:`converge.server.lobby.service`). Seconds a quick-match player waits before
    #: a bot is offered; the rating window a player accepts at first, how fast it widens (points a second)
    #: and its widest.
    quick_match_bot_after_s: float = 30.0
    quick_match_range: float = 100.0
    quick_match_widen_per_s: float = 25.0
    quick_match_max_range: float = 1000.0
    #: Quick-match joins per player (per second, burst); lobby tables created per client address (per
    #: second, burst) and open at once per player.
    queue_rate: float = 0.5
    queue_burst: float = 10.0
    table_rate: float = 0.2
    table_burst: float = 10.0
    open_tables_per_player: int = 3
    #: Players (identities) created per client address per hour; 0: no limit.
    players_per_hour: int = 60
    #: Name changes per player: at most this many in any hour, and at least this many seconds apart (each
    #: 0: no such limit). A match shows the names its players had when it started, whatever they do after.
    renames_per_hour: int = 4
    rename_interval_s: float = 60.0
    #: Seconds between two reads of the lobby's tables from the database (for changes another server
    #: process made), and seconds a host's open tables stay listed after their last lobby page closed.
    lobby_poll_s: float = 2.0
    table_grace_s: float = 30.0
    #: Tournaments (:mod:`converge.server.tournaments`): seconds between two looks of the director at the
    #: events (start the due ones, pair the next round once one is over), and the most players of one event.
    tournament_tick_s: float = 2.0
    tournament_max_players: int = 256
    #: Seconds after an event's live match is made by which a player who has neither come to it nor moved
    #: forfeits it (the event's page states it); 0: never (the match waits for them).
    no_show_s: float = 60.0
    #: Chat (:mod:`converge.server.people.chat`): lines a player may send in a minute (and as a burst), and one
    #: client address; words a line may not carry (shown masked); seconds between two reads of the lines other
    #: processes stored.
    chat_per_minute: float = 12.0
    chat_burst: float = 5.0
    chat_per_address_minute: float = 60.0
    chat_blocked_words: tuple[str, ...] = ()
    chat_poll_s: float = 1.0
    #: Seconds between two looks for puzzles in newly finished matches (:mod:`converge.server.puzzles`; 0: never).
    puzzle_scan_s: float = 60.0
    #: The shortest arena, in minutes (a test's may be shorter).
    arena_min_minutes: int = 5
    #: Accounts (:mod:`converge.server.accounts`). The SMTP server that mail goes through
    #: (``smtp://user:password@host:587``, ``smtps://...``; None: mails are written to the log), the sender,
    #: and this server's address as players reach it (``https://play.example.org``: the start of the links in
    #: mails; None: the address each request came to, fine for a local server). A sign-in link's minutes, and
    #: how many may be asked for in an hour per client address and per mail address.
    smtp_url: str | None = None
    mail_from: str = "Converge <converge@localhost>"
    public_url: str | None = None
    #: Without an SMTP server: the folder each mail is written to as a file (None: ``mail/`` beside the SQLite
    #: database, or in the user's data directory), for the operator of a local server to open.
    mail_dir: str | None = None
    sign_in_minutes: float = 15.0
    sign_ins_per_client_hour: int = 20
    sign_ins_per_address_hour: int = 5
    #: "Your turn" mails of turn-based matches: seconds after the turn passes before the mail goes (a player
    #: at the table moves before), and seconds between two looks at the queue (0: this process sends none).
    turn_mail_delay_s: float = 120.0
    turn_mail_every_s: float = 5.0
    #: A secret: with it, ``GET /metrics`` on the server's own port answers Prometheus scrapes that carry
    #: ``Authorization: Bearer <metrics_token>`` (401 without it); None: that path is not served (404).
    metrics_token: str | None = None
    #: ``host:port`` (``127.0.0.1:9100``, ``[::1]:9100``) of a listener of its own that serves the same
    #: metrics without a token, for a scraper on a private network; None: no such listener.
    metrics_bind: str | None = None
    #: On SIGTERM, the most seconds the process takes to stop: it stops taking connections, lets the moves in
    #: flight commit and be acknowledged, tells every client to reconnect (elsewhere), then exits
    #: (:mod:`converge.server.transport.draining`).
    drain_seconds: float = 10.0
    #: A secret: with it, the hosts' API (``/api/admin/...``, what ``converge admin`` calls) answers requests
    #: that carry ``Authorization: Bearer <admin_token>``; None: the hosts' API is not served (404).
    admin_token: str | None = None

    def resolved_db_url(self) -> str:
        return self.db_url or f"sqlite:///{default_db_path()}"

    def resolved_mail_dir(self) -> Path:
        """Where mails go without an SMTP server."""
        if self.mail_dir:
            return Path(self.mail_dir).expanduser()
        url = self.resolved_db_url()
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            return Path(url[len("sqlite:///"):]).expanduser().parent / "mail"
        if "://" not in url:  # a file path
            return Path(url).expanduser().parent / "mail"
        return default_db_path().parent / "mail"


def default_bot_workers() -> int:
    """The server's bot processes by default: one per core but one (the server's own process needs a core),
    and at least one. (Here, with no dependency, so that ``converge --help`` needs no web extra.)"""
    return max(1, (os.cpu_count() or 2) - 1)


def parse_bind(value: str) -> tuple[str, int]:
    """The host and port of a ``host:port`` setting (``metrics_bind``): ``127.0.0.1:9100``, ``[::1]:9100``,
    ``0.0.0.0:9100``; a ValueError says what is wrong.

    >>> parse_bind("[::1]:9100")
    ('::1', 9100)
    """
    text = value.strip()
    example = "expected host:port, e.g. 127.0.0.1:9100 or [::1]:9100"
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port:
        raise ValueError(f"{example}; got {value!r}")
    if host.startswith("["):
        if not host.endswith("]") or len(host) < 3:
            raise ValueError(f"{example}; got {value!r}")
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"write an IPv6 address in brackets, e.g. [::1]:9100; got {value!r}")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"the port must be a whole number from 1 to 65535; got {value!r}")
    return host, int(port)
