"""What operators watch (issue 31): Prometheus metrics — every series, with values that match what happened in a
bot match; no label that names a match, a player or a token; ``/metrics`` only with the metrics token; the
listener of its own — and the health and readiness checks."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.server_support import (  # noqa: F401 (hang_guard is a fixture)
    FAST,
    Peer,
    auth,
    client_for,
    create,
    free_port,
    hang_guard,
)

pytest.importorskip("prometheus_client")

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from converge.engine.actions import NUM_ACTIONS
from converge.server.app import create_app
from converge.server.config import parse_bind
from converge.server.lobby.identity import COOKIE

TOKEN = "metrics-secret-7QmZ2xWc"
#: (series name, its labels) -> value
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def families(text: str) -> set[str]:
    """The names of the metric families in a scrape, whether or not they have samples yet."""
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE converge_")}


def scrape(client: TestClient) -> tuple[str, Samples]:
    r = client.get("/metrics", headers=auth(TOKEN))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return r.text, parse(r.text)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples that have ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def until(check: Callable[[], bool], seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "never happened"
        time.sleep(0.02)


#: Every series the server defines (the collect-time ones and those counted as they happen).
SERIES = ("converge_actions_total", "converge_action_seconds_count", "converge_db_commit_seconds_count",
          "converge_db_writes_total", "converge_db_commit_failures_total", "converge_connections",
          "converge_bot_decisions_queued", "converge_bot_think_seconds_count", "converge_bot_wait_seconds_count",
          "converge_bot_decisions_missed_total", "converge_bot_workers", "converge_quick_match_waiting",
          "converge_errors_total", "converge_matches_held", "converge_matches_owned", "converge_job_failing",
          "converge_job_failures_total")


def test_a_bot_match_shows_in_every_series_and_no_label_names_the_match_or_the_player(tmp_path: Path) -> None:
    with client_for(tmp_path, metrics_token=TOKEN, quick_match_bot_after_s=600.0) as client:
        client.put("/api/me", json={"name": "Zorblax"})
        cookie = client.cookies[COOKIE]
        doc = create(client, opponent="bot", bot="random", seat=0)
        mid, token = doc["match_id"], doc["token"]
        peer = Peer(client, mid, token)
        watcher = Peer(client, mid)
        # the lobby: one page whose player waits for a quick match
        with client.websocket_connect("/ws/lobby", headers={"cookie": f"{COOKIE}={cookie}"}) as lws:
            lws.send_text(json.dumps({"type": "hello"}))
            lws.send_text(json.dumps({"type": "queue", "clock": None}))
            while json.loads(lws.receive_text())["type"] != "queued":
                pass
            while peer.obs is None or peer.obs["current_player"] != 0:  # (the bot leads on some deals)
                peer.until(lambda m: m["type"] == "state")
            assert peer.obs["decision"] is not None
            legal = {a["id"] for a in peer.obs["decision"]["legal_actions"]}
            assert peer.act(next(a for a in range(NUM_ACTIONS) if a not in legal))["code"] == "illegal"
            assert peer.act(NUM_ACTIONS)["code"] == "malformed"
            _, during = scrape(client)
            assert total(during, "converge_connections", kind="seat") == 1
            assert total(during, "converge_connections", kind="spectator") == 1
            assert total(during, "converge_connections", kind="lobby") == 1
            assert total(during, "converge_quick_match_waiting") == 1
            assert total(during, "converge_matches_held") >= 1 and total(during, "converge_matches_owned") >= 1
            assert total(during, "converge_errors_total", code="illegal") == 1
            assert total(during, "converge_errors_total", code="malformed") == 1
            assert total(during, "converge_errors_total", code="not_found") == 0

            rng, played = random.Random(4), 0
            while peer.meta is not None and peer.meta["status"] == "active":
                obs = peer.obs
                assert obs is not None
                if obs["current_player"] != 0:
                    peer.until(lambda m: m["type"] == "state")
                    continue
                ack = peer.act(rng.choice(obs["decision"]["legal_actions"])["id"], peer.seq)
                assert ack["type"] == "ack", ack
                peer.state_at(ack["seq"])
                played += 1
            record = client.get(f"/api/matches/{mid}/record").json()
            text, after = scrape(client)
            actions = len(record["actions"])
            assert played > 0 and actions > played
            assert total(after, "converge_actions_total") == actions
            assert total(after, "converge_actions_total", source="player") == played
            assert total(after, "converge_actions_total", source="bot") == actions - played
            assert total(after, "converge_action_seconds_count", source="player") == played
            assert total(after, "converge_action_seconds_sum", source="bot") > 0
            assert total(after, "converge_bot_think_seconds_count") == actions - played
            assert total(after, "converge_db_commit_seconds_count") > 0
            assert total(after, "converge_db_writes_total") >= actions  # (and the match's creation, the player...)
            assert total(after, "converge_db_commit_failures_total") == 0
            assert total(after, "converge_bot_decisions_queued") == 0
            jobs = {v for (n, ls) in after for k, v in ls if n == "converge_job_failing" and k == "job_name"}
            # (SQLite: no coordination)
            assert jobs == {"retention", "turn_check", "turn_mails", "lobby_refresh", "tournaments", "puzzle_scan"}
            assert total(after, "converge_job_failing") == 0 and total(after, "converge_job_failures_total") == 0
            labels = {k for (n, ls) in after for k, _v in ls if n == "converge_actions_total"}
            assert labels == {"source", "kind"}
            # (Prometheus gives every series its target's job and instance: a label of ours so named is renamed)
            assert not {k for (_n, ls) in after for k, _v in ls} & {"job", "instance"}
            for name in SERIES:
                assert any(n == name for n, _ls in after), name

            peer.close()
            watcher.close()

        until(lambda: total(scrape(client)[1], "converge_connections") == 0)

        with sqlite3.connect(tmp_path / "matches.sqlite3") as db:
            player_id = db.execute("SELECT id FROM converge_players").fetchone()[0]
        secrets = {mid, token, cookie, player_id, "Zorblax"}
        values = {v for (_n, ls) in after for _k, v in ls}
        assert not any(s in v for s in secrets for v in values)
        assert not any(s in text for s in secrets)


def test_no_counter_or_histogram_has_a_created_series_in_either_format(tmp_path: Path) -> None:
    """prometheus_client would add a ``_created`` series beside each counter's and histogram's (one more
    series for each labelled one): the server turns them off, in the text format and in OpenMetrics."""
    with client_for(tmp_path, metrics_token=TOKEN) as client:
        client.get("/no/such/page")  # a labelled counter with a sample (errors{code="not_found"})
        create(client, opponent="bot", bot="random", seat=0)
        text, samples = scrape(client)
        assert total(samples, "converge_errors_total", code="not_found") == 1
        assert total(samples, "converge_db_commit_seconds_count") > 0  # (a histogram with samples)
        openmetrics = client.get("/metrics", headers={**auth(TOKEN), "accept": "application/openmetrics-text"})
        assert openmetrics.headers["content-type"].startswith("application/openmetrics-text")
        assert "converge_errors_total" in openmetrics.text
        for scraped in (text, openmetrics.text):
            assert "_created" not in scraped


def test_metrics_need_the_token_and_are_not_served_without_one(tmp_path: Path) -> None:
    with client_for(tmp_path, metrics_token=TOKEN, docs=True) as client:
        assert client.get("/metrics", headers=auth(TOKEN)).status_code == 200
        for headers in ({}, auth("wrong"), auth(TOKEN + "x"), {"Authorization": f"Basic {TOKEN}"}):
            r = client.get("/metrics", headers=headers)
            assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
            assert r.headers["www-authenticate"] == "Bearer" and TOKEN not in r.text
        _, samples = scrape(client)
        assert total(samples, "converge_errors_total", code="unauthorized") == 4  # the refusals count too
        paths = client.get("/openapi.json").json()["paths"]
        assert not {"/metrics", "/healthz", "/readyz"} & set(paths)
    with client_for(tmp_path / "none") as client:
        r = client.get("/metrics", headers=auth(TOKEN))
        assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_the_listener_of_its_own_serves_the_same_series_and_stops_with_the_app(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    with client_for(tmp_path, metrics_bind=f"127.0.0.1:{port}", metrics_token=TOKEN) as client:
        create(client, opponent="bot", bot="random", seat=0)
        with urllib.request.urlopen(url, timeout=5) as r:
            listened_text = r.read().decode()
        scraped_text, _ = scrape(client)
        # Families, not samples: the bot may act between the two scrapes, and a labelled series has no sample
        # until its first count.
        assert families(listened_text) == families(scraped_text)
        assert "converge_actions_total" in families(listened_text)
        assert total(parse(listened_text), "converge_matches_held") == 1
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=2)


def test_healthz_answers_while_the_process_lives_and_readyz_names_the_check_that_fails(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy.exc import OperationalError

    from converge.server.ops import readiness

    with client_for(tmp_path) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.head("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json() == {"ready": True, "checks": {"database": "ok", "bots": "ok", "jobs": "ok"}}

        def away(_self: object) -> None:
            raise OperationalError("SELECT 1", {}, Exception(f"unable to open {tmp_path}/matches.sqlite3"))

        monkeypatch.setattr(readiness.DatabasePing, "_ping", away)
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json() == {"ready": False, "checks": {"database": "unreachable (OperationalError)",
                                                           "bots": "ok", "jobs": "ok"}}
        assert str(tmp_path) not in ready.text  # (a reason names no path, host or password)
        monkeypatch.undo()

        async def hangs() -> None:
            await asyncio.sleep(30)

        monkeypatch.setattr(readiness, "TIMEOUT", 0.2)
        client.app.state.readiness.add("slow", hangs)
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["checks"]["slow"] == "no answer in 0.2 s"
        assert client.get("/healthz").status_code == 200  # liveness checks nothing of that


@pytest.mark.parametrize(("value", "why"), [
    ("9100", "host:port"), ("localhost", "host:port"), (":9100", "host:port"), ("127.0.0.1:", "host:port"),
    ("127.0.0.1:0", "1 to 65535"), ("127.0.0.1:70000", "1 to 65535"), ("127.0.0.1:http", "1 to 65535"),
    ("::1:9100", "brackets"), ("[::1:9100", "host:port"),
])
def test_a_bad_metrics_bind_is_refused_with_what_was_expected(tmp_path: Path, value: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_bind(value)
    with pytest.raises(ValueError, match="metrics_bind: "):
        create_app(db_url=str(tmp_path / "m.sqlite3"), metrics_bind=value, **FAST)
    assert not (tmp_path / "m.sqlite3").exists()  # nothing was made


def test_good_metrics_binds_give_their_host_and_port() -> None:
    assert parse_bind("127.0.0.1:9100") == ("127.0.0.1", 9100)
    assert parse_bind(" [::1]:9100 ") == ("::1", 9100)
    assert parse_bind("0.0.0.0:1") == ("0.0.0.0", 1)


def test_each_action_is_counted_under_its_source_and_kind_every_time_and_others_under_player_and_other() -> None:
    from converge.server.ops.metrics import Metrics

    metrics = Metrics()
    for _ in range(3):  # (the series are looked up once, then kept: every later report must still count)
        metrics.action("bot", "select", 0.002)
    metrics.action("player", "select", 0.2)
    metrics.action("player", "select", 0.2)
    metrics.action("someone", "select", 0.004)
    metrics.action("player", "no such kind", 0.004)
    metrics.action("player", "no such kind", 0.004)
    samples = parse(metrics.render()[0].decode())
    assert total(samples, "converge_actions_total", source="bot", kind="select") == 3
    assert total(samples, "converge_actions_total", source="player", kind="select") == 3
    assert total(samples, "converge_actions_total", source="player", kind="other") == 2
    assert total(samples, "converge_action_seconds_count", source="bot") == 3
    assert total(samples, "converge_action_seconds_count", source="player") == 5
    assert total(samples, "converge_action_seconds_bucket", source="player", le="0.005") == 3


def test_every_refusal_is_counted_once_where_it_is_made(tmp_path: Path) -> None:
    """Each door that refuses counts what it refuses, once: the application's checks, FastAPI's validation,
    an unknown path, the security middleware, a socket refused at its hello (the match's and the lobby's),
    and a connected socket's refusals. Nothing else is counted (a welcome, a state, an answer)."""
    with client_for(tmp_path, metrics_token=TOKEN) as client:
        doc = create(client, opponent="friend")
        mid = doc["match_id"]
        _, before = scrape(client)
        sent: dict[str, int] = {}

        def refused(code: str, got: str) -> None:
            assert got == code, (code, got)
            sent[code] = sent.get(code, 0) + 1

        # HTTP: the application's own check, validation, routing, the middleware's size and origin checks
        refused("not_found", client.get("/api/matches/" + "Q" * len(mid)).json()["error"]["code"])
        refused("malformed", client.post("/api/matches", json={"seat": "first"}).json()["error"]["code"])
        refused("not_found", client.get("/no/such/page").json()["error"]["code"])
        refused("too_large", client.post("/api/matches", content=b"{" + b" " * 20000 + b"}",
                                         headers={"content-type": "application/json"}).json()["error"]["code"])
        refused("bad_origin", client.post("/api/matches", json={"opponent": "friend"},
                                          headers={"origin": "https://elsewhere.example"}).json()["error"]["code"])
        assert client.get("/api/options").status_code == 200  # (an answer, not a refusal)
        # Sockets: refused at the hello (the match's, the lobby's), then a connected seat's refusals
        for path in (f"/ws/{mid}", "/ws/lobby"):
            with client.websocket_connect(path) as ws:
                ws.send_text(json.dumps({"type": "ping"}))
                refused("hello_required", json.loads(ws.receive_text())["code"])
        peer = Peer(client, mid, doc["token"])
        while peer.obs is None:
            peer.until(lambda m: m["type"] == "state")
        refused("malformed", peer.act(NUM_ACTIONS)["code"])
        peer.close()

        _, after = scrape(client)
        counted = {code: total(after, "converge_errors_total", code=code)
                   - total(before, "converge_errors_total", code=code) for code in sent}
        assert counted == sent
        assert total(after, "converge_errors_total") - total(before, "converge_errors_total") == sum(sent.values())
