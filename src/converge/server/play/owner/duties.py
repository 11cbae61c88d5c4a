"""What the process that owns a match does by itself for it — its clock, its bots' moves, stand-ins for
players who left, a tournament's wait for players who never came — started again whenever the match
changes, is made live here, or this process takes it over (told by :mod:`converge.server.play.events`)."""

from __future__ import annotations

from converge.server.play.events import Committed, Opened, PlayEvents, SeatsElsewhere
from converge.server.play.match.session import Session
from converge.server.play.owner.bots import Bots
from converge.server.play.owner.clocks import Clocks
from converge.server.play.owner.no_shows import NoShows
from converge.server.play.owner.standins import StandIns


class Duties:
    """The clock, the bots, the stand-ins and the no-show waits of the matches of this process, restarted
    together."""

    def __init__(self, clocks: Clocks, bots: Bots, standins: StandIns, no_shows: NoShows,
                 events: PlayEvents) -> None:
        self.clocks = clocks
        self.bots = bots
        self.standins = standins
        self.no_shows = no_shows
        events.committed.subscribe(self.committed)
        events.opened.subscribe(self.opened)
        events.seats_elsewhere.subscribe(self.seats_elsewhere)
        events.taken_over.subscribe(lambda e: self.take_over(e.session))

    def after_change(self, session: Session) -> None:
        """The match moved on (or was made): a new decision began; its clock runs, and a bot plays it if it
        is a bot's."""
        session.restart_clock()
        self.clocks.schedule(session)
        self.bots.kick(session)

    def committed(self, event: Committed) -> None:
        """A move or a change of seat made here starts the decision's time again; an end stops the clock; who
        allows hints changes nothing here. A change taken in from elsewhere set the copy's clock from what was
        read: the clock and the bots follow what the match is now."""
        if event.elsewhere:
            self.clocks.schedule(event.session)
            self.bots.kick(event.session)
        elif event.change in ("moved", "seat"):
            self.after_change(event.session)
        elif event.change == "ended":
            self.clocks.schedule(event.session)

    def opened(self, event: Opened) -> None:
        """A match made here starts its first decision now; one read from the database goes on where it was
        (its decision's time since its last action), with stand-ins for the players who are away."""
        if event.loaded:
            self.take_over(event.session)
        else:
            self.after_change(event.session)
            self.no_shows.schedule(event.session)

    def seats_elsewhere(self, event: SeatsElsewhere) -> None:
        """Seats connected elsewhere need no stand-in; the clock starts once everyone came."""
        for seat in event.remote:
            self.standins.cancel(event.session, seat)
        self.clocks.start_when_all_came(event.session)
        self.standins.schedule_absent(event.session)

    def take_over(self, session: Session) -> None:
        """This process now owns the match: its clock, its bots and stand-ins for the players who are away."""
        self.clocks.schedule(session)
        self.bots.kick(session)
        self.standins.schedule_absent(session)
        self.no_shows.schedule(session)
