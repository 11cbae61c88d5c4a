"""What every play unit of one server process stands on: its settings, its life (whether it is closing, its
jobs), the wall clock, the other processes on the same database, and the events by which the units hear of
each other. Made once by the hub and shared: none of it is a unit's collaborator in its own right."""

from __future__ import annotations

from dataclasses import dataclass

from converge.server.config import ServerConfig
from converge.server.play.cluster.coordination import LocalCoordinator
from converge.server.play.events import PlayEvents
from converge.server.play.process.lifecycle import Lifecycle
from converge.server.play.process.wallclock import WallClock


@dataclass(frozen=True)
class Ground:
    """One server process's settings, life, wall clock, coordination and events."""

    config: ServerConfig
    life: Lifecycle
    wall: WallClock
    coord: LocalCoordinator
    events: PlayEvents
