"""Players' names beyond their rules (which tests/server/test_lobby.py lists): how often a player may rename,
that a match keeps the names its players had when it started, and the start-up migration that keys the
stored names by their UTS #39 skeleton — on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import random
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, insert, select, text
from sqlalchemy.engine import make_url

from converge.server.app import AT_OPEN, create_app
from converge.server.lobby.identity import NAME_RULES_VERSION, check_name, name_key, name_keys, names_clash
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import lobby_store as store
from converge.server.storage.database import normalize_url
from converge.server.storage.match_store import Storage
from converge.server.storage.rows import MatchRow, SeatRow
from converge.server.storage.schema import settings_table
from tests.server.test_lobby import call, close_lobby_peers, db_rows, player  # noqa: F401 (a fixture)
from tests.server_support import FAST, Peer, client_for, hang_guard, play_friend_match  # noqa: F401

# ---------------------------------------------------------------------- how often a name may change


def test_the_rename_limit_waits_for_the_oldest_rename_of_the_hour_and_the_interval() -> None:
    hourly = store.RenameLimit(per_hour=3, interval_s=0)
    assert hourly.wait_s([], 100.0) == 0
    assert hourly.wait_s([10.0, 20.0], 100.0) == 0
    assert hourly.wait_s([10.0, 20.0, 30.0], 100.0) == pytest.approx(3510.0)  # the first leaves the hour
    spaced = store.RenameLimit(per_hour=0, interval_s=60)
    assert spaced.wait_s([90.0], 100.0) == pytest.approx(50.0)
    assert spaced.wait_s([30.0], 100.0) == 0
    both = store.RenameLimit(per_hour=2, interval_s=600)
    assert both.window_s() == 3600 and both.wait_s([0.0, 3000.0], 3300.0) == pytest.approx(300.0)
    assert store.RenameLimit().wait_s([1.0] * 50, 2.0) == 0  # no limit


def test_a_rename_flood_changes_the_name_only_as_often_as_the_limit_allows(tmp_path: Path) -> None:
    with client_for(tmp_path, players_per_hour=0, renames_per_hour=3, rename_interval_s=0) as client:
        ada, bob = player(client, "Ada"), player(client, "Bob")
        answers = [call(client, "PUT", "/api/me", ada, json={"name": f"Ada {i}"}) for i in range(300)]
        assert [r.status_code for r in answers] == [200] * 3 + [429] * 297
        refusal = answers[-1].json()["error"]
        assert refusal["code"] == "rate_limited"
        assert refusal["message"] == ("a name can be changed 3 times an hour: you may change yours again in 60 "
                                      "minutes")
        assert call(client, "GET", "/api/me", ada).json()["player"]["name"] == "Ada 2"
        changes = db_rows(tmp_path, "SELECT name, reason FROM converge_name_changes ORDER BY id")
        assert changes == [("Ada 0", "rename"), ("Ada 1", "rename"), ("Ada 2", "rename")]
        # the same name again changes nothing and is not refused; another player has their own limit
        assert call(client, "PUT", "/api/me", ada, json={"name": "Ada 2"}).status_code == 200
        assert call(client, "PUT", "/api/me", bob, json={"name": "Robert"}).status_code == 200
        # the database's count is the one that decides (another server process has no memory of it)
        lobby = client.app.state.lobby  # type: ignore[attr-defined]
        lobby.players.rename_after.clear()
        assert call(client, "PUT", "/api/me", ada, json={"name": None}).status_code == 429
        assert len(db_rows(tmp_path, "SELECT * FROM converge_name_changes")) == 4


def test_two_renames_are_at_least_the_interval_apart(tmp_path: Path) -> None:
    with client_for(tmp_path, players_per_hour=0, renames_per_hour=0, rename_interval_s=30) as client:
        ada = player(client, "Ada")
        assert call(client, "PUT", "/api/me", ada, json={"name": "Ada L"}).status_code == 200
        r = call(client, "PUT", "/api/me", ada, json={"name": "Ada M"})
        assert r.status_code == 429
        assert r.json()["error"]["message"] == ("a name can be changed 30 seconds apart: you may change yours "
                                                "again in 30 seconds")
        refused = call(client, "PUT", "/api/me", ada, json={"name": "hard"})  # a bad name: its own reason
        assert refused.json()["error"]["code"] == "bad_name"
        assert call(client, "GET", "/api/me", ada).json()["player"]["name"] == "Ada L"


def test_renames_are_counted_across_server_processes_postgresql(postgres_url: str) -> None:
    """Two server processes on one database (two apps here): the second knows nothing of the first's renames
    but the database's count, which it reads in the transaction that would rename."""
    settings = {**FAST, "players_per_hour": 0, "renames_per_hour": 1, "rename_interval_s": 0}
    from tests.server_support import FromAddress

    with TestClient(FromAddress(create_app(db_url=postgres_url, **settings))) as one, \
            TestClient(FromAddress(create_app(db_url=postgres_url, **settings))) as two:
        tag = secrets.token_hex(3)
        ada = player(one, f"Renamer {tag}")
        assert call(one, "PUT", "/api/me", ada, json={"name": f"Renamed {tag}"}).status_code == 200
        r = call(two, "PUT", "/api/me", ada, json={"name": f"Again {tag}"})
        assert r.status_code == 429 and "1 times an hour" in r.json()["error"]["message"]
        assert call(two, "GET", "/api/me", ada).json()["player"]["name"] == f"Renamed {tag}"


# ---------------------------------------------------------------------- a match keeps its players' names


def test_a_match_shows_the_names_its_players_had_when_it_started(tmp_path: Path) -> None:
    with client_for(tmp_path, players_per_hour=0, table_rate=1000.0, table_burst=1000.0) as client:
        ada, bob = player(client, "Ada"), player(client, "Bob")
        table = call(client, "POST", "/api/lobby/tables", ada, json={"seat": 0}).json()
        ready = call(client, "POST", f"/api/lobby/tables/{table['table_id']}/join", bob).json()
        # right after the match started, both take other names (Bob one that Ada's history must not show)
        assert call(client, "PUT", "/api/me", bob, json={"name": "Robert"}).status_code == 200
        assert call(client, "PUT", "/api/me", ada, json={"name": "Ada L"}).status_code == 200
        mid = ready["match_id"]
        peers = {0: Peer(client, mid, table["token"]), 1: Peer(client, mid, ready["token"])}
        play_friend_match(peers, random.Random(5))
        for peer in peers.values():
            peer.close()
        [ada_row] = call(client, "GET", "/api/me/history", ada).json()["matches"]
        [bob_row] = call(client, "GET", "/api/me/history", bob).json()["matches"]
        assert ada_row["opponent"] == {"kind": "human", "name": "Bob", "display": "Bob"}
        assert bob_row["opponent"] == {"kind": "human", "name": "Ada", "display": "Ada"}
        names = sorted(db_rows(tmp_path, "SELECT seat, name FROM converge_match_players"))
        assert names == [(0, "Ada"), (1, "Bob")]


# ---------------------------------------------------------------------- one name whatever its case (issue 38)

#: Latin letters and look-alikes of the same script (one script per name: check_name refuses a mix) — digits
#: that stand for letters, a capital I for an l, small capitals, fullwidth letters, accents — and, whole names
#: written in Cyrillic or in Greek capitals with the letters that look like them.
LATIN_LOOKALIKES = {"a": "4ɑᴀａàä", "b": "8ｂ", "e": "3ᴇｅéë", "i": "ıɪíï", "l": "I1ⅼｌ", "o": "0ᴏｏöó",
                    "s": "5ｓ", "t": "7ｔ", "z": "ᴢ", "u": "ᴜü", "n": "ɴñ", "r": "ʀ", "h": "ʜ", "g": "ɢ"}
CYRILLIC = dict(zip("acehijopsxy", "асеһіјорѕху", strict=True))
GREEK_CAPITALS = dict(zip("ABEHIKMNOPTXYZ", "ΑΒΕΗΙΚΜΝΟΡΤΧΥΖ", strict=True))


def case_forms(text: str) -> st.SearchStrategy[str]:
    """Any case form of ``text``: each character as it is, in small letters or in capitals."""
    return st.tuples(*(st.sampled_from([c, c.lower(), c.upper()]) for c in text)).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ éöçÆØßΔλΣωЖжЯяİı", min_size=3,
               max_size=20), st.data())
def test_every_case_form_of_a_name_has_its_key_and_is_the_same_name(name: str, data: st.DataObject) -> None:
    """``name_key`` gives one key for every case form (issue 38: the skeleton ran before the case fold, so
    ``ALICE`` was ``allce`` and ``Alice`` ``alice``), and a case form is always one name with the original."""
    form = data.draw(case_forms(name))
    assert name_key(form) == name_key(name) == name_key(name.upper()) == name_key(name.lower())
    assert names_clash(form, name) and name_key(name) in name_keys(name)


@settings(max_examples=300, deadline=None)
@given(st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=20), st.data())
def test_a_look_alike_in_any_case_is_the_same_name(name: str, data: st.DataObject) -> None:
    """Letters swapped for look-alikes of the same script, then the case changed anywhere, on either name:
    still one name."""
    swapped = "".join(data.draw(st.sampled_from([c, *LATIN_LOOKALIKES.get(c, "")])) for c in name)
    assert names_clash(data.draw(case_forms(name)), data.draw(case_forms(swapped))), (name, swapped)


@settings(max_examples=200, deadline=None)
@given(st.text("acehijopsxy", min_size=3, max_size=20), st.text("ABEHIKMNOPTXYZ", min_size=3, max_size=20),
       st.data())
def test_a_name_written_in_another_scripts_look_alikes_in_any_case_is_the_same_name(
        small: str, capitals: str, data: st.DataObject) -> None:
    """All in Cyrillic (``аԁа`` for ``ada``), or in Greek capitals (``ΗΑΝΑ`` for ``HANA``) then in any case
    (its small ``ηανα`` reads ``nava``, but is ``ΗΑΝΑ`` in capitals): one name with the Latin one, in any case."""
    cyrillic = "".join(CYRILLIC[c] for c in small)
    greek = "".join(GREEK_CAPITALS[c] for c in capitals)
    assert names_clash(data.draw(case_forms(small)), data.draw(case_forms(cyrillic)))
    assert names_clash(data.draw(case_forms(capitals)), data.draw(case_forms(greek)))


def test_names_that_look_alike_only_in_another_name_stay_apart() -> None:
    """Keys are a relation, not one class: the Greek ``ΗΑΝΑ`` is one name with ``HANA`` and with ``nava``, but
    those two are not one name (a single key could not tell: it would make h and n one letter)."""
    assert names_clash("ΗΑΝΑ", "Hana") and names_clash("ΗΑΝΑ", "nava") and not names_clash("Hana", "Nava")
    for a, b in (("Sam", "Oau"), ("Ada", "Adam"), ("Mila", "Nila"), ("Victor", "Victoria")):
        assert not names_clash(a, b), (a, b)


def test_victim_bob_in_capitals_or_with_look_alike_letters_is_refused(tmp_path: Path) -> None:
    """Issue 38: with "Victim Bob" taken, "VICTIM BOB" and "Vict1m Bob" were accepted as other players."""
    with client_for(tmp_path, players_per_hour=0) as client:
        _victim_bob(client)


def _victim_bob(client: TestClient) -> None:
    player(client, "Victim Bob")
    for clash in ("VICTIM BOB", "victim bob", "Vict1m Bob", "VictIm Bob", "VICTlM BOB", "V1CT1M B0B",
                  "Victim-Bob"):
        client.cookies.clear()
        r = client.put("/api/me", json={"name": clash})
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken", (clash, r.text)
    bob = player(client, "Bob Victim")  # (another name is another name)
    assert call(client, "PUT", "/api/me", bob, json={"name": "VICTIM BOB"}).json()["error"]["code"] == "name_taken"
    for reserved in ("ADMIN", "MEDIUM", "ISMCTS", "SYSTEM", "PLAYER I"):  # no rule is dodged by capitals
        with pytest.raises(ProtocolError):
            check_name(reserved)


# ---------------------------------------------------------------------- the migration of stored names


def _storage_url(kind: str, tmp_path: Path, postgres_url: str | None) -> str:
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'names.sqlite3'}"
    assert postgres_url is not None
    url = make_url(normalize_url(postgres_url))
    db = f"names_{secrets.token_hex(4)}"  # a database of its own: the module's other tests have players too
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {db}"))
    engine.dispose()
    return url.set(database=db).render_as_string(hide_password=False)


#: (id, name, old key, created_at): the players of a version 3 database, keyed as version 3 did (case and
#: accents folded, nothing else), so look-alikes of other scripts had keys of their own.
OLD_PLAYERS = [
    ("p-small-caps", "\u029c\u1d00\u0280\u1d05", "\u029c\u1d00\u0280\u1d05", 1.0),  # ʜᴀʀᴅ: oldest, but a bot's
    ("p-ada", "Ada", "ada", 2.0),
    ("p-cyrillic-ada", "\u0410\u0501\u0430", "\u0430\u0501\u0430", 3.0),  # Аԁа, all Cyrillic: Ada's look-alike
    ("p-mixed", "h\u0430rd", "h\u0430rd", 4.0),  # hаrd
    ("p-zoe", "Zo\u00eb", "zoe", 5.0),
    ("p-anon", None, None, 6.0),
]


def _as_version_3(url: str) -> None:
    """Turn a new database into one a version 3 server left: no names kept with the matches, no name
    changes, the old keys, and a match between Ada and her look-alike."""
    engine = create_engine(normalize_url(url))
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE converge_name_changes"))
        conn.execute(text("ALTER TABLE converge_match_players DROP COLUMN name"))
        conn.execute(text("UPDATE converge_settings SET value = '3' WHERE key = 'schema_version'"))
        conn.execute(text("DELETE FROM converge_settings WHERE key = 'name_rules_version'"))
        for pid, name, key, created in OLD_PLAYERS:
            conn.execute(text("INSERT INTO converge_players (id, token_hash, name, name_key, r, rd, vol, games, "
                              "created_at, updated_at) VALUES (:id, :h, :n, :k, 1500, 350, 0.06, 0, :c, :c)"),
                         {"id": pid, "h": "h-" + pid, "n": name, "k": key, "c": created})
        seats = [SeatRow(0, "t0", None), SeatRow(1, "t1", None)]
        Storage.create_match(conn, MatchRow("old-match", "friend", ["alchemist", "mechanist", "archivist"], 1,
                                            "random", "d", 2, seats=seats))
        for seat, pid in ((0, "p-ada"), (1, "p-cyrillic-ada")):
            conn.execute(text("INSERT INTO converge_match_players (match_id, seat, player_id, rated, kind) "
                              "VALUES ('old-match', :s, :p, false, 'table')"), {"s": seat, "p": pid})
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def old_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    postgres_url = request.getfixturevalue("postgres_url") if request.param == "postgresql" else None
    url = _storage_url(request.param, tmp_path, postgres_url)
    Storage(url).close()
    _as_version_3(url)
    yield url


def test_a_version_3_database_keys_its_names_again_and_the_older_player_keeps_a_shared_key(
        old_database: str) -> None:
    storage = Storage(old_database, at_open=AT_OPEN)  # (as a server opens it)
    try:
        with storage.engine.connect() as conn:
            p = store.players_table.c
            players = {pid: (name, key) for pid, name, key in conn.execute(select(p.id, p.name, p.name_key))}
            mp = store.match_players_table.c
            at_start = dict(conn.execute(select(mp.seat, mp.name).where(mp.match_id == "old-match")).all())
            nc = store.name_changes_table.c
            cleared = sorted(pid for pid, reason in conn.execute(select(nc.player_id, nc.reason))
                             if reason == "cleared")
            s = settings_table.c
            version = dict(conn.execute(select(s.key, s.value)).all())
    finally:
        storage.close()
    assert players["p-ada"] == ("Ada", "ada")  # the older of the two look-alikes keeps the name
    assert players["p-cyrillic-ada"] == (None, None)  # the later one plays on anonymous
    assert players["p-small-caps"] == (None, None) and players["p-mixed"] == (None, None)  # now refused
    assert players["p-zoe"] == ("Zo\u00eb", "zoe") and players["p-anon"] == (None, None)
    assert cleared == ["p-cyrillic-ada", "p-mixed", "p-small-caps"]
    assert at_start == {0: "Ada", 1: "\u0410\u0501\u0430"}  # what the match showed then: kept as it was
    assert version["schema_version"] == "4" and version["name_rules_version"] == NAME_RULES_VERSION
    again = Storage(old_database, at_open=AT_OPEN)  # opened again: nothing more changes
    try:
        with again.engine.connect() as conn:
            assert len(conn.execute(select(store.name_changes_table.c.id)).all()) == 3
    finally:
        again.close()


def test_stored_names_are_keyed_again_when_the_rules_change(tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    """A new rules version (a new rule, or disarm's new tables) checks and keys every stored name again. Names
    the rules of version 2 keyed apart by their case (issue 38: the skeleton ran before the case fold, so
    ``VICTIM BOB`` was ``vlctlmbob``, ``Victim Bob`` ``victimbob``) are one name now: the older player keeps
    it, the later one plays on anonymous, and the log names both; a name the rules now refuse in capitals
    (``ADMIN``) is cleared too; every other player keeps their name, with all its keys."""
    url = f"sqlite:///{tmp_path / 'rules.sqlite3'}"
    storage = Storage(url)
    stored = [("p1", "Victim Bob", "victimbob"), ("p2", "Ada", "stale-key"), ("p3", "VICTIM BOB", "vlctlmbob"),
              ("p4", "ADMIN", "admln"), ("p5", "Vict1m Bob", "victlmbob"), ("p6", "Grace", "grace")]
    with storage.engine.begin() as conn:  # as the rules of version 2 left them: one key each, no key rows
        for i, (pid, name, key) in enumerate(stored):
            conn.execute(insert(store.players_table).values(
                id=pid, token_hash=f"h{pid}", name=name, name_key=key, r=1500, rd=350, vol=0.06, games=0,
                created_at=1000.0 + i, updated_at=1000.0 + i))
        conn.execute(settings_table.update().where(settings_table.c.key == "name_rules_version")
                     .values(value="rules-2/disarm-key-10/unicode-17.0.0"))
    storage.close()
    with caplog.at_level("WARNING", logger="converge.server.lobby"):
        storage = Storage(url, at_open=AT_OPEN)
    try:
        with storage.engine.connect() as conn:
            p = store.players_table.c
            names = dict(conn.execute(select(p.id, p.name)).all())
            keys = dict(conn.execute(select(p.id, p.name_key)).all())
            rows = conn.execute(select(store.name_keys_table.c.key, store.name_keys_table.c.player_id)).all()
    finally:
        storage.close()
    assert names == {"p1": "Victim Bob", "p2": "Ada", "p3": None, "p4": None, "p5": None, "p6": "Grace"}
    assert keys == {"p1": "victimbob", "p2": "ada", "p3": None, "p4": None, "p5": None, "p6": "grace"}
    assert sorted(rows) == [("ada", "p2"), ("grace", "p6"), ("victimbob", "p1")]  # (l and i: one letter)
    said = caplog.text
    assert "p3" in said and "'VICTIM BOB'" in said and "p1's 'Victim Bob'" in said
    assert "'ADMIN'" in said and "reserved for the server" in said


def test_stored_players_can_still_rename_after_the_migration(tmp_path: Path) -> None:
    url = tmp_path / "matches.sqlite3"
    Storage(str(url)).close()
    _as_version_3(f"sqlite:///{url}")
    with client_for(tmp_path, players_per_hour=0) as client:
        token = "t" * 43
        with client.app.state.hub.storage.engine.begin() as conn:  # type: ignore[attr-defined]
            conn.execute(insert(store.players_table).values(
                id="p-new", token_hash=hashlib.sha256(token.encode()).hexdigest(), name=None,
                name_key=None, r=1500, rd=350, vol=0.06, games=0, created_at=time.time(), updated_at=time.time()))
        r = call(client, "PUT", "/api/me", token, json={"name": "\u0410\u0501\u0430"})  # Ada's look-alike
        assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
        assert call(client, "PUT", "/api/me", token, json={"name": "Adele"}).status_code == 200
