"""Tournaments in the database: the events, their entrants and each round's games (:mod:`.schema`). Rows in,
rows out; the rules that pair and rank them are :mod:`converge.tournament`'s."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Engine, delete, func, insert, select, update
from sqlalchemy.engine import Row, RowMapping

from converge.server.storage.database import Refused
from converge.server.storage.schema import (
    matches_table,
    tournament_entrants_table,
    tournament_games_table,
    tournaments_table,
)
from converge.server.storage.writer import Tx
from converge.tournament.games import Entrant, Game, Outcome
from converge.tournament.standings import Format

Status = Literal["upcoming", "running", "paused", "finished", "cancelled"]
EntrantStatus = Literal["in", "paused", "withdrawn"]
#: A playset rule: three skillsets for every match, or drawn for each round from the sets or from all.
PlaysetRule = list[str] | Literal["sets", "all"]


@dataclass
class TournamentRow:
    id: str
    name: str
    format: Format
    status: Status
    host_id: str
    rounds: int | None
    duration_s: int | None
    clock_ms: int | None
    move_s: int | None
    rated: bool
    playset: PlaysetRule
    starts_at: float | None
    max_players: int
    link_hash: str | None
    round: int
    first_mover: str
    created_at: float
    started_at: float | None = None
    ended_at: float | None = None

    def values(self) -> dict[str, object]:
        doc = dict(self.__dict__)
        doc["playset"] = json.dumps(self.playset)
        return doc


@dataclass(frozen=True)
class EntrantRow:
    player_id: str
    joined: int
    joined_at: float
    rating: float
    name: str | None
    status: EntrantStatus

    def entrant(self) -> Entrant:
        return Entrant(self.player_id, self.rating, self.joined)

    @property
    def bot(self) -> str | None:
        """The bot level of a bot entrant (``bot:<level>:<n>``), else None."""
        return self.player_id.split(":")[1] if self.player_id.startswith("bot:") else None


@dataclass(frozen=True)
class GameRow:
    round: int
    board: int
    first_id: str
    second_id: str | None
    match_id: str | None
    outcome: Outcome
    forfeit: bool
    paired_at: float
    ended_at: float | None
    playset: list[str] | None = None  #: the match's skillsets (None: a bye, or a forfeit with no match)

    def game(self) -> Game:
        return Game(self.round, self.first_id, self.second_id, self.outcome, self.forfeit)


def _tournament(row: Row[tuple[object, ...]]) -> TournamentRow:
    doc = {c.name: row._mapping[c.name] for c in tournaments_table.columns}
    doc["playset"] = json.loads(str(doc["playset"]))
    doc["rated"] = bool(doc["rated"])
    return TournamentRow(**doc)


def create(conn: Tx, row: TournamentRow) -> None:
    conn.execute(insert(tournaments_table).values(**row.values()))


def get(conn: Tx, tournament_id: str, *, lock: bool = False) -> TournamentRow | None:
    """The event, or None; ``lock``: its row locked to the end of the transaction (PostgreSQL), so that one
    process at a time pairs or changes it (another waits, then sees what the first did)."""
    q = select(tournaments_table).where(tournaments_table.c.id == tournament_id)
    row = conn.execute(q.with_for_update() if lock else q).first()
    return None if row is None else _tournament(row)


def read_event(engine: Engine, tournament_id: str) -> TournamentRow | None:
    with engine.connect() as conn:
        return get(conn, tournament_id)


def read(engine: Engine, tournament_id: str) -> tuple[TournamentRow, list[EntrantRow], list[GameRow]] | None:
    """An event with its entrants and games, read together."""
    with engine.connect() as conn:
        row = get(conn, tournament_id)
        if row is None:
            return None
        return row, entrants(conn, tournament_id), games(conn, tournament_id)


def listing(engine: Engine, statuses: tuple[Status, ...], limit: int = 100,
            clubs: bool = False) -> list[tuple[TournamentRow, int]]:
    """Events in ``statuses`` (clubs' events, reached by their link, only with ``clubs``), soonest first, with
    how many entrants each."""
    t, e = tournaments_table.c, tournament_entrants_table.c
    count = (select(func.count()).where(e.tournament_id == t.id, e.status != "withdrawn")
             .correlate(tournaments_table).scalar_subquery())
    q = select(tournaments_table, count.label("players")).where(t.status.in_(statuses))
    if not clubs:
        q = q.where(t.link_hash.is_(None))
    q = q.order_by(t.starts_at.is_(None), t.starts_at, t.created_at).limit(limit)
    with engine.connect() as conn:
        return [(_tournament(r), int(r.players)) for r in conn.execute(q)]


def due(engine: Engine, now: float) -> list[str]:
    """The events the director looks after: running, and upcoming ones whose start time has come."""
    t = tournaments_table.c
    q = select(t.id).where((t.status == "running") | ((t.status == "upcoming") & (t.starts_at <= now)))
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(q)]


def entrants(conn: Tx, tournament_id: str) -> list[EntrantRow]:
    e = tournament_entrants_table.c
    q = (select(e.player_id, e.joined, e.joined_at, e.rating, e.name, e.status)
         .where(e.tournament_id == tournament_id).order_by(e.joined))
    return [EntrantRow(*r) for r in conn.execute(q)]


class Full(Refused):
    """The event has as many players as it takes."""


def join(conn: Tx, tournament_id: str, player_id: str, name: str | None, rating: float, now: float) -> bool:
    """Enter ``player_id`` (back in, if they had withdrawn); False if they were in already. Refused when the
    event is full. The caller checks the event takes entrants now."""
    e = tournament_entrants_table.c
    row = get(conn, tournament_id, lock=True)
    assert row is not None
    mine = conn.execute(select(e.status).where(e.tournament_id == tournament_id, e.player_id == player_id)).first()
    if mine is not None and mine[0] != "withdrawn":
        return False
    playing = conn.execute(select(func.count()).where(e.tournament_id == tournament_id,
                                                      e.status != "withdrawn")).scalar_one()
    if playing >= row.max_players:
        raise Full(f"the event takes {row.max_players} players and has them")
    if mine is not None:
        set_entrant(conn, tournament_id, player_id, "in")
        return True
    joined = conn.execute(select(func.count()).where(e.tournament_id == tournament_id)).scalar_one()
    conn.execute(insert(tournament_entrants_table).values(
        tournament_id=tournament_id, player_id=player_id, joined=int(joined), joined_at=now, rating=rating,
        name=name, status="in"))
    return True


def withdraw_everywhere(conn: Tx, player_id: str) -> list[str]:
    """Take a player out of every event not over (a banned player): out of those not started, withdrawn from
    the others. The events they were in."""
    t, e = tournaments_table.c, tournament_entrants_table.c
    joined = tournament_entrants_table.join(tournaments_table, t.id == e.tournament_id)
    not_over = t.status.in_(("upcoming", "running", "paused"))
    mine = (e.player_id == player_id) & (e.status != "withdrawn")
    q = select(t.id, t.status).select_from(joined).where(mine, not_over)
    events = [(str(tid), str(status)) for tid, status in conn.execute(q)]
    for tid, status in events:
        if status == "upcoming":
            leave(conn, tid, player_id)
        else:
            set_entrant(conn, tid, player_id, "withdrawn")
    return [tid for tid, _status in events]


def set_entrant(conn: Tx, tournament_id: str, player_id: str, status: EntrantStatus) -> bool:
    """Change an entrant's status; False if they are not an entrant."""
    e = tournament_entrants_table.c
    done = conn.execute(update(tournament_entrants_table)
                        .where(e.tournament_id == tournament_id, e.player_id == player_id).values(status=status))
    return bool(done.rowcount)


_GAME = tuple(tournament_games_table.c[name] for name in (
    "round", "board", "first_id", "second_id", "match_id", "outcome", "forfeit", "paired_at", "ended_at",
    "playset"))


def _game(r: RowMapping) -> GameRow:
    return GameRow(r["round"], r["board"], r["first_id"], r["second_id"], r["match_id"], r["outcome"],
                   bool(r["forfeit"]), r["paired_at"], r["ended_at"],
                   None if r["playset"] is None else list(json.loads(r["playset"])))


def games(conn: Tx, tournament_id: str) -> list[GameRow]:
    g = tournament_games_table.c
    q = select(*_GAME).where(g.tournament_id == tournament_id).order_by(g.round, g.board)
    return [_game(r) for r in conn.execute(q).mappings()]


def add_game(conn: Tx, tournament_id: str, game: GameRow) -> None:
    values = dict(game.__dict__)
    values["playset"] = None if game.playset is None else json.dumps(game.playset)
    conn.execute(insert(tournament_games_table).values(tournament_id=tournament_id, **values))


def game_of_match(conn: Tx, match_id: str) -> tuple[str, GameRow] | None:
    """The event and game a match was played for, if any."""
    g = tournament_games_table.c
    row = conn.execute(select(g.tournament_id, *_GAME).where(g.match_id == match_id)).mappings().first()
    return None if row is None else (str(row["tournament_id"]), _game(row))


def quiet_matches(conn: Tx, match_ids: list[str], since: float) -> list[str]:
    """Of ``match_ids``, the matches in play that nothing has changed since ``since``."""
    m = matches_table.c
    q = select(m.id).where(m.id.in_(match_ids), m.status == "active", m.updated_at < since)
    return [str(r[0]) for r in conn.execute(q)] if match_ids else []


def match_exists(conn: Tx, match_id: str) -> bool:
    return conn.execute(select(matches_table.c.id).where(matches_table.c.id == match_id)).first() is not None


def leave(conn: Tx, tournament_id: str, player_id: str) -> None:
    """Take an entrant out of an event that has not started (they never played: nothing of them is kept)."""
    e = tournament_entrants_table.c
    conn.execute(delete(tournament_entrants_table).where(e.tournament_id == tournament_id,
                                                         e.player_id == player_id))


def end_game(conn: Tx, tournament_id: str, round_no: int, board: int, outcome: Outcome, forfeit: bool,
             now: float) -> bool:
    """Record a game's result, once: False if it had one already (nothing is changed)."""
    g = tournament_games_table.c
    done = conn.execute(update(tournament_games_table)
                        .where(g.tournament_id == tournament_id, g.round == round_no, g.board == board,
                               g.outcome == "pending")
                        .values(outcome=outcome, forfeit=forfeit, ended_at=now))
    return bool(done.rowcount)


def set_status(conn: Tx, tournament_id: str, status: Status, now: float, round_no: int | None = None) -> None:
    values: dict[str, object] = {"status": status}
    if round_no is not None:
        values["round"] = round_no
    if status == "running":
        values["started_at"] = func.coalesce(tournaments_table.c.started_at, now)
    if status in ("finished", "cancelled"):
        values["ended_at"] = now
    conn.execute(update(tournaments_table).where(tournaments_table.c.id == tournament_id).values(**values))
