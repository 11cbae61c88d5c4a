"""The hub: one server process's live matches and the units that serve them, each with its own job and
state, composed here.

* :class:`~converge.server.play.match.live.Live` — matches made live: stored new, or loaded;
* :class:`~converge.server.play.match.matches.Matches` — create, act, resign, rematch, record, replay;
* :class:`~converge.server.play.viewers.reception.Reception` — connections: admitted, welcomed, leaving (and
  :mod:`~converge.server.play.viewers.broadcast`, the send path: each connection its own view);
* :class:`~converge.server.play.owner.duties.Duties` — what the owner does by itself: clocks
  (:mod:`~converge.server.play.owner.clocks`), bots (:mod:`~converge.server.play.owner.bots`), stand-ins
  (:mod:`~converge.server.play.owner.standins`); hints beside them;
* :class:`~converge.server.play.cluster.sync.Sync` — keeping in step with the other processes on one PostgreSQL;
* :class:`~converge.server.play.process.housekeeping.Housekeeping` — eviction from memory, the retention clean-up;
* under them: the sessions (:mod:`~converge.server.play.match.session`,
  :mod:`~converge.server.play.match.sessions`),
  the commits (:mod:`~converge.server.play.commit.writes`, :mod:`~converge.server.play.commit.commits`,
  :mod:`~converge.server.play.commit.moves`), the events by which units hear of each other, the catalog of
  decks and settings, the hourly match budget;
* :class:`~converge.server.play.match.reviews.Reviews` — the reviews of finished matches;
* :class:`~converge.server.play.owner.turns.Turns` — turn-based matches' players who ran out of time."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any

from converge.server.config import ServerConfig
from converge.server.ops.jobs import Backoff, Jobs
from converge.server.ops.meter import Meter
from converge.server.play.cluster.coordination import LocalCoordinator, coordinator_for
from converge.server.play.cluster.sync import Sync
from converge.server.play.commit.commits import Commits
from converge.server.play.commit.moves import Moves
from converge.server.play.commit.writes import MatchWrites
from converge.server.play.events import PlayEvents
from converge.server.play.ground import Ground
from converge.server.play.match.budget import MatchBudget
from converge.server.play.match.catalog import Catalog
from converge.server.play.match.live import Live
from converge.server.play.match.matches import Matches
from converge.server.play.match.reviews import Reviews
from converge.server.play.match.session import INBOX
from converge.server.play.match.sessions import Sessions
from converge.server.play.owner.botpool import BotPool
from converge.server.play.owner.bots import Bots, Hints
from converge.server.play.owner.clocks import Clocks
from converge.server.play.owner.duties import Duties
from converge.server.play.owner.no_shows import NoShows
from converge.server.play.owner.standins import StandIns
from converge.server.play.owner.turns import Turns
from converge.server.play.process.housekeeping import Housekeeping
from converge.server.play.process.lifecycle import Lifecycle
from converge.server.play.process.wallclock import WallClock
from converge.server.play.viewers import broadcast
from converge.server.play.viewers.reception import Reception
from converge.server.protocol.answers import Status
from converge.server.protocol.errors import CLOSE_RECONNECT
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Writer
from converge.server.transport.connections import Connection

#: The reason given with the close that asks a client to reconnect when the process restarts.
RESTARTING = "the server is restarting: reconnect"


class Hub:
    """All live sessions of one server, and the units that serve them."""

    def __init__(self, config: ServerConfig, storage: Storage, writer: Writer, meter: Meter | None = None) -> None:
        self.config = config
        self.storage = storage
        self.writer = writer
        self.life = Lifecycle(Jobs(Backoff(config.job_retry_first_s, config.job_retry_longest_s)))
        self.sessions = Sessions()
        self.catalog = Catalog(config)
        self.budget = MatchBudget(config.matches_per_hour)
        #: Where bots think: worker processes, so that their search never holds up anyone's action.
        self.pool = BotPool(config.bot_workers, config.deck_dirs, config.bot_queue, meter)
        #: The other server processes on the same database, if any.
        self.coord: LocalCoordinator = coordinator_for(storage.engine.url.render_as_string(hide_password=False),
                                                       storage.engine.dialect.name, config.coordination_interval,
                                                       self.life.jobs)
        self.writes = MatchWrites(writer, self.coord)
        #: What happens to a live match that other units act on (:mod:`.events`): the units that make it
        #: publish, the duties, the send path and the eviction subscribe.
        self.events = PlayEvents()
        #: The wall clock of what is counted in days (turn-based matches' deadlines).
        self.wall = WallClock()
        ground = Ground(config, self.life, self.wall, self.coord, self.events)
        self.ground = ground
        self.housekeeping = Housekeeping(ground, self.sessions, writer)
        self.sync = Sync(ground, storage, self.sessions, self.housekeeping)
        commits = Commits(ground, self.writes, self.sync.caught_up, self.housekeeping)
        self.moves = Moves(ground, self.writes, commits, meter)
        clocks = Clocks(ground, self.writes, commits)
        self.duties = Duties(clocks, Bots(ground, self.pool, self.moves), StandIns(ground, commits),
                            NoShows(ground, clocks), self.events)
        self.events.committed.subscribe(broadcast.committed)  # (after the duties: a bot's reply is on its way)
        self.hints = Hints(ground, self.pool, commits)
        self.reviews = Reviews(config, self.pool, storage, self.writes)
        self.live = Live(ground, storage, self.budget, self.writes, self.sessions, self.sync)
        self.matches = Matches(ground, self.catalog, self.pool, self.live, self.moves, self.duties)
        self.turns = Turns(ground, storage, self.live, clocks)
        self.reception = Reception(config, self.coord, self.duties, self.sync, self.housekeeping, self.life)

    @property
    def closing(self) -> bool:
        return self.life.closing

    async def start(self) -> None:
        """Start coordinating with the other processes (if any), the bot workers, the retention clean-up and
        the turn-based time checks."""
        await self.coord.start(self.sync.on_change, self.sync.coordinate)
        self.pool.start()
        self.housekeeping.start()
        self.turns.start()

    def status(self) -> Status:
        """This process's load, for operators: nothing about any match."""
        live = list(self.sessions)
        return {"matches_held": len(live), "matches_owned": sum(1 for s in live if s.owned),
                "connections": sum(len(s.presence.conns) for s in live), "coordinated": self.coord.multi,
                "database": self.storage.durability, "bots": self.pool.stats()}

    async def drain(self, also: Iterable[Connection] = ()) -> int:
        """Stop taking moves, matches and seats (each is answered ``restarting``), let each match's move in
        flight be committed and acknowledged (its lock is taken after it), then close every connection with
        1012, which tells its client to reconnect: to another process, or to this one once it has restarted.
        ``also``: other connections to close the same way (the lobby's). Returns how many were closed, once
        each has been sent what was queued for it."""
        self.life.close()
        closed = list(also)
        for conn in closed:
            conn.close(CLOSE_RECONNECT, RESTARTING)
        for session in list(self.sessions):
            async with session.lock:
                for conn in list(session.presence.conns):
                    conn.close(CLOSE_RECONNECT, RESTARTING)
                    closed.append(conn)
        await asyncio.gather(*(conn.drain() for conn in closed))
        return len(closed)

    async def close(self) -> None:
        """Stop every task and close every connection (the database holds everything)."""
        self.life.close()
        tasks: list[asyncio.Task[Any]] = []
        for stopped in (self.housekeeping.stop(), self.turns.stop()):
            if stopped is not None:
                tasks.append(stopped)
        for session in self.sessions:
            tasks += session.cancel_tasks(but=(INBOX,))
            for conn in list(session.presence.conns):
                conn.close(1001)
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        await self.reviews.close()
        await self.coord.close()
        self.pool.close()
