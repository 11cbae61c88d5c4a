"""Crash safety: kill the server process (SIGKILL) mid-match, start it again, finish every match, and compare
with the record. An acknowledged action is never lost and no action is applied twice."""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
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
