"""The director of every event: a job each server process runs (:class:`Director`), whose step for one event
(:func:`advance`) runs in one transaction with the event's row locked — on PostgreSQL, one process at a time
pairs an event; the others wait, then find the round paired. A step starts an event whose time has come, and
once every game of the round is over pairs the next (or ends the event); the round's games are written with
the ids of their matches, which are then made. A process killed between the two leaves games whose match is
missing: the next step, by any process, makes them (a match id is made once: a second attempt is refused by
the database). Results are written in the transaction that ends each match (:func:`record_result`)."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from converge.engine.playset import SETS
from converge.server.config import ServerConfig
from converge.server.lobby.seating import Seating
from converge.server.play.match.session import Session
from converge.server.play.process.lifecycle import Lifecycle, Periodic
from converge.server.protocol.errors import ProtocolError
from converge.server.security.tokens import hash_token, new_match_id, new_token
from converge.server.storage import outbox_store as outbox
from converge.server.storage import tournament_store as store
from converge.server.storage.database import StorageError
from converge.server.storage.tournament_store import EntrantRow, GameRow, TournamentRow
from converge.server.storage.writer import Tx, Writer
from converge.tournament import arena, round_robin, swiss
from converge.tournament.games import Outcome

log = logging.getLogger("converge.server")

#: Seconds after which a game whose match does not exist is made again (its maker died before making it; a
#: younger one may be being made by another process now).
REMAKE_AFTER_S = 5.0
#: Seconds after which a match of an event that nothing changed is taken in by the director's process: a
#: match no page is connected to (two bots, or players who left) is held by no process once its owner died,
#: and nobody would play its bots or run its clock; held here, this process takes it over.
QUIET_S = 10.0


@dataclass
class Step:
    """What a step leaves to do outside its transaction: matches to make, and quiet matches to hold."""

    make: list[ToMake]
    quiet: list[str]


@dataclass(frozen=True)
class ToMake:
    """A game whose match is to be made: the event's settings and the two entrants (first at seat 0)."""

    event: TournamentRow
    game: GameRow
    first: EntrantRow
    second: EntrantRow


def advance(conn: Tx, tournament_id: str, now: float, playsets: Sequence[Sequence[str]]) -> Step:
    """One step of an event, in the caller's transaction (see the module doc)."""
    event = store.get(conn, tournament_id, lock=True)
    if event is None or event.status not in ("upcoming", "running"):
        return Step([], [])
    entrants = store.entrants(conn, tournament_id)
    if event.status == "upcoming":
        if event.starts_at is None or event.starts_at > now:
            return Step([], [])
        if not _start(conn, event, entrants, now):
            return Step([], [])
    games = store.games(conn, tournament_id)
    by_id = {e.player_id: e for e in entrants}
    pending = [g for g in games if g.outcome == "pending"]
    missing = [g for g in pending if g.match_id is not None and g.paired_at < now - REMAKE_AFTER_S
               and not store.match_exists(conn, g.match_id)]
    if event.format == "arena":
        new = _arena_wave(conn, event, entrants, games, now, playsets)
    elif pending:
        new = []
    else:
        new = _next_round(conn, event, entrants, games, now, playsets)
    quiet = store.quiet_matches(conn, [g.match_id for g in pending if g.match_id is not None and g not in missing],
                                now - QUIET_S)
    return Step([ToMake(event, g, by_id[g.first_id], by_id[g.second_id]) for g in (*missing, *new)
                 if g.match_id is not None and g.second_id is not None], quiet)


def start_now(conn: Tx, tournament_id: str, now: float) -> bool:
    """The host starts the event now (the director's next step pairs its first round); False if it cannot."""
    event = store.get(conn, tournament_id, lock=True)
    if event is None or event.status != "upcoming":
        return False
    return _start(conn, event, store.entrants(conn, tournament_id), now)


def _start(conn: Tx, event: TournamentRow, entrants: list[EntrantRow], now: float) -> bool:
    playing = [e for e in entrants if e.status == "in"]
    if len(playing) < 2:
        if event.starts_at is not None and event.starts_at <= now:
            store.set_status(conn, event.id, "cancelled", now)  # (its time came with fewer than two players)
            event.status = "cancelled"
        return False
    store.set_status(conn, event.id, "running", now, round_no=0)
    event.status, event.round, event.started_at = "running", 0, now
    return True


def _playset(event: TournamentRow, playsets: Sequence[Sequence[str]]) -> list[str]:
    """The skillsets of a round's matches: the event's own, or drawn now from the sets or from all."""
    if isinstance(event.playset, list):
        return list(event.playset)
    pool = list(SETS.values()) if event.playset == "sets" else list(playsets)
    return list(random.SystemRandom().choice(pool))


def _next_round(conn: Tx, event: TournamentRow, entrants: list[EntrantRow], games: list[GameRow], now: float,
                playsets: Sequence[Sequence[str]]) -> list[GameRow]:
    """Pair the round after the one that is over (or end the event); the new games with a match to make."""
    number = event.round + 1
    played = [g.game() for g in games]
    if event.format == "round_robin":
        table = [e.entrant() for e in entrants]
        if number > round_robin.rounds_for(len(table)):
            return _finish(conn, event, now)
        pairs = round_robin.pair_round(table, number)
    else:
        assert event.rounds is not None
        if number > event.rounds:
            return _finish(conn, event, now)
        try:
            pairs = swiss.pair_round([e.entrant() for e in entrants if e.status == "in"], played, number,
                                     event.rounds, "top" if event.first_mover == "top" else "other")
        except swiss.PairingError as exc:
            log.info("tournament %s ends after round %d: %s", event.id, event.round, exc)
            return _finish(conn, event, now)
    status = {e.player_id: e.status for e in entrants}
    playset = _playset(event, playsets)
    made: list[GameRow] = []
    for board, pair in enumerate(pairs, 1):
        game = _game_for(pair, number, board, status, now, playset)
        store.add_game(conn, event.id, game)
        if game.match_id is not None:
            made.append(game)
    store.set_status(conn, event.id, "running", now, round_no=number)
    return made


def _game_for(pair: swiss.Pairing, number: int, board: int, status: Mapping[str, str], now: float,
              playset: list[str]) -> GameRow:
    """A round's game: a bye, a forfeit to a player who withdrew (a round robin's table keeps them), or a
    match to make."""
    if pair.second is None:
        return GameRow(number, board, pair.first, None, None, "first", False, now, now)
    gone = [w for w in (pair.first, pair.second) if status.get(w) == "withdrawn"]
    if gone:
        outcome: Outcome = "drawn" if len(gone) == 2 else "second" if gone[0] == pair.first else "first"
        return GameRow(number, board, pair.first, pair.second, None, outcome, True, now, now)
    return GameRow(number, board, pair.first, pair.second, new_match_id(), "pending", False, now, None, playset)


def _arena_wave(conn: Tx, event: TournamentRow, entrants: list[EntrantRow], games: list[GameRow], now: float,
                playsets: Sequence[Sequence[str]]) -> list[GameRow]:
    """Pair whoever waits (an arena), or end it once its time is up and its last games are over."""
    assert event.started_at is not None and event.duration_s is not None
    busy = {w for g in games if g.outcome == "pending" for w in (g.first_id, g.second_id)}
    if now >= event.started_at + event.duration_s:
        return [] if busy else _finish(conn, event, now)
    waiting = []
    for e in entrants:
        if e.status != "in" or e.player_id in busy:
            continue
        mine = [g for g in games if e.player_id in (g.first_id, g.second_id)]
        last = mine[-1] if mine else None
        opponent = None if last is None else (last.second_id if last.first_id == e.player_id else last.first_id)
        since = event.started_at if last is None or last.ended_at is None else last.ended_at
        waiting.append(arena.Waiting(e.player_id, e.rating, opponent, since))
    pairs = arena.pair_waiting(waiting, now)
    if not pairs:
        return []
    number = event.round + 1
    playset = _playset(event, playsets)
    made = [GameRow(number, board, p.first, p.second, new_match_id(), "pending", False, now, None, playset)
            for board, p in enumerate(pairs, 1)]
    for game in made:
        store.add_game(conn, event.id, game)
    store.set_status(conn, event.id, "running", now, round_no=number)
    return made


def _finish(conn: Tx, event: TournamentRow, now: float) -> list[GameRow]:
    store.set_status(conn, event.id, "finished", now)
    return []


def record_result(conn: Tx, session: Session, winner: int | None) -> None:
    """A match ended: if it was a tournament's game, its result, in the same transaction (the first player
    sits at seat 0). A player who never moved in it lost by forfeit, and is paired no more until they say
    they are back: an arena's player is paused, a Swiss's withdrawn (joining again puts them back); a round
    robin's table keeps them."""
    found = store.game_of_match(conn, session.id)
    if found is None:
        return
    tournament_id, game = found
    outcome: Outcome = "drawn" if winner is None else "first" if winner == 0 else "second"
    loser = None if winner is None else 1 - winner
    forfeit = loser is not None and not any(seat == loser for seat, _clock in session.row.action_clocks)
    store.end_game(conn, tournament_id, game.round, game.board, outcome, forfeit, time.time())
    if forfeit:
        event = store.get(conn, tournament_id)
        absent = game.first_id if loser == 0 else game.second_id
        if event is not None and absent is not None and event.format != "round_robin":
            store.set_entrant(conn, tournament_id, absent, "paused" if event.format == "arena" else "withdrawn")


class Director:
    """Every event's steps, from this process (each event's, one process at a time)."""

    def __init__(self, config: ServerConfig, writer: Writer, seating: Seating, life: Lifecycle) -> None:
        self.writer = writer
        self.engine = writer.storage.engine
        self.seating = seating
        self.turn_mail_delay_s = config.turn_mail_delay_s
        #: One step at a time in this process (the host's start and the job's tick may come together).
        self._stepping = asyncio.Lock()
        self._periodic = Periodic("tournaments", "the tournaments' pairings", config.tournament_tick_s, self.tick,
                                  life)

    def start(self) -> None:
        self._periodic.start()

    async def tick(self) -> None:
        """A step of every event that is running, or due to start."""
        for tournament_id in await asyncio.to_thread(store.due, self.engine, time.time()):
            await self.step(tournament_id)

    async def step(self, tournament_id: str) -> None:
        """One step of an event (:func:`advance`), then its matches made."""
        done: list[Step] = []
        playsets = self.seating.catalog.playsets

        def write(conn: Tx) -> None:
            done.append(advance(conn, tournament_id, time.time(), playsets))

        async with self._stepping:
            await self.writer.write(write)
            for item in done[0].make:
                await self._make(item)
            for match_id in done[0].quiet:
                await self.seating.live.get(match_id)  # (held here: if no process owns it, this one takes it)

    async def _make(self, item: ToMake) -> None:
        event, game = item.event, item.game
        assert game.match_id is not None and game.playset is not None
        seats: dict[int, tuple[str | None, str]] = {}
        bots = []
        for seat, entrant in enumerate((item.first, item.second)):
            if entrant.bot is None:
                seats[seat] = (entrant.player_id, hash_token(new_token()))  # (players take keys to their seats)
            else:
                bots.append(entrant.bot)
        match_id, delay = game.match_id, self.turn_mail_delay_s

        def tell_second(conn: Tx) -> None:  # (seat 0 moves first: its turn mail tells it the match is ready)
            outbox.queue(conn, match_id, outbox.READY, 1, time.time(), delay)

        turn_based = event.move_s is not None and item.second.bot is None
        try:
            await self.seating.make_match(seats=seats, playset=game.playset, clock_ms=event.clock_ms,
                                          rated=event.rated, kind="event", payers=(), move_s=event.move_s,
                                          bot=bots[0] if bots else None, match_id=game.match_id, start="0",
                                          also=tell_second if turn_based else None)
        except (StorageError, ProtocolError) as exc:  # (made by another process, or the database is away)
            log.info("tournament %s: match %s not made now: %s", event.id, game.match_id, exc)
