"""What is kept: idle matches are evicted from memory (the database holds them), and the matches the
retention policy says have expired are deleted from the database by a clean-up that runs at start-up and
then periodically."""

from __future__ import annotations

import asyncio
import logging
import time

from converge.server.play.ground import Ground
from converge.server.play.match.session import BOTS, EVICT, INBOX, Session, stand_in
from converge.server.play.match.sessions import Sessions
from converge.server.play.process.lifecycle import Periodic
from converge.server.protocol.errors import CLOSE_RECONNECT, ProtocolError
from converge.server.storage.match_store import Storage
from converge.server.storage.rows import Retention
from converge.server.storage.writer import Tx, Writer

log = logging.getLogger("converge.server")


def in_use(session: Session) -> bool:
    """A connection, a bot thinking or a stand-in pending: the match is not evicted or deleted."""
    return (bool(session.presence.conns) or session.tasks.running(BOTS)
            or any(session.tasks.pending(stand_in(seat)) for seat in (0, 1)))


class Housekeeping:
    """Eviction from memory and the retention clean-up of one server process."""

    def __init__(self, ground: Ground, sessions: Sessions, writer: Writer) -> None:
        self.config = ground.config
        self.coord = ground.coord
        self.life = ground.life
        self.sessions = sessions
        self.writer = writer
        self._periodic = Periodic("retention", "retention clean-up", self.config.retention_every_s, self.sweep,
                                  self.life)
        ground.events.opened.subscribe(lambda e: self.schedule_evict(e.session))

    # ------------------------------------------------------------------ memory

    def schedule_evict(self, session: Session) -> None:
        """Evict ``session`` once it has been idle for ``idle_evict`` seconds (unless it is in use by then)."""
        if session.presence.conns or self.life.closing:
            return

        async def evict() -> None:
            await asyncio.sleep(self.config.idle_evict)
            if not in_use(session) and self.sessions.get(session.id) is session:
                self.evict(session)

        session.start_task(EVICT, evict())

    def evict(self, session: Session) -> None:
        """Drop ``session`` from memory now: its tasks stop, its connections are told to reconnect (and load
        it again from the database)."""
        session.break_off()
        self.sessions.remove(session)
        if self.coord.multi and not self.life.closing:
            self.life.spawn(self.coord.release(session.id))
        session.cancel_tasks(but=(INBOX,))  # (taking in news ends by itself: the session is broken)
        error = ProtocolError("storage", "the match is being reloaded; reconnect")
        for conn in list(session.presence.conns):
            conn.refuse(error)
            conn.close(CLOSE_RECONNECT)

    # ------------------------------------------------------------------ the database

    def policy(self) -> Retention:
        cfg = self.config
        return Retention(finished_s=max(0.0, cfg.keep_finished_days) * 86400,
                         unstarted_s=max(0.0, cfg.delete_unstarted_after_hours) * 3600,
                         abandoned_s=max(0.0, cfg.delete_abandoned_after_days) * 86400)

    async def sweep(self, now: float | None = None, batch: int = 500) -> int:
        """Delete the stored matches that the retention policy says have expired, except those in use (a
        connection, a bot thinking, a stand-in pending) or being loaded; returns how many were deleted."""
        policy = self.policy()
        if not policy.active:
            return 0
        at = time.time() if now is None else now
        total = 0
        while not self.life.closing:
            keep = sorted({s.id for s in self.sessions if in_use(s)} | self.sessions.loading())
            deleted: list[str] = []

            def write(conn: Tx, keep: list[str] = keep, deleted: list[str] = deleted) -> None:
                deleted.extend(Storage.delete_expired(conn, at, policy, keep, batch))

            await self.writer.write(write)
            self.forget(deleted)
            total += len(deleted)
            if len(deleted) < batch:
                break
        if total:
            log.info("retention: deleted %d expired match(es)", total)
        return total

    def forget(self, ids: list[str]) -> None:
        """Drop deleted matches from memory, and the links of live matches to them."""
        gone = set(ids)
        for mid in ids:
            session = self.sessions.get(mid)
            if session is not None:
                self.evict(session)
        for session in self.sessions:
            session.unlink(gone)

    def start(self) -> None:
        """Run :meth:`sweep` now and then every ``retention_every_s`` seconds, while the server runs."""
        if self.policy().active:
            self._periodic.start()

    def stop(self) -> asyncio.Task[None] | None:
        """Stop the clean-up; returns its task if it was still running (the caller awaits it)."""
        return self._periodic.stop()
