"""``converge db backup|restore|upgrade|status`` (converge.server.storage.backup): a backup taken while a real
``converge serve`` plays bot matches restores into a fresh database where every match, finished or not,
replays to what its row says; PostgreSQL's round trip through pg_dump and pg_restore; and the refusals (an
existing backup file, a target holding matches or held by a server, a file that is no backup, a newer
database), each one line that changes nothing."""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from converge.server.storage.pgcluster import free_port
from tests.server_support import FAST, Server, hang_guard  # noqa: F401 (a fixture)

pytest.importorskip("alembic")

import httpx2
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import text

from converge import Match
from converge.cli.main import main
from converge.server.app import create_app
from converge.server.storage import backup, migrate
from converge.server.storage.database import SingleServerLock, make_engine
from converge.server.storage.match_store import Storage
from tests.server.test_migrations import _load_dump, _new_postgres_database


def run_db(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["db", *args])
    out, err = capsys.readouterr()
    return code, out, err


def replays(url: str) -> dict[str, tuple[str, int]]:
    """Every stored match replayed from its record through the engine to the state its row says (its number of
    actions; the winner of a finished one): each match's (status, number of actions), by id."""
    storage = Storage(url)
    try:
        with storage.engine.connect() as conn:
            ids = [r[0] for r in conn.execute(text("SELECT id FROM converge_matches ORDER BY id"))]
        found = {}
        for mid in ids:
            row = storage.load(mid)
            assert row is not None
            match = Match.replay(row.record())
            assert len(match.history) == row.n_actions == len(row.actions), mid
            if row.status == "over":
                assert match.is_terminal and match.winner == row.winner, mid
            else:
                assert not match.is_terminal, mid
            found[mid] = (row.status, row.n_actions)
        return found
    finally:
        storage.close()


# ---------------------------------------------------------------------- a real server, backed up as it plays


class Player:
    """Plays the human seat of bot matches over HTTP with random legal actions, from its own thread: some
    matches to their end (a new one started for each that ends), some left part-way."""

    def __init__(self, base: str, seed: int) -> None:
        self.http = httpx2.Client(base_url=base, timeout=30)
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.posted = 0
        self.finished = 0
        self.error: BaseException | None = None

    def new_match(self) -> tuple[str, str, int]:
        r = self.http.post("/api/matches", json={"opponent": "bot", "bot": "random", "playset": "random"})
        assert r.status_code == 201, r.text
        return r.json()["match_id"], r.json()["token"], r.json()["seat"]

    def step(self, match: tuple[str, str, int]) -> str:
        """One action of the human seat when it is its turn; the match's status."""
        mid, token, seat = match
        headers = {"Authorization": f"Bearer {token}"}
        doc = self.http.get(f"/api/matches/{mid}", headers=headers).json()
        if doc["match"]["status"] == "over":
            return "over"
        decision = doc["observation"].get("decision")
        if doc["observation"]["current_player"] != seat or not decision or not decision.get("legal_actions"):
            time.sleep(0.002)  # the bot's turn
            return "active"
        action = self.rng.choice(decision["legal_actions"])["id"]
        r = self.http.post(f"/api/matches/{mid}/actions", json={"action": action, "seq": doc["seq"]},
                           headers=headers)
        if r.status_code == 200:
            self.posted += 1
        return "active"

    def play_part_way(self, actions: int) -> None:
        match = self.new_match()
        start = self.posted
        while self.posted - start < actions and self.step(match) == "active":
            pass

    def run(self, parallel: int = 3) -> None:
        try:
            playing = [self.new_match() for _ in range(parallel)]
            while not self.stop.is_set():
                for i, match in enumerate(playing):
                    if self.step(match) == "over":
                        self.finished += 1
                        playing[i] = self.new_match()
        except BaseException as exc:  # (reported by the test)
            self.error = exc


def test_a_backup_taken_while_the_server_plays_restores_and_every_match_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # A page per step, and a pause after each: the copy spans many of the server's commits.
    monkeypatch.setattr(backup, "STEP_PAGES", 1)
    monkeypatch.setattr(backup, "_step", lambda *_: time.sleep(0.01))
    db = tmp_path / "live.sqlite3"
    server = Server(db, None, "--bot-delay", "0", "--bot-workers", "0")
    server.start()
    player = Player(server.base, seed=7)
    thread = threading.Thread(target=player.run, daemon=True)
    try:
        for n in (5, 12, 20):
            player.play_part_way(n)  # left in progress
        thread.start()
        deadline = time.monotonic() + 120
        while player.finished < 3 and time.monotonic() < deadline and player.error is None:
            time.sleep(0.1)
        assert player.error is None and player.finished >= 3
        posted_before = player.posted
        code, out, err = run_db(capsys, "backup", str(tmp_path / "mid.sqlite3"), "--db", str(db))
        posted_after = player.posted
        time.sleep(0.5)
        assert player.error is None and player.posted > posted_after  # the server went on playing
    finally:
        player.stop.set()
        thread.join(timeout=60)
        server.stop()
    assert code == 0, err
    assert out.startswith(f"wrote {tmp_path / 'mid.sqlite3'} (") and "finished" in out and err == ""
    assert posted_after > posted_before  # the server wrote while the backup was being copied
    backup_file = tmp_path / "mid.sqlite3"
    assert not Path(f"{backup_file}-wal").exists()  # one self-contained file

    fresh = tmp_path / "restored" / "fresh.sqlite3"
    fresh.parent.mkdir()
    code, out, err = run_db(capsys, "restore", str(backup_file), "--db", str(fresh))
    assert code == 0, err
    assert f"into {fresh}" in out and f"now at revision {migrate.head()}" in out
    restored = replays(str(fresh))
    statuses = [status for status, _ in restored.values()]
    assert statuses.count("over") >= 3 and statuses.count("active") >= 3
    summary = backup.Counts(migrate.head(), statuses.count("over"), statuses.count("active")).summary()
    assert summary in out  # what the backup said it held is what was restored
    final = replays(f"sqlite:///{db}")  # the live database went on beyond the backup
    assert set(restored) <= set(final)
    assert sum(n for _, n in final.values()) > sum(n for _, n in restored.values())


# ---------------------------------------------------------------------- SQLite: refusals, upgrade, status


def _played_database(path: Path, matches: int = 2, seed: int = 3) -> Path:
    """A database with ``matches`` bot matches, each part-way (from the app, in-process)."""
    app = create_app(db_url=str(path), **FAST)
    rng = random.Random(seed)
    with TestClient(app) as client:
        for _ in range(matches):
            made = client.post("/api/matches", json={"opponent": "bot", "bot": "random"}).json()
            headers = {"Authorization": f"Bearer {made['token']}"}
            for _ in range(6):
                doc = client.get(f"/api/matches/{made['match_id']}", headers=headers).json()
                decision = doc["observation"].get("decision")
                if doc["match"]["status"] == "over" or not decision or not decision.get("legal_actions"):
                    break
                client.post(f"/api/matches/{made['match_id']}/actions", headers=headers,
                            json={"action": rng.choice(decision["legal_actions"])["id"], "seq": doc["seq"]})
    return path


def test_backup_refuses_to_overwrite_an_existing_file_unless_forced(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _played_database(tmp_path / "db.sqlite3")
    dest = tmp_path / "backup.sqlite3"
    dest.write_bytes(b"keep me")
    code, out, err = run_db(capsys, "backup", str(dest), "--db", str(db))
    assert code == 2 and out == "" and err == f"converge: error: {dest} already exists: give another name, " \
                                              "or --force to overwrite it\n"
    assert dest.read_bytes() == b"keep me"
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []
    code, out, err = run_db(capsys, "backup", str(dest), "--db", str(db), "--force")
    assert code == 0 and "2 matches (0 finished, 2 in progress)" in out
    assert dest.read_bytes().startswith(b"SQLite format 3\x00")


def test_restore_refuses_a_target_holding_matches_unless_replace(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _played_database(tmp_path / "a.sqlite3", matches=1, seed=1)
    target = _played_database(tmp_path / "b.sqlite3", matches=2, seed=2)
    assert run_db(capsys, "backup", str(tmp_path / "a.bak"), "--db", str(source))[0] == 0
    before = replays(f"sqlite:///{target}")
    code, out, err = run_db(capsys, "restore", str(tmp_path / "a.bak"), "--db", str(target))
    assert code == 2 and out == ""
    assert err == (f"converge: error: {target} already holds 2 matches: restore into a new file, or give "
                   "--replace to replace them\n")
    assert replays(f"sqlite:///{target}") == before
    code, out, err = run_db(capsys, "restore", str(tmp_path / "a.bak"), "--db", str(target), "--replace")
    assert code == 0 and "replacing its 2 matches" in out
    assert replays(f"sqlite:///{target}") == replays(f"sqlite:///{source}")


def test_restore_refuses_while_a_server_holds_the_target(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _played_database(tmp_path / "a.sqlite3", matches=1)
    assert run_db(capsys, "backup", str(tmp_path / "a.bak"), "--db", str(source))[0] == 0
    target = tmp_path / "served.sqlite3"
    lock = SingleServerLock(target)  # as a running server holds it
    try:
        code, _, err = run_db(capsys, "restore", str(tmp_path / "a.bak"), "--db", str(target))
    finally:
        lock.release()
    assert code == 2 and f"{target} is in use by a running converge server: stop it before restoring" in err
    assert not target.exists()


NOT_BACKUPS = [b"", b"garbage, not a database\n" * 40, b"SQLite format 3\x00" + b"\x07" * 4000]


@pytest.mark.parametrize("content", NOT_BACKUPS)
def test_restore_of_a_file_that_is_no_backup_is_one_line_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(content)
    target = _played_database(tmp_path / "t.sqlite3", matches=1)
    before = target.read_bytes()
    code, out, err = run_db(capsys, "restore", str(bad), "--db", str(target), "--replace")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"converge: error: {bad} is not a converge backup")
    assert target.read_bytes() == before


def test_a_missing_backup_or_database_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing.sqlite3"
    for args in (["restore", str(missing), "--db", str(tmp_path / "t.sqlite3")],
                 ["backup", str(tmp_path / "b"), "--db", str(missing)], ["upgrade", "--db", str(missing)],
                 ["status", "--db", str(missing)]):
        code, out, err = run_db(capsys, *args)
        assert (code, out, err) == (2, "", f"converge: error: {missing}: no such file\n"), args
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_upgrade_of_a_baseline_database_reports_from_and_to_then_already(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "old.sqlite3"
    engine = make_engine(str(path))
    with engine.begin() as conn:
        command.upgrade(migrate.config(conn), migrate.BASELINE)
    engine.dispose()
    code, out, err = run_db(capsys, "status", "--db", str(path))
    assert code == 0 and f"revision {migrate.BASELINE}" in out and "`converge db upgrade`" in out
    code, out, err = run_db(capsys, "upgrade", "--db", str(path))
    assert (code, err) == (0, "")
    assert out == f"upgraded {path} from revision {migrate.BASELINE} to revision {migrate.head()}\n"
    assert run_db(capsys, "upgrade", "--db", str(path))[1] == \
        f"{path} is already at revision {migrate.head()}, the newest\n"


def test_upgrade_of_a_database_made_before_revisions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v4.sqlite3"
    _load_dump("sqlite", f"sqlite:///{path}")
    code, out, err = run_db(capsys, "upgrade", "--db", str(path))
    assert (code, err) == (0, "")
    assert out == (f"upgraded {path} from schema version 4 (made before revisions) to revision "
                   f"{migrate.head()}\n")
    assert len(replays(f"sqlite:///{path}")) >= 9


def test_upgrade_refuses_the_database_of_a_newer_version_and_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _played_database(tmp_path / "db.sqlite3", matches=1)
    con = sqlite3.connect(path)
    con.execute("UPDATE alembic_version SET version_num = '9999'")
    con.commit()
    con.close()
    before = path.read_bytes()
    code, out, err = run_db(capsys, "upgrade", "--db", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"converge: error: {path} is at revision 9999, which this converge does not know")
    assert path.read_bytes() == before
    assert run_db(capsys, "backup", str(tmp_path / "b"), "--db", str(path))[0] == 0  # (a backup still works)
    code, _, err = run_db(capsys, "restore", str(tmp_path / "b"), "--db", str(tmp_path / "new.sqlite3"))
    assert code == 2 and "revision 9999, which this converge does not know" in err
    assert not (tmp_path / "new.sqlite3").exists()


def test_upgrade_refuses_while_a_server_holds_a_database_that_needs_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v4.sqlite3"
    _load_dump("sqlite", f"sqlite:///{path}")
    lock = SingleServerLock(path)
    try:
        code, _, err = run_db(capsys, "upgrade", "--db", str(path))
    finally:
        lock.release()
    assert code == 2 and "is in use by a running converge server: stop it before upgrading" in err


# ---------------------------------------------------------------------- PostgreSQL


def _pg_played(url: str, matches: int = 2) -> None:
    rng = random.Random(5)
    with TestClient(create_app(db_url=url, **FAST)) as client:
        for i in range(matches):
            made = client.post("/api/matches", json={"opponent": "bot", "bot": "random"}).json()
            headers = {"Authorization": f"Bearer {made['token']}"}
            for _ in range(400 if i == 0 else 5):  # the first one to its end
                doc = client.get(f"/api/matches/{made['match_id']}", headers=headers).json()
                if doc["match"]["status"] == "over":
                    break
                decision = doc["observation"].get("decision")
                if not decision or not decision.get("legal_actions"):
                    time.sleep(0.01)
                    continue
                client.post(f"/api/matches/{made['match_id']}/actions", headers=headers,
                            json={"action": rng.choice(decision["legal_actions"])["id"], "seq": doc["seq"]})


@pytest.fixture
def pg_tools() -> None:
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        pytest.skip("pg_dump and pg_restore are not installed (apt-get install postgresql-client)")


def test_postgresql_round_trip_through_pg_dump_and_pg_restore(
        postgres_url: str, pg_tools: None, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    source, target = _new_postgres_database(postgres_url), _new_postgres_database(postgres_url)
    _pg_played(source)
    original = replays(source)
    assert sorted(s for s, _ in original.values()) == ["active", "over"]
    # A password in the URL goes to the tools in PGPASSWORD, never on their command line, never printed.
    secret = "s3cret-Pw"
    with_password = source.replace("converge@", f"converge:{secret}@")
    calls: list[tuple[list[str], dict[str, str]]] = []
    real_run = subprocess.run

    def spy(cmd: list[str], **kwargs: Any) -> Any:
        calls.append((list(cmd), dict(kwargs.get("env") or {})))
        return real_run(cmd, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    dump = tmp_path / "converge.dump"
    code, out, err = run_db(capsys, "backup", str(dump), "--db", with_password)
    assert code == 0, err
    assert "1 finished, 1 in progress" in out and secret not in out + err and "***" in out
    assert calls and all(secret not in " ".join(cmd) for cmd, _ in calls)
    assert calls[0][1]["PGPASSWORD"] == secret
    assert dump.read_bytes().startswith(b"PGDMP")
    monkeypatch.undo()

    code, out, err = run_db(capsys, "restore", str(dump), "--db", target)
    assert code == 0, err
    assert replays(target) == original
    code, out, err = run_db(capsys, "restore", str(dump), "--db", target)
    assert code == 2 and "already holds 2 matches" in err
    code, out, err = run_db(capsys, "restore", str(dump), "--db", target, "--replace")
    assert code == 0 and "replacing its 2 matches" in out
    assert replays(target) == original
    garbage = tmp_path / "garbage.dump"
    garbage.write_bytes(b"PGDMP" + b"\x00" * 100)
    code, out, err = run_db(capsys, "restore", str(garbage), "--db", target, "--replace")
    assert code == 2 and err.count("\n") == 1 and str(garbage) in err
    assert replays(target) == original
    code, out, err = run_db(capsys, "upgrade", "--db", target)
    assert out.endswith(f"is already at revision {migrate.head()}, the newest\n")


def test_a_postgresql_url_that_cannot_be_reached_is_one_line_with_the_password_masked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_tools: None) -> None:
    url = f"postgresql://someone:hunter2-pw@127.0.0.1:{free_port()}/converge"
    for args in (["status"], ["upgrade"], ["backup", str(tmp_path / "x.dump")], ["restore", str(tmp_path)]):
        code, out, err = run_db(capsys, *args, "--db", url)
        assert code == 2 and out == "" and err.count("\n") == 1, args
        assert "hunter2-pw" not in err, err
        assert "someone:***@127.0.0.1" in err or args[0] == "restore", err
    assert list(tmp_path.iterdir()) == []
