"""deploy/nginx.conf works as written: two `converge serve` processes on one PostgreSQL behind nginx play a
match through it; one process is killed with SIGKILL and the players, reconnecting through nginx, finish
the match on the other."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_support import free_port, hang_guard  # noqa: F401 (a fixture)

pytest.importorskip("psycopg")
pytest.importorskip("websockets.sync.client")

import httpx2
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

from converge import Match
from tests.helpers import ROOT


def nginx_config(tmp: Path, listen: int, upstream: list[int]) -> Path:
    """deploy/nginx.conf with this test's two server ports (its third server left out), its own listening
    port, pid and temporary files."""
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    assert text.count("127.0.0.1:8003") == 2 and "listen 8000;" in text
    text = "\n".join(line for line in text.splitlines() if "127.0.0.1:8003" not in line)
    text = text.replace("127.0.0.1:8001", f"127.0.0.1:{upstream[0]}").replace("127.0.0.1:8002",
                                                                               f"127.0.0.1:{upstream[1]}")
    text = text.replace("listen 8000;", f"listen 127.0.0.1:{listen};").replace("/tmp/converge-nginx",
                                                                               str(tmp / "nginx"))
    path = tmp / "nginx.conf"
    path.write_text(text)
    return path


def start_server(url: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "converge",
            "serve",
            "--port",
            str(port),
            "--db",
            url,
            "--bot-delay",
            "0",
            "--log-level",
            "warning",
            "--bot-workers",
            "0",
            "--proxy-headers",
        ],
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/api/options", timeout=1).status_code == 200:
                return proc
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("the server did not start")


@pytest.fixture
def behind_nginx(postgres_url: str, tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    ports = [free_port(), free_port()]
    procs = [start_server(postgres_url, port, tmp_path / f"server{i}.log") for i, port in enumerate(ports)]
    listen = free_port()
    conf = nginx_config(tmp_path, listen, ports)
    check = subprocess.run([nginx, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    proxy = subprocess.Popen([nginx, "-c", str(conf), "-g", "daemon off;"], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx2.get(f"http://127.0.0.1:{listen}/api/options", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                assert time.monotonic() < deadline and proxy.poll() is None, "nginx did not start"
                time.sleep(0.1)
        yield f"127.0.0.1:{listen}", procs
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)


def holding_connections(procs: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """A server process with a WebSocket open (nginx's workers each balance on their own, so the two seats
    may well be on the same process)."""
    for proc in procs:
        args = [str(a) for a in proc.args]  # type: ignore[union-attr]
        port = args[args.index("--port") + 1]
        if httpx2.get(f"http://127.0.0.1:{port}/api/status", timeout=10).json()["connections"]:
            return proc
    raise AssertionError("no server process holds the seats' connections")


class Seat:
    """A player's WebSocket through nginx, reconnecting (through nginx again) when it drops."""

    def __init__(self, host: str, match_id: str, token: str) -> None:
        self.url, self.token = f"ws://{host}/ws/{match_id}", token
        self.reconnects = 0
        self.connect()

    def connect(self) -> None:
        self.ws = ws_connect(self.url, open_timeout=30).__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        self.msg = self.until(lambda m: m["type"] == "welcome")

    def until(self, pred: Any) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = json.loads(self.ws.recv(timeout=30))
            if msg["type"] == "error" and msg["code"] != "stale":
                raise AssertionError(msg)
            if pred(msg):
                return msg

    def latest(self) -> dict[str, Any]:
        """The newest view (reading what has come)."""
        try:
            while True:
                msg = json.loads(self.ws.recv(timeout=0.05))
                if msg["type"] in ("welcome", "state"):
                    self.msg = msg
        except TimeoutError:
            return self.msg
        except ConnectionClosed:  # its process went away: through nginx to another one
            self.reconnects += 1
            self.connect()
            return self.msg


def test_deploy_config_serves_two_processes_and_survives_losing_one(
    behind_nginx: tuple[str, list[subprocess.Popen[bytes]]],
) -> None:
    host, procs = behind_nginx
    doc = httpx2.post(
        f"http://{host}/api/matches", json={"opponent": "friend", "playset": "catalysts"}, timeout=30
    ).json()
    mid = doc["match_id"]
    seats = {0: Seat(host, mid, doc["token"]), 1: Seat(host, mid, doc["invite_url"].split("#token=")[1])}
    rng = random.Random(2)
    played = 0
    victim: subprocess.Popen[bytes] | None = None
    while True:
        views = {s: seat.latest() for s, seat in seats.items()}
        if any(v["match"]["status"] == "over" for v in views.values()):
            break
        if played == 12 and victim is None:  # a process that holds a seat goes: its connections drop, and
            victim = holding_connections(procs)  # reconnect through nginx
            victim.kill()
            victim.wait()
        for s, seat in seats.items():
            view = views[s]
            decision = view["observation"]["decision"]
            if decision is None or decision["player"] != s or view["seq"] < played:
                continue
            try:
                seat.ws.send(
                    json.dumps(
                        {
                            "type": "action",
                            "seq": view["seq"],
                            "action": rng.choice(decision["legal_actions"])["id"],
                        }
                    )
                )
                reply = seat.until(lambda m: m["type"] in ("ack", "error"))
                if reply["type"] == "ack":
                    played = reply["seq"]
            except ConnectionClosed:  # the connection dropped with its process: reconnect
                seat.reconnects += 1
                seat.connect()
        time.sleep(0.01)
    assert sum(seat.reconnects for seat in seats.values()) >= 1
    record = httpx2.get(f"http://{host}/api/matches/{mid}/record", timeout=30).json()
    assert Match.replay(record).is_terminal and len(record["actions"]) >= played > 12


def test_deploy_config_tells_the_servers_the_origin_browsers_use(
    behind_nginx: tuple[str, list[subprocess.Popen[bytes]]],
) -> None:
    """nginx sends its upstream a Host without the port; the X-Forwarded-Host it adds says what the browser
    used, so that the servers' origin check lets nginx's own pages in and keeps other ports' out."""
    host, _procs = behind_nginx
    own, other = f"http://{host}", "http://127.0.0.1:1"
    with ws_connect(f"ws://{host}/ws/lobby", origin=own, open_timeout=30) as ws:
        ws.send(json.dumps({"type": "hello"}))
        assert json.loads(ws.recv(timeout=30))["type"] == "welcome"
    with pytest.raises(InvalidStatus) as refused:
        ws_connect(f"ws://{host}/ws/lobby", origin=other, open_timeout=30)
    assert refused.value.response.status_code == 403 and b'"bad_origin"' in refused.value.response.body
    for origin, status in ((own, 200), (other, 403)):
        r = httpx2.put(f"http://{host}/api/me", json={"name": None}, headers={"origin": origin}, timeout=30)
        assert r.status_code == status, r.text
