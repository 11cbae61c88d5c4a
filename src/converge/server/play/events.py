"""What happens to a live match that other play units act on, told as typed events to whoever subscribed: the
unit that saw it publishes, and does not need to know who reacts (the owner's duties: clocks, bots,
stand-ins; the send path; the eviction from memory). Subscribers run at once, in the order they subscribed,
inside the publisher's step (under the match's lock where the publisher holds it), so an event changes nothing
of the order things happened in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from converge.server.play.match.session import Session
from converge.server.transport.connections import Connection

E = TypeVar("E")


@dataclass
class Topic(Generic[E]):
    """One kind of event: its subscribers, called with each event published."""

    subscribers: list[Callable[[E], None]] = field(default_factory=list)

    def subscribe(self, subscriber: Callable[[E], None]) -> None:
        self.subscribers.append(subscriber)

    def publish(self, event: E) -> None:
        for subscriber in list(self.subscribers):
            subscriber(event)


#: What a commit changed: an action was applied, the match ended outside the engine (time, resignation, a ban),
#: who plays a seat (or, read from the database, any other public fact: who is connected, a rematch), or who
#: allows hints.
Change = Literal["moved", "ended", "seat", "hints"]


@dataclass(frozen=True)
class Committed:
    """A change to the match was committed and its session took it in: by this process
    (:class:`~converge.server.play.commit.commits.Commits`), or by another one, whose news this process's copy
    took in (:class:`~converge.server.play.cluster.sync.Sync`, ``elsewhere``)."""

    session: Session
    change: Change
    #: The connection whose action this was and the action: acknowledged with the new state.
    reply: tuple[Connection, int] | None = None
    #: Taken in from another process's announcement or read again from the database, rather than committed
    #: here: the copy's clock was already set from what was read.
    elsewhere: bool = False


@dataclass(frozen=True)
class Opened:
    """The match is live in this process: made now (``loaded`` False) or read from the database."""

    session: Session
    loaded: bool


@dataclass(frozen=True)
class SeatsElsewhere:
    """Which seats of the match are connected to other processes changed; ``remote``: those seats now."""

    session: Session
    remote: frozenset[int]


@dataclass(frozen=True)
class TakenOver:
    """This process now owns the match (its owner died or let it go)."""

    session: Session


@dataclass
class PlayEvents:
    """The topics of one server process's play units."""

    committed: Topic[Committed] = field(default_factory=Topic)
    opened: Topic[Opened] = field(default_factory=Topic)
    seats_elsewhere: Topic[SeatsElsewhere] = field(default_factory=Topic)
    taken_over: Topic[TakenOver] = field(default_factory=Topic)
