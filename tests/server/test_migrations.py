"""The schema's migrations (Alembic, converge.server.storage.migrate): a database the server of schema version
4 left — before Alembic, with matches, players, tables and ratings (tests/server/data/schema-4.*.sql, dumped from
that server) — is upgraded when a server opens it, on SQLite and on PostgreSQL, and every match replays; a new
database and an upgraded one both have exactly the schema module's tables; a newer server's is refused."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("alembic")

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, func, select, text

from converge import Match
from converge.server.storage import migrate
from converge.server.storage.database import StorageError, normalize_url
from converge.server.storage.match_store import Storage
from converge.server.storage.schema import metadata, settings_table

DATA = Path(__file__).resolve().parent / "data"
#: The tables whose rows the upgrade must keep, every one of them.
KEPT = ("converge_matches", "converge_seats", "converge_actions", "converge_players", "converge_lobby_tables",
        "converge_match_players", "converge_rating_changes", "converge_name_changes")


def _new_postgres_database(server_url: str) -> str:
    engine = create_engine(normalize_url(server_url), isolation_level="AUTOCOMMIT")
    name = f"mig_{uuid.uuid4().hex[:12]}"
    with engine.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return engine.url.set(database=name).render_as_string(hide_password=False)


def _load_dump(kind: str, url: str) -> None:
    """The version-4 server's database, as it dumped it, into the empty database ``url``."""
    dump = (DATA / f"schema-4.{kind}.sql").read_text(encoding="utf-8")
    if kind == "sqlite":
        con = sqlite3.connect(make_path(url))
        con.executescript(dump)
        con.close()
        return
    import psycopg

    libpq = normalize_url(url).replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(libpq, autocommit=True) as conn:  # (its own connection: the dump sets search_path)
        conn.execute(dump.encode())


def make_path(url: str) -> str:
    return url.removeprefix("sqlite:///")


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(kind, URL) of a new, empty database."""
    if request.param == "sqlite":
        yield "sqlite", f"sqlite:///{tmp_path / 'db.sqlite3'}"
    else:
        yield "postgresql", _new_postgres_database(request.getfixturevalue("postgres_url"))


def _counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return {t: int(conn.execute(select(func.count()).select_from(text(t))).scalar_one()) for t in KEPT}


def _schema_differences(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn), metadata))


def _revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return migrate.revision(conn)


def _replays(storage: Storage) -> int:
    """Every stored match replays from its record to where it is stored; returns how many there are."""
    with storage.engine.connect() as conn:
        ids = [r[0] for r in conn.execute(text("SELECT id FROM converge_matches ORDER BY id"))]
    for mid in ids:
        row = storage.load(mid)
        assert row is not None
        match = Match.replay(row.record())
        assert len(match.history) == row.n_actions == len(row.actions)
        if row.status == "over" and row.reason == "match":
            assert match.is_terminal and match.winner == row.winner, mid
        elif row.status == "active":
            assert not match.is_terminal, mid
    return len(ids)


def test_a_database_the_version_4_server_left_is_upgraded_and_every_match_still_replays(
        database: tuple[str, str]) -> None:
    kind, url = database
    _load_dump(kind, url)
    plain = create_engine(normalize_url(url))
    before = _counts(plain)
    assert _revision(plain) is None and before["converge_matches"] >= 9 and before["converge_rating_changes"] > 0
    players = text("SELECT id, r, rd, vol, games FROM converge_players")
    with plain.connect() as conn:
        ratings = sorted(conn.execute(players).all())
    storage = Storage(url)
    try:
        assert _counts(storage.engine) == before  # nothing lost, nothing added
        assert _revision(storage.engine) == migrate.head()
        assert _schema_differences(storage.engine) == []
        with storage.engine.connect() as conn:
            assert sorted(conn.execute(players).all()) == ratings
            s = settings_table.c
            assert conn.execute(select(s.value).where(s.key == "schema_version")).scalar_one() == "4"
        assert _replays(storage) == before["converge_matches"]
    finally:
        storage.close()
    again = Storage(url)  # opened again: nothing to do
    try:
        assert _counts(again.engine) == before and _revision(again.engine) == migrate.head()
    finally:
        again.close()
        plain.dispose()


def test_a_new_database_has_exactly_the_schema_modules_tables(database: tuple[str, str]) -> None:
    _kind, url = database
    storage = Storage(url)
    try:
        assert _revision(storage.engine) == migrate.head()
        assert _schema_differences(storage.engine) == []
    finally:
        storage.close()


def test_a_version_1_database_with_matches_is_upgraded_to_the_same_schema(tmp_path: Path) -> None:
    """The version-4 server's database taken back to version 1 (no clocks per action, no hints, no lobby, no
    index): upgraded, it has the schema module's tables and its matches replay."""
    url = f"sqlite:///{tmp_path / 'v1.sqlite3'}"
    _load_dump("sqlite", url)
    con = sqlite3.connect(make_path(url))
    for table in ("converge_players", "converge_lobby_tables", "converge_match_players", "converge_rating_changes",
                  "converge_name_changes"):
        con.execute(f"DROP TABLE {table}")
    con.execute("DROP INDEX converge_matches_status_updated")
    con.execute("ALTER TABLE converge_actions DROP COLUMN clock_left_ms")
    con.execute("ALTER TABLE converge_matches DROP COLUMN hints")
    con.execute("UPDATE converge_settings SET value = '1' WHERE key = 'schema_version'")
    con.commit()
    matches = con.execute("SELECT count(*) FROM converge_matches").fetchone()[0]
    con.close()
    storage = Storage(url)
    try:
        assert _schema_differences(storage.engine) == [] and _revision(storage.engine) == migrate.head()
        assert _replays(storage) == matches
    finally:
        storage.close()


@pytest.mark.parametrize("how", ["an unknown revision", "a hand-numbered version above 4"])
def test_the_database_of_a_newer_server_is_refused_and_left_as_it_was(tmp_path: Path, how: str) -> None:
    url = f"sqlite:///{tmp_path / 'newer.sqlite3'}"
    Storage(url).close()
    con = sqlite3.connect(make_path(url))
    if how == "an unknown revision":
        con.execute("UPDATE alembic_version SET version_num = '9999'")
    else:
        con.execute("UPDATE converge_settings SET value = '5' WHERE key = 'schema_version'")
    con.commit()
    before = list(con.iterdump())
    con.close()
    with pytest.raises(StorageError, match=r"9999.*does not know|schema version 5"):
        Storage(url)
    con = sqlite3.connect(make_path(url))
    assert list(con.iterdump()) == before
    con.close()


def test_the_migrations_need_no_alembic_ini_and_ship_in_the_package() -> None:
    scripts = migrate.SCRIPTS
    assert (scripts / "env.py").is_file() and any((scripts / "versions").glob("v*.py"))
    assert scripts.is_relative_to(Path(migrate.__file__).parent)
    assert not list(Path(migrate.__file__).parents[3].glob("**/alembic.ini"))
