"""A match's connections: admitted (a seat always, a spectator within the limits), welcomed with their view,
and seen leaving — which is what tells the owner who is there, for clocks and stand-ins."""

from __future__ import annotations

from converge.server.config import ServerConfig
from converge.server.play.cluster.coordination import LocalCoordinator
from converge.server.play.cluster.sync import Sync
from converge.server.play.match.session import EVICT, Session
from converge.server.play.owner.duties import Duties
from converge.server.play.process.housekeeping import Housekeeping
from converge.server.play.process.lifecycle import Lifecycle
from converge.server.play.viewers import broadcast
from converge.server.protocol.errors import CLOSE_FORBIDDEN, CLOSE_REPLACED, ProtocolError, restarting
from converge.server.security.limits import OpenCount
from converge.server.transport.connections import Connection


class Reception:
    """The connections of the matches of this process."""

    def __init__(self, config: ServerConfig, coord: LocalCoordinator, duties: Duties, sync: Sync,
                 housekeeping: Housekeeping, life: Lifecycle) -> None:
        self.config = config
        self.coord = coord
        self.duties = duties
        self.sync = sync
        self.housekeeping = housekeeping
        self.life = life
        #: Open spectator connections per client address (over every match).
        self.spectators = OpenCount(config.max_spectators_per_address)

    async def welcome(self, session: Session, conn: Connection) -> None:
        """Register a new connection and send it its current view.

        Seats and spectators are counted apart: a seat always gets in (beyond
        ``max_connections_per_seat`` its oldest connection is closed), a spectator only while the match
        has fewer than ``max_spectators_per_match`` and its address fewer than
        ``max_spectators_per_address`` (over the whole server)."""
        async with session.lock:
            if self.life.closing:
                raise restarting()
            if session.broken:
                raise ProtocolError("storage", "the match is being reloaded; reconnect")
            presence = session.presence
            if conn.view < 0:
                if presence.spectators() >= self.config.max_spectators_per_match:
                    raise ProtocolError("busy", "this match has as many spectators as it can take; try again "
                                                "later")
                if self.spectators.over(conn.address):
                    raise ProtocolError("busy", "too many spectator connections from your address")
            else:
                mine = presence.of_view(conn.view)
                for old in mine[:max(0, len(mine) - self.config.max_connections_per_seat + 1)]:
                    session.leave(old)
                    old.refuse(ProtocolError("replaced", "this seat connected again elsewhere; this older "
                                                         "connection is closed"))
                    old.close(CLOSE_REPLACED, "replaced by a newer connection of this seat")
            session.cancel_task(EVICT)
            if conn.view >= 0:
                self.duties.standins.cancel(session, conn.view)
                seat = session.row.seats[conn.view]
                if seat.replaced and session.active:  # back again: take the seat back from the stand-in
                    await self.duties.standins.set_seat(session, conn.view, None, False)
            session.join(conn)
            if conn.view < 0:
                self.spectators.add(conn.address)
                conn.counted = True
            if conn.view >= 0 and self.coord.multi:
                await self.coord.present(session.id, conn.view, True)
                self.life.spawn(self.coord.say_present(session.id))
            self.duties.clocks.start_when_all_came(session)
            welcome = session.views.welcome(conn.view)
            conn.events_sent = len(welcome["observation"]["events"])
            conn.send(welcome)
            broadcast.send_meta(session, skip=conn)

    @staticmethod
    def shut_out(session: Session, seat: int, error: ProtocolError) -> int:
        """Close the connections of ``seat`` here with ``error`` (its player was banned: they may reconnect to
        watch, not to play); how many there were."""
        conns = session.presence.of_view(seat)
        for conn in conns:
            conn.refuse(error)
            conn.close(CLOSE_FORBIDDEN, "this player may not play on this server")
        return len(conns)

    def leave(self, session: Session, conn: Connection) -> None:
        """``conn`` closed: the others are told; a seat's player gone from everywhere may get a stand-in."""
        session.leave(conn)
        conn.close()
        if conn.counted:
            conn.counted = False
            self.spectators.discard(conn.address)
        if self.life.closing:
            return
        view = conn.view
        if view >= 0 and not session.presence.connected_here(view) and self.coord.multi:
            self.life.spawn(self.sync.gone_here(session, view))
        if view >= 0 and not session.presence.connected(view):
            self.duties.standins.schedule(session, view)
        broadcast.send_meta(session)
        self.housekeeping.schedule_evict(session)
