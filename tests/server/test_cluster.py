"""Several server processes on one PostgreSQL (converge.server.play.cluster.coordination): any process serves any
seat, each action is stored once, what the server does by itself is done by one owner, handed over when it dies.

Two apps in one test process stand for two server processes: each has its own hub, database connections
and coordinator, and they share nothing but the database. Real processes killed with SIGKILL are in
``test_serve_bench_over_three_processes_survives_a_kill``.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mail_support import smtp_fixture  # noqa: F401 (a fixture)
from tests.server_support import (  # noqa: F401 (a fixture)
    _OPEN,
    FAST,
    Peer,
    create,
    hang_guard,
    play_friend_match,
)

pytest.importorskip("psycopg")

from fastapi.testclient import TestClient

from converge import Match
from converge.server.app import create_app
from converge.server.storage.database import StorageError
from converge.server.storage.match_store import Storage

#: Coordination rounds fast enough for tests.
QUICK = {**FAST, "coordination_interval": 0.1}


@contextlib.contextmanager
def processes(url: str, n: int = 2, **settings: Any) -> Iterator[list[TestClient]]:
    clients = [TestClient(create_app(db_url=url, **{**QUICK, **settings})) for _ in range(n)]
    entered = [c.__enter__() for c in clients]
    try:
        yield entered
    finally:
        for peer in list(_OPEN):
            peer.close()
        for c in reversed(clients):
            c.__exit__(None, None, None)


def hub(client: TestClient) -> Any:
    return client.app.state.hub  # type: ignore[attr-defined]


def wait_for(pred: Any, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def move_through(client: TestClient, mid: str, tokens: dict[int, str], seq: int) -> Any:
    """The first legal action of the player to move, sent through ``client``'s process."""
    mover = client.get(f"/api/matches/{mid}").json()["observation"]["current_player"]
    auth = {"Authorization": f"Bearer {tokens[mover]}"}
    view = client.get(f"/api/matches/{mid}", headers=auth).json()
    action = view["observation"]["decision"]["legal_actions"][0]["id"]
    return client.post(f"/api/matches/{mid}/actions", json={"action": action, "seq": seq}, headers=auth)


def test_the_two_seats_of_a_match_play_on_different_processes(postgres_url: str) -> None:
    with processes(postgres_url) as (a, b):
        doc = create(a, opponent="friend", seat=0)
        mid = doc["match_id"]
        peers = {0: Peer(a, mid, doc["token"]), 1: Peer(b, mid, doc["invite_token"])}
        watcher = Peer(b, mid)
        played = play_friend_match(peers, random.Random(3), watchers=(watcher,))
        record = a.get(f"/api/matches/{mid}/record").json()
        assert record["actions"] == b.get(f"/api/matches/{mid}/record").json()["actions"]
        assert len(record["actions"]) == played and Match.replay(record).is_terminal
        assert peers[1].meta is not None and peers[1].meta["status"] == "over"
        assert peers[1].meta["seats"][0]["connected"]  # seat 0 is on the other process: still seen


def test_a_move_on_a_stale_copy_is_refused_as_stale_and_nothing_is_stored_twice(postgres_url: str) -> None:
    with processes(postgres_url) as (a, b):
        doc = create(a, opponent="friend", seat=0)
        mid = doc["match_id"]
        p0 = Peer(a, mid, doc["token"])
        p1 = Peer(b, mid, doc["invite_token"])
        deaf = hub(b)
        deaf.coord.on_change = lambda *_args: None  # b hears nothing: its copy goes stale
        tokens = {0: doc["token"], 1: doc["invite_token"]}
        obs = p0.obs
        assert obs is not None
        mover = obs["current_player"]
        peer = p0 if mover == 0 else p1
        assert peer.obs is not None
        first = peer.obs["decision"]["legal_actions"][0]["id"]
        r = a.post(
            f"/api/matches/{mid}/actions",
            json={"action": first, "seq": 0},
            headers={"Authorization": f"Bearer {tokens[mover]}"},
        )
        assert r.status_code == 200, r.text
        # The same move again through b, whose copy still says it is action 0 and the same decision.
        r = b.post(
            f"/api/matches/{mid}/actions",
            json={"action": first, "seq": 0},
            headers={"Authorization": f"Bearer {tokens[mover]}"},
        )
        assert r.status_code == 409 and r.json()["error"]["code"] == "stale", r.text
        # b caught up while refusing: the next move through b is accepted, and a hears of it.
        seq = b.get(f"/api/matches/{mid}").json()["seq"]
        assert seq == 1
        r = move_through(b, mid, tokens, seq=1)
        assert r.status_code == 200, r.text
        p0.state_at(2)
        storage = Storage(postgres_url)
        try:
            row = storage.load(mid)
        finally:
            storage.close()
        assert row is not None and row.n_actions == 2 and len(row.actions) == 2


def my_turn_or_over(peer: Peer, seat: int = 0) -> None:
    """Read messages until it is ``seat``'s decision or the match is over."""

    def ready(m: dict[str, Any]) -> bool:
        return m["type"] == "state" and (
            m["match"]["status"] == "over" or m["observation"]["current_player"] == seat
        )

    obs, meta = peer.obs, peer.meta
    if obs is not None and meta is not None and (meta["status"] == "over" or obs["current_player"] == seat):
        return
    peer.until(ready, limit=1000)


def test_the_bots_of_a_match_play_once_and_move_to_another_process_when_their_owner_goes(
    postgres_url: str,
) -> None:
    a = TestClient(create_app(db_url=postgres_url, **QUICK)).__enter__()
    with processes(postgres_url, n=1) as (b,):
        try:
            doc = create(a, opponent="bot", bot="random", seat=0)
            mid = doc["match_id"]
            assert hub(a).sessions[mid].owned  # the creator owns it
            me = Peer(b, mid, doc["token"])
            assert not hub(b).sessions[mid].owned
            rng = random.Random(5)

            def play(moves: int) -> None:
                for _ in range(moves):
                    my_turn_or_over(me)
                    obs, meta = me.obs, me.meta
                    assert obs is not None and meta is not None
                    if meta["status"] == "over":
                        return
                    ack = me.act(rng.choice(obs["decision"]["legal_actions"])["id"], me.seq)
                    assert ack["type"] == "ack", ack
                    me.state_at(ack["seq"])

            play(6)  # a's bot answers each move made through b
            bot_moves = sum(1 for s, _c in hub(b).sessions[mid].row.action_clocks if s == 1)
            assert bot_moves > 0
        finally:
            # The owner goes (its lock goes with its database connection): b takes the match over.
            a.__exit__(None, None, None)
        wait_for(lambda: hub(b).sessions[mid].owned)
        play(10_000)
        record = b.get(f"/api/matches/{mid}/record").json()
        assert Match.replay(record).is_terminal


def test_a_clock_runs_out_once_however_many_processes_hold_the_match(postgres_url: str) -> None:
    with processes(postgres_url, clock_min_s=1) as (a, b):
        doc = create(a, opponent="friend", seat=0, clock=1)
        mid = doc["match_id"]
        p0, p1 = Peer(a, mid, doc["token"]), Peer(b, mid, doc["invite_token"])
        assert p0.obs is not None
        idle = p0.obs["current_player"]  # never moves: the owner ends the match on time, once
        for peer in (p0, p1):
            peer.until(lambda m: m["type"] in ("state", "meta") and m["match"]["status"] == "over", limit=400)
            assert peer.meta is not None and peer.meta["result"] == {"winner": 1 - idle, "reason": "time"}
        assert hub(a).sessions[mid].owned != hub(b).sessions[mid].owned


def test_a_player_connected_to_another_process_is_not_replaced_by_a_bot(postgres_url: str) -> None:
    with processes(postgres_url, replace_after=0.5) as (a, b):
        doc = create(a, opponent="friend", seat=0)
        mid = doc["match_id"]
        p0, p1 = Peer(a, mid, doc["token"]), Peer(b, mid, doc["invite_token"])
        play_friend_match({0: p0, 1: p1}, random.Random(8), stop_after=3)
        time.sleep(1.5)  # three times replace_after: seat 1 is connected (to b), so it keeps its seat
        assert [s["kind"] for s in a.get(f"/api/matches/{mid}").json()["match"]["seats"]] == ["human", "human"]
        p1.close()  # now seat 1 has gone from everywhere: the owner (a) puts a bot in its seat
        wait_for(lambda: a.get(f"/api/matches/{mid}").json()["match"]["seats"][1]["replaced"])


def test_a_second_server_on_one_sqlite_file_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    db = str(tmp_path / "one.sqlite3")
    first = Storage(db, exclusive=True)
    try:
        with pytest.raises(StorageError, match=r"in use by another converge server .*use PostgreSQL"):
            Storage(db, exclusive=True)
        Storage(db).close()  # a reader (a tool, a test) is not a server: it may open the file
    finally:
        first.close()
    Storage(db, exclusive=True).close()  # once the first has gone, the file is free


def test_serve_bench_over_three_processes_survives_a_kill(postgres_url: str) -> None:
    """The benchmark's own checks, on a small run: three real server processes, seats spread over them, one
    killed with SIGKILL mid-play; every match finishes, nothing acknowledged is lost or stored twice, the
    server's bots and clocks act exactly as the records say, and every record replays to its result."""
    from converge.server.load_bench import format_bench, run_bench

    result = run_bench(
        matches=16,
        think_ms=(60, 160),
        seed=4,
        db=postgres_url,
        server_cores="",
        timeout=240,
        servers=3,
        kill_after=2.5,
        opponent="mixed",
        clock_s=600,
    )
    summary = format_bench(result)
    assert result["killed_at_s"] is not None and result["reconnects"] > 0, summary
    assert result["finished"] == result["verified"] == 16, summary
    assert result["lost"] == 0 and result["duplicated"] == 0 and result["errors"] == 0, summary
    assert result["results"] == {"match": 16}, summary  # no clock ran out, no match ended twice
    assert result["bot_actions"] > 0, summary


def test_an_announced_action_reads_back_whole_and_foreign_payloads_are_ignored() -> None:
    from converge.server.play.cluster.coordination import LocalCoordinator, Note, parse_note

    coord = LocalCoordinator()
    payload = coord.action_payload("m1", 7, 31, 1, None, "over", 0)
    assert parse_note(payload) == (coord.origin, Note("m1", action=(7, 31, 1, None, "over", 0)))
    assert parse_note(coord.action_payload("m1", 0, 2, 0, 59000, "active", None)) == (
        coord.origin,
        Note("m1", action=(0, 2, 0, 59000, "active", None)),
    )
    assert parse_note(coord.payload("m2")) == (coord.origin, Note("m2"))
    assert parse_note(f"{coord.origin}:m3:p") == (coord.origin, Note("m3", presence=True))
    for junk in ("", "x", "a:b:a:1:2", "a:b:a:x:2:0::active:"):
        assert parse_note(junk) is None


def test_a_second_converge_serve_on_the_same_sqlite_file_stops_with_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.server_support import Server

    first = Server(tmp_path / "one.sqlite3")
    first.start()
    try:
        second = subprocess.run(
            [sys.executable, "-m", "converge", "serve", "--db", str(tmp_path / "one.sqlite3"), "--port", "0"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 2  # a user's mistake: the documented exit code
        assert "in use by another converge server" in second.stderr and "Traceback" not in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1, second.stderr
    finally:
        first.stop()


def test_nothing_in_the_server_imports_the_command_line() -> None:
    import ast

    import converge.server

    root = Path(converge.server.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n == "converge.cli" or n.startswith("converge.cli.") for n in names), path


def test_a_process_that_missed_an_announcement_catches_up_by_itself(postgres_url: str) -> None:
    """Under the notifications, each coordination round compares every held match with the database: a
    copy that fell behind (here: a process that heard nothing) is read again, and its players see the move."""
    with processes(postgres_url) as (a, b):
        doc = create(a, opponent="friend", seat=0)
        mid = doc["match_id"]
        tokens = {0: doc["token"], 1: doc["invite_token"]}
        watcher = Peer(b, mid)
        hub(b).coord.on_change = lambda *_args: None  # b hears nothing from now on
        r = move_through(a, mid, tokens, seq=0)
        assert r.status_code == 200, r.text
        watcher.state_at(1)  # within a round or two (0.1 s each here), without any other move
        assert hub(b).sessions[mid].seq == 1


def test_signing_out_everywhere_closes_the_players_seats_on_every_process(postgres_url: str,
                                                                          smtp: tuple[str, Any]) -> None:
    """Issue 38: the sign-out is written by one process; a seat's connection held by another is closed (told
    why) once the database tells that process, and its key no longer takes the seat there."""
    from tests.server.test_accounts import PUBLIC, Device, _ask, _open

    mail = {"smtp_url": smtp[0], "public_url": PUBLIC, "mail_from": "Converge <converge@play.example.org>"}
    with processes(postgres_url, **mail) as (a, b):
        ada = Device(a)
        assert ada.put("/api/me", json={"name": f"Ada{random.randrange(10**6)}"}).status_code == 200
        made = ada.post("/api/matches", json={"playset": "catalysts", "opponent": "friend", "seat": 0}).json()
        mid, token = made["match_id"], made["token"]
        assert ada.post(f"/api/matches/{mid}/players", headers={"Authorization": f"Bearer {token}"})\
            .json() == {"linked": True}
        address = f"ada{random.randrange(10**6)}@example.org"
        assert _open(ada, _ask(ada, smtp[1], address, 1)).status_code == 200
        on_b = Peer(b, mid, token)
        assert on_b.seat == 0
        assert ada.post("/api/auth/signout-everywhere").status_code == 200  # (through process a)
        said = on_b.until(lambda m: m["type"] == "error")
        assert said["code"] == "signed_out", said
        on_b.close()
        assert Peer(b, mid, token).welcome == {"type": "error", "code": "unauthorized",
                                               "message": "the token does not hold a seat in this match"}
        r = b.post(f"/api/matches/{mid}/actions", json={"action": 0}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 401
