"""deploy/nginx.conf works as written: two `converge serve` processes on one PostgreSQL behind nginx play a
match through it; one process is killed with SIGKILL and the players, reconnecting through nginx, finish
the match on the other."""

from __future__ import annotations

import json
import random
import shlex
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


# ------------------------------------------------------------------ the systemd unit and nginx with TLS


def test_the_systemd_unit_runs_a_valid_command_with_a_valid_settings_file(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from converge.cli.main import build_parser
    from converge.server.config import ServerConfig
    from tests.helpers import run

    unit = (ROOT / "deploy" / "converge@.service").read_text()
    keys: dict[str, list[str]] = {}
    for line in unit.splitlines():
        if line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            keys.setdefault(key, []).append(value)
    (start,) = keys["ExecStart"]
    (pre,) = keys["ExecStartPre"]
    argv = shlex.split(start.replace("%i", "8001"))
    assert argv[0].endswith("/converge")
    args = build_parser().parse_args(argv[1:])
    assert args.command == "serve" and args.config == "/etc/converge/converge.toml" and args.port == 8001
    assert shlex.split(pre)[1:] == ["config", "check", args.config]
    assert keys["KillSignal"] == ["SIGTERM"]
    assert int(keys["TimeoutStopSec"][0]) >= ServerConfig().drain_seconds + 10  # the drain has its time
    # the settings file it runs with passes its check, with the secrets of the example environment file
    for line in (ROOT / "deploy" / "secrets.env.example").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            monkeypatch.setenv(name, value)
    code, out, err = run(capsys, "config", "check", str(ROOT / "deploy" / "converge.toml"))
    assert code == 0, err
    assert "postgresql://converge:***@127.0.0.1/converge" in out and "CHANGE-ME" not in out
    assert "proxy_headers                 = true" in out
    analyze = shutil.which("systemd-analyze")
    if analyze is not None:  # where systemd is installed: the unit as systemd reads it
        copy = tmp_path / "converge@8001.service"
        copy.write_text(unit.replace("/opt/converge/bin/converge", str(Path(sys.executable).parent / "converge")))
        checked = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr


def tls_config(tmp: Path, https: int, http: int, upstream: int) -> tuple[Path, Path]:
    """deploy/nginx-tls.conf with a self-signed certificate for 127.0.0.1, this test's ports and files; the
    configuration's path and the certificate's."""
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    text = (ROOT / "deploy" / "nginx-tls.conf").read_text()
    for needed in ("listen 443 ssl http2;", "listen 80;", "127.0.0.1:8002",
                   "/etc/letsencrypt/live/play.example.org/"):
        assert needed in text, needed
    text = "\n".join(line for line in text.splitlines() if "127.0.0.1:8002" not in line and "[::]" not in line)
    text = (text.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{https} ssl http2;")
            .replace("listen 80;", f"listen 127.0.0.1:{http};")
            .replace("127.0.0.1:8001", f"127.0.0.1:{upstream}")
            .replace("/etc/letsencrypt/live/play.example.org/fullchain.pem", str(cert))
            .replace("/etc/letsencrypt/live/play.example.org/privkey.pem", str(key))
            .replace("/run/nginx.pid", str(tmp / "nginx.pid"))
            .replace("/var/log/nginx/error.log", "stderr")
            .replace("http {", "http {\n" + "".join(f"    {kind}_temp_path {tmp}/nginx-{kind};\n" for kind in
                                                    ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")), 1))
    path = tmp / "nginx-tls.conf"
    path.write_text(text)
    return path, cert


def test_the_tls_example_serves_https_and_secure_websockets_and_sends_http_to_https(tmp_path: Path) -> None:
    import ssl

    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists() or shutil.which("openssl") is None:
        pytest.skip("nginx and openssl are needed (apt-get install nginx-light openssl)")
    upstream, https, http = free_port(), free_port(), free_port()
    conf, cert = tls_config(tmp_path, https, http, upstream)
    check = subprocess.run([nginx, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    server = start_server(str(tmp_path / "m.sqlite3"), upstream, tmp_path / "server.log")
    proxy = subprocess.Popen([nginx, "-c", str(conf), "-g", "daemon off;"], stderr=subprocess.PIPE)
    tls = ssl.create_default_context(cafile=str(cert))
    base = f"https://127.0.0.1:{https}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                options = httpx2.get(f"{base}/api/options", verify=tls, timeout=2)
                break
            except httpx2.HTTPError:
                assert time.monotonic() < deadline and proxy.poll() is None, "nginx did not start"
                time.sleep(0.1)
        assert options.status_code == 200 and "max-age=" in options.headers["strict-transport-security"]
        moved = httpx2.get(f"http://127.0.0.1:{http}/m/abc", timeout=10)
        assert moved.status_code == 301 and moved.headers["location"].startswith("https://127.0.0.1")
        assert moved.headers["location"].endswith("/m/abc")
        assert httpx2.get(f"{base}/readyz", verify=tls, timeout=10).status_code == 404  # not public
        admin = httpx2.get(f"{base}/api/admin/audit", verify=tls, timeout=10)
        assert admin.status_code == 404 and "error" not in admin.text  # nginx's answer: never reaches a process
        doc = httpx2.post(f"{base}/api/matches", json={"opponent": "bot", "bot": "random",
                                                       "playset": "catalysts"}, verify=tls, timeout=30).json()
        with ws_connect(f"wss://127.0.0.1:{https}/ws/{doc['match_id']}", ssl=tls, origin=base,
                        open_timeout=30) as ws:
            ws.send(json.dumps({"type": "hello", "token": doc["token"]}))
            welcome = json.loads(ws.recv(timeout=30))
            assert welcome["type"] == "welcome" and welcome["seat"] == doc["seat"]
        with pytest.raises(InvalidStatus):  # the origin check sees https: a page over plain http is another
            ws_connect(f"wss://127.0.0.1:{https}/ws/lobby", ssl=tls, origin=f"http://127.0.0.1:{https}",
                       open_timeout=30)
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)
        server.terminate()
        server.wait(timeout=30)
