"""What players and hosts do with events: create one, join and withdraw, start, pause and cancel (its host),
add bots to an unrated one; and what anyone reads of them: the list, an event's standings and rounds, and a
player's next match. Nothing private reaches a reader: entrants are named as the table names them, never by
their ids; a club's event is reached only by its link."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from typing import Literal

from converge.server.lobby.players import Players
from converge.server.lobby.ratings import BOT_RATINGS, OFFERED_BOTS
from converge.server.lobby.seating import Seating
from converge.server.play.match.catalog import Catalog
from converge.server.protocol.answers import (
    EventGame,
    EventList,
    EventRound,
    EventSummary,
    EventView,
    ListedEvent,
    StandingRow,
    YourPlace,
)
from converge.server.protocol.errors import ProtocolError
from converge.server.security.tokens import hash_token, new_match_id, new_token
from converge.server.storage import tournament_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.tournament_store import EntrantRow, GameRow, PlaysetRule, TournamentRow
from converge.server.storage.writer import Tx, Writer
from converge.server.tournaments import director
from converge.tournament import round_robin
from converge.tournament.standings import Format, standings

#: What an event's host (or the server's hosts) may do to it.
HostVerb = Literal["start", "pause", "resume", "cancel"]
#: What each of them but the start makes of the event.
AFTER: dict[str, store.Status] = {"pause": "paused", "resume": "running", "cancel": "cancelled"}
#: The bounds of a Swiss's rounds and an arena's minutes.
MAX_ROUNDS = 15
ARENA_MAX_MINUTES = 720


class Tournaments:
    """The events of one server process (their director runs beside)."""

    def __init__(self, players: Players, seating: Seating, writer: Writer, directing: director.Director) -> None:
        self.players = players
        self.catalog: Catalog = seating.catalog
        self.writer = writer
        self.engine = players.engine
        self.max_players = self.catalog.config.tournament_max_players
        self.arena_minutes = (self.catalog.config.arena_min_minutes, ARENA_MAX_MINUTES)
        self.director = directing

    # ------------------------------------------------------------------ hosts

    async def create(self, cookie: str | None, *, name: str, fmt: Format, rounds: int | None,
                     minutes: int | None, clock: int | None, move_hours: int | None, rated: bool,
                     playset: object, starts_at: float | None, max_players: int,
                     private: bool) -> tuple[str, str | None]:
        """A new event hosted by the caller: its id, and the link token of a club's (private) event."""
        host = await self.players.may_play(cookie)
        if host.name is None:
            raise ProtocolError("no_player", "choose a name before you host an event: its players see it")
        title = " ".join(name.split())[:64]
        if not title:
            raise ProtocolError("malformed", "an event needs a name")
        rule: PlaysetRule
        if playset in ("sets", "all"):
            rule = "sets" if playset == "sets" else "all"
            settings = self.catalog.check("friend", None, None, 0, clock, move_hours)
        else:
            settings = self.catalog.check("friend", playset, None, 0, clock, move_hours)
            rule = settings.playset
        if fmt == "swiss":
            if rounds is None or not 1 <= rounds <= MAX_ROUNDS:
                raise ProtocolError("malformed", f"a Swiss has 1 to {MAX_ROUNDS} rounds (\"rounds\")")
        elif fmt == "arena":
            lo, hi = self.arena_minutes
            if minutes is None or not lo <= minutes <= hi:
                raise ProtocolError("malformed", f"an arena lasts {lo} to {hi} minutes (\"minutes\")")
            if settings.move_s is not None:
                raise ProtocolError("malformed", "an arena is played on a live clock, not days a move")
        cap = round_robin.MAX_PLAYERS if fmt == "round_robin" else self.max_players
        if not 2 <= max_players <= cap:
            raise ProtocolError("malformed", f"\"max_players\" is 2 to {cap} for this format")
        if settings.clock_ms is None and settings.move_s is None:
            raise ProtocolError("malformed", "an event's matches have a clock (\"clock\") or a time per move "
                                             "(\"move_hours\"): a player who leaves must not stop the event")
        now = time.time()
        if starts_at is not None and starts_at < now - 60:
            raise ProtocolError("malformed", "\"starts_at\" is in the past")
        link = new_token() if private else None
        row = TournamentRow(
            id=new_match_id(), name=title, format=fmt, status="upcoming", host_id=host.id,
            rounds=rounds if fmt == "swiss" else None, duration_s=None if minutes is None else minutes * 60,
            clock_ms=settings.clock_ms, move_s=settings.move_s, rated=rated, playset=rule, starts_at=starts_at,
            max_players=max_players, link_hash=None if link is None else hash_token(link),
            round=0, first_mover="top" if secrets.randbelow(2) else "other", created_at=now)
        await self._write(lambda conn: store.create(conn, row))
        return row.id, link

    async def host_action(self, cookie: str | None, tournament_id: str, what: HostVerb) -> None:
        """The event's host starts, pauses, resumes or cancels it."""
        await self.act(await self._hosted(cookie, tournament_id), what)

    async def act(self, event: TournamentRow, what: HostVerb) -> None:
        """Start the event now, pause it (no new round is paired; the matches in play go on), resume it, or
        cancel it (its matches in play go on, unscored): for its host, or for the server's hosts."""
        now = time.time()
        if what == "start":
            started: list[bool] = []
            await self._write(lambda conn: started.append(director.start_now(conn, event.id, now)))
            if not started[0]:
                raise ProtocolError("tournament_closed", "the event can start once it has two players, and only "
                                                         "once")
            await self.director.step(event.id)
            return
        allowed = {"pause": ("running",), "resume": ("paused",), "cancel": ("upcoming", "running", "paused")}[what]
        if event.status not in allowed:
            raise ProtocolError("tournament_closed", {
                "pause": "only a running event can be paused", "resume": "only a paused event can be resumed",
                "cancel": "the event is over"}[what])
        status = AFTER[what]
        await self._write(lambda conn: store.set_status(conn, event.id, status, now))

    async def add_bots(self, cookie: str | None, tournament_id: str, level: str, count: int) -> None:
        """The host adds ``count`` bots of ``level`` to an unrated event that has not started."""
        event = await self._hosted(cookie, tournament_id)
        if event.rated:
            raise ProtocolError("malformed", "bots play only in unrated events")
        if level not in OFFERED_BOTS:
            raise ProtocolError("malformed", f"\"level\" is one of {', '.join(OFFERED_BOTS)}")
        if not 1 <= count <= event.max_players:
            raise ProtocolError("malformed", f"\"count\" is 1 to {event.max_players}")
        self._open(event)
        now = time.time()

        def add(conn: Tx) -> None:
            have = sum(1 for e in store.entrants(conn, event.id) if e.bot is not None)
            for n in range(have + 1, have + count + 1):
                store.join(conn, event.id, f"bot:{level}:{n}", None, BOT_RATINGS[level], now)

        await self._write(add)

    # ------------------------------------------------------------------ players

    async def join(self, cookie: str | None, tournament_id: str, link: str | None) -> None:
        player = await self.players.may_play(cookie)
        event = await self._event(tournament_id, link)
        self._open(event)
        if event.rated and player.name is None:
            raise ProtocolError("no_player", "a rated event is for named players: choose a name first")
        await self._write(lambda conn: store.join(conn, event.id, player.id, player.name, player.rating.r,
                                                  time.time()))

    async def withdraw(self, cookie: str | None, tournament_id: str) -> None:
        """Out of the event: before it starts, as if never in; after, no more pairings (a round robin counts
        the games left as lost)."""
        player = await self.players.need_player(cookie)
        event = await self._event(tournament_id, None, any_link=True)
        if event.status in ("finished", "cancelled"):
            raise ProtocolError("tournament_closed", "the event is over")
        if event.status == "upcoming":
            await self._write(lambda conn: store.leave(conn, event.id, player.id))
        else:
            await self._write(lambda conn: store.set_entrant(conn, event.id, player.id, "withdrawn"))

    async def take_break(self, cookie: str | None, tournament_id: str, paused: bool) -> None:
        """A player of an arena pauses (they are paired no more until they come back) or comes back."""
        player = await self.players.may_play(cookie)
        event = await self._event(tournament_id, None, any_link=True)
        if event.format != "arena" or event.status in ("finished", "cancelled"):
            raise ProtocolError("tournament_closed", "only a player of an arena that is not over may pause")
        done: list[bool] = []

        def change(conn: Tx) -> None:
            mine = [e for e in store.entrants(conn, event.id) if e.player_id == player.id]
            if mine and mine[0].status != "withdrawn":
                done.append(store.set_entrant(conn, event.id, player.id, "paused" if paused else "in"))

        await self._write(change)
        if not done:
            raise ProtocolError("not_found", "you are not in this event")

    # ------------------------------------------------------------------ readers

    async def listing(self) -> EventList:
        rows = await asyncio.to_thread(store.listing, self.engine, ("upcoming", "running", "paused", "finished"))
        out: EventList = {"upcoming": [], "running": [], "finished": []}
        for event, players in rows:
            part = out["upcoming"] if event.status == "upcoming" else out["finished"] \
                if event.status == "finished" else out["running"]
            part.append(_listed(event, players))
        return out

    async def view(self, cookie: str | None, tournament_id: str, link: str | None) -> EventView:
        """An event as anyone with its link (or any event open to all) reads it: settings, standings, rounds;
        and for the caller, whether they are in and their match now."""
        event = await self._event(tournament_id, link, any_link=False)
        found = await asyncio.to_thread(store.read, self.engine, event.id)
        assert found is not None
        event, entrants, games = found
        player = await self.players.player_of(cookie)
        return view_doc(event, entrants, games, None if player is None else player.id,
                        self.catalog.config.no_show_s)

    # ------------------------------------------------------------------ helpers

    async def listing_for_hosts(self) -> list[ListedEvent]:
        """Every event, a club's too (the server's hosts see them all), with its id."""
        statuses: tuple[store.Status, ...] = ("upcoming", "running", "paused", "finished", "cancelled")
        rows = await asyncio.to_thread(store.listing, self.engine, statuses, 500, True)
        return [_listed(event, players) for event, players in rows]

    async def event(self, tournament_id: str) -> TournamentRow:
        """An event by its id, a club's too (for the server's hosts)."""
        return await self._event(tournament_id, None, any_link=True)

    async def _event(self, tournament_id: str, link: str | None, any_link: bool = False) -> TournamentRow:
        found = await asyncio.to_thread(store.read_event, self.engine, tournament_id)
        if found is None or (found.link_hash is not None and not any_link
                             and (link is None or hash_token(link) != found.link_hash)):
            raise ProtocolError("not_found", "no such event (a club's event is reached by its link)")
        return found

    async def _hosted(self, cookie: str | None, tournament_id: str) -> TournamentRow:
        player = await self.players.need_player(cookie)
        event = await self._event(tournament_id, None, any_link=True)
        if event.host_id != player.id:
            raise ProtocolError("not_host", "only the event's host may do that")
        return event

    @staticmethod
    def _open(event: TournamentRow) -> None:
        why = closed_to_entrants(event)
        if why is not None:
            raise ProtocolError("tournament_closed", why)

    async def _write(self, fn: Callable[[Tx], object]) -> None:
        try:
            await self.writer.write(fn)
        except store.Full as exc:
            raise ProtocolError("tournament_full", str(exc)) from None
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; nothing changed: try again") from None


def closed_to_entrants(event: TournamentRow) -> str | None:
    """Why the event takes no more players, or None if it does: an event takes them until it starts; then a
    Swiss until more than half its rounds have started (lichess's rule: a late joiner scores nothing for the
    rounds they missed), an arena until its end, paused or not; a round robin's table is fixed at the start."""
    going = event.status in ("running", "paused")  # (a paused event's players may still come and go)
    if event.status == "upcoming" or (going and event.format == "arena"):
        return None
    if going and event.format == "swiss" and event.rounds is not None:
        if event.round * 2 <= event.rounds:
            return None
        return "more than half of this Swiss's rounds have started: it takes no more players"
    return "the event takes no more players"


def _summary(event: TournamentRow) -> EventSummary:
    return {"id": event.id, "name": event.name, "format": event.format, "status": event.status,
            "rounds": event.rounds, "minutes": None if event.duration_s is None else event.duration_s // 60,
            "clock_s": None if event.clock_ms is None else event.clock_ms // 1000,
            "move_hours": None if event.move_s is None else event.move_s // 3600, "rated": event.rated,
            "playset": event.playset, "starts_at": event.starts_at, "max_players": event.max_players,
            "round": event.round, "private": event.link_hash is not None}


def _listed(event: TournamentRow, players: int) -> ListedEvent:
    return {**_summary(event), "players": players}


def display_name(entrant: EntrantRow) -> str:
    if entrant.bot is not None:
        return f"Bot ({entrant.bot.capitalize()}) {entrant.player_id.rsplit(':', 1)[1]}"
    return entrant.name or "Anonymous"


def view_doc(event: TournamentRow, entrants: list[EntrantRow], games: list[GameRow], me: str | None,
             no_show_s: float) -> EventView:
    """The event as its page shows it: entrants by their number in the table (never their ids), and the
    server's no-show wait if its matches are live (``no_show_s``; 0: none)."""
    number = {e.player_id: n for n, e in enumerate(entrants, 1)}
    rows = standings(event.format, [e.entrant() for e in entrants], [g.game() for g in games])
    by_id = {e.player_id: e for e in entrants}
    table: list[StandingRow] = [
        {"rank": r.rank, "player": number[r.ident], "name": display_name(by_id[r.ident]), "points": r.points,
         "played": r.played, "won": r.won, "buchholz": r.buchholz, "sonneborn_berger": r.sonneborn_berger,
         "direct": r.direct, "withdrawn": by_id[r.ident].status == "withdrawn"} for r in rows]
    rounds: dict[int, list[EventGame]] = {}
    for g in games:
        rounds.setdefault(g.round, []).append(
            {"board": g.board, "first": number[g.first_id],
             "second": None if g.second_id is None else number[g.second_id], "outcome": g.outcome,
             "forfeit": g.forfeit, "match_id": g.match_id})
    mine: YourPlace | None = None
    if me is not None and me in number:
        live = [g for g in games if g.outcome == "pending" and me in (g.first_id, g.second_id)]
        mine = {"player": number[me], "status": by_id[me].status, "match_id": live[-1].match_id if live else None,
                "seat": None if not live else (0 if live[-1].first_id == me else 1)}
    pairings: list[EventRound] = [{"round": n, "games": rounds[n]} for n in sorted(rounds)]
    return {**_summary(event), "standings": table, "pairings": pairings, "you": mine,
            "host": me is not None and me == event.host_id, "joinable": closed_to_entrants(event) is None,
            "no_show_s": round(no_show_s) if no_show_s and event.move_s is None else None}


__all__ = ["Tournaments", "view_doc"]
