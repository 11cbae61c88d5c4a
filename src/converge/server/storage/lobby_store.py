"""The lobby's tables in the database: players, open tables, who played which seat, and rating changes.

Everything here that must be right across several server processes is decided by the database:

* a player is found by the SHA-256 hash of their token (never the token);
* a lobby table is taken by one ``UPDATE ... WHERE status = 'open'`` (one joiner wins);
* a rated match changes ratings in the transaction that finishes it (:func:`record_result`), and only
  once: the players' rows are locked first (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite has one writer
  at a time), a match already in ``converge_rating_changes`` is skipped, and that table's primary key
  (match, player) refuses a second change even if two processes race;
* a rename is counted against its player's limit in the transaction that makes it (:func:`rename`), the
  player's row locked first, so that no two processes both let one more through;
* a table's join (:func:`claim_table`) is committed in the transaction that stores its match, so that a
  crash leaves the table open or the match whole; a table left half-made by an older server is reopened
  when the database is opened (:func:`repair_tables`).

The functions taking a ``conn`` run inside a transaction (the
:class:`~converge.server.storage.writer.Writer`'s, or the caller's); the others open their own read.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from converge.ratings import DEFAULT_R, DEFAULT_RD, DEFAULT_VOL, Rating
from converge.server.protocol.answers import Ranked
from converge.server.protocol.messages import OpenTable, PlayerInfo
from converge.server.storage.database import Refused
from converge.server.storage.schema import (
    device_tokens_table,
    lobby_tables_table,
    match_players_table,
    matches_table,
    name_changes_table,
    name_keys_table,
    players_table,
    rating_changes_table,
    settings_table,
)

log = logging.getLogger("converge.server.lobby")

@dataclass
class Player:
    id: str
    name: str | None
    rating: Rating
    games: int
    #: Banned by the hosts: why (as they wrote it, shown to the player); None: not banned.
    banned: str | None = None

    def public(self) -> PlayerInfo:
        """What anyone may see of a player (never the id or the token hash)."""
        return {"name": self.name, "rating": round(self.rating.r), "rd": round(self.rating.rd),
                "games": self.games, "provisional": self.rating.rd > 110}


@dataclass(frozen=True)
class SeatPlayer:
    """A named (or anonymous) player at a match's seat, as the table shows them."""

    name: str | None  #: the name when the match started (None: anonymous)
    rating: int  #: the rating now
    provisional: bool
    change: int | None  #: what this match changed the rating by (None: not rated, or not yet)
    #: how the match was found: "table", "quick", "invite", "event" (a tournament's) or "duel" (a challenge's)
    kind: str = "table"


def _player(row: Any) -> Player:
    banned = None if row["banned_at"] is None else (row["ban_reason"] or "")
    return Player(row["id"], row["name"], Rating(float(row["r"]), float(row["rd"]), float(row["vol"])),
                  int(row["games"]), banned)


# ---------------------------------------------------------------------- players


def player_by_hash(engine: Engine, token_hash: str) -> Player | None:
    """The player whose token (the first browser's, or a signed-in device's) has this hash."""
    p, d = players_table.c, device_tokens_table.c
    with engine.connect() as conn:
        row = conn.execute(select(players_table).where(p.token_hash == token_hash)).mappings().first()
        if row is None:
            row = conn.execute(select(players_table).join(device_tokens_table, d.player_id == p.id)
                               .where(d.token_hash == token_hash)).mappings().first()
    return _player(row) if row is not None else None


def player_by_id(engine: Engine, player_id: str) -> Player | None:
    with engine.connect() as conn:
        row = conn.execute(select(players_table).where(players_table.c.id == player_id)).mappings().first()
    return _player(row) if row is not None else None


@dataclass(frozen=True)
class Named:
    """A player's name as stored, with the keys the lobby's name rules give it
    (:func:`converge.server.lobby.identity.named`): ``key`` orders and finds it, and no other player's name
    may share any of ``keys``."""

    name: str
    key: str
    keys: frozenset[str]


def create_player(conn: Connection, player_id: str, token_hash: str, named: Named | None = None) -> None:
    """A new player, ``named`` (None: anonymous); an IntegrityError if another player has the name."""
    now = time.time()
    conn.execute(insert(players_table).values(id=player_id, token_hash=token_hash, name=None, name_key=None,
                                              r=DEFAULT_R, rd=DEFAULT_RD, vol=DEFAULT_VOL, games=0,
                                              created_at=now, updated_at=now))
    if named is not None:
        write_name(conn, player_id, named, now)


def write_name(conn: Connection, player_id: str, named: Named | None, now: float) -> None:
    """Give a player a name with its keys (None: anonymous), the only writer of both: an IntegrityError,
    nothing written, if any key is another player's."""
    conn.execute(delete(name_keys_table).where(name_keys_table.c.player_id == player_id))
    conn.execute(update(players_table).where(players_table.c.id == player_id)
                 .values(name=None if named is None else named.name, name_key=None if named is None else named.key,
                         updated_at=now))
    if named is not None:
        conn.execute(insert(name_keys_table), [{"key": key, "player_id": player_id} for key in sorted(named.keys)])


def name_taken(engine: Engine, named: Named, except_id: str | None = None) -> bool:
    """Whether another player than ``except_id`` has a name that shares one of ``named``'s keys."""
    k = name_keys_table.c
    q = select(k.player_id).where(k.key.in_(sorted(named.keys)), k.player_id != (except_id or ""))
    with engine.connect() as conn:
        return conn.execute(q).first() is not None


def named_players(conn: Connection) -> list[tuple[str, str]]:
    """Every named player (id, name), the first created first."""
    p = players_table.c
    rows = conn.execute(select(p.id, p.name).where(p.name.is_not(None)).order_by(p.created_at, p.id)).all()
    return [(str(pid), str(name)) for pid, name in rows]


def forget_name_keys(conn: Connection) -> None:
    """Every player's name keys gone (before they are computed again under new rules): no old key stands in a
    new one's way."""
    conn.execute(update(players_table).values(name_key=None))
    conn.execute(delete(name_keys_table))


def clear_name(conn: Connection, player_id: str, now: float) -> None:
    """The player plays on anonymous, with their rating and history: their name, refused by the name rules or
    shared with an older player's, is cleared (not a rename: it does not count against their limit)."""
    write_name(conn, player_id, None, now)
    conn.execute(insert(name_changes_table).values(player_id=player_id, at=now, name=None, reason="cleared"))


def setting(conn: Connection, key: str) -> str | None:
    row = conn.execute(select(settings_table.c.value).where(settings_table.c.key == key)).first()
    return None if row is None else str(row[0])


def set_setting(conn: Connection, key: str, value: str) -> None:
    s = settings_table.c
    if conn.execute(update(settings_table).where(s.key == key).values(value=value)).rowcount == 0:
        conn.execute(insert(settings_table).values(key=key, value=value))


@dataclass(frozen=True)
class RenameLimit:
    """How often a player may change their name: ``per_hour`` times in any hour, and ``interval_s`` seconds
    apart (0: no such limit)."""

    per_hour: int = 0
    interval_s: float = 0.0

    def window_s(self) -> float:
        return max(3600.0, self.interval_s)

    def wait_s(self, times: list[float], now: float) -> float:
        """Seconds until one more rename is allowed, after the renames at ``times`` (oldest first, all in the
        last :meth:`window_s`); 0: now."""
        after = 0.0
        if self.interval_s > 0 and times:
            after = times[-1] + self.interval_s
        if self.per_hour > 0 and len(times) >= self.per_hour:
            after = max(after, times[-self.per_hour] + 3600.0)
        return max(0.0, after - now)


class RenameTooSoon(Refused):
    """The player's rename limit is reached: they may rename again in ``wait_s`` seconds."""

    def __init__(self, wait_s: float, renames: int) -> None:
        super().__init__(f"renamed {renames} times in the window; next in {wait_s:.0f} s")
        self.wait_s = wait_s
        self.renames = renames


def rename(conn: Connection, player_id: str, named: Named | None, limit: RenameLimit, now: float) -> None:
    """Change a player's name, counted against ``limit`` (:class:`RenameTooSoon`: nothing written)."""
    p, nc = players_table.c, name_changes_table.c
    # Lock the player's row (PostgreSQL; SQLite's writer holds the whole database): another process renaming
    # the same player waits here, then counts this rename too.
    conn.execute(select(p.id).where(p.id == player_id).with_for_update()).first()
    times = [float(at) for (at,) in conn.execute(
        select(nc.at).where(nc.player_id == player_id, nc.reason == "rename", nc.at > now - limit.window_s())
        .order_by(nc.at))]
    wait = limit.wait_s(times, now)
    if wait > 0:
        raise RenameTooSoon(wait, sum(1 for at in times if at > now - 3600))
    write_name(conn, player_id, named, now)
    conn.execute(insert(name_changes_table).values(player_id=player_id, at=now,
                                                   name=None if named is None else named.name, reason="rename"))


def leaderboard(engine: Engine, limit: int = 100) -> list[Ranked]:
    """Named players with at least one rated match, best first (by rating, then fewer games)."""
    c = players_table.c
    q = (select(c.name, c.r, c.rd, c.vol, c.games).where(c.name.is_not(None), c.games > 0)
         .order_by(c.r.desc(), c.games.asc(), c.name_key.asc()).limit(limit))
    with engine.connect() as conn:
        rows = conn.execute(q).all()
    return [{"rank": i + 1, "name": name, "rating": round(r), "rd": round(rd), "games": games,
             "provisional": rd > 110} for i, (name, r, rd, _vol, games) in enumerate(rows)]


# ---------------------------------------------------------------------- lobby tables


def open_tables(engine: Engine, limit: int = 200) -> list[OpenTable]:
    """The public open tables, oldest first, as the lobby lists them (nothing private: no token hash, no
    player id)."""
    t, p = lobby_tables_table.c, players_table.c
    q = (select(t.id, t.playset, t.clock_ms, t.move_s, t.rated, t.created_at, p.name, p.r, p.rd)
         .select_from(lobby_tables_table.join(players_table, players_table.c.id == t.host_id))
         .where(t.status == "open", t.private.is_(False)).order_by(t.created_at).limit(limit))
    with engine.connect() as conn:
        rows = conn.execute(q).all()
    return [{"id": tid, "playset": json.loads(ps), "clock_s": None if clock is None else clock // 1000,
             "move_hours": None if move is None else move // 3600, "rated": bool(rated),
             "host": {"name": name, "rating": round(r), "provisional": rd > 110},
             "created_at": round(created, 3)}
            for tid, ps, clock, move, rated, created, name, r, rd in rows]


def tables_of(engine: Engine, player_id: str, since: float = 0.0) -> list[dict[str, Any]]:
    """A host's tables still open, or started since ``since`` (for the host's page: which became a match)."""
    t = lobby_tables_table.c
    q = (select(t.id, t.status, t.private, t.updated_at).where(t.host_id == player_id)
         .where((t.status == "open") | and_(t.status == "started", t.updated_at >= since))
         .order_by(t.created_at))
    with engine.connect() as conn:
        return [{"id": i, "status": s, "private": bool(pv), "updated_at": u} for i, s, pv, u in conn.execute(q)]


def count_open(engine: Engine, player_id: str) -> int:
    t = lobby_tables_table.c
    with engine.connect() as conn:
        return len(conn.execute(select(t.id).where(t.host_id == player_id, t.status == "open")).all())


def get_table(engine: Engine, table_id: str) -> dict[str, Any] | None:
    with engine.connect() as conn:
        row = conn.execute(select(lobby_tables_table).where(lobby_tables_table.c.id == table_id)).mappings()\
            .first()
    return dict(row) if row is not None else None


def add_table(conn: Connection, *, table_id: str, host_id: str, host_seat: int, host_token_hash: str,
              playset: list[str], clock_ms: int | None, rated: bool, private: bool, status: str = "open",
              move_s: int | None = None) -> None:
    now = time.time()
    conn.execute(insert(lobby_tables_table).values(
        id=table_id, host_id=host_id, host_seat=host_seat, host_token_hash=host_token_hash,
        playset=json.dumps(playset), clock_ms=clock_ms, move_s=move_s, rated=rated, private=private, status=status,
        guest_id=None, created_at=now, updated_at=now))


class TableGone(Refused):
    """The table was not open any more (someone else joined it, or its host closed it)."""


def claim_table(conn: Connection, table_id: str, guest_id: str) -> None:
    """Take an open table for ``guest_id`` (never its own host), in the transaction that stores its match;
    :class:`TableGone` (which rolls that transaction back) if it was not open any more."""
    t = lobby_tables_table.c
    res = conn.execute(update(lobby_tables_table)
                       .where(t.id == table_id, t.status == "open", t.host_id != guest_id)
                       .values(status="started", guest_id=guest_id, updated_at=time.time()))
    if res.rowcount != 1:
        raise TableGone(f"table {table_id} is not open")


def repair_tables(conn: Connection) -> int:
    """Reopen the tables an older server left half-made: claimed (``started``) but without their match,
    which a crash between its two commits left so (the join's answer never came). Such a table has no match
    and no player of it recorded; a table whose match the retention policy deleted keeps its players'
    rows. Returns how many were reopened."""
    t, mp = lobby_tables_table.c, match_players_table.c
    res = conn.execute(update(lobby_tables_table)
                       .where(t.status == "started",
                              ~select(matches_table.c.id).where(matches_table.c.id == t.id).exists(),
                              ~select(mp.match_id).where(mp.match_id == t.id).exists())
                       .values(status="open", guest_id=None, updated_at=time.time()))
    return int(res.rowcount or 0)


def close_table(conn: Connection, table_id: str, host_id: str) -> bool:
    t = lobby_tables_table.c
    res = conn.execute(update(lobby_tables_table).where(t.id == table_id, t.host_id == host_id, t.status == "open")
                       .values(status="closed", updated_at=time.time()))
    return res.rowcount == 1


# ---------------------------------------------------------------------- who played which seat


def add_match_players(conn: Connection, match_id: str, seats: dict[int, str], rated: bool,
                      kind: str) -> dict[int, str | None]:
    """Record who plays which seat, with the names they have now, in the transaction that starts the match
    (so a rename afterwards does not change what the match shows); returns those names by seat."""
    p = players_table.c
    found = conn.execute(select(p.id, p.name).where(p.id.in_(set(seats.values()))))
    names: dict[str, str | None] = {str(pid): name for pid, name in found}
    conn.execute(insert(match_players_table), [
        {"match_id": match_id, "seat": seat, "player_id": pid, "rated": rated, "kind": kind,
         "name": names.get(pid)} for seat, pid in sorted(seats.items())])
    return {seat: names.get(pid) for seat, pid in seats.items()}


def link_seat(conn: Connection, match_id: str, seat: int, player_id: str) -> bool:
    """Record, unrated, that ``player_id`` plays ``seat`` of a match they reached by a link; False (nothing
    written) if the seat already has a player, or the player holds the other seat."""
    mp = match_players_table.c
    rows = conn.execute(select(mp.seat, mp.player_id).where(mp.match_id == match_id)).all()
    if any(int(s) == seat or str(p) == player_id for s, p in rows):
        return False
    add_match_players(conn, match_id, {seat: player_id}, False, "link")
    return True


def seat_players(conn: Connection, match_id: str) -> tuple[bool, dict[int, SeatPlayer]]:
    """Whether the match is rated, and who plays each of its seats as the table shows them: the name they had
    when the match started, their rating now, and what this match changed it by (once it is rated)."""
    mp, p, rc = match_players_table.c, players_table.c, rating_changes_table.c
    rows = conn.execute(
        select(mp.seat, mp.name, mp.rated, mp.kind, p.r, p.rd, rc.r_before, rc.r_after)
        .select_from(match_players_table.join(players_table, p.id == mp.player_id)
                     .outerjoin(rating_changes_table,
                                and_(rc.match_id == mp.match_id, rc.player_id == mp.player_id)))
        .where(mp.match_id == match_id)).all()
    out: dict[int, SeatPlayer] = {}
    rated = False
    for seat, name, is_rated_seat, kind, r, rd, r_before, r_after in rows:
        rated = rated or bool(is_rated_seat)
        out[int(seat)] = SeatPlayer(name, round(r), rd > 110,
                                    None if r_before is None else round(r_after) - round(r_before), str(kind))
    return rated, out


def read_seat_players(engine: Engine, match_id: str) -> tuple[bool, dict[int, SeatPlayer]]:
    """:func:`seat_players` in a read of its own."""
    with engine.connect() as conn:
        return seat_players(conn, match_id)


def in_progress(engine: Engine, player_id: str, limit: int = 20) -> list[tuple[str, int]]:
    """The matches in progress ``player_id`` plays, newest first: (match id, seat)."""
    mp, m = match_players_table.c, matches_table.c
    q = (select(mp.match_id, mp.seat).join(matches_table, m.id == mp.match_id)
         .where(mp.player_id == player_id, m.status == "active").order_by(m.created_at.desc()).limit(limit))
    with engine.connect() as conn:
        return [(str(mid), int(seat)) for mid, seat in conn.execute(q)]


def seats_of_player(engine: Engine, match_id: str, player_id: str) -> list[int]:
    """The seats ``player_id`` plays in a match (as recorded when it started, or when they linked a seat)."""
    mp = match_players_table.c
    with engine.connect() as conn:
        return [int(s) for s in conn.execute(select(mp.seat).where(mp.match_id == match_id,
                                                                   mp.player_id == player_id)).scalars()]


# ---------------------------------------------------------------------- ratings


#: How a match's result changes its two players' ratings: (seat 0's, seat 1's, seat 0's score) -> new ones.
RatePair = Callable[[Rating, Rating, float], tuple[Rating, Rating]]


def record_result(conn: Connection, match_id: str, winner: int | None, fixed: Mapping[int, Rating | None],
                  rate: RatePair) -> int:
    """Store the ratings ``rate`` gives the players of a rated match that has just finished, in the caller's
    transaction, exactly once; returns how many players' ratings changed (0 if the match is not rated or was
    rated already). The maths are the lobby's (:mod:`converge.server.lobby.ratings`); this is their storage.

    ``fixed``: the fixed rating of each seat a bot plays from the start (the opponent's; a bot never changes
    rating; None: a bot with no rating, nothing to rate against). A stand-in for a player who left does not
    count: the result is the player's."""
    if winner not in (0, 1):
        return 0
    mp = match_players_table.c
    rows = conn.execute(select(mp.seat, mp.player_id).where(mp.match_id == match_id, mp.rated.is_(True))).all()
    if not rows:
        return 0
    seats = {int(seat): str(pid) for seat, pid in rows}
    p = players_table.c
    # Lock the players' rows (PostgreSQL; SQLite's writer holds the whole database): a concurrent finish of
    # this match, or of another match of theirs, waits here and then sees what this one wrote.
    locked = conn.execute(select(players_table).where(p.id.in_(sorted(set(seats.values()))))
                          .order_by(p.id).with_for_update()).mappings().all()
    players = {str(r["id"]): _player(r) for r in locked}
    rc = rating_changes_table.c
    if conn.execute(select(rc.player_id).where(rc.match_id == match_id).limit(1)).first() is not None:
        return 0  # already rated (another process, or a second attempt)
    ratings: dict[int, Rating] = {}
    for seat in (0, 1):
        pid = seats.get(seat)
        if pid is not None and pid in players:
            ratings[seat] = players[pid].rating
        else:
            bot = fixed.get(seat)
            if bot is None:
                return 0  # an opponent with no rating (an unrated bot): nothing to rate against
            ratings[seat] = bot
    new0, new1 = rate(ratings[0], ratings[1], 1.0 if winner == 0 else 0.0)
    new = {0: new0, 1: new1}
    now = time.time()
    changed = 0
    try:
        with conn.begin_nested():
            for seat, pid in sorted(seats.items()):
                if pid not in players:
                    continue
                before, after = ratings[seat], new[seat]
                conn.execute(insert(rating_changes_table).values(
                    match_id=match_id, player_id=pid, seat=seat, score=1.0 if winner == seat else 0.0,
                    r_before=before.r, rd_before=before.rd, r_after=after.r, rd_after=after.rd,
                    vol_after=after.vol, at=now))
                conn.execute(update(players_table).where(p.id == pid)
                             .values(r=after.r, rd=after.rd, vol=after.vol, games=p.games + 1, updated_at=now))
                changed += 1
    except IntegrityError:
        log.info("match %s was already rated", match_id)
        return 0
    return changed


# ---------------------------------------------------------------------- when the database is opened


def on_open(conn: Connection, at_open: Sequence[Callable[[Connection], None]] = ()) -> None:
    """Run when a server opens the database (in its opening transaction, one process at a time): reopen
    half-made tables, then run the checks of the units above storage (a server's:
    :data:`converge.server.app.AT_OPEN`)."""
    reopened = repair_tables(conn)
    if reopened:
        log.warning("reopened %d lobby table(s) whose join never finished (no match was stored)", reopened)
    for check in at_open:
        check(conn)


__all__ = [
    "Named",
    "Player",
    "RenameLimit",
    "RenameTooSoon",
    "SeatPlayer",
    "TableGone",
    "add_match_players",
    "add_table",
    "claim_table",
    "clear_name",
    "close_table",
    "create_player",
    "forget_name_keys",
    "leaderboard",
    "link_seat",
    "name_taken",
    "named_players",
    "on_open",
    "open_tables",
    "player_by_hash",
    "player_by_id",
    "read_seat_players",
    "record_result",
    "rename",
    "repair_tables",
    "seat_players",
    "set_setting",
    "setting",
    "write_name",
]
