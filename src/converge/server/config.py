"""The server's settings."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


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
    #: Seconds a bot waits before each of its decisions (so that people can follow); 0 in tests.
    bot_delay: float = 0.6
    #: Seconds after the last connection of a player in a friend match closes before a bot takes their
    #: seat (they take it back by reconnecting); 0 turns this off.
    replace_after: float = 120.0
    #: The bot that stands in for a player who left (None: the default level).
    replacement_bot: str | None = None
    #: Per-connection rate limit: messages per second and burst.
    rate: float = 20.0
    burst: float = 40.0
    #: Rate-limited messages a connection may send before it is closed.
    max_strikes: int = 200
    #: Largest WebSocket message (bytes) and HTTP request body accepted.
    max_message: int = 4096
    max_body: int = 16384
    #: Seconds a new WebSocket connection has to say hello.
    hello_timeout: float = 10.0
    max_connections_per_match: int = 64
    #: Outgoing messages queued for one slow connection before it is dropped (it reconnects).
    send_queue: int = 512
    #: Matches created per client address: per second and burst.
    create_rate: float = 2.0
    create_burst: float = 60.0
    #: Seconds an idle match (no connection, nothing running) stays in memory.
    idle_evict: float = 600.0
    #: The shortest and longest per-player clock a match may be created with (seconds).
    clock_min_s: int = 30
    clock_max_s: int = 3 * 3600
    #: Extra deck folders (as ``converge --deck-dir``).
    deck_dirs: tuple[str, ...] = ()
    #: Move the objects alive at start-up (the libraries') out of the garbage collector's full collections.
    gc_freeze: bool = True
    #: Serve the interactive API docs (/docs) — off: the page would need a looser CSP.
    docs: bool = False

    def resolved_db_url(self) -> str:
        return self.db_url or f"sqlite:///{default_db_path()}"
