"""Follows and challenges in the database (:data:`~converge.server.storage.schema.follows_table`,
:data:`~converge.server.storage.schema.challenges_table`). Functions taking ``conn`` run in the writer's
transaction; those taking ``engine`` read."""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, and_, delete, insert, or_, select, update

from converge.ratings import Rating
from converge.server.storage.database import Refused
from converge.server.storage.schema import (
    challenges_table,
    follows_table,
    match_players_table,
    matches_table,
    players_table,
)

#: The most friends one player may follow (a bound on the friends list's size).
MAX_FOLLOWS = 200


@dataclass(frozen=True)
class Person:
    """A named player as follows and challenges need them (the id stays on the server)."""

    id: str
    name: str
    rating: Rating
    games: int
    banned: bool
    friends_only: bool
    email: str | None
    notify_turns: bool


@dataclass(frozen=True)
class ChallengeRow:
    id: str
    from_id: str
    to_id: str
    playset: list[str]
    clock_ms: int | None
    move_s: int | None
    rated: bool
    status: str
    created_at: float
    expires_at: float
    match_id: str | None


def _person(row: object) -> Person:
    m = row._mapping  # type: ignore[attr-defined]
    return Person(str(m["id"]), str(m["name"]), Rating(float(m["r"]), float(m["rd"]), float(m["vol"])),
                  int(m["games"]), m["banned_at"] is not None, bool(m["friends_only"]), m["email"],
                  bool(m["notify_turns"]))


def _challenge(row: object) -> ChallengeRow:
    m = row._mapping  # type: ignore[attr-defined]
    return ChallengeRow(str(m["id"]), str(m["from_id"]), str(m["to_id"]), list(json.loads(m["playset"])),
                        m["clock_ms"], m["move_s"], bool(m["rated"]), str(m["status"]), float(m["created_at"]),
                        float(m["expires_at"]), m["match_id"])


_PERSON = (players_table.c.id, players_table.c.name, players_table.c.r, players_table.c.rd, players_table.c.vol,
           players_table.c.games, players_table.c.banned_at, players_table.c.friends_only, players_table.c.email,
           players_table.c.notify_turns)


def person_by_key(engine: Engine, key: str) -> Person | None:
    """The named player whose name has this key (:func:`converge.server.lobby.identity.name_key`)."""
    with engine.connect() as conn:
        row = conn.execute(select(*_PERSON).where(players_table.c.name_key == key,
                                                  players_table.c.name.is_not(None))).first()
    return None if row is None else _person(row)


def people_by_ids(engine: Engine, ids: list[str]) -> dict[str, Person]:
    """The named players among ``ids``, by id."""
    if not ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(select(*_PERSON).where(players_table.c.id.in_(ids),
                                                   players_table.c.name.is_not(None))).all()
    return {p.id: p for p in map(_person, rows)}


# ---------------------------------------------------------------------- follows


class TooMany(Refused):
    """The player follows as many players as they may."""


def follow(conn: Connection, follower_id: str, followed_id: str, at: float) -> None:
    """``follower_id`` follows ``followed_id`` (again: nothing changes)."""
    f = follows_table.c
    if conn.execute(select(f.at).where(f.follower_id == follower_id, f.followed_id == followed_id)).first():
        return
    count = len(conn.execute(select(f.followed_id).where(f.follower_id == follower_id)).all())
    if count >= MAX_FOLLOWS:
        raise TooMany(f"you follow {MAX_FOLLOWS} players already: unfollow one first")
    conn.execute(insert(follows_table).values(follower_id=follower_id, followed_id=followed_id, at=at))


def unfollow(conn: Connection, follower_id: str, followed_id: str) -> bool:
    """Whether ``follower_id`` followed ``followed_id`` (and no longer does)."""
    f = follows_table.c
    done = conn.execute(delete(follows_table).where(f.follower_id == follower_id, f.followed_id == followed_id))
    return bool(done.rowcount)


def followed(engine: Engine, follower_id: str) -> list[str]:
    """The ids of the players ``follower_id`` follows, oldest follow first."""
    f = follows_table.c
    with engine.connect() as conn:
        return [str(i) for i in conn.execute(select(f.followed_id).where(f.follower_id == follower_id)
                                             .order_by(f.at)).scalars()]


def follows(engine: Engine, follower_id: str, followed_id: str) -> bool:
    f = follows_table.c
    with engine.connect() as conn:
        return conn.execute(select(f.at).where(f.follower_id == follower_id,
                                               f.followed_id == followed_id)).first() is not None


@dataclass(frozen=True)
class PlayerMatch:
    """A match of a player's, as the friends list reads it."""

    player_id: str
    match_id: str
    seat: int
    updated_at: float  #: when the match last changed (a move, its end)
    active: bool  #: in progress


def matches_of(engine: Engine, player_ids: list[str], since: float) -> list[PlayerMatch]:
    """These players' matches in progress, and those that changed since ``since`` (just finished), newest
    first."""
    if not player_ids:
        return []
    mp, m = match_players_table.c, matches_table.c
    q = (select(mp.player_id, mp.match_id, mp.seat, m.updated_at, m.status)
         .join(matches_table, m.id == mp.match_id)
         .where(mp.player_id.in_(player_ids), or_(m.status == "active", m.updated_at >= since))
         .order_by(m.updated_at.desc()).limit(500))
    with engine.connect() as conn:
        return [PlayerMatch(str(p), str(i), int(seat), float(t), s == "active")
                for p, i, seat, t, s in conn.execute(q)]


def set_friends_only(conn: Connection, player_id: str, on: bool) -> None:
    conn.execute(update(players_table).where(players_table.c.id == player_id).values(friends_only=on))


# ---------------------------------------------------------------------- challenges


class OpenAlready(Refused):
    """The two players have an open challenge between them already."""


def add_challenge(conn: Connection, row: ChallengeRow, now: float) -> None:
    """Store a new open challenge, unless the two players have an open one (either way) that has not
    expired; expired ones between them are marked so first."""
    c = challenges_table.c
    pair = or_(and_(c.from_id == row.from_id, c.to_id == row.to_id),
               and_(c.from_id == row.to_id, c.to_id == row.from_id))
    conn.execute(update(challenges_table).where(pair, c.status == "open", c.expires_at <= now)
                 .values(status="expired"))
    if conn.execute(select(c.id).where(pair, c.status == "open")).first() is not None:
        raise OpenAlready("you two have an open challenge already: answer it or cancel it first")
    conn.execute(insert(challenges_table).values(
        id=row.id, from_id=row.from_id, to_id=row.to_id, playset=json.dumps(row.playset), clock_ms=row.clock_ms,
        move_s=row.move_s, rated=row.rated, status=row.status, created_at=row.created_at,
        expires_at=row.expires_at, match_id=row.match_id))


def read_challenge(engine: Engine, challenge_id: str) -> ChallengeRow | None:
    with engine.connect() as conn:
        row = conn.execute(select(challenges_table).where(challenges_table.c.id == challenge_id)).first()
    return None if row is None else _challenge(row)


def challenges_of(engine: Engine, player_id: str, since: float) -> list[ChallengeRow]:
    """A player's challenges, both ways: the open ones, and those answered since ``since`` (so that a
    challenger's page learns that theirs was accepted), newest first."""
    c = challenges_table.c
    q = (select(challenges_table).where(or_(c.from_id == player_id, c.to_id == player_id),
                                        or_(c.status == "open", c.created_at >= since))
         .order_by(c.created_at.desc()).limit(100))
    with engine.connect() as conn:
        return [_challenge(r) for r in conn.execute(q)]


def close_challenge(conn: Connection, challenge_id: str, status: str, now: float,
                    match_id: str | None = None) -> bool:
    """Mark an open challenge that has not expired ``status`` (with the match made, if accepted); False if
    it was not open any more (answered meanwhile, by another request or process) or had expired."""
    c = challenges_table.c
    done = conn.execute(update(challenges_table)
                        .where(c.id == challenge_id, c.status == "open", c.expires_at > now)
                        .values(status=status, match_id=match_id))
    return bool(done.rowcount)
