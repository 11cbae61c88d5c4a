"""Puzzles in the database (:data:`~converge.server.storage.schema.puzzles_table` and its neighbours).
Functions taking ``conn`` run in the writer's transaction (the writer may run one again after a failed group:
each reads what it needs in its own transaction); those taking ``engine`` read."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, and_, func, insert, select, update

from converge.engine.schema import RecordDoc
from converge.puzzles.model import Puzzle
from converge.puzzles.rating import Rated, new_puzzle_rating, rate
from converge.ratings import Rating
from converge.server.storage.schema import (
    actions_table,
    matches_table,
    puzzle_attempts_table,
    puzzle_players_table,
    puzzle_scans_table,
    puzzles_table,
)


@dataclass(frozen=True)
class PuzzleRow:
    puzzle: Puzzle
    rating: Rating
    tried: int
    solved: int


@dataclass(frozen=True)
class Solver:
    """A player's puzzle rating and record."""

    rating: Rating
    streak: int
    best_streak: int
    tried: int
    solved: int


NEW_SOLVER = Solver(Rating(), 0, 0, 0, 0)


@dataclass(frozen=True)
class Attempted:
    """A finished attempt as stored: ``rated`` false when the player had tried the puzzle before (then
    ``rated_as`` is that first attempt's result and nothing changed)."""

    rated: bool
    solved: bool
    change: Rated
    solver: Solver


def _themes_text(themes: Iterable[str]) -> str:
    return " " + " ".join(themes) + " "


def add_puzzles(conn: Connection, puzzles: Sequence[Puzzle], source: str, now: float,
                match_id: str | None = None) -> int:
    """Store the puzzles not stored yet (by id); how many were new."""
    if not puzzles:
        return 0
    have = set(conn.execute(select(puzzles_table.c.id).where(puzzles_table.c.id.in_([p.id for p in puzzles])))
               .scalars())
    rows = [{"id": p.id, "doc": json.dumps(p.to_dict(), separators=(",", ":")), "themes": _themes_text(p.themes),
             "source": source, "match_id": match_id, "r": p.rating, "rd": new_puzzle_rating(p.rating).rd,
             "vol": new_puzzle_rating(p.rating).vol, "tried": 0, "solved": 0, "created_at": now}
            for p in puzzles if p.id not in have]
    if rows:
        conn.execute(insert(puzzles_table), rows)
    return len(rows)


def _row(m: object) -> PuzzleRow:
    d = m._mapping  # type: ignore[attr-defined]
    return PuzzleRow(Puzzle.from_dict(json.loads(d["doc"]), f"stored puzzle {d['id']}"),
                     Rating(float(d["r"]), float(d["rd"]), float(d["vol"])), int(d["tried"]), int(d["solved"]))


def puzzle(engine: Engine, puzzle_id: str) -> PuzzleRow | None:
    with engine.connect() as conn:
        found = conn.execute(select(puzzles_table).where(puzzles_table.c.id == puzzle_id)).first()
    return None if found is None else _row(found)


def nearest(engine: Engine, r: float, player_id: str | None, theme: str | None, skip: str | None) -> str | None:
    """The id of the puzzle whose rating is nearest ``r`` that the player has not tried (and not ``skip``), of
    ``theme`` if given; ties by id."""
    p = puzzles_table.c
    query = select(p.id)
    if player_id is not None:
        tried = select(puzzle_attempts_table.c.puzzle_id).where(puzzle_attempts_table.c.player_id == player_id)
        query = query.where(p.id.not_in(tried))
    if theme is not None:
        query = query.where(p.themes.contains(f" {theme} ", autoescape=True))
    if skip is not None:
        query = query.where(p.id != skip)
    with engine.connect() as conn:
        return conn.execute(query.order_by(func.abs(p.r - r), p.id).limit(1)).scalar()


def theme_counts(engine: Engine) -> dict[str, int]:
    counts: dict[str, int] = {}
    with engine.connect() as conn:
        for text in conn.execute(select(puzzles_table.c.themes)).scalars():
            for key in str(text).split():
                counts[key] = counts.get(key, 0) + 1
    return counts


def ids(engine: Engine, source: str) -> list[str]:
    with engine.connect() as conn:
        return sorted(conn.execute(select(puzzles_table.c.id).where(puzzles_table.c.source == source)).scalars())


def solver(engine: Engine, player_id: str) -> Solver:
    with engine.connect() as conn:
        return _solver(conn, player_id)


def _solver(conn: Connection, player_id: str) -> Solver:
    row = conn.execute(select(puzzle_players_table).where(puzzle_players_table.c.player_id == player_id)).first()
    if row is None:
        return NEW_SOLVER
    m = row._mapping
    return Solver(Rating(float(m["r"]), float(m["rd"]), float(m["vol"])), int(m["streak"]), int(m["best_streak"]),
                  int(m["tried"]), int(m["solved"]))


def tried(engine: Engine, player_id: str, puzzle_id: str) -> bool:
    a = puzzle_attempts_table.c
    with engine.connect() as conn:
        return conn.execute(select(a.solved).where(a.player_id == player_id, a.puzzle_id == puzzle_id)).first() \
            is not None


def record_attempt(conn: Connection, player_id: str, puzzle_id: str, solved: bool, now: float) -> Attempted:
    """A player's finished attempt: rated (both ratings move, the streak counts) when it is their first at
    this puzzle; otherwise nothing changes and the first attempt's result is returned."""
    a = puzzle_attempts_table.c
    first = conn.execute(select(puzzle_attempts_table).where(a.player_id == player_id, a.puzzle_id == puzzle_id)
                         ).first()
    me = _solver(conn, player_id)
    if first is not None:
        f = first._mapping
        change = Rated(Rating(float(f["r_before"])), Rating(float(f["r_after"])),
                       Rating(float(f["puzzle_before"])), Rating(float(f["puzzle_after"])))
        return Attempted(False, bool(f["solved"]), change, me)
    row = conn.execute(select(puzzles_table.c.r, puzzles_table.c.rd, puzzles_table.c.vol)
                       .where(puzzles_table.c.id == puzzle_id)).first()
    if row is None:
        raise LookupError(puzzle_id)
    change = rate(me.rating, Rating(float(row[0]), float(row[1]), float(row[2])), solved)
    streak = me.streak + 1 if solved else 0
    after = Solver(change.player_after, streak, max(me.best_streak, streak), me.tried + 1, me.solved + int(solved))
    conn.execute(insert(puzzle_attempts_table).values(
        player_id=player_id, puzzle_id=puzzle_id, solved=solved, at=now, r_before=change.player_before.r,
        r_after=change.player_after.r, puzzle_before=change.puzzle_before.r, puzzle_after=change.puzzle_after.r))
    values = {"r": after.rating.r, "rd": after.rating.rd, "vol": after.rating.vol, "streak": after.streak,
              "best_streak": after.best_streak, "tried": after.tried, "solved": after.solved, "updated_at": now}
    if me is NEW_SOLVER:
        conn.execute(insert(puzzle_players_table).values(player_id=player_id, **values))
    else:
        conn.execute(update(puzzle_players_table).where(puzzle_players_table.c.player_id == player_id)
                     .values(**values))
    p = puzzles_table.c
    conn.execute(update(puzzles_table).where(p.id == puzzle_id).values(
        r=change.puzzle_after.r, rd=change.puzzle_after.rd, vol=change.puzzle_after.vol, tried=p.tried + 1,
        solved=p.solved + int(solved)))
    return Attempted(True, solved, change, after)


@dataclass(frozen=True)
class AttemptRow:
    puzzle_id: str
    solved: bool
    at: float
    themes: list[str]


def attempts(engine: Engine, player_id: str) -> list[AttemptRow]:
    """The player's rated attempts, the latest first, with the puzzles' themes."""
    a, p = puzzle_attempts_table.c, puzzles_table.c
    with engine.connect() as conn:
        rows = conn.execute(select(a.puzzle_id, a.solved, a.at, p.themes)
                            .join(puzzles_table, p.id == a.puzzle_id)
                            .where(a.player_id == player_id).order_by(a.at.desc(), a.puzzle_id)).all()
    return [AttemptRow(str(r[0]), bool(r[1]), float(r[2]), str(r[3]).split()) for r in rows]


def finished_record(engine: Engine, match_id: str) -> RecordDoc | None:
    """The record of a finished match (None: it is not finished, or gone)."""
    m, a = matches_table.c, actions_table.c
    with engine.connect() as conn:
        row = conn.execute(select(m.playset, m.seed, m.start, m.decks, m.n_actions)
                           .where(m.id == match_id, m.status == "over")).first()
        if row is None:
            return None
        actions = list(conn.execute(select(a.action).where(a.match_id == match_id, a.idx < row[4])
                                    .order_by(a.idx)).scalars())
    return {"format": "converge-record", "version": 1, "playset": list(json.loads(row[0])), "seed": int(row[1]),
            "start": str(row[2]), "decks": str(row[3]), "chance": False, "actions": [int(x) for x in actions]}


def unscanned(engine: Engine, limit: int) -> list[str]:
    """Finished matches not looked at for puzzles yet, oldest first."""
    m = matches_table.c
    scanned = select(puzzle_scans_table.c.match_id)
    with engine.connect() as conn:
        return list(conn.execute(select(m.id).where(and_(m.status == "over", m.id.not_in(scanned)))
                                 .order_by(m.updated_at, m.id).limit(limit)).scalars())


def scanned(conn: Connection, match_id: str, found: Sequence[Puzzle], now: float) -> None:
    """The match was looked at (its puzzles stored): never again."""
    s = puzzle_scans_table.c
    if conn.execute(select(s.match_id).where(s.match_id == match_id)).first():
        return
    add_puzzles(conn, found, "server", now, match_id)
    conn.execute(insert(puzzle_scans_table).values(match_id=match_id, at=now, found=len(found)))
