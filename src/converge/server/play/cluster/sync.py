"""Keeping in step with the other server processes on the same PostgreSQL (their coordination itself:
:mod:`converge.server.play.cluster.coordination`): what they announce is taken in, in order — an announced action
that comes next is applied as it is, anything else (a gap, another change) is read from the database — and each
round this process takes over the matches it holds that nobody owns, and learns who is connected elsewhere.

With one process (SQLite) nothing is ever announced and every match is this process's own."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from converge.server.play.cluster.coordination import LocalCoordinator, Note
from converge.server.play.events import Change, Committed, SeatsElsewhere, TakenOver
from converge.server.play.ground import Ground
from converge.server.play.match.session import INBOX, Session
from converge.server.play.match.sessions import Sessions
from converge.server.play.process.housekeeping import Housekeeping
from converge.server.play.viewers import broadcast
from converge.server.storage.match_store import Storage

log = logging.getLogger("converge.server")


def since(wall: float) -> float:
    """The monotonic time of the wall-clock time ``wall`` (a stored action's time), not in the future."""
    return time.monotonic() - max(0.0, time.time() - wall)


class Sync:
    """The news of the other server processes, taken in by each match this process holds."""

    def __init__(self, ground: Ground, storage: Storage, sessions: Sessions, housekeeping: Housekeeping) -> None:
        self.coord: LocalCoordinator = ground.coord
        self.life = ground.life
        self.events = ground.events
        self.storage = storage
        self.sessions = sessions
        self.housekeeping = housekeeping
        #: What other processes announced, per match, not yet taken in.
        self._inbox: dict[str, list[Note]] = {}
        #: The progress (seq, status) at which the database was last seen ahead of a match's copy, if it was.
        self._behind: dict[str, tuple[int, str]] = {}

    def on_change(self, note: Note) -> None:
        """Another process changed a match (or who is connected to it): take it in if we hold the match."""
        session = self.sessions.get(note.match_id)
        if session is None or session.broken or self.life.closing:
            return
        self._inbox.setdefault(session.id, []).append(note)
        if not session.tasks.running(INBOX):
            session.start_task(INBOX, self._take_in(session))

    async def _take_in(self, session: Session) -> None:
        """Apply what other processes announced, in order, until nothing is left to take in."""
        try:
            while self._inbox.get(session.id) and not session.broken and not self.life.closing:
                async with session.lock:
                    notes = self._inbox.pop(session.id, [])
                    try:
                        await self._take_notes(session, notes)
                    except Exception as exc:
                        if not self.life.closing:
                            log.error("match %s: cannot catch up with the database: %s", session.id, exc)
                            self.housekeeping.evict(session)
                        return
        finally:
            if session.broken:
                self._inbox.pop(session.id, None)

    async def _take_notes(self, session: Session, notes: list[Note]) -> None:
        read = presence = applied = False
        for note in notes:
            presence |= note.presence
            if note.action is None:
                read |= not note.presence
                continue
            idx, aid, seat, clock, status, winner = note.action
            if read or idx < session.seq:
                continue  # (already here, or the read below brings it)
            match = session.match
            if (idx > session.seq or not session.active or match.current_player != seat
                    or aid not in match.legal_actions()):
                read = True
                continue
            session.apply(seat, aid, clock, status, winner)
            applied = True
        if applied:  # (a new decision began with the news)
            session.restart_clock()
            self.events.committed.publish(Committed(session, "moved", elsewhere=True))
        if read or presence:
            await self.caught_up(session, session.seq, presence)

    async def refresh(self, session: Session, presence: bool = False) -> None:
        """Read what other processes did to the match, apply it and tell this process's connections."""
        self.on_change(Note(session.id))
        if presence:
            self.on_change(Note(session.id, presence=True))
        task = session.tasks.get(INBOX)
        if task is not None:
            await asyncio.shield(task)

    async def caught_up(self, session: Session, seq: int, presence: bool = False) -> bool:
        """Apply what the database holds beyond this process's copy (the caller holds the lock); returns
        whether the match is now past action ``seq`` or over."""
        stored = await asyncio.to_thread(self.storage.load, session.id, session.seq)
        if stored is None:
            self.housekeeping.evict(session)
            return True
        caught = session.catch_up(stored)
        if caught.revoked:
            broadcast.shut_out_revoked(session)
        changed = caught.changed
        if presence and self.coord.multi:
            remote = (await self.coord.present_elsewhere([session.id])).get(session.id, set())
            changed |= self.set_remote(session, remote)
        if caught.moved:
            session.start_clock(since(stored.updated_at))
        if caught.moved or caught.ended or changed:
            change: Change = "moved" if caught.moved else "ended" if caught.ended else "seat"  # (the public facts)
            self.events.committed.publish(Committed(session, change, elsewhere=True))
        if caught.rematch is not None:
            broadcast.send_rematch(session, caught.rematch)
        return stored.n_actions > seq or stored.status != "active"

    def set_remote(self, session: Session, remote: set[int]) -> bool:
        """Note which seats are connected elsewhere; the owner starts clocks and schedules stand-ins."""
        if not session.set_remote(remote):
            return False
        self.events.seats_elsewhere.publish(SeatsElsewhere(session, frozenset(remote)))
        return True

    async def coordinate(self) -> None:
        """Each round (:attr:`ServerConfig.coordination_interval`): take over the matches we hold that
        nobody owns (their owner died), and learn who is connected elsewhere."""
        coord = self.coord
        if coord.lost.is_set():  # the lock connection was lost: we own nothing, and may have missed news
            coord.lost.clear()
            for session in self.sessions:
                session.claimed(False)
                for seat in (0, 1):
                    if session.presence.connected_here(seat):
                        await coord.present(session.id, seat, True)
                self.on_change(Note(session.id))
                self.on_change(Note(session.id, presence=True))
        live = [s for s in self.sessions if s.active and not s.broken]
        orphans = [s for s in live if not s.owned]
        if orphans:
            gained = await coord.claim_many([s.id for s in orphans])
            for session in orphans:
                if session.id in gained:
                    session.claimed(True)
                    log.info("match %s: taken over by this process", session.id)
                    await self.refresh(session, presence=True)
                    async with session.lock:
                        self.events.taken_over.publish(TakenOver(session))
        remote = await coord.present_elsewhere([s.id for s in live])
        for session in live:
            if self.set_remote(session, remote.get(session.id, set())):
                broadcast.send_meta(session)
        # A safety net under the notifications: a match whose stored progress was ahead of ours for two
        # rounds running (one round: its announcement may be on its way) is read again.
        stored = await asyncio.to_thread(self.storage.progress, [s.id for s in live])
        behind: dict[str, tuple[int, str]] = {}
        for session in live:
            mine = (session.seq, session.row.status)
            if stored.get(session.id, mine) == mine:
                continue
            if self._behind.get(session.id) == mine:
                self.on_change(Note(session.id))
            behind[session.id] = mine
        self._behind = behind

    async def claim(self, match_id: str) -> bool:
        """Try to own the match (always, with one process); False when the database is away (another process,
        or a later round, takes it)."""
        try:
            return await self.coord.claim(match_id)
        except Exception as exc:
            log.warning("match %s: cannot take it over now: %s", match_id, exc)
            return False

    async def gone_here(self, session: Session, seat: int) -> None:
        """The last connection of ``seat`` on this process closed: say so to the others."""
        async with session.lock:
            if session.presence.connected_here(seat) or session.broken:
                return
            with contextlib.suppress(Exception):
                await self.coord.present(session.id, seat, False)
                await self.coord.say_present(session.id)
