"""Tournaments on the server (issue 41), through the API: a Swiss of bots run by the director to its end with
the pairing rules kept; players who join, play their match from the event's page and see the standings move;
the hosts' and players' refusals."""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("caissify_pairings")

from fastapi.testclient import TestClient

from tests.server.test_accounts import Device
from tests.server.test_limits import assert_error
from tests.server_support import Peer, client_for, hang_guard  # noqa: F401 (a fixture)

FAST_EVENTS = {"tournament_tick_s": 0.05}
#: The arena test's length (``make fuzz``: the issue's 10 minutes).
ARENA_MINUTES = int(os.environ.get("CONVERGE_ARENA_MINUTES", "1"))


def _named(client: TestClient, name: str) -> Device:
    device = Device(client)
    assert device.put("/api/me", json={"name": name}).status_code == 200
    return device


def _bot_event(device: Any, players: int, **settings: Any) -> str:
    """An unrated event of ``players`` beginner bots (``settings``: its format and the rest), not started."""
    made = device.post("/api/tournaments", json={"name": "Bots' event", "clock": 300, "rated": False,
                                                 "playset": "sets", "max_players": players, **settings})
    assert made.status_code == 201, made.text
    tid: str = made.json()["id"]
    added = device.post(f"/api/tournaments/{tid}/bots", json={"level": "beginner", "count": players})
    assert added.status_code == 200, added.text
    return tid


def _until_status(device: Device, tid: str, status: str, seconds: float = 240.0) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while True:
        doc: dict[str, Any] = device.get(f"/api/tournaments/{tid}").json()
        if doc["status"] == status:
            return doc
        assert time.monotonic() < end, doc["status"]
        time.sleep(0.05)


def test_a_swiss_of_sixteen_bots_runs_five_rounds_by_itself_and_keeps_the_pairing_rules(tmp_path: Path) -> None:
    with client_for(tmp_path, **FAST_EVENTS) as client:
        host = _named(client, "Host")
        tid = _bot_event(host, 16, format="swiss", rounds=5)
        listed = host.get("/api/tournaments").json()
        assert [e["id"] for e in listed["upcoming"]] == [tid] and listed["upcoming"][0]["players"] == 16
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        doc = _until_status(host, tid, "finished")
        rounds = doc["pairings"]
        assert [r["round"] for r in rounds] == [1, 2, 3, 4, 5]
        met: set[frozenset[int]] = set()
        firsts: Counter[int] = Counter()
        points: Counter[int] = Counter()
        for r in rounds:
            seated = [p for g in r["games"] for p in (g["first"], g["second"])]
            assert sorted(seated) == list(range(1, 17)), r  # everyone once a round; 16 players: no bye
            for g in r["games"]:
                pair = frozenset((g["first"], g["second"]))
                assert pair not in met, (r["round"], pair)
                met.add(pair)
                assert g["outcome"] in ("first", "second") and g["match_id"], g
                firsts[g["first"]] += 1
                points[g["first"] if g["outcome"] == "first" else g["second"]] += 1
        assert all(abs(2 * firsts[p] - 5) == 1 for p in range(1, 17)), firsts  # first moves 3-2 or 2-3
        table = {row["player"]: row["points"] for row in doc["standings"]}
        assert table == {p: float(points[p]) for p in range(1, 17)}  # the standings, recomputed from the games
        assert [row["points"] for row in doc["standings"]] == sorted(table.values(), reverse=True)
        match = client.get(f"/api/matches/{rounds[0]['games'][0]['match_id']}").json()
        assert match["match"]["status"] == "over"  # each game is a real match, with its record and replay


def test_players_join_play_their_match_from_the_event_and_see_the_standings_move(tmp_path: Path) -> None:
    with client_for(tmp_path, **FAST_EVENTS) as client:
        ada, grace, host = _named(client, "Ada"), _named(client, "Grace"), _named(client, "Host")
        tid, link = _club(host)
        assert_error(ada.post(f"/api/tournaments/{tid}/join", json={}), 404, "not_found")  # a club's: by its link
        assert_error(ada.get(f"/api/tournaments/{tid}"), 404, "not_found")
        assert tid not in {e["id"] for e in ada.get("/api/tournaments").json()["upcoming"]}
        for player in (ada, grace):
            assert player.post(f"/api/tournaments/{tid}/join", json={"link": link}).status_code == 200
        assert_error(ada.post(f"/api/tournaments/{tid}/start"), 403, "not_host")
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        assert_error(_named(client, "Late").post(f"/api/tournaments/{tid}/join", json={"link": link}), 409,
                     "tournament_closed")  # (a round robin's table is fixed when it starts)
        view = _until_match(ada, tid, link)
        assert [row["points"] for row in view["standings"]] == [0.0, 0.0]
        mid, seat = view["you"]["match_id"], view["you"]["seat"]
        tokens = {seat: ada.post(f"/api/matches/{mid}/seat").json()["token"],
                  1 - seat: grace.post(f"/api/matches/{mid}/seat").json()["token"]}
        while (state := client.get(f"/api/matches/{mid}").json())["match"]["status"] == "active":
            mover = state["observation"]["current_player"]
            bearer = {"Authorization": f"Bearer {tokens[mover]}"}
            mine = client.get(f"/api/matches/{mid}", headers=bearer).json()
            action = mine["observation"]["decision"]["legal_actions"][0]["id"]
            done = client.post(f"/api/matches/{mid}/actions", json={"action": action}, headers=bearer)
            assert done.status_code == 200, done.text
        after = _until_status(ada, tid + f"?link={link}", "finished", 30)  # (two players: one round)
        assert sorted(row["points"] for row in after["standings"]) == [0.0, 1.0]
        game = after["pairings"][0]["games"][0]
        assert game["match_id"] == mid and game["outcome"] in ("first", "second") and not game["forfeit"]
        winner = game["first"] if game["outcome"] == "first" else game["second"]
        assert after["standings"][0]["player"] == winner and after["you"]["match_id"] is None
        played = ada.get("/api/me/history").json()["matches"]  # the event on the player's history
        assert [(m["match_id"], m["event"]) for m in played] == [(mid, {"id": tid, "name": "Club"})]


def _club(host: Device) -> tuple[str, str]:
    made = host.post("/api/tournaments", json={"name": "Club", "format": "round_robin", "clock": 600,
                                               "rated": False, "playset": "catalysts", "max_players": 4,
                                               "private": True}).json()
    return made["id"], made["link"]


def _until_match(device: Device, tid: str, link: str, seconds: float = 30.0) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while True:
        doc: dict[str, Any] = device.get(f"/api/tournaments/{tid}?link={link}").json()
        if doc["you"] and doc["you"]["match_id"]:
            return doc
        assert time.monotonic() < end, doc
        time.sleep(0.05)


def test_hosts_and_players_are_refused_what_the_event_does_not_allow(tmp_path: Path) -> None:
    with client_for(tmp_path, **FAST_EVENTS) as client:
        anonymous = Device(client)
        assert anonymous.put("/api/me", json={"name": None}).status_code == 200
        assert_error(anonymous.post("/api/tournaments", json={"name": "x", "format": "swiss", "rounds": 3,
                                                              "clock": 300}), 401, "no_player")
        host = _named(client, "Host")
        bad = [({"format": "swiss", "rounds": 0, "clock": 300}, "rounds"),
               ({"format": "arena", "minutes": 1, "clock": 300}, "minutes"),
               ({"format": "swiss", "rounds": 3}, "clock"),
               ({"format": "round_robin", "clock": 300, "max_players": 11}, "max_players")]
        for body, word in bad:
            r = host.post("/api/tournaments", json={"name": "Bad", **body})
            assert r.status_code == 400 and word in r.json()["error"]["message"], (body, r.text)
        rated = host.post("/api/tournaments", json={"name": "Rated", "format": "swiss", "rounds": 3,
                                                    "clock": 300, "max_players": 2}).json()["id"]
        assert_error(host.post(f"/api/tournaments/{rated}/bots", json={"level": "easy"}), 400, "malformed")
        for name in ("Alan", "Beth"):
            assert _named(client, name).post(f"/api/tournaments/{rated}/join").status_code == 200
        assert_error(_named(client, "Cleo").post(f"/api/tournaments/{rated}/join"), 409, "tournament_full")
        assert_error(host.get("/api/tournaments/nosuch"), 404, "not_found")
        assert host.post(f"/api/tournaments/{rated}/cancel").status_code == 200
        assert_error(host.post(f"/api/tournaments/{rated}/start"), 409, "tournament_closed")


def _check_swiss(doc: dict[str, Any], players: int, rounds: int) -> None:
    """Every round paired once: each player at one table, no pair twice, every game with its result."""
    assert doc["status"] == "finished" and [r["round"] for r in doc["pairings"]] == list(range(1, rounds + 1))
    met: set[frozenset[int]] = set()
    for r in doc["pairings"]:
        seated = [p for g in r["games"] for p in (g["first"], g["second"]) if p is not None]
        assert sorted(seated) == list(range(1, players + 1)), r
        for g in r["games"]:
            assert g["outcome"] != "pending", g
            pair = frozenset((g["first"], g["second"]))
            assert pair not in met, (r["round"], pair)
            met.add(pair)


def test_two_processes_direct_one_swiss_and_pair_each_round_once(postgres_url: str) -> None:
    """Both processes' directors look at the event all the time: the event's row, locked while a step pairs,
    lets one pair each round; the other finds it paired."""
    pytest.importorskip("psycopg")
    from tests.server.test_cluster import processes

    with processes(postgres_url, 2, **FAST_EVENTS) as (a, b):
        host = _named(a, "Host")
        tid = _bot_event(host, 12, format="swiss", rounds=4)
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        end = time.monotonic() + 240
        while (doc := Device(b).get(f"/api/tournaments/{tid}").json())["status"] != "finished":
            assert time.monotonic() < end, doc["status"]
            time.sleep(0.1)
        _check_swiss(doc, 12, 4)


def test_a_swiss_survives_kill_9_of_either_process_and_loses_no_result(postgres_url: str, tmp_path: Path) -> None:
    """Two real server processes on PostgreSQL; each killed with SIGKILL at a random moment of the event and
    started again: the event finishes, no result is lost (each game's result is its match's), nobody is
    paired twice in a round."""
    import random

    import httpx2

    from tests.server_support import Server

    rng = random.Random()
    servers = [Server(postgres_url, None, "--bot-delay", "0", log_dir=tmp_path / f"s{i}") for i in range(2)]
    for i, server in enumerate(servers):
        (tmp_path / f"s{i}").mkdir()
        server.start()
    try:
        web = httpx2.Client(base_url=servers[0].base, timeout=30)
        assert web.put("/api/me", json={"name": "Host"}).status_code == 200
        tid = _bot_event(web, 16, format="swiss", rounds=5)
        assert web.post(f"/api/tournaments/{tid}/start").status_code == 200
        for victim in rng.sample([0, 1], 2):
            time.sleep(rng.uniform(0.2, 3.0))
            servers[victim].kill()
            servers[victim].start()
        end = time.monotonic() + 300
        reader = httpx2.Client(base_url=servers[1].base, timeout=30)
        while (doc := reader.get(f"/api/tournaments/{tid}").json())["status"] != "finished":
            assert time.monotonic() < end, doc["status"]
            time.sleep(0.2)
        _check_swiss(doc, 16, 5)
        for r in doc["pairings"]:
            for g in r["games"]:
                meta = reader.get(f"/api/matches/{g['match_id']}").json()["match"]
                assert meta["status"] == "over"
                assert meta["result"]["winner"] == (0 if g["outcome"] == "first" else 1), (g, meta)
    finally:
        for server in servers:
            server.stop()


def test_a_banned_player_is_taken_out_of_the_events_they_were_in(tmp_path: Path) -> None:
    with client_for(tmp_path, admin_token="admin-secret-for-the-test", **FAST_EVENTS) as client:
        host, mallory, ada = _named(client, "Host"), _named(client, "Mallory"), _named(client, "Ada")
        made = host.post("/api/tournaments", json={"name": "Open Swiss", "format": "swiss", "rounds": 3,
                                                   "clock": 300, "max_players": 8}).json()
        for player in (mallory, ada):
            assert player.post(f"/api/tournaments/{made['id']}/join").status_code == 200
        client.cookies.clear()
        banned = client.post("/api/admin/players/Mallory/ban", json={"actor": "Tess", "reason": "cheating"},
                             headers={"Authorization": "Bearer admin-secret-for-the-test"})
        assert banned.status_code == 200, banned.text
        assert banned.json()["detail"]["tournaments_left"] == [made["id"]]
        names = [row["name"] for row in ada.get(f"/api/tournaments/{made['id']}").json()["standings"]]
        assert names == ["Ada"]
        assert_error(mallory.post(f"/api/tournaments/{made['id']}/join"), 403, "banned")


def test_the_servers_hosts_list_start_pause_and_cancel_any_event_with_converge_admin(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx2

    from tests.helpers import assert_user_error, run
    from tests.server_support import Server

    token = "admin-token-of-the-test-0123456789"
    server = Server(tmp_path / "matches.sqlite3", None, "--bot-delay", "0.2", env={"CONVERGE_ADMIN_TOKEN": token})
    server.start()
    monkeypatch.setenv("CONVERGE_ADMIN_TOKEN", token)
    try:
        web = httpx2.Client(base_url=server.base, timeout=30)
        assert web.put("/api/me", json={"name": "Clubhost"}).status_code == 200
        made = web.post("/api/tournaments", json={"name": "Thursday club", "format": "swiss", "rounds": 3,
                                                  "clock": 300, "rated": False, "private": True, "max_players": 4})
        tid = made.json()["id"]
        assert web.post(f"/api/tournaments/{tid}/bots", json={"level": "beginner", "count": 4}).status_code == 200
        admin = ("admin", "--server", server.base, "--as", "Tess")
        code, out, err = run(capsys, *admin, "tournaments")
        assert code == 0 and f"{tid}  Thursday club: Swiss of 3 rounds, a club's (by link); upcoming" in out, err
        code, out, err = run(capsys, *admin, "tournament", "start", tid, "--reason", "the host is away")
        assert code == 0 and f"start: Thursday club ({tid})" in out, err
        code, out, err = run(capsys, *admin, "tournament", "pause", tid, "--reason", "a storm")
        assert code == 0, err
        assert web.get(f"/api/tournaments/{tid}?link={made.json()['link']}").json()["status"] == "paused"
        code, out, err = run(capsys, *admin, "tournament", "resume", tid, "--reason", "calm again")
        assert code == 0, err
        code, out, err = run(capsys, *admin, "tournament", "cancel", tid, "--reason", "the hall closed")
        assert code == 0, err
        code, _out, err = run(capsys, *admin, "tournament", "cancel", tid, "--reason", "again")
        assert_user_error(code, err, "the event is over")
        code, _out, err = run(capsys, *admin, "tournament", "start", "nosuchevent", "--reason", "x")
        assert_user_error(code, err, "no such event")
        code, out, err = run(capsys, *admin, "audit")
        assert code == 0 and all(f"Tess: {verb}_event" in out for verb in ("start", "pause", "resume", "cancel"))
    finally:
        server.stop()


def test_an_arena_pairs_whoever_waits_within_seconds_and_its_standings_are_its_stored_results(
        tmp_path: Path) -> None:
    """A 12-bot arena of ``CONVERGE_ARENA_MINUTES`` (1 in ``make test``, the shortest a test may ask; 10 in
    ``make fuzz``): every time a player was free while another was, they were paired within 10 s (the time from
    the end of their last game, or the start, to their next pairing, read from the stored games); the standings
    are the arena's points recomputed from those games."""
    from sqlalchemy import select

    from converge.server.storage.schema import tournament_games_table, tournaments_table
    from converge.tournament import arena
    from converge.tournament.games import Game

    with client_for(tmp_path, arena_min_minutes=1, **FAST_EVENTS) as client:
        host = _named(client, "Host")
        tid = _bot_event(host, 12, format="arena", minutes=ARENA_MINUTES, clock=60, playset="all")
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        doc = _until_status(host, tid, "finished", ARENA_MINUTES * 60 + 180)
        engine = client.app.state.hub.storage.engine  # type: ignore[attr-defined]
        with engine.connect() as conn:
            started = conn.execute(select(tournaments_table.c.started_at)
                                   .where(tournaments_table.c.id == tid)).scalar_one()
            rows = conn.execute(select(tournament_games_table).where(tournament_games_table.c.tournament_id == tid)
                                .order_by(tournament_games_table.c.paired_at)).mappings().all()
        assert len(rows) >= 12, len(rows)  # (a minute of fast bots: several waves)
        waits = []
        for who in {r["first_id"] for r in rows} | {r["second_id"] for r in rows}:
            mine = [r for r in rows if who in (r["first_id"], r["second_id"])]
            free_since = started
            for r in mine:
                waits.append(r["paired_at"] - free_since)
                free_since = r["ended_at"]
        print(f"arena of {ARENA_MINUTES} min: {len(rows)} games; waits for a pairing: longest {max(waits):.2f} s, "
              f"median {sorted(waits)[len(waits) // 2]:.2f} s over {len(waits)}")  # (make fuzz shows it)
        assert max(waits) <= 10.0, max(waits)
        games = [Game(r["round"], r["first_id"], r["second_id"], r["outcome"], r["forfeit"]) for r in rows]
        by_number = {row["player"]: row["points"] for row in doc["standings"]}  # (numbered as they joined)
        assert by_number == {n: float(arena.points(f"bot:beginner:{n}", games)) for n in range(1, 13)}
        assert [row["points"] for row in doc["standings"]] == sorted(by_number.values(), reverse=True)


def test_a_player_of_an_arena_pauses_and_is_paired_again_when_back(tmp_path: Path) -> None:
    with client_for(tmp_path, arena_min_minutes=1, **FAST_EVENTS) as client:
        host, ada = _named(client, "Host"), _named(client, "Ada")
        tid = _bot_event(host, 3, format="arena", minutes=1, clock=60, max_players=4)
        assert ada.post(f"/api/tournaments/{tid}/join").status_code == 200
        assert_error(_named(client, "Stranger").post(f"/api/tournaments/{tid}/break", json={"paused": True}), 404,
                     "not_found")
        assert ada.post(f"/api/tournaments/{tid}/break", json={"paused": True}).status_code == 200
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        end = time.monotonic() + 3
        while time.monotonic() < end:  # the bots play on; Ada, paused, is paired with nobody
            doc = ada.get(f"/api/tournaments/{tid}").json()
            assert doc["you"]["status"] == "paused" and doc["you"]["match_id"] is None
            time.sleep(0.1)
        assert sum(len(r["games"]) for r in doc["pairings"]) >= 1
        assert ada.post(f"/api/tournaments/{tid}/break", json={"paused": False}).status_code == 200
        end = time.monotonic() + 30
        while ada.get(f"/api/tournaments/{tid}").json()["you"]["match_id"] is None:
            assert time.monotonic() < end, "never paired again"
            time.sleep(0.05)
        swiss = _bot_event(host, 2, format="swiss", rounds=1)
        assert_error(ada.post(f"/api/tournaments/{swiss}/break", json={"paused": True}), 409, "tournament_closed")


def test_a_player_who_never_comes_forfeits_after_the_events_wait_unrated_and_is_withdrawn(tmp_path: Path) -> None:
    """A rated Swiss of two players, live: Ada plays her part; Grace neither comes nor moves. The event's
    page states the wait; once it is over Grace loses by forfeit ("absent"), is withdrawn (her page offers
    Join again), the forfeit changes no rating and counts as no game played, and the event goes on (to its
    end: nobody is left to pair)."""
    with client_for(tmp_path, no_show_s=1.5, **FAST_EVENTS) as client:
        host, ada, grace = _named(client, "Host"), _named(client, "Ada"), _named(client, "Grace")
        tid = host.post("/api/tournaments", json={"name": "Evening", "format": "swiss", "rounds": 2,
                                                  "clock": 300, "playset": "catalysts",
                                                  "max_players": 8}).json()["id"]
        for player in (ada, grace):
            assert player.post(f"/api/tournaments/{tid}/join").status_code == 200
        assert host.get(f"/api/tournaments/{tid}").json()["no_show_s"] == 2  # (1.5, stated in whole seconds)
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        view = _until_match(ada, tid, "")
        mid, seat = view["you"]["match_id"], view["you"]["seat"]
        bearer = {"Authorization": f"Bearer {ada.post(f'/api/matches/{mid}/seat').json()['token']}"}
        while (mine := client.get(f"/api/matches/{mid}", headers=bearer).json())["match"]["status"] == "active" \
                and mine["observation"]["current_player"] == seat:  # (Ada plays until it is Grace's turn)
            action = mine["observation"]["decision"]["legal_actions"][0]["id"]
            assert client.post(f"/api/matches/{mid}/actions", json={"action": action},
                               headers=bearer).status_code == 200
        before = {who: who.get("/api/me").json()["player"] for who in (ada, grace)}
        done = _until_status(ada, tid, "finished", 30)
        game = done["pairings"][0]["games"][0]
        assert game["forfeit"] and done["standings"][0]["name"] == "Ada" and done["standings"][0]["points"] == 1.0
        assert done["standings"][0]["played"] == 0  # (a forfeit is no game played)
        assert grace.get(f"/api/tournaments/{tid}").json()["you"]["status"] == "withdrawn"
        ended = client.get(f"/api/matches/{mid}").json()["match"]
        assert ended["status"] == "over" and ended["result"] == {"winner": seat, "reason": "absent"}
        after = {who: who.get("/api/me").json()["player"] for who in (ada, grace)}
        assert after == before  # (neither rating nor the count of games moved)
        assert [m["reason"] for m in grace.get("/api/me/history").json()["matches"]] == ["absent"]


def test_a_player_who_came_is_no_no_show_and_the_match_waits_for_neither(tmp_path: Path) -> None:
    """Both players at the table (their sockets open) past the wait: nobody forfeits; the match is theirs."""
    with client_for(tmp_path, no_show_s=0.5, **FAST_EVENTS) as client:
        host, ada, grace = _named(client, "Host"), _named(client, "Ada"), _named(client, "Grace")
        tid = host.post("/api/tournaments", json={"name": "Evening", "format": "swiss", "rounds": 1,
                                                  "clock": 300, "playset": "catalysts", "rated": False,
                                                  "max_players": 8}).json()["id"]
        for player in (ada, grace):
            assert player.post(f"/api/tournaments/{tid}/join").status_code == 200
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        mid = _until_match(ada, tid, "")["you"]["match_id"]
        peers = [Peer(client, mid, who.post(f"/api/matches/{mid}/seat").json()["token"]) for who in (ada, grace)]
        assert all(p.welcome is not None and p.welcome["type"] == "welcome" for p in peers)
        time.sleep(1.5)
        assert client.get(f"/api/matches/{mid}").json()["match"]["status"] == "active"
        for p in peers:
            p.close()
        assert ada.get(f"/api/tournaments/{tid}").json()["you"]["status"] == "in"


def test_a_late_joiner_enters_a_swiss_until_more_than_half_its_rounds_have_started(tmp_path: Path) -> None:
    """A Swiss of four rounds among six bots: a seventh joins while round one is played (the host paused the
    event, so that round two waits) and is paired in every round after, with nothing for the round missed;
    once round three has started, joining is refused, and the event's page says so."""
    with client_for(tmp_path, **FAST_EVENTS) as client:
        host = _named(client, "Host")
        tid = _bot_event(host, 6, format="swiss", rounds=4, clock=600, max_players=8)
        assert_error(host.post(f"/api/tournaments/{tid}/pause", json={"paused": True}), 409, "tournament_closed")
        assert host.post(f"/api/tournaments/{tid}/start").status_code == 200
        assert host.post(f"/api/tournaments/{tid}/pause", json={"paused": True}).status_code == 200
        assert host.get(f"/api/tournaments/{tid}").json()["joinable"]  # (round one is on; round two waits)
        added = host.post(f"/api/tournaments/{tid}/bots", json={"level": "beginner", "count": 1})
        assert added.status_code == 200, added.text  # (a late joiner who plays: a bot)
        assert host.post(f"/api/tournaments/{tid}/pause", json={"paused": False}).status_code == 200
        end = time.monotonic() + 120
        while (doc := host.get(f"/api/tournaments/{tid}").json())["round"] < 3:
            assert time.monotonic() < end
            time.sleep(0.02)
        assert not doc["joinable"] and doc["status"] == "running"
        assert_error(_named(client, "Later").post(f"/api/tournaments/{tid}/join"), 409, "tournament_closed")
        done = _until_status(host, tid, "finished", 180)
        rounds_of_late = [r["round"] for r in done["pairings"] for g in r["games"]
                          if 7 in (g["first"], g["second"])]
        assert rounds_of_late == [2, 3, 4], rounds_of_late
