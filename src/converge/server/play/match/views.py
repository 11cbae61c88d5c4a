"""What a live match's connections are sent, each viewer's own: the match's public facts, the whole view of a
new connection, the message of a new state and the table's extras (:class:`SessionViews`, a session's
``views``). It reads the session and never changes it; it keeps each view's observer, which remembers the
events described so far, so that only what is new is sent."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from converge.engine.observation import Observer
from converge.engine.schema import Observation
from converge.server.play.match.turnlog import follow_ups
from converge.server.protocol.messages import (
    ClockInfo,
    FollowUps,
    MatchMeta,
    MatchView,
    State,
    TableExtras,
    TurnInfo,
    Welcome,
)

if TYPE_CHECKING:
    from converge.server.play.match.session import Session


class SessionViews:
    """The messages of one live match (``session``), for each viewer: a seat's, or -1 for spectators."""

    def __init__(self, session: Session) -> None:
        self._session = session
        #: Each view's observer (the events described so far), for sending only what is new.
        self._observers: dict[int, Observer] = {}

    def meta(self) -> MatchMeta:
        """Public facts about the match (never the seed, the record or anything hidden)."""
        session = self._session
        row, match = session.row, session.match
        now = time.monotonic()
        clock: ClockInfo | None = None
        if row.clock_ms is not None:
            running = match.current_player if session.active and session.clock.started else -1
            if running >= 0 and session.is_bot(running):
                running = -1
            clock = {"initial_ms": row.clock_ms,
                     "left_ms": [session.clock_left(0, now), session.clock_left(1, now)], "running": running}
        turn: TurnInfo | None = None
        if row.move_s is not None:
            deadline = row.deadline(match.current_player) if session.active else None
            turn = {"move_s": row.move_s, "deadline": None if deadline is None else round(deadline, 3),
                    "running": match.current_player if deadline is not None else -1,
                    "vacation_left_s": [round(s.vacation_left_s or 0.0) for s in row.seats]}
        presence = session.presence
        return {
            "id": row.id,
            "mode": row.mode,
            "status": "over" if row.status == "over" else "active",
            "playset": list(match.playset.skillsets),
            "seq": row.n_actions,
            "seats": [session.seating.info(s.seat, s.bot, s.replaced, presence.connected(s.seat))
                      for s in row.seats],
            "spectators": presence.spectators(),
            "clock": clock,
            "turn": turn,
            "result": ({"winner": row.winner, "reason": row.reason} if row.status == "over" else None),
            "rematch_id": row.rematch_id,
            "rematch_of": row.rematch_of,
            "hints": {"on": session.hints_on, "allowed": [row.mode == "bot" or bool(row.hints >> p & 1)
                                                         for p in (0, 1)],
                      "why_off": session.hints_off},
            "rated": session.rated,
        }

    def observer(self, viewer: int) -> Observer:
        """The view's observer of this match (made on first use)."""
        got = self._observers.get(viewer)
        if got is None:
            got = self._observers[viewer] = Observer(self._session.match, viewer)
        return got

    def match_view(self, viewer: int) -> MatchView:
        """``viewer``'s whole view of the match: its facts, its cards, the observation and the table's extras
        (the HTTP view, and the welcome of a connection)."""
        session = self._session
        extras = self.table(viewer, welcome=True)
        return {"seat": viewer, "match": self.meta(), "cards": session.catalog, "colors": session.colors,
                "seq": session.seq, "observation": session.match.observation(viewer), "next": extras["next"],
                "rounds": extras.get("rounds", []), "last_turn": extras.get("last_turn")}

    def welcome(self, viewer: int) -> Welcome:
        """The first message of a connection of ``viewer``: the match, its cards and the whole view."""
        return {"type": "welcome", **self.match_view(viewer)}

    def state(self, viewer: int, observation: Observation, events_from: int,
              meta: MatchMeta | None = None) -> State:
        """The message of ``viewer``'s new state: ``observation`` holds its events from ``events_from`` on
        (``meta``: this match's :meth:`meta`, when the caller has it already)."""
        extras = self.table(viewer)
        return {"type": "state", "seq": self._session.seq, "match": self.meta() if meta is None else meta,
                "observation": observation, "events_from": events_from, "next": extras["next"],
                "turns": extras.get("turns", [])}

    def table(self, viewer: int, welcome: bool = False) -> TableExtras:
        """What the table shows beyond the observation, for ``viewer``: the choices of theirs that can be
        held and taken back (``next``), the ends of turn the last action brought (``turns``) and, for a
        new connection, every finished round and the last end of turn."""
        session = self._session
        log = session.turnlog
        nxt: FollowUps = follow_ups(session.match, viewer) if viewer >= 0 and session.active else {}
        if welcome:
            return {"next": nxt, "rounds": [log.summary(s, viewer) for s in log.rounds()],
                    "last_turn": log.summary(log.turns[-1], viewer) if log.turns else None}
        return {"next": nxt, "turns": [log.summary(s, viewer) for s in session.new_turns]}
