"""Chat lines and the choices that filter them, in the database: the lines of a room (a match's players, its
spectators, the lobby), kept with their match so that a report carries them and deleted with it; whom each
player muted; whether a player's chat is on. The functions taking a ``conn`` run inside the caller's
transaction; the others open their own read."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, delete, insert, select, update

from converge.server.protocol.answers import ChatRecord
from converge.server.storage.schema import chat_table, mutes_table, players_table


@dataclass(frozen=True)
class Line:
    """A stored chat line."""

    id: int
    room: str
    match_id: str | None
    player_id: str
    name: str | None  #: the name it was sent under (None: anonymous)
    at: float
    text: str
    quick: str | None  #: a quick message's key, or None: typed


def _line(row: object) -> Line:
    r = row._mapping  # type: ignore[attr-defined]
    return Line(int(r["id"]), str(r["room"]), r["match_id"], str(r["player_id"]), r["name"], float(r["at"]),
                str(r["text"]), r["quick"])


def add(conn: Connection, room: str, match_id: str | None, player_id: str, name: str | None, at: float,
        text: str, quick: str | None) -> Line:
    """Store a line; the line with its id."""
    done = conn.execute(insert(chat_table).values(room=room, match_id=match_id, player_id=player_id, name=name,
                                                  at=at, text=text, quick=quick))
    (key,) = done.inserted_primary_key or (None,)
    assert key is not None
    return Line(int(key), room, match_id, player_id, name, at, text, quick)


def recent(engine: Engine, room: str, limit: int) -> list[Line]:
    """The last ``limit`` lines of a room, oldest first."""
    c = chat_table.c
    with engine.connect() as conn:
        rows = conn.execute(select(chat_table).where(c.room == room).order_by(c.id.desc()).limit(limit)).all()
    return [_line(r) for r in reversed(rows)]


def since(engine: Engine, at: float, rooms: Iterable[str]) -> list[Line]:
    """The lines of ``rooms`` sent at ``at`` or after, in order (another process's, to pass on)."""
    c = chat_table.c
    wanted = list(rooms)
    if not wanted:
        return []
    with engine.connect() as conn:
        rows = conn.execute(select(chat_table).where(c.at >= at, c.room.in_(wanted)).order_by(c.id)).all()
    return [_line(r) for r in rows]


def of_matches(engine: Engine, match_ids: list[str]) -> list[Line]:
    """Every line of these matches, their players' and their spectators', in order (for the hosts)."""
    c = chat_table.c
    if not match_ids:
        return []
    with engine.connect() as conn:
        return [_line(r) for r in conn.execute(select(chat_table).where(c.match_id.in_(match_ids))
                                                .order_by(c.id))]


def record(line: Line) -> ChatRecord:
    """A line as the hosts read it."""
    room = "lobby" if line.room == "lobby" else line.room.rsplit(":", 1)[1]
    return {"id": line.id, "at": round(line.at, 3), "room": room, "player": line.player_id, "name": line.name,
            "text": line.text, "quick": line.quick}


def line(engine: Engine, line_id: int) -> Line | None:
    with engine.connect() as conn:
        row = conn.execute(select(chat_table).where(chat_table.c.id == line_id)).first()
    return None if row is None else _line(row)


# ---------------------------------------------------------------------- who reads what


def chat_on(named: bool, choice: bool | None) -> bool:
    """Whether a player's typed chat is on: their choice, else on for a named player and off for an anonymous one
    (nothing is asked of anyone's age: a name is the one thing that turns it on by default)."""
    return choice if choice is not None else named


def readers(engine: Engine, player_ids: Iterable[str], sender_id: str) -> tuple[set[str], set[str]]:
    """Of ``player_ids``: those whose typed chat is on, and those who muted ``sender_id``."""
    ids = list(set(player_ids))
    if not ids:
        return set(), set()
    p, m = players_table.c, mutes_table.c
    with engine.connect() as conn:
        on = {str(pid) for pid, name, choice in conn.execute(select(p.id, p.name, p.chat_on).where(p.id.in_(ids)))
              if chat_on(name is not None, choice)}
        muted = {str(pid) for (pid,) in conn.execute(select(m.player_id).where(m.player_id.in_(ids),
                                                                                 m.muted_id == sender_id))}
    return on, muted


def reader(engine: Engine, player_id: str) -> tuple[bool, set[str]]:
    """Whether ``player_id``'s typed chat is on, and whom they muted."""
    p, m = players_table.c, mutes_table.c
    with engine.connect() as conn:
        row = conn.execute(select(p.name, p.chat_on).where(p.id == player_id)).first()
        muted_ids = {str(mid) for (mid,) in conn.execute(select(m.muted_id).where(m.player_id == player_id))}
    return (row is not None and chat_on(row.name is not None, row.chat_on)), muted_ids


def set_chat(conn: Connection, player_id: str, on: bool) -> None:
    conn.execute(update(players_table).where(players_table.c.id == player_id).values(chat_on=on))


def mute(conn: Connection, player_id: str, muted_id: str, at: float) -> None:
    """``player_id`` mutes ``muted_id`` (again: nothing changes)."""
    m = mutes_table.c
    if conn.execute(select(m.at).where(m.player_id == player_id, m.muted_id == muted_id)).first() is None:
        conn.execute(insert(mutes_table).values(player_id=player_id, muted_id=muted_id, at=at))


def unmute(conn: Connection, player_id: str, muted_id: str) -> bool:
    m = mutes_table.c
    return bool(conn.execute(delete(mutes_table).where(m.player_id == player_id, m.muted_id == muted_id)).rowcount)


def muted(engine: Engine, player_id: str) -> list[tuple[str, str | None]]:
    """The players ``player_id`` muted, newest first: (their id, their name now)."""
    m, p = mutes_table.c, players_table.c
    with engine.connect() as conn:
        rows = conn.execute(select(m.muted_id, p.name).select_from(mutes_table.outerjoin(
            players_table, p.id == m.muted_id)).where(m.player_id == player_id).order_by(m.at.desc())).all()
    return [(str(mid), name) for mid, name in rows]
