"""The database writer: writes grouped into transactions, an action's write on the driver's own connection, and
one failing write failing alone — on SQLite and on PostgreSQL."""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from converge.server.ops.meter import Meter
from converge.server.storage.database import Refused, StorageError
from converge.server.storage.match_store import Storage
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.storage.writer import Writer


@pytest.fixture(params=["sqlite", "postgresql"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'w.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_url")
    store = Storage(url)
    yield store
    store.engine.dispose()


def _new_match(store: Storage) -> str:
    row = MatchRow(id=uuid.uuid4().hex[:16], mode="friend", playset=["alchemist", "mechanist", "archivist"],
                   seed=1, start="random", decks="d", bot_seed=1,
                   seats=[SeatRow(0, None, None), SeatRow(1, None, None)])
    with store.engine.begin() as conn:
        Storage.create_match(conn, row)
    return row.id


def _action(match_id: str, idx: int) -> Any:
    def write(conn: Any) -> None:
        Storage.append_action(conn, match_id, idx, 3, idx % 2, status="active", winner=None, reason=None)
    return write


def test_a_failing_driver_write_in_a_group_fails_alone_and_the_writer_goes_on(storage: Storage) -> None:
    a, b, c = (_new_match(storage) for _ in range(3))
    writer = Writer(storage)
    results: dict[str, BaseException | None] = {}
    done = threading.Event()

    def report(name: str) -> Any:
        def finish(exc: BaseException | None) -> None:
            results[name] = exc
            if len(results) == 5:
                done.set()
        return finish

    gate = threading.Event()
    try:
        # the first write holds the writer until the others are queued: they are committed as one group
        writer.submit(lambda conn: gate.wait(10), report("gate"))
        writer.submit(_action(a, 0), report("a0"), driver=True)
        writer.submit(_action(b, 5), report("b5"), driver=True)  # b has no action 0..4: refused
        writer.submit(_action(c, 0), report("c0"), driver=True)
        writer.submit(_action(a, 1), report("a1"), driver=True)
        gate.set()
        assert done.wait(20)
        assert results["a0"] is None and results["c0"] is None and results["a1"] is None
        assert isinstance(results["b5"], StorageError)
        assert storage.actions_of(a) == [3, 3] and storage.actions_of(b) == [] and storage.actions_of(c) == [3]
        assert storage.progress([a, b, c]) == {a: (2, "active"), b: (0, "active"), c: (1, "active")}

        # the writer's connection is still good for both kinds of write
        again = threading.Event()
        outcome: list[BaseException | None] = []

        def noted(exc: BaseException | None) -> None:
            outcome.append(exc)
            if len(outcome) == 2:
                again.set()

        writer.submit(_action(b, 0), noted, driver=True)
        writer.submit(lambda conn: Storage.set_hints(conn, b, 3), noted)
        assert again.wait(20) and outcome == [None, None]
        assert storage.actions_of(b) == [3]
    finally:
        gate.set()
        writer.close()


class _Commits(Meter):
    """The writer's reports: each commit's writes and whether it worked."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, bool]] = []

    def commit(self, seconds: float, writes: int, ok: bool) -> None:
        self.seen.append((writes, ok))


def test_only_a_write_the_database_fails_is_counted_as_a_failed_commit_not_a_refused_one(storage: Storage) -> None:
    """The failed commits' counter is what a host is alerted on (deploy/prometheus/rules.yml): a write refused
    for the players' sake (a challenge no longer open) is not one, nor is a group that one write failed,
    whose other writes are committed; a write the database fails is one, once."""
    meter = _Commits()
    writer = Writer(storage, meter=meter)
    results: list[BaseException | None] = []
    finished = threading.Event()

    def note(exc: BaseException | None) -> None:
        results.append(exc)
        if len(results) == 5:
            finished.set()

    def refused(conn: Any) -> None:
        raise Refused("the challenge is no longer open")

    def broken(conn: Any) -> None:
        conn.exec_driver_sql("SELECT * FROM no_such_table")

    gate = threading.Event()
    try:
        writer.submit(lambda conn: gate.wait(10), note)  # (holds the writer: the next three make one group)
        writer.submit(lambda conn: None, note)
        writer.submit(refused, note)
        writer.submit(lambda conn: None, note)
        gate.set()
        writer.submit(broken, note)
        assert finished.wait(20)
        assert [type(r).__name__ for r in results[:4]] == ["NoneType", "NoneType", "Refused", "NoneType"]
        assert isinstance(results[4], Exception)
        assert [ok for _writes, ok in meter.seen].count(False) == 1  # (the broken write's)
        assert sum(writes for writes, ok in meter.seen if ok) == 3
    finally:
        gate.set()
        writer.close()


def test_a_driver_write_of_an_index_already_stored_changes_nothing(storage: Storage) -> None:
    m = _new_match(storage)
    writer = Writer(storage)
    errors: list[BaseException | None] = []
    finished = threading.Event()

    def note(exc: BaseException | None) -> None:
        errors.append(exc)
        if len(errors) == 2:
            finished.set()

    try:
        writer.submit(_action(m, 0), note, driver=True)
        writer.submit(_action(m, 0), note, driver=True)  # the same index again: a second write of it fails
        assert finished.wait(20)
        assert errors[0] is None and errors[1] is not None
        assert storage.actions_of(m) == [3] and storage.progress([m]) == {m: (1, "active")}
    finally:
        writer.close()


@pytest.mark.parametrize("sync", ["FULL", "NORMAL"])
def test_an_sqlite_database_says_how_its_commits_are_made_durable(tmp_path: Path, sync: str) -> None:
    store = Storage(f"sqlite:///{tmp_path / 'd.sqlite3'}", sync)
    try:
        assert store.durability == f"SQLite (WAL, synchronous={sync})"
    finally:
        store.engine.dispose()


def test_a_postgresql_database_says_whether_it_syncs(postgres_url: str) -> None:
    store = Storage(postgres_url)
    try:
        assert re.fullmatch(r"PostgreSQL \(fsync (on|off)\)", store.durability), store.durability
    finally:
        store.engine.dispose()
