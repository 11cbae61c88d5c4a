"""Live matches: a new one stored and made live in this process, a stored one loaded (replayed) on first use;
who plays their seats. Each is published as :class:`~converge.server.play.events.Opened` once it is live, and
the units that act for a match (its duties, its eviction) start from there."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from converge.engine.errors import ConvergeError
from converge.engine.playset import Playset
from converge.engine.state import Match
from converge.server.play.cluster.coordination import Note
from converge.server.play.cluster.sync import Sync, since
from converge.server.play.commit.writes import MatchWrites
from converge.server.play.events import Opened
from converge.server.play.ground import Ground
from converge.server.play.match.budget import MatchBudget
from converge.server.play.match.session import Session
from converge.server.play.match.sessions import Sessions
from converge.server.protocol.errors import ProtocolError, restarting
from converge.server.storage import lobby_store
from converge.server.storage import outbox_store as outbox
from converge.server.storage.database import Refused, StorageError
from converge.server.storage.match_store import Storage
from converge.server.storage.rows import MatchRow
from converge.server.storage.writer import Tx

log = logging.getLogger("converge.server")


class Live:
    """The live matches of this process: made, loaded, and who plays them."""

    def __init__(self, ground: Ground, storage: Storage, budget: MatchBudget, writes: MatchWrites,
                 sessions: Sessions, sync: Sync) -> None:
        self.ground = ground
        self.storage = storage
        self.budget = budget
        self.writes = writes
        self.sessions = sessions
        self.sync = sync
        #: The bots' fixed ratings by level, shown at the table (the lobby fills them in).
        self.bot_ratings: dict[str, float] = {}

    async def store(self, row: MatchRow, ps: Playset, *, payers: Sequence[str], link_from: str | None = None,
                    also: Callable[[Tx], None] | None = None) -> Session:
        """Store a new match (and ``also(conn)`` in the same transaction), then make it live. Every new match
        comes here, and ``payers`` (the client addresses of the players it is stored for) pay for it first.
        A :class:`~converge.server.storage.database.Refused` from ``also`` is raised as it is: nothing was
        stored, and the caller says why."""
        if self.ground.life.closing:  # (draining for a restart: the match is made by another process, or after)
            raise restarting()
        self.budget.charge(payers)
        match = Match.new(ps, row.seed, row.start)
        row.created_at = row.updated_at = self.ground.wall()
        first = match.current_player if row.move_s is not None else None
        row.to_move = first
        delay = self.ground.config.turn_mail_delay_s

        def write(conn: Tx) -> None:
            Storage.create_match(conn, row)
            if first is not None:  # a turn-based match: the first mover is told it is their turn too
                outbox.queue(conn, row.id, 0, first, row.created_at, delay)
            if link_from is not None:
                Storage.link_rematch(conn, link_from, row.id)
            if also is not None:
                also(conn)

        try:
            await self.writes.write(link_from, write)
        except Refused:
            self.budget.give_back(payers)
            raise
        except StorageError as exc:
            self.budget.give_back(payers)
            log.error("could not store a new match: %s", exc)
            raise ProtocolError("storage", "the match could not be saved; try again") from None
        session = Session(row, match)
        session.know_seating(False, {}, self.bot_ratings)
        owned = await self.sync.claim(row.id)
        session.claimed(owned)
        if also is not None:
            await self.read_players(session)
        self.sessions.add(session)
        self.ground.events.opened.publish(Opened(session, loaded=False))
        return session

    async def get(self, match_id: str) -> Session | None:
        """The live session of a match, loading (replaying) it from the database on first use."""
        return await self.sessions.load(match_id, self._load, self._loaded)

    def _loaded(self, session: Session) -> None:
        if self.ground.coord.multi:  # what another process stored while we were reading is read now
            self.sync.on_change(Note(session.id))

    async def _load(self, match_id: str) -> Session | None:
        try:
            row = await asyncio.to_thread(self.storage.load, match_id)
        except Exception as exc:  # (StorageError, or the database's own)
            log.error("cannot load match %s: %s", match_id, exc)
            raise ProtocolError("storage", "the match cannot be loaded now; try again") from None
        if row is None:
            return None
        try:
            match = Match.replay(row.record(), self.ground.config.deck_dirs)
        except ConvergeError as exc:
            log.error("match %s does not replay: %s", match_id, exc)
            raise ProtocolError("storage", "this match cannot be resumed by this server (its decks "
                                           "changed)") from None
        if row.status == "active" and match.is_terminal:  # cannot happen: the last action sets "over"
            row.status, row.winner, row.reason = "over", match.winner, "match"
        session = Session(row, match)
        session.know_seating(False, {}, self.bot_ratings)
        log.info("resumed match %s at action %d", match_id, row.n_actions)
        owned = await self.sync.claim(match_id)
        session.claimed(owned)
        await self.read_players(session)
        session.set_remote((await self.ground.coord.present_elsewhere([match_id])).get(match_id, set()))
        session.restart_clock(since(row.updated_at))  # the decision began when the last action came
        self.ground.events.opened.publish(Opened(session, loaded=True))
        return session

    async def read_players(self, session: Session) -> None:
        """Read who plays the seats (names, ratings, this match's rating changes) and whether the match is
        rated; the database away: treat it as rated (no hints) rather than fail, and show no names."""
        try:
            rated, players = await asyncio.to_thread(lobby_store.read_seat_players, self.storage.engine,
                                                     session.id)
        except Exception as exc:
            log.warning("match %s: cannot tell who plays it, nor whether it is rated: %s", session.id, exc)
            rated, players = True, {}
        session.know_seating(rated, players)
