"""Commit, then tell: the one path by which this process changes a live match. The change is written to the
database first (announced to the other processes in the same transaction); only once it is stored does the
session take it in, through its own method; then :class:`~converge.server.play.events.Committed` is published,
and the units that act on a change — the owner's duties, the send path — do so. A failed write changes
nothing here: if another process changed the match first, this copy catches up and the caller hears "stale";
otherwise it hears that nothing was saved."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from converge.server.play.commit.writes import MatchWrites
from converge.server.play.events import Change, Committed
from converge.server.play.ground import Ground
from converge.server.play.match.session import Session
from converge.server.play.process.housekeeping import Housekeeping
from converge.server.protocol.errors import ProtocolError
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Tx
from converge.server.transport.connections import Connection

log = logging.getLogger("converge.server")

#: Reads what other server processes stored of a match beyond this copy and takes it in (the caller holds the
#: session's lock); whether the match is now past action ``seq`` or over
#: (:meth:`Sync.caught_up <converge.server.play.cluster.sync.Sync.caught_up>`).
CatchUp = Callable[[Session, int], Awaitable[bool]]

#: What a player is told when another process changed the match first.
STALE = "the match changed meanwhile; nothing was done"


class Commits:
    """Commits the changes of the matches of this process, and tells of each."""

    def __init__(self, ground: Ground, writes: MatchWrites, catch_up: CatchUp, housekeeping: Housekeeping) -> None:
        self.ground = ground
        self.writes = writes
        self.catch_up = catch_up
        self.housekeeping = housekeeping

    async def commit(self, session: Session, write: Callable[[Tx], None], take: Callable[[], None],
                     change: Change, *, what: str, failed: str, stale: str = STALE, payload: str | None = None,
                     driver: bool = False, evict: bool = False,
                     reply: tuple[Connection, int] | None = None) -> None:
        """Commit ``write`` for ``session`` (the caller holds its lock), then ``take()`` the change into the
        session and publish it (``what``: the change, for the log). On a storage error nothing is taken: a
        ``stale`` error if the match moved on elsewhere meanwhile (this copy has caught up), else the ``storage``
        error ``failed`` (and, ``evict``, the session is dropped from memory: the write may have been stored
        after all, and the database is the truth). ``payload``, ``driver``: see :meth:`MatchWrites.write`;
        ``reply``: see :class:`Committed`."""
        idx = session.seq
        try:
            await self.writes.write(session.id, write, payload, driver)
        except StorageError as exc:
            if self.ground.coord.multi and await self.catch_up(session, idx):
                raise ProtocolError("stale", stale) from None
            log.error("match %s: %s not stored: %s", session.id, what, exc)
            if evict:
                self.housekeeping.evict(session)
            raise ProtocolError("storage", failed) from None
        take()
        self.ground.events.committed.publish(Committed(session, change, reply))
