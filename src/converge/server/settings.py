"""Every setting of ``converge serve``, defined once: its key in a settings file, its flag, the environment
variable a secret may come from, how its value is read and checked, and its help. The command's flags, the
settings file (``converge serve --config FILE.toml``) and ``converge config check`` are all made from
:data:`SETTINGS`.

Where a value comes from, the first that has one wins: the command line, then the environment (secrets
only: the database URL, the SMTP URL, the metrics token), then the file, then the default::

    >>> from converge.server.settings import resolve
    >>> effective = resolve({"server": {"port": 8080}, "limits": {"spectators": 10}}, flags={"port": 9000})
    >>> effective["server.port"].value, effective["server.port"].source
    (9000, 'command line')
    >>> effective["limits.spectators"].value, effective["limits.spectators"].source
    (10, 'file')
    >>> server_config(effective).max_spectators_per_match
    10

Each mistake in a file names its key: ``converge.toml: limits.spectators: expected a positive whole number,
got -1`` (:class:`SettingsError`, which holds every mistake, one line each). Nothing here needs the web extra,
so ``converge serve --help`` works without it.
"""

from __future__ import annotations

import difflib
import math
import os
import stat
import textwrap
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from converge.server.config import SQLITE_SYNC, ServerConfig, default_bot_workers

#: Reads a value as a file gives it (a TOML string, number, boolean or array) or as a flag or an environment
#: variable does (text), and returns it checked; a ValueError says what was expected.
Reader = Callable[[object], Any]

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")
LOG_FORMATS = ("text", "json")


class SettingsError(ValueError):
    """A settings file that cannot be read or holds wrong keys or values: one line per mistake, each naming the
    file and the key (:attr:`problems`)."""

    def __init__(self, *problems: str) -> None:
        super().__init__(*problems)

    @property
    def problems(self) -> list[str]:
        """Each mistake, in one line."""
        return [str(p) for p in self.args]

    def __str__(self) -> str:
        return "\n".join(self.problems)


def _shown(value: object, limit: int = 40) -> str:
    if not isinstance(value, str):
        shown = repr(value)
        return shown if len(shown) <= limit else shown[:limit] + "…"
    return repr(value) if len(value) <= limit else repr(value[:limit]) + f"… ({len(value)} characters)"


def number(low: float = 0.0, *, positive: bool = False) -> Reader:
    """A number from ``low`` (above 0 if ``positive``), finite."""
    wanted = "a positive number" if positive else f"a number from {low:g}"

    def read(value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError(f"expected {wanted}, got {_shown(value)}")
        try:
            result = float(value)
        except ValueError:
            raise ValueError(f"expected {wanted}, got {_shown(value)}") from None
        if not math.isfinite(result) or result < low or (positive and result <= 0):
            raise ValueError(f"expected {wanted}, got {_shown(value)}")
        return result

    return read


def whole(low: int = 0, high: int | None = None, *, what: str = "a whole number") -> Reader:
    """A whole number from ``low`` (to ``high``)."""
    wanted = (f"{what} from {low} to {high}" if high is not None
              else f"a positive {what[2:]}" if low == 1 else f"{what} from {low}")

    def read(value: object) -> int:
        if isinstance(value, str) and len(value) <= 40 and value.strip().isascii() and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None
                                                                                     and value > high):
            raise ValueError(f"expected {wanted}, got {_shown(value)}")
        return value

    return read


def text(*, choices: Sequence[str] = (), allow_empty: bool = False) -> Callable[[object], str]:
    """Text (one of ``choices`` when given)."""

    def read(value: object) -> str:
        if not isinstance(value, str) or (not value and not allow_empty) or "\x00" in value:
            raise ValueError(f"expected text, got {_shown(value)}")
        if choices and value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {_shown(value)}")
        return value

    return read


def switch(value: object) -> bool:
    """On or off: ``true``/``false`` in a file."""
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {_shown(value)}")
    return value


def _origin(value: object) -> str:
    from converge.server.security.origins import normalize_origin

    origin = text()(value)
    try:
        return normalize_origin(origin)
    except ValueError as exc:
        raise ValueError(f"{exc}, got {_shown(origin)}") from None


def _proxies(value: object) -> tuple[str, ...]:
    """Trusted proxies: ``"127.0.0.1,10.0.0.0/8"`` or, in a file, an array of them."""
    from converge.server.transport.serving import trusted_proxies

    if isinstance(value, list):
        value = ",".join(text()(item) for item in value)
    return trusted_proxies(text()(value))


def _bind(value: object) -> str:
    """``host:port`` to listen on (``[::1]:9100`` for IPv6)."""
    from converge.server.config import parse_bind

    where = text()(value)
    parse_bind(where)
    return where.strip()


def _secret_token(value: object) -> str:
    """A bearer token chosen by the host: long enough not to be guessed, and one that a header can carry."""
    token = text()(value).strip()
    if not 16 <= len(token) <= 256 or not token.isascii() or not token.isprintable() or " " in token:
        raise ValueError(f"expected 16 to 256 printable ASCII characters without spaces (e.g. the output of "
                         f"`openssl rand -hex 24`), got {len(token)} characters")
    return token


def _bot(value: object) -> str:
    from converge.bots import BOTS

    name = text()(value)
    if name not in BOTS:
        raise ValueError(f"unknown bot {_shown(name)} (known: {', '.join(BOTS)})")
    return name


@dataclass(frozen=True)
class Setting:
    """One setting: ``key`` in the file (``section.name``), its ``flag`` (None: file and environment only, as
    for a secret that must not show in the process list), the :class:`ServerConfig` field it sets (None: how the
    process itself serves — its address, its logs), and whether it is a ``secret`` (masked wherever shown)."""

    key: str
    read: Reader
    help: str
    flag: str | None = None
    config_field: str | None = None
    default: Any = None
    metavar: str | None = None
    secret: bool = False
    env: str | None = None
    #: A URL (the database's, SMTP's), or for the database an SQLite file path: a secret only when it carries a
    #: password (:meth:`holds_secret`).
    url: bool = False
    #: A list: the flag may be repeated, the file gives an array.
    repeated: bool = False
    #: A flag without a value (on when given).
    is_switch: bool = False
    choices: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The argparse destination: the flag's name (``--bot-delay`` → ``bot_delay``), else the key's."""
        return (self.flag[2:] if self.flag else self.key.replace(".", "_")).replace("-", "_")

    def default_value(self) -> Any:
        if self.config_field is not None and self.default is None:
            return getattr(ServerConfig(), self.config_field)
        return self.default

    def holds_secret(self, value: object) -> bool:
        """Whether ``value`` of this setting is a secret: a token is, wholly; a URL only with a password in it
        (``postgresql://converge:pw@db/converge``, or ``?password=`` in its query); a file path never."""
        if not self.secret or value is None:
            return False
        if not self.url:
            return True
        parts = urlsplit(str(value))
        return "://" in str(value) and (parts.password is not None or "password" in parts.query.lower())

    def read_value(self, value: object) -> Any:
        """The value checked; a list's items one by one (a tuple, as :class:`ServerConfig` keeps lists)."""
        if self.repeated:
            items = value if isinstance(value, list) else [value]
            return tuple(self.read(item) for item in items)
        return self.read(value)


_D = ServerConfig()

#: Every setting, in the order ``converge config check`` prints them and ``converge serve --help`` lists them.
SETTINGS: tuple[Setting, ...] = (
    Setting("server.host", text(), "address to listen on (default 127.0.0.1)", "--host", default="127.0.0.1"),
    Setting("server.port", whole(0, 65535, what="a port number"), "port (default 8000)", "--port", default=8000),
    Setting("server.db", text(), "database: an SQLite file path or sqlite:///PATH, or "
            "postgresql://user:pw@host/db (default: server.sqlite3 in the user's data directory); or the "
            "environment variable CONVERGE_DATABASE_URL, which keeps a password out of the process list",
            "--db", "db_url", metavar="URL", secret=True, env="CONVERGE_DATABASE_URL", url=True),
    Setting("server.sqlite_sync", text(choices=SQLITE_SYNC),
            "SQLite durability: FULL survives power loss, NORMAL only crashes (default FULL)", "--sqlite-sync",
            "sqlite_sync", choices=SQLITE_SYNC),
    Setting("server.deck_dirs", text(), "also load the *.toml decks of DIR; may be repeated", "--deck-dir",
            "deck_dirs", metavar="DIR", repeated=True),
    Setting("server.log_level", text(choices=LOG_LEVELS), "the least severe log lines written (default info)",
            "--log-level", default="info", choices=LOG_LEVELS),
    Setting("server.log_format", text(choices=LOG_FORMATS),
            "text: one line per event, for people; json: one JSON object per line, for a log collector "
            "(default text)", "--log-format", default="text", choices=LOG_FORMATS),
    Setting("server.drain_seconds", number(positive=True), "on SIGTERM: stop taking connections, let the moves in "
            "flight be committed and acknowledged, tell every player to reconnect, and exit within this long "
            f"(default {_D.drain_seconds:g})", "--drain-seconds", "drain_seconds", metavar="SECONDS"),
    Setting("server.ws_deflate", switch, "compress WebSocket messages (permessage-deflate): less bandwidth, more "
            "CPU and memory per connection (default off)", "--ws-deflate", default=False, is_switch=True),
    Setting("bots.delay", number(), f"pause before each bot decision (default {_D.bot_delay:g}: each page shows "
            "the opponent's moves at its player's chosen pace)", "--bot-delay", "bot_delay", metavar="SECONDS"),
    Setting("bots.workers", whole(), "processes in which the server's bots think, so that no one's move waits for "
            f"a bot; 0: a thread of the server (default {default_bot_workers()}: one per core but one)",
            "--bot-workers", "bot_workers", metavar="N", default=default_bot_workers()),
    Setting("bots.queue", whole(1), "bot decisions that may wait per worker before new bot matches are refused as "
            f"busy (default {_D.bot_queue})", "--bot-queue", "bot_queue", metavar="N"),
    Setting("bots.replace_after", number(), "a bot takes the seat of a player who left a friend match after this "
            f"long; 0: never (default {_D.replace_after:g})", "--replace-after", "replace_after",
            metavar="SECONDS"),
    Setting("bots.replacement", _bot, "the bot that stands in for a player who left (default: the middle level)",
            "--replacement-bot", "replacement_bot", metavar="NAME"),
    Setting("chat.per_minute", number(positive=True), "chat lines one player may send in a minute "
            f"(default {_D.chat_per_minute:g})", None, "chat_per_minute", metavar="N"),
    Setting("chat.per_address_minute", number(positive=True), "chat lines one client address may send in a "
            f"minute (default {_D.chat_per_address_minute:g})", None, "chat_per_address_minute", metavar="N"),
    Setting("chat.blocked_words", text(), "a word chat lines may not carry: shown masked (***); may be repeated",
            None, "chat_blocked_words", metavar="WORD", repeated=True),
    Setting("tournaments.no_show_wait", number(), "a player who has neither come to their match in a live "
            f"tournament nor moved this long after it was made loses it; 0: never (default {_D.no_show_s:g})",
            "--no-show-wait", "no_show_s", metavar="SECONDS"),
    Setting("network.proxy_headers", switch, "take the client's address, scheme and host from a reverse proxy's "
            "X-Forwarded-For, -Proto and -Host (per-client limits, the origin check)", "--proxy-headers",
            "proxy_headers", is_switch=True),
    Setting("network.forwarded_allow_ips", _proxies, "with proxy headers: the proxies trusted, comma-separated "
            f"addresses or networks, * for any (default {','.join(_D.forwarded_allow_ips)})",
            "--forwarded-allow-ips", "forwarded_allow_ips", metavar="LIST"),
    Setting("network.allowed_origins", _origin, "also let pages of this origin (scheme://host[:port]) open "
            "WebSockets and make changes; the server's own origin always may, others are refused; may be repeated",
            "--allowed-origin", "allowed_origins", metavar="URL", repeated=True),
    Setting("limits.rate", number(positive=True), "messages a second a WebSocket connection may send (bursts of "
            f"twice that; default {_D.rate:g})", "--rate", "rate", metavar="N"),
    Setting("limits.seat_connections", whole(1), "open connections per seat (a player's tabs); one more closes "
            "that seat's oldest, so a player can always connect, whatever spectators do "
            f"(default {_D.max_connections_per_seat})", "--seat-connections", "max_connections_per_seat",
            metavar="N"),
    Setting("limits.spectators", whole(1), f"spectator connections per match (default "
            f"{_D.max_spectators_per_match})", "--spectators", "max_spectators_per_match", metavar="N"),
    Setting("limits.spectators_per_address", whole(1), "spectator connections from one client address, over all "
            f"matches (default {_D.max_spectators_per_address})", "--spectators-per-address",
            "max_spectators_per_address", metavar="N"),
    Setting("limits.matches_per_hour", whole(), "matches one client address may store per hour, through any door "
            "(created, rematches, lobby tables, quick matches, bot offers; each player of a pairing pays); 0: no "
            f"limit (default {_D.matches_per_hour})", "--matches-per-hour", "matches_per_hour", metavar="N"),
    Setting("limits.lobby_connections", whole(1), "lobby connections (home pages) in all "
            f"(default {_D.max_lobby_connections})", "--lobby-connections", "max_lobby_connections", metavar="N"),
    Setting("limits.lobby_connections_per_address", whole(1), "lobby connections from one client address "
            f"(default {_D.max_lobby_connections_per_address})", "--lobby-connections-per-address",
            "max_lobby_connections_per_address", metavar="N"),
    Setting("limits.max_header_bytes", whole(1), "a request's line and headers together, at most (431 beyond; "
            f"default {_D.max_header_bytes})", "--max-header-bytes", "max_header_bytes", metavar="BYTES"),
    Setting("limits.max_header_line", whole(1), "one line of a request's head, at most (414 for the request line, "
            f"431 for a header; default {_D.max_header_line})", "--max-header-line", "max_header_line",
            metavar="BYTES"),
    Setting("limits.header_timeout", number(positive=True), "the time a client has to send a request's line and "
            "headers, from its connection or from the request's first byte (408, then closed; default "
            f"{_D.header_timeout:g})", "--header-timeout", "header_timeout", metavar="SECONDS"),
    Setting("limits.connections_per_client", whole(), "open connections (HTTP and WebSocket) from one client "
            "address, a trusted proxy's not counted; 0: no limit (default "
            f"{_D.max_connections_per_client})", "--connections-per-client", "max_connections_per_client",
            metavar="N"),
    Setting("lobby.bot_offer_after", number(), "a quick-match player waiting this long is offered a bot of their "
            f"level (default {_D.quick_match_bot_after_s:g})", "--bot-offer-after", "quick_match_bot_after_s",
            metavar="SECONDS"),
    Setting("lobby.players_per_hour", whole(), "new players (names or anonymous) one client address may make an "
            f"hour; 0: no limit (default {_D.players_per_hour})", "--players-per-hour", "players_per_hour",
            metavar="N"),
    Setting("lobby.renames_per_hour", whole(), "name changes one player may make in any hour; 0: no limit "
            f"(default {_D.renames_per_hour})", "--renames-per-hour", "renames_per_hour", metavar="N"),
    Setting("lobby.rename_interval", number(), "the shortest time between two name changes of one player; 0: none "
            f"(default {_D.rename_interval_s:g})", "--rename-interval", "rename_interval_s", metavar="SECONDS"),
    Setting("hints.simulations", whole(), "the hint's search, in simulations; 0 (the default): the budget its "
            "chances were measured on (another gives the bot's estimates, and the page says so)",
            "--hint-simulations", "hint_simulations", metavar="N"),
    Setting("reviews.simulations", whole(), "the search at each decision of a finished match's review; 0 (the "
            "default): the hint's", "--review-simulations", "review_simulations", metavar="N"),
    Setting("reviews.seconds", number(positive=True), "the most one review may take; the decisions judged by then "
            f"are kept (default {_D.review_seconds:g})", "--review-seconds", "review_seconds", metavar="SECONDS"),
    Setting("turns.vacation_days", number(), "each player's vacation in a turn-based match: time beyond a move's, "
            f"for the whole match (default {_D.vacation_days:g})", "--vacation-days", "vacation_days",
            metavar="DAYS"),
    Setting("accounts.smtp", text(), "the SMTP server mail goes through: smtp://user:password@host:587 (STARTTLS "
            "when offered) or smtps://...:465; or the environment variable CONVERGE_SMTP_URL, which keeps the "
            "password out of the process list. Without one, mails (sign-in links) are written as files to the "
            "mail folder, for a local server", "--smtp", "smtp_url", metavar="URL", secret=True,
            env="CONVERGE_SMTP_URL", url=True),
    Setting("accounts.mail_from", text(), f"the mails' sender (default {_D.mail_from!r})", "--mail-from",
            "mail_from", metavar="ADDRESS"),
    Setting("accounts.public_url", text(), "this server's address as players reach it (https://play.example.org): "
            "the start of the links in mails; needed with an SMTP server", "--public-url", "public_url",
            metavar="URL"),
    Setting("accounts.mail_dir", text(), "without an SMTP server: the folder each mail is written to, one file "
            "each (default: mail/ in the user's data directory)", "--mail-dir", "mail_dir", metavar="DIR"),
    Setting("metrics.token", _secret_token, "a secret: with it, GET /metrics on the server's port answers "
            "Prometheus scrapes that send \"Authorization: Bearer TOKEN\"; without it that path is not served. "
            "Best given as the environment variable CONVERGE_METRICS_TOKEN", None, "metrics_token", secret=True,
            env="CONVERGE_METRICS_TOKEN"),
    Setting("metrics.bind", _bind, "serve /metrics, without a token, on a listener of its own at HOST:PORT "
            "(127.0.0.1:9100, [::1]:9100), for a scraper on a private network (default: none)",
            "--metrics-bind", "metrics_bind", metavar="HOST:PORT"),
    Setting("admin.token", _secret_token, "a secret: with it, `converge admin` (run on this machine or one that "
            "reaches the server's port) may rename and ban players, close tables, delete matches and read the "
            "reports and the audit; without it the hosts' API is not served. Best given as the environment "
            "variable CONVERGE_ADMIN_TOKEN", None, "admin_token", secret=True, env="CONVERGE_ADMIN_TOKEN"),
    Setting("retention.keep_finished", number(), "days the record of a finished match is kept for replays; "
            "0: forever (default 0)", "--keep-finished", "keep_finished_days", metavar="DAYS"),
    Setting("retention.delete_unstarted_after", number(), "delete a match in which nobody ever played a move "
            f"after this long; 0: never (default {_D.delete_unstarted_after_hours:g})", "--delete-unstarted-after",
            "delete_unstarted_after_hours", metavar="HOURS"),
    Setting("retention.delete_abandoned_after", number(), "delete a match in progress with no move for this long; "
            f"0: never (default {_D.delete_abandoned_after_days:g})", "--delete-abandoned-after",
            "delete_abandoned_after_days", metavar="DAYS"),
)

#: The settings by key, and their sections, in order.
BY_KEY: dict[str, Setting] = {s.key: s for s in SETTINGS}
SECTIONS: tuple[str, ...] = tuple(dict.fromkeys(s.key.split(".")[0] for s in SETTINGS))


@dataclass(frozen=True)
class Value:
    """A setting's effective value and where it came from: "default", "file", "environment (NAME)" or
    "command line"."""

    setting: Setting
    value: Any
    source: str

    def shown(self) -> str:
        """The value as ``config check`` prints it, a secret masked."""
        if self.value is None:
            return "(none)"
        if self.setting.holds_secret(self.value):
            return mask(str(self.value))
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        if isinstance(self.value, tuple):
            return ", ".join(map(str, self.value)) or "(none)"
        if isinstance(self.value, float):
            return f"{self.value:g}"
        return str(self.value)


def mask(secret: str) -> str:
    """A secret as it may be shown: a URL with its password and query replaced by ``***`` (an SQLite URL or a
    file path, which hold none, whole), anything else wholly masked.

    >>> mask("postgresql://converge:pw@db/converge")
    'postgresql://converge:***@db/converge'
    """
    parts = urlsplit(secret)
    if "://" not in secret:  # a file path (an SQLite database's) holds no secret; a token is wholly one
        return secret if secret.endswith((".sqlite3", ".sqlite", ".db")) or secret.startswith("/") else "***"
    if parts.scheme.startswith("sqlite"):
        return secret
    host = parts.netloc.rpartition("@")[2]
    user = f"{parts.username}@" if parts.username else ""
    if parts.password is not None:
        user = f"{parts.username or ''}:***@"
    return urlunsplit((parts.scheme, user + host, parts.path, "***" if parts.query else "", ""))


def load_file(path: str | Path) -> dict[str, object]:
    """A settings file's tables; a :class:`SettingsError` naming the file (and line) when it is not TOML."""
    where = Path(path)
    try:
        raw = where.read_bytes()
    except OSError as exc:
        raise SettingsError(f"{where}: cannot read the settings file ({exc.strerror or exc})") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError(f"{where}: not a settings file: it is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{where}: not valid TOML: {exc}") from None


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, known, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def file_values(tables: Mapping[str, object], where: str = "the settings file") -> dict[str, object]:
    """The file's values by key (``limits.spectators``), each checked; a :class:`SettingsError` naming every
    unknown section or key and every wrong value."""
    values: dict[str, object] = {}
    problems: list[str] = []
    for section, table in tables.items():
        if section not in SECTIONS:
            problems.append(f"{where}: [{section}]: unknown section{_did_you_mean(section, SECTIONS)}; "
                            f"the sections are {', '.join(SECTIONS)}")
            continue
        if not isinstance(table, dict):
            problems.append(f"{where}: {section}: expected a table ([{section}]), got {_shown(table)}")
            continue
        for name, raw in table.items():
            key = f"{section}.{name}"
            setting = BY_KEY.get(key)
            if setting is None:
                names = [k.split(".")[1] for k in BY_KEY if k.startswith(section + ".")]
                problems.append(f"{where}: {key}: unknown setting{_did_you_mean(name, names)}; [{section}] "
                                f"has {', '.join(names)}")
                continue
            try:
                values[key] = setting.read_value(raw)
            except ValueError as exc:
                problems.append(f"{where}: {key}: {exc}")
    if problems:
        raise SettingsError(*problems)
    return values


def resolve(tables: Mapping[str, object] | None = None, *, flags: Mapping[str, object] | None = None,
            environ: Mapping[str, str] | None = None, where: str = "the settings file") -> dict[str, Value]:
    """Every setting's effective :class:`Value`: from ``flags`` (by :attr:`Setting.name`, the values argparse
    gave), the environment, the file's ``tables``, or the default."""
    problems: list[str] = []
    try:
        from_file = file_values(tables or {}, where)
    except SettingsError as exc:
        problems, from_file = exc.problems, {}
    flags = flags or {}
    environ = os.environ if environ is None else environ
    effective: dict[str, Value] = {}
    for setting in SETTINGS:
        if setting.name in flags:
            effective[setting.key] = Value(setting, flags[setting.name], "command line")
        elif setting.env and environ.get(setting.env):
            try:
                value = setting.read_value(environ[setting.env])
            except ValueError as exc:
                problems.append(f"the environment variable {setting.env}: {exc}")
                continue
            effective[setting.key] = Value(setting, value, f"environment ({setting.env})")
        elif setting.key in from_file:
            effective[setting.key] = Value(setting, from_file[setting.key], "file")
        else:
            effective[setting.key] = Value(setting, setting.default_value(), "default")
    if problems:
        raise SettingsError(*problems)
    return effective


def server_config(effective: Mapping[str, Value]) -> ServerConfig:
    """The :class:`ServerConfig` the effective settings make."""
    changes: dict[str, Any] = {}  # (each value checked against its field's type: ServerConfig(**changes))
    for value in effective.values():
        if value.setting.config_field is not None:
            changes[value.setting.config_field] = value.value
    config = ServerConfig(**changes)
    config.burst = 2 * config.rate
    config.db_url = config.db_url or ""
    return config


def exposed_to_others(path: str | Path) -> bool:
    """Whether users other than the file's owner (and its group) may read it."""
    return bool(Path(path).stat().st_mode & stat.S_IROTH)


def secrets_in(tables: Mapping[str, object]) -> list[str]:
    """The keys of the secrets a file holds (to warn when others can read it): a token, a URL with a password;
    not an SQLite database's path."""
    return [key for key, value in file_values(tables).items() if BY_KEY[key].holds_secret(value)]


def example() -> str:
    """A settings file with every setting at its default, each with its help: ``converge config example``."""
    lines = ["# converge serve --config THIS_FILE  (a flag given on the command line wins over its key here)",
             *textwrap.wrap("Secrets may instead come from the environment: "
                            + ", ".join(s.env for s in SETTINGS if s.env) + ".", 100, initial_indent="# ",
                            subsequent_indent="# ")]
    for section in SECTIONS:
        lines += ["", f"[{section}]"]
        for setting in (s for s in SETTINGS if s.key.startswith(section + ".")):
            lines += textwrap.wrap(setting.help, 100, initial_indent="# ", subsequent_indent="# ")
            default = setting.default_value()
            name = setting.key.split(".")[1]
            if default is None or default == "" or (setting.secret and setting.env):
                lines.append(f"# {name} = ...")
            else:
                lines.append(f"{name} = {_toml(default)}")
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


__all__ = ["SETTINGS", "Setting", "SettingsError", "Value", "example", "file_values", "load_file", "mask",
           "resolve", "server_config"]

