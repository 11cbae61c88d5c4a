"""Crash safety: kill the server process (SIGKILL) mid-match, start it again, finish every match, and compare
with the record. An acknowledged action is never lost and no action is applied twice."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
httpx = pytest.importorskip("httpx2")

from websockets.sync.client import ClientConnection, connect  # noqa: E402

from converge import Match  # noqa: E402
from tests.server_support import Server, hang_guard  # noqa: E402, F401


class Seat:
    """A WebSocket client of one seat, keeping its view (events arrive as deltas)."""

    def __init__(self, server: Server, match_id: str, token: str) -> None:
        self.stack = contextlib.ExitStack()
        self.ws: ClientConnection = self.stack.enter_context(
            connect(f"ws://127.0.0.1:{server.port}/ws/{match_id}", open_timeout=20))
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.obs: dict[str, Any] = {}
        self.meta: dict[str, Any] = {}
        self.seq = -1
        self.seat = -1
        self.acked: list[tuple[int, int]] = []
        self.until("welcome")

    def recv(self) -> dict[str, Any]:
        msg: dict[str, Any] = json.loads(self.ws.recv(timeout=20))
        if msg["type"] == "welcome":
            self.seat, self.obs, self.meta, self.seq = msg["seat"], msg["observation"], msg["match"], msg["seq"]
        elif msg["type"] == "state":
            events = self.obs["events"][:msg["events_from"]] + msg["observation"]["events"]
            self.obs, self.meta, self.seq = {**msg["observation"], "events": events}, msg["match"], msg["seq"]
        elif msg["type"] == "meta":
            self.meta = msg["match"]
        return msg

    def until(self, kind: str) -> dict[str, Any]:
        while True:
            msg = self.recv()
            assert msg["type"] != "error", msg
            if msg["type"] == kind:
                return msg

    def my_turn(self) -> bool:
        d = self.obs.get("decision")
        return self.meta["status"] == "active" and d is not None and d["player"] == self.seat

    def send_action(self, rng: random.Random) -> int:
        action: int = rng.choice(self.obs["decision"]["legal_actions"])["id"]
        self.ws.send(json.dumps({"type": "action", "action": action, "seq": self.seq}))
        return action

    def act(self, rng: random.Random) -> None:
        action = self.send_action(rng)
        ack = self.until("ack")
        self.acked.append((ack["seq"] - 1, action))
        self.until("state")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.stack.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "matches.sqlite3", None, "--bot-delay", "0", "--replace-after", "0", "--rate", "1000")
    s.start()
    yield s
    s.stop()


def create(server: Server, **body: Any) -> dict[str, Any]:
    r = httpx.post(f"{server.base}/api/matches", json={"playset": "random", **body}, timeout=20)
    assert r.status_code == 201, r.text
    doc: dict[str, Any] = r.json()
    return doc


def play(seats: dict[int, Seat], rng: random.Random, actions: int | None = None) -> None:
    """Play until the match ends (or ``actions`` of this side's actions). A bot's moves arrive as states."""
    done = 0
    any_seat = next(iter(seats.values()))
    while any_seat.meta["status"] == "active" and (actions is None or done < actions):
        movers = [s for s in seats.values() if s.my_turn()]
        if movers:
            movers[0].act(rng)
            for other in seats.values():
                while other.seq < movers[0].seq:
                    other.recv()
            done += 1
        else:
            for s in seats.values():
                s.until("state")


def test_killing_the_server_mid_match_loses_nothing(server: Server) -> None:
    rng = random.Random(2)
    friend = create(server, opponent="friend", seat=0)
    invite = friend["invite_url"].split("#token=")[1]
    bot = create(server, opponent="bot", bot="random", seat=1)
    tokens = {0: friend["token"], 1: invite}
    f = {s: Seat(server, friend["match_id"], t) for s, t in tokens.items()}
    b = {1: Seat(server, bot["match_id"], bot["token"])}
    play(f, rng, actions=12)
    play(b, rng, actions=5)
    acked_f = f[0].acked + f[1].acked
    acked_b = list(b[1].acked)
    seen_f = dict(f[0].obs), f[0].seq
    # Kill -9 right after sending an action, before its ack could be read: it may or may not be committed.
    mover = next(s for s in f.values() if s.my_turn())
    in_flight = (mover.seq, mover.send_action(rng))
    server.kill()
    for s in (*f.values(), *b.values()):
        s.close()

    server.start()
    f = {s: Seat(server, friend["match_id"], t) for s, t in tokens.items()}
    b = {1: Seat(server, bot["match_id"], bot["token"])}
    assert f[0].seq in (len(acked_f), len(acked_f) + 1)  # every acknowledged action is there
    if f[0].seq == len(acked_f):
        assert f[0].obs == seen_f[0]  # exactly where it was
        committed = []
    else:
        committed = [in_flight]
    assert b[1].seq >= len(acked_b)
    # A second crash, in the bot match this time, while the bot may be answering.
    play(b, rng, actions=3)
    b_mover = b[1]
    while not b_mover.my_turn():
        b_mover.until("state")
    b_in_flight = (b_mover.seq, b_mover.send_action(rng))
    assert b_in_flight[0] >= len(acked_b)
    server.kill()
    for s in (*f.values(), *b.values()):
        s.close()

    server.start()
    before_restart_b = b[1].acked
    f = {s: Seat(server, friend["match_id"], t) for s, t in tokens.items()}
    b = {1: Seat(server, bot["match_id"], bot["token"])}
    play(f, rng)
    play(b, rng)

    record_f = httpx.get(f"{server.base}/api/matches/{friend['match_id']}/record").json()
    after_f = f[0].acked + f[1].acked
    assert sorted(acked_f + committed + after_f) == list(enumerate(record_f["actions"]))
    final_f = Match.replay(record_f)
    assert final_f.is_terminal and f[0].obs == final_f.observation(0) and f[1].obs == final_f.observation(1)

    record_b = httpx.get(f"{server.base}/api/matches/{bot['match_id']}/record").json()
    for idx, action in before_restart_b + b[1].acked:  # every acknowledged action, in its place
        assert record_b["actions"][idx] == action
    if b[1].acked and b[1].acked[0][0] == b_in_flight[0]:  # the in-flight action was not committed
        assert len(record_b["actions"]) > b_in_flight[0]
    final_b = Match.replay(record_b)
    assert final_b.is_terminal and b[1].obs == final_b.observation(1)
    assert len(record_b["actions"]) == b[1].seq
    for s in (*f.values(), *b.values()):
        s.close()
    assert "Traceback" not in server.log_path.read_text()


def test_the_server_refuses_a_database_it_cannot_use(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = subprocess.run([sys.executable, "-m", "converge", "serve", "--db", str(blocker / "x.sqlite3")],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert proc.returncode == 2
    assert proc.stderr.startswith("converge: error: cannot create") and "Traceback" not in proc.stderr


def test_the_load_benchmark_runs_and_checks_every_action() -> None:
    """`converge serve-bench` on a small load: every acknowledged action is in the records, once."""
    proc = subprocess.run([sys.executable, "-m", "converge", "serve-bench", "--matches", "4", "--think-ms", "0-2",
                           "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["finished"] == result["verified"] == 4
    assert result["lost"] == result["duplicated"] == result["errors"] == 0
    assert result["actions"] > 40 and result["latency_ms"]["p99"] >= result["latency_ms"]["p50"] > 0
    assert result["db"] == "SQLite (WAL, synchronous=FULL)"  # as the server said it


def test_the_load_benchmark_measures_the_durability_it_is_asked_for() -> None:
    """`serve-bench --sqlite-sync NORMAL` runs the server so (the server says so), and refuses PostgreSQL."""
    proc = subprocess.run([sys.executable, "-m", "converge", "serve-bench", "--matches", "2", "--think-ms", "0-2",
                           "--sqlite-sync", "NORMAL", "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["db"] == "SQLite (WAL, synchronous=NORMAL)" and result["verified"] == 2
    proc = subprocess.run([sys.executable, "-m", "converge", "serve-bench", "--servers", "2", "--sqlite-sync",
                           "NORMAL"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "does not apply to PostgreSQL" in proc.stderr
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------ a crash during a lobby table's join

#: How long the join's transaction waits at its pause point (CONVERGE_TEST_PAUSE): the kill lands in it.
JOIN_PAUSE_S = 0.8
#: Kills per database: a few in `make test`, 20 in `make fuzz` (each is a restart: seconds).
KILLS = int(os.environ.get("CONVERGE_TABLE_JOIN_KILLS", "8"))


def _named(server: Server, name: str) -> str:
    """A new player's cookie token."""
    from converge.server.lobby.identity import COOKIE

    r = httpx.put(f"{server.base}/api/me", json={"name": name}, timeout=20)
    assert r.status_code == 200, r.text
    return str(r.cookies[COOKIE])


def _as(token: str) -> dict[str, str]:
    from converge.server.lobby.identity import COOKIE

    return {"cookie": f"{COOKIE}={token}"}


def _join_in_background(server: Server, table_id: str, token: str) -> threading.Thread:
    """The join request, whose answer the kill usually cuts off (any outcome is fine here)."""

    def join() -> None:
        with contextlib.suppress(Exception):
            httpx.post(f"{server.base}/api/lobby/tables/{table_id}/join", headers=_as(token), timeout=10)

    thread = threading.Thread(target=join, daemon=True)
    thread.start()
    return thread


def _wait_for_pause(server: Server, seen: int) -> None:
    marker = "test pause point table_join reached"
    deadline = time.monotonic() + 20
    while server.log_path.read_text(errors="replace").count(marker) <= seen:
        assert time.monotonic() < deadline, "the join never reached its pause point"
        time.sleep(0.01)


def _crash_joins(server: Server, rng: random.Random) -> None:
    """Kill the server (SIGKILL) during a table's join, ``KILLS`` times, and check after each restart that the
    table is open (the join left no trace) or its match is whole — never a table started without its match.
    Half the kills wait for the join's transaction to reach its pause point and land inside it; the others
    land at any moment from the request on, before, inside or after that transaction."""
    server.start()
    outcomes = {"open": 0, "whole": 0}
    reopened: list[tuple[str, dict[str, Any]]] = []
    for i in range(KILLS):
        host = _named(server, f"Host {i:02d}")
        guest = _named(server, f"Guest {i:02d}")
        r = httpx.post(f"{server.base}/api/lobby/tables", json={"seat": rng.randrange(2)}, headers=_as(host),
                       timeout=20)
        assert r.status_code == 201, r.text
        table = r.json()
        paused = server.log_path.read_text(errors="replace").count("test pause point table_join reached")
        thread = _join_in_background(server, table["table_id"], guest)
        if i % 2 == 0:
            _wait_for_pause(server, paused)
            time.sleep(rng.uniform(0, JOIN_PAUSE_S / 2))
        else:
            time.sleep(rng.uniform(0, JOIN_PAUSE_S + 0.5))
        server.kill()
        thread.join(15)
        server.start()
        listed = {t["id"] for t in httpx.get(f"{server.base}/api/lobby", timeout=20).json()["tables"]}
        view = httpx.get(f"{server.base}/api/matches/{table['match_id']}",
                         headers={"Authorization": f"Bearer {table['token']}"}, timeout=20)
        if view.status_code == 404:  # the join left nothing: the table is open again, listed
            assert table["table_id"] in listed, f"kill {i}: a table with no match is not open"
            outcomes["open"] += 1
            reopened.append((guest, table))
        else:  # the match is whole: the host holds their seat, the table is no longer listed
            assert view.status_code == 200, view.text
            assert view.json()["seat"] == table["seat"] and table["table_id"] not in listed
            history = httpx.get(f"{server.base}/api/me/history", headers=_as(guest), timeout=20)
            assert history.status_code == 200
            outcomes["whole"] += 1
    assert outcomes["open"] >= KILLS // 2  # (the kills that waited for the pause all left the table open)
    # a table left open can be joined as if nothing had happened: its match starts with the host seated
    guest, table = reopened[0]
    r = httpx.post(f"{server.base}/api/lobby/tables/{table['table_id']}/join", headers=_as(guest), timeout=20)
    assert r.status_code == 201, r.text
    view = httpx.get(f"{server.base}/api/matches/{table['match_id']}",
                     headers={"Authorization": f"Bearer {table['token']}"}, timeout=20)
    assert view.status_code == 200 and view.json()["seat"] == table["seat"]
    server.stop()
    assert "Traceback" not in server.log_path.read_text(errors="replace")


def _crash_server(db: Path | str, log_dir: Path) -> Server:
    return Server(db, None, "--bot-delay", "0", "--replace-after", "0", "--players-per-hour", "0", log_dir=log_dir,
                  env={"CONVERGE_TEST_PAUSE": f"table_join:{JOIN_PAUSE_S}"})


def test_a_crash_during_a_table_join_leaves_the_table_open_or_the_match_whole_sqlite(tmp_path: Path) -> None:
    server = _crash_server(tmp_path / "matches.sqlite3", tmp_path)
    try:
        _crash_joins(server, random.Random(23))
    finally:
        server.stop()


def test_a_crash_during_a_table_join_leaves_the_table_open_or_the_match_whole_postgresql(
        postgres_url: str, tmp_path: Path) -> None:
    server = _crash_server(postgres_url, tmp_path)
    try:
        _crash_joins(server, random.Random(24))
    finally:
        server.stop()


def test_a_table_an_older_server_left_half_made_is_reopened_when_the_database_opens(tmp_path: Path) -> None:
    """Before the join and its match were one transaction, a crash between them left a table started with no
    match. Opening the database reopens such a table; a table whose match was deleted by the retention policy
    (its players' rows are kept) stays as it was."""
    from sqlalchemy import select

    from converge.server.storage import lobby_store as store
    from converge.server.storage.match_store import Storage
    from converge.server.storage.rows import MatchRow, SeatRow

    path = str(tmp_path / "old.sqlite3")
    storage = Storage(path)
    with storage.engine.begin() as conn:
        for pid in ("host", "guest"):
            store.create_player(conn, pid, "h-" + pid)
        for tid in ("half-made", "expired", "whole"):
            store.add_table(conn, table_id=tid, host_id="host", host_seat=0, host_token_hash="x" * 64,
                            playset=["alchemist", "mechanist", "archivist"], clock_ms=None, rated=True,
                            private=False, status="started")
        store.add_match_players(conn, "expired", {0: "host", 1: "guest"}, True, "table")  # its match: deleted
        seats = [SeatRow(0, "a", None), SeatRow(1, "b", None)]
        Storage.create_match(conn, MatchRow("whole", "friend", ["alchemist", "mechanist", "archivist"], 1,
                                            "random", "d", 2, seats=seats))
        store.add_match_players(conn, "whole", {0: "host", 1: "guest"}, True, "table")
    storage.close()
    storage = Storage(path)
    try:
        with storage.engine.connect() as conn:
            t = store.lobby_tables_table.c
            status = dict(conn.execute(select(t.id, t.status)).all())
    finally:
        storage.close()
    assert status == {"half-made": "open", "expired": "started", "whole": "started"}
