"""Where matches live: SQLite by default, PostgreSQL when given its URL (SQLAlchemy Core).

A match is stored as its *record* — playset, seed, start setting, deck digest and the list of accepted
actions — plus metadata (mode, seats, clocks, result, rematch links). The state is never stored: it is
rebuilt by replaying the record, so whatever was committed is exactly what a restarted server resumes.

Seat tokens are never stored, only their SHA-256 hashes.

Writes are functions of a connection, run by the :class:`~converge.server.storage.writer.Writer`. The
schema is :mod:`converge.server.storage.schema`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from sqlalchemy import Connection, bindparam, delete, func, insert, select, text, update

from converge.server.storage import lobby_store, migrate
from converge.server.storage.database import SingleServerLock, StorageError, make_engine
from converge.server.storage.driver import DriverTransaction, OnDriver
from converge.server.storage.rows import MatchRow, Retention, SeatRow
from converge.server.storage.schema import (
    actions_table,
    chat_table,
    matches_table,
    outbox_table,
    reviews_table,
    seat_keys_table,
    seats_table,
)

log = logging.getLogger("converge.server.storage")

# Statements built once (SQLAlchemy caches their compiled form): the hot path of every action.
_INSERT_ACTION = OnDriver(insert(actions_table))
_ADVANCE_MATCH = OnDriver(
    update(matches_table)
    .where(matches_table.c.id == bindparam("mid"), matches_table.c.n_actions == bindparam("idx"))
    .values(n_actions=bindparam("n"), status=bindparam("st"), winner=bindparam("w"), reason=bindparam("r"),
            updated_at=bindparam("t")))
#: The PostgreSQL channel on which server processes announce changes to matches
#: (:mod:`converge.server.play.cluster.coordination`).
CHANNEL = "converge_matches"
_NOTIFY = OnDriver(text("SELECT pg_notify(:channel, :payload)"))
_SET_CLOCK = OnDriver(update(seats_table)
                       .where(seats_table.c.match_id == bindparam("mid"), seats_table.c.seat == bindparam("s"))
                       .values(clock_left_ms=bindparam("left")))


class Storage:
    """Synchronous access to the tables. Writes are functions of a connection, run by the :class:`Writer`."""

    def __init__(self, url: str, sqlite_sync: str = "FULL", exclusive: bool = False,
                 at_open: Sequence[Callable[[Connection], None]] = ()) -> None:
        """Open the database at ``url``, creating or upgrading its schema (:func:`migrate.upgrade
        <converge.server.storage.migrate.upgrade>`). ``exclusive``: this is a server, and an SQLite file may
        have only one (:class:`~converge.server.storage.database.SingleServerLock`); PostgreSQL takes any
        number. ``at_open``: what the units above storage check in the opening transaction (a server's:
        :data:`converge.server.app.AT_OPEN`)."""
        self.engine = make_engine(url, sqlite_sync)
        self.url = self.engine.url.render_as_string(hide_password=True)
        self.lock: SingleServerLock | None = None
        if exclusive and self.engine.dialect.name == "sqlite":
            self.lock = SingleServerLock(Path(self.engine.url.database or ""))
        try:
            with self.engine.begin() as conn:
                if conn.dialect.name == "postgresql":  # server processes starting together: one at a time
                    conn.execute(text("SELECT pg_advisory_xact_lock(7250615)"))
                migrate.upgrade(conn)  # (Alembic's revisions: a new database is created)
                lobby_store.on_open(conn, at_open)
                #: how commits are made durable (for operators and benchmarks: read once, at start)
                self.durability = self._durability(conn)
        except StorageError:
            raise
        except Exception as exc:
            raise StorageError(f"cannot open the database {self.url}: {exc}") from None

    @staticmethod
    def _durability(conn: Connection) -> str:
        """How commits are made durable, as the database itself says, e.g. ``"SQLite (WAL,
        synchronous=FULL)"`` or ``"PostgreSQL (fsync on)"``."""
        if conn.dialect.name == "sqlite":
            journal = str(conn.exec_driver_sql("PRAGMA journal_mode").scalar()).upper()
            level = conn.exec_driver_sql("PRAGMA synchronous").scalar()
            name = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(int(level or 0), str(level))
            return f"SQLite ({journal}, synchronous={name})"
        if conn.dialect.name == "postgresql":
            return f"PostgreSQL (fsync {conn.exec_driver_sql('SHOW fsync').scalar()})"
        return conn.dialect.name

    def close(self) -> None:
        self.engine.dispose()
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    # ------------------------------------------------------------------ reads

    def load(self, match_id: str, since: int = 0) -> MatchRow | None:
        """The stored match ``match_id`` with its seats and actions, or None. With ``since``, only the
        actions from that index on are read (in :attr:`MatchRow.actions`; the caller has the others)."""
        with self.engine.connect() as conn:
            m = conn.execute(select(matches_table).where(matches_table.c.id == match_id)).mappings().first()
            if m is None:
                return None
            seats = conn.execute(select(seats_table).where(seats_table.c.match_id == match_id)
                                 .order_by(seats_table.c.seat)).mappings().all()
            k = seat_keys_table.c
            keys: dict[int, tuple[str, ...]] = {}
            for seat, digest in conn.execute(select(k.seat, k.token_hash).where(k.match_id == match_id)):
                keys[int(seat)] = (*keys.get(int(seat), ()), str(digest))
            a = actions_table.c
            actions = conn.execute(select(a.idx, a.action, a.seat, a.clock_left_ms)
                                   .where(a.match_id == match_id, a.idx >= since, a.idx < m["n_actions"])
                                   .order_by(a.idx)).all()  # (none committed after the match row was read)
        for i, (idx, *_rest) in enumerate(actions, since):
            if idx != i:
                raise StorageError(f"match {match_id}: action #{i} is missing from the database")
        return MatchRow(
            id=m["id"], mode=m["mode"], playset=list(json.loads(m["playset"])), seed=int(m["seed"]),
            start=m["start"], decks=m["decks"], bot_seed=int(m["bot_seed"]), status=m["status"],
            n_actions=int(m["n_actions"]), winner=m["winner"], reason=m["reason"], clock_ms=m["clock_ms"],
            rematch_of=m["rematch_of"], rematch_id=m["rematch_id"], created_at=float(m["created_at"]),
            updated_at=float(m["updated_at"]),
            seats=[SeatRow(int(s["seat"]), s["token_hash"], s["bot"], bool(s["replaced"]), s["clock_left_ms"],
                           keys.get(int(s["seat"]), ()), s["vacation_left_s"]) for s in seats],
            actions=[int(act) for _i, act, _s, _c in actions],
            action_clocks=[(int(seat), None if c is None else int(c)) for _i, _a, seat, c in actions],
            hints=int(m["hints"] or 0), move_s=m["move_s"], to_move=m["to_move"])

    def progress(self, match_ids: Sequence[str]) -> dict[str, tuple[int, str]]:
        """Each stored match's number of actions and status, by id (the missing ones left out)."""
        if not match_ids:
            return {}
        c = matches_table.c
        with self.engine.connect() as conn:
            rows = conn.execute(select(c.id, c.n_actions, c.status).where(c.id.in_(list(match_ids)))).all()
        return {mid: (int(n), status) for mid, n, status in rows}

    def out_of_time(self, now: float, limit: int = 100) -> list[tuple[str, int]]:
        """The turn-based matches in progress whose player to move ran out of time at ``now``: (id, number of
        actions), the longest overdue first."""
        c, s = matches_table.c, seats_table.c
        vacation = select(func.coalesce(func.max(s.vacation_left_s), 0.0))\
            .where(s.match_id == c.id, s.seat == c.to_move).scalar_subquery()
        due = c.updated_at + c.move_s + vacation
        with self.engine.connect() as conn:
            rows = conn.execute(select(c.id, c.n_actions)
                                .where(c.status == "active", c.move_s.is_not(None), due <= now)
                                .order_by(due).limit(limit)).all()
        return [(mid, int(n)) for mid, n in rows]

    def actions_of(self, match_id: str) -> list[int]:
        with self.engine.connect() as conn:
            return [int(r[0]) for r in conn.execute(select(actions_table.c.action)
                                                    .where(actions_table.c.match_id == match_id)
                                                    .order_by(actions_table.c.idx))]

    def review_of(self, match_id: str, seat: int) -> str | None:
        """The stored review of ``seat``'s decisions in a finished match (JSON), or None."""
        r = reviews_table.c
        with self.engine.connect() as conn:
            return conn.execute(select(r.doc).where(r.match_id == match_id, r.seat == seat)).scalar()

    # ------------------------------------------------------------------ writes (run inside a transaction)

    @staticmethod
    def create_match(conn: Connection, row: MatchRow) -> None:
        """Store a new match, made at ``row.created_at`` (now, if not set)."""
        now = row.created_at or time.time()
        conn.execute(insert(matches_table).values(
            id=row.id, created_at=now, updated_at=now, mode=row.mode, playset=json.dumps(row.playset),
            seed=row.seed, start=row.start, decks=row.decks, bot_seed=row.bot_seed, status=row.status,
            n_actions=0, winner=None, reason=None, clock_ms=row.clock_ms, rematch_of=row.rematch_of,
            rematch_id=None, hints=row.hints, move_s=row.move_s, to_move=row.to_move))
        conn.execute(insert(seats_table), [
            {"match_id": row.id, "seat": s.seat, "token_hash": s.token_hash, "bot": s.bot, "replaced": s.replaced,
             "clock_left_ms": s.clock_left_ms, "vacation_left_s": s.vacation_left_s} for s in row.seats])

    @staticmethod
    def append_action(conn: Connection | DriverTransaction, match_id: str, idx: int, action: int, seat: int, *,
                      status: str, winner: int | None, reason: str | None,
                      clock_left_ms: int | None = None, at: float | None = None) -> None:
        """Append action ``idx`` of a match, taken at ``at`` (now, if not given); fails (nothing written) if
        that index is already stored or the match does not have exactly ``idx`` actions."""
        now = time.time() if at is None else at
        _INSERT_ACTION(conn, {"match_id": match_id, "idx": idx, "action": action, "seat": seat, "at": now,
                              "clock_left_ms": clock_left_ms})
        if _ADVANCE_MATCH(conn, {"mid": match_id, "idx": idx, "n": idx + 1, "st": status, "w": winner, "r": reason,
                                 "t": now}) != 1:
            raise StorageError(f"match {match_id} does not have {idx} stored actions")
        if clock_left_ms is not None:
            _SET_CLOCK(conn, {"mid": match_id, "s": seat, "left": clock_left_ms})

    @staticmethod
    def finish(conn: Connection, match_id: str, winner: int, reason: str, n_actions: int,
               clock: Sequence[tuple[int, int]] = (), at: float | None = None) -> None:
        """End a match outside the engine (a player ran out of time); fails (nothing written) unless the
        match is still in progress with exactly ``n_actions`` actions."""
        c = matches_table.c
        res = conn.execute(update(matches_table)
                           .where(c.id == match_id, c.status == "active", c.n_actions == n_actions)
                           .values(status="over", winner=winner, reason=reason,
                                   updated_at=time.time() if at is None else at))
        if res.rowcount != 1:
            raise StorageError(f"match {match_id} moved on or ended before it could be ended on time")
        for seat, left in clock:
            conn.execute(update(seats_table)
                         .where(seats_table.c.match_id == match_id, seats_table.c.seat == seat)
                         .values(clock_left_ms=left))

    @staticmethod
    def turn_moved(conn: Connection, match_id: str, to_move: int | None, seat: int,
                   vacation_left_s: float) -> None:
        """A turn-based match moved on: ``to_move`` decides next (None: it is over), and ``seat``, who just
        decided, has ``vacation_left_s`` of vacation left."""
        conn.execute(update(matches_table).where(matches_table.c.id == match_id).values(to_move=to_move))
        conn.execute(update(seats_table).where(seats_table.c.match_id == match_id, seats_table.c.seat == seat)
                     .values(vacation_left_s=vacation_left_s))

    @staticmethod
    def save_review(conn: Connection, match_id: str, seat: int, doc: str) -> None:
        """Store a review, unless one of its format is stored already (another process made it first): the
        first stays. One of an older format is replaced (never one of a newer: a process not yet upgraded)."""
        r = reviews_table.c
        where = (r.match_id == match_id, r.seat == seat)
        stored = conn.execute(select(r.doc).where(*where)).scalar()
        if stored is None:
            conn.execute(insert(reviews_table).values(match_id=match_id, seat=seat, created_at=time.time(),
                                                      doc=doc))
        elif json.loads(doc).get("version", 1) > json.loads(stored).get("version", 1):
            conn.execute(update(reviews_table).where(*where).values(created_at=time.time(), doc=doc))

    @staticmethod
    def set_hints(conn: Connection, match_id: str, hints: int) -> None:
        conn.execute(update(matches_table).where(matches_table.c.id == match_id).values(hints=hints))

    @staticmethod
    def set_seat(conn: Connection, match_id: str, seat: int, bot: str | None, replaced: bool) -> None:
        conn.execute(update(seats_table).where(seats_table.c.match_id == match_id, seats_table.c.seat == seat)
                     .values(bot=bot, replaced=replaced))

    @staticmethod
    def delete_expired(conn: Connection, now: float, policy: Retention, keep: Sequence[str] = (),
                       limit: int = 500) -> list[str]:
        """Delete up to ``limit`` matches that ``policy`` says are expired at ``now`` (except those in
        ``keep``), with their seats, actions and reviews; return their ids. Links to them from other matches
        (rematch of / rematch) are cleared."""
        if not policy.active:
            return []
        c = matches_table.c
        query = select(c.id).where(policy.expired(now)).limit(limit)
        if keep:
            query = query.where(c.id.not_in(list(keep)))
        ids = [r[0] for r in conn.execute(query)]
        delete_matches(conn, ids)
        return ids

    def count(self) -> int:
        """How many matches are stored."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(matches_table)).scalar_one())

    @staticmethod
    def announce(conn: Connection | DriverTransaction, payload: str) -> None:
        """Tell every server process listening on this database that a match changed (PostgreSQL's
        NOTIFY, delivered when this transaction commits; nothing on SQLite, which has one process)."""
        if conn.dialect.name == "postgresql":
            _NOTIFY(conn, {"channel": CHANNEL, "payload": payload})

    @staticmethod
    def link_rematch(conn: Connection, old_id: str, new_id: str) -> None:
        res = conn.execute(update(matches_table)
                           .where(matches_table.c.id == old_id, matches_table.c.rematch_id.is_(None))
                           .values(rematch_id=new_id))
        if res.rowcount != 1:
            raise StorageError(f"match {old_id} already has a rematch")


def delete_matches(conn: Connection, ids: Sequence[str]) -> None:
    """Delete the matches ``ids`` with their seats, actions, reviews, seat keys, queued mails and chat lines;
    links to them from other matches (rematch of / rematch) are cleared. Who played them and the ratings they
    changed stay (a player's rating is the sum of their matches, whatever becomes of the records)."""
    if not ids:
        return
    c = matches_table.c
    conn.execute(delete(actions_table).where(actions_table.c.match_id.in_(ids)))
    conn.execute(delete(reviews_table).where(reviews_table.c.match_id.in_(ids)))
    conn.execute(delete(seat_keys_table).where(seat_keys_table.c.match_id.in_(ids)))
    conn.execute(delete(outbox_table).where(outbox_table.c.match_id.in_(ids)))
    conn.execute(delete(chat_table).where(chat_table.c.match_id.in_(ids)))
    conn.execute(delete(seats_table).where(seats_table.c.match_id.in_(ids)))
    conn.execute(update(matches_table).where(c.rematch_id.in_(ids)).values(rematch_id=None))
    conn.execute(update(matches_table).where(c.rematch_of.in_(ids)).values(rematch_of=None))
    conn.execute(delete(matches_table).where(c.id.in_(ids)))
