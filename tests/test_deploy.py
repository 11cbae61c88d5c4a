"""deploy/ works as written. Each shipped nginx file (nginx.conf, and nginx-tls.conf with a self-signed
certificate) runs in front of two `converge serve` processes on one PostgreSQL:

* the operators' paths (health, readiness, metrics, a process's load, the hosts' API) answer nginx's 404 from
  outside, in every spelling, while the players' pages and API are served;
* under play — seats and a lobby page on WebSockets, HTTP requests beside them — each process is restarted in
  turn, as docs/hosting.md's rolling restart does: no request fails, no acknowledged move is lost, and every
  reconnection goes through at its first try. ``CONVERGE_ROLLING_RESTARTS`` restarts (2 by default: each
  process once; ``make fuzz`` runs ten);
* a process killed with SIGKILL mid-match: the players finish the match on the other (nginx.conf).

Also the systemd unit (its command line and settings file) and the TLS file's redirect of plain HTTP."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.server_support import free_port, hang_guard  # noqa: F401 (a fixture)

pytest.importorskip("psycopg")
pytest.importorskip("websockets.sync.client")

import httpx2
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as ws_connect

from converge import Match
from tests.helpers import ROOT

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
#: Rolling restarts under play per nginx file (each process in turn).
ROLLING = int(os.environ.get("CONVERGE_ROLLING_RESTARTS", "2"))
#: The paths only operators use: through nginx, each answers 404.
OPERATOR_PATHS = ("/healthz", "/readyz", "/metrics", "/api/status", "/api/admin/players?q=a", "/api/admin/audit",
                  "/api/admin", "/metrics/", "/api//status", "/%6detrics", "/api/admin/../admin/audit",
                  "/readyz?x=1")


def _until(check: Callable[[], bool], seconds: float = 60.0, what: str = "it") -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, f"{what} did not happen in {seconds:g} s"
        time.sleep(0.05)


# ------------------------------------------------------------------ the processes and nginx


class Backend:
    """One `converge serve` process behind nginx, on its own port, that can be restarted."""

    def __init__(self, db: str, log: Path) -> None:
        self.db, self.log, self.port = db, log, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it; return once it is ready (``/readyz`` answers 200 on its own port)."""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "converge", "serve", "--port", str(self.port), "--db", self.db, "--bot-delay",
             "0", "--log-level", "warning", "--bot-workers", "0", "--proxy-headers", "--drain-seconds", "5"],
            stdout=self.log.open("ab"), stderr=subprocess.STDOUT)

        def ready() -> bool:
            assert self.proc is not None and self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                ready = httpx2.get(f"{self.base}/readyz", timeout=2, verify=False)  # (plain HTTP: no CA to load)
                return ready.status_code == 200
            except httpx2.HTTPError:
                return False

        _until(ready, what="the server's start")

    def stop(self) -> None:
        """SIGTERM, as `systemctl restart` sends: it drains, then exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(timeout=30) in (0, -signal.SIGTERM)

    def restart(self) -> None:
        self.stop()
        self.start()

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=30)

    def ensure_running(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.start()


@dataclass
class Deployment:
    """A shipped nginx file (``kind``: "plain" or "tls") in front of two processes."""

    kind: str
    base: str  # what players reach: http(s)://127.0.0.1:PORT
    backends: list[Backend]
    tls: ssl.SSLContext | None = None
    http: int | None = None  # (TLS) the plain-HTTP port, which sends players to HTTPS

    @property
    def ws(self) -> str:
        return self.base.replace("http", "ws", 1)

    def client(self) -> httpx2.Client:
        return httpx2.Client(base_url=self.base, verify=self.tls or True, timeout=30)

    def websocket(self, path: str, **kwargs: Any) -> ClientConnection:
        """A WebSocket through nginx (entered: usable with or without ``with``)."""
        return ws_connect(self.ws + path, ssl=self.tls, open_timeout=30, **kwargs).__enter__()


def nginx_config(kind: str, tmp: Path, listen: int, http: int, upstream: list[int]) -> tuple[Path, Path | None]:
    """The shipped file of ``kind`` with this test's two server ports, its listening ports, its own pid and
    temporary files, and for TLS a self-signed certificate for 127.0.0.1: the configuration's path and the
    certificate's."""
    name = "nginx.conf" if kind == "plain" else "nginx-tls.conf"
    text = (ROOT / "deploy" / name).read_text()
    ports = {"127.0.0.1:8001": f"127.0.0.1:{upstream[0]}", "127.0.0.1:8002": f"127.0.0.1:{upstream[1]}"}
    for needed in ports:
        assert needed in text, needed
    lines = [line for line in text.splitlines() if "[::]" not in line]
    text = "\n".join(lines)
    for old, new in ports.items():
        text = text.replace(old, new)
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = "".join(f"    {k}_temp_path {tmp}/nginx-{k};\n" for k in kinds)
    if kind == "plain":
        assert "listen 8000;" in text
        return _write(tmp, text.replace("listen 8000;", f"listen 127.0.0.1:{listen};")
                      .replace("/tmp/converge-nginx", str(tmp / "nginx"))), None
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    for needed in ("listen 443 ssl http2;", "listen 80;", "/etc/letsencrypt/live/play.example.org/"):
        assert needed in text, needed
    text = (text.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{listen} ssl http2;")
            .replace("listen 80;", f"listen 127.0.0.1:{http};")
            .replace("/etc/letsencrypt/live/play.example.org/fullchain.pem", str(cert))
            .replace("/etc/letsencrypt/live/play.example.org/privkey.pem", str(key))
            .replace("/run/nginx.pid", str(tmp / "nginx.pid"))
            .replace("/var/log/nginx/error.log", "stderr")
            .replace("http {", "http {\n" + temp, 1))
    return _write(tmp, text), cert


def _write(tmp: Path, text: str) -> Path:
    path = tmp / "nginx-test.conf"
    path.write_text(text)
    return path


@pytest.fixture(scope="module", params=["plain", "tls"])
def deployment(request: pytest.FixtureRequest, postgres_databases: Callable[[], AbstractContextManager[str]],
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """Two processes on one PostgreSQL database (this deployment's own) behind the shipped nginx file of the
    parameter's kind."""
    kind: str = request.param
    if not Path(NGINX).exists() or (kind == "tls" and shutil.which("openssl") is None):
        pytest.skip("nginx (and openssl) are needed: apt-get install nginx-light openssl")
    with postgres_databases() as db, _deploy(kind, db, tmp_path_factory.mktemp(f"deploy-{kind}")) as found:
        yield found


@contextlib.contextmanager
def _deploy(kind: str, db: str, tmp: Path) -> Iterator[Deployment]:
    """Two processes on the database ``db`` behind the shipped nginx file of ``kind``, until the end."""
    backends = [Backend(db, tmp / f"server{i}.log") for i in range(2)]
    listen, http = free_port(), free_port()
    conf, cert = nginx_config(kind, tmp, listen, http, [b.port for b in backends])
    check = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    tls = ssl.create_default_context(cafile=str(cert)) if cert is not None else None
    if tls is not None:
        # (The websockets library's threaded client reads and writes one TLS socket from two threads, which
        # Python's ssl does not make safe: with TLS 1.3, about one connection in 500 lost its request — nginx
        # logged "client timed out while waiting for request" — and none with TLS 1.2. Browsers are not
        # concerned: nginx offers both.)
        tls.maximum_version = ssl.TLSVersion.TLSv1_2
    found = Deployment(kind, f"{'https' if tls else 'http'}://127.0.0.1:{listen}", backends, tls,
                       http if tls else None)
    proxy: subprocess.Popen[bytes] | None = None
    try:
        for backend in backends:
            backend.start()
        proxy = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"],
                                 stderr=(tmp / "nginx.log").open("ab"))  # (kept beside the servers' logs)

        def answers() -> bool:
            assert proxy is not None and proxy.poll() is None, "nginx stopped"
            try:
                return httpx2.get(f"{found.base}/api/options", verify=tls or True, timeout=2).status_code == 200
            except httpx2.HTTPError:
                return False

        _until(answers, 30, "nginx's start")
        yield found
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(timeout=30)
        for backend in backends:
            backend.stop()


@pytest.fixture
def deployed(deployment: Deployment) -> Deployment:
    """The deployment, both processes running (a test before may have killed one)."""
    for backend in deployment.backends:
        backend.ensure_running()
    return deployment


# ------------------------------------------------------------------ the operators' doors


def test_the_operators_paths_answer_404_from_outside_and_the_players_are_served(deployed: Deployment) -> None:
    with deployed.client() as web:
        for path in OPERATOR_PATHS:
            for method in ("GET", "HEAD", "POST"):
                r = web.request(method, path, headers={"Authorization": "Bearer not-a-token-0123456789"})
                assert r.status_code == 404 and '"error"' not in r.text, (method, path, r.status_code, r.text)
        assert web.get("/api/options").status_code == 200  # the players' API, pages and WebSocket are public
        for page in ("/", "/rules", "/tutorial", "/m/abc"):
            assert web.get(page).status_code == 200, page
        with deployed.websocket("/ws/lobby", origin=deployed.base) as lobby:
            lobby.send(json.dumps({"type": "hello"}))
            assert json.loads(lobby.recv(timeout=30))["type"] == "welcome"
    # the doors are there, on each process's own port, for the operators
    own = deployed.backends[0].base
    assert httpx2.get(f"{own}/api/status", timeout=10).status_code == 200
    assert httpx2.get(f"{own}/readyz", timeout=10).status_code == 200
    if deployed.kind == "tls":  # plain HTTP sends players to HTTPS
        moved = httpx2.get(f"http://127.0.0.1:{deployed.http}/m/abc", timeout=10)
        assert moved.status_code == 301 and moved.headers["location"] == "https://127.0.0.1/m/abc"
        assert "max-age=" in httpx2.get(f"{deployed.base}/api/options", verify=deployed.tls or True,
                                        timeout=10).headers["strict-transport-security"]


def test_the_web_client_uses_no_operators_path() -> None:
    """What nginx keeps private, the browser client must not need."""
    web = ROOT / "src" / "converge" / "web"
    for path in web.rglob("*"):
        if path.suffix in (".js", ".html"):
            text = path.read_text(encoding="utf-8")
            for door in ("/healthz", "/readyz", "/metrics", "/api/status", "/api/admin"):
                assert door not in text, (path.name, door)


# ------------------------------------------------------------------ play through restarts


@dataclass
class Tally:
    """What the players and the HTTP requests met, counted by the threads that play and probe."""

    requests: int = 0
    failed_requests: list[str] = field(default_factory=list)
    reconnects: int = 0
    failed_connects: list[str] = field(default_factory=list)
    acked: dict[str, int] = field(default_factory=dict)  # match -> the highest acknowledged move
    errors: list[BaseException] = field(default_factory=list)


class Socket:
    """A WebSocket through nginx (a seat's, with its token, or the lobby's) that connects again when its process
    goes away: every attempt must go through (``Tally.failed_connects`` otherwise)."""

    def __init__(self, deploy: Deployment, path: str, hello: dict[str, Any], tally: Tally) -> None:
        self.deploy, self.path, self.hello, self.tally = deploy, path, hello, tally
        self.view: dict[str, Any] = {}
        self.connect()

    def connect(self) -> None:
        while True:
            try:
                self.ws = self.deploy.websocket(self.path, origin=self.deploy.base)
            except (InvalidStatus, OSError, TimeoutError) as exc:  # nginx refused: the stall this test is about
                self.tally.failed_connects.append(f"{self.path}: {exc!r}")
                assert len(self.tally.failed_connects) < 50
                time.sleep(0.1)
                continue
            try:
                self.ws.send(json.dumps(self.hello))
                self.view = self.until(lambda m: m["type"] == "welcome")
                return
            except ConnectionClosed:  # reached a process as it began to drain: it said reconnect
                self.tally.reconnects += 1

    def until(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = json.loads(self.ws.recv(timeout=30))
            if msg["type"] in ("welcome", "state"):
                self.view = msg
            if pred(msg):
                return msg

    def poll(self) -> None:
        """Read what has come; connect again if the process went away."""
        try:
            while True:
                msg = json.loads(self.ws.recv(timeout=0.02))
                if msg["type"] in ("welcome", "state"):
                    self.view = msg
        except TimeoutError:
            return
        except ConnectionClosed:
            self.tally.reconnects += 1
            self.connect()


def _seats(deploy: Deployment, doc: dict[str, Any], tally: Tally) -> dict[int, Socket]:
    """Both seats of a new friend match (``doc``: its creation's answer), each on its WebSocket."""
    mid, invite = doc["match_id"], doc["invite_url"].split("#token=")[1]
    return {doc["seat"]: Socket(deploy, f"/ws/{mid}", {"type": "hello", "token": doc["token"]}, tally),
            1 - doc["seat"]: Socket(deploy, f"/ws/{mid}", {"type": "hello", "token": invite}, tally)}


def _move(seat: int, sock: Socket, rng: random.Random, tally: Tally) -> int | None:
    """A random legal move of ``seat`` if it is to decide: the seq it was acknowledged at (None: no move, or
    nothing done — a restarting process, a view out of date — which the view says next)."""
    sock.poll()
    decision = sock.view["observation"]["decision"]
    if decision is None or decision["player"] != seat or sock.view["match"]["status"] != "active":
        return None
    try:
        sock.ws.send(json.dumps({"type": "action", "seq": sock.view["seq"],
                                 "action": rng.choice(decision["legal_actions"])["id"]}))
        reply = sock.until(lambda m: m["type"] in ("ack", "error"))
    except ConnectionClosed:
        tally.reconnects += 1
        sock.connect()
        return None
    if reply["type"] == "ack":
        return int(reply["seq"])
    assert reply["code"] in ("restarting", "stale", "not_your_turn", "storage"), reply
    return None


def _play(deploy: Deployment, tally: Tally, stop: threading.Event) -> None:
    """Friend matches, both seats played here with random legal moves, one after the other until ``stop``; a
    lobby page beside them."""
    rng = random.Random(7)
    lobby = Socket(deploy, "/ws/lobby", {"type": "hello"}, tally)
    with deploy.client() as web:
        while not stop.is_set():
            made = web.post("/api/matches", json={"opponent": "friend", "playset": "catalysts"})
            assert made.status_code == 201, made.text
            doc = made.json()
            mid = doc["match_id"]
            tally.acked[mid] = 0
            seats = _seats(deploy, doc, tally)
            while not stop.is_set() and all(s.view["match"]["status"] == "active" for s in seats.values()):
                lobby.poll()
                for seat, sock in seats.items():
                    acked = _move(seat, sock, rng, tally)
                    if acked is not None:
                        tally.acked[mid] = max(tally.acked[mid], acked)
                time.sleep(0.01)
            for sock in seats.values():
                sock.ws.close()
    lobby.ws.close()


def _probe(deploy: Deployment, tally: Tally, stop: threading.Event) -> None:
    """HTTP requests through nginx, one after the other: the options and the view of the latest match."""
    with deploy.client() as web:
        while not stop.is_set():
            paths = ["/api/options", *(f"/api/matches/{mid}" for mid in list(tally.acked)[-1:])]
            for path in paths:
                tally.requests += 1
                try:
                    r = web.get(path)
                except httpx2.HTTPError as exc:
                    tally.failed_requests.append(f"{path}: {exc!r}")
                    continue
                if r.status_code != 200:
                    tally.failed_requests.append(f"{path}: {r.status_code} {r.text[:100]}")
            time.sleep(0.02)


def _guarded(target: Callable[[Deployment, Tally, threading.Event], None], deploy: Deployment, tally: Tally,
             stop: threading.Event) -> threading.Thread:
    def run() -> None:
        try:
            target(deploy, tally, stop)
        except BaseException as exc:  # (reported by the test's thread)
            tally.errors.append(exc)
            stop.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_rolling_restarts_under_play_fail_no_request_lose_no_move_and_stall_no_reconnect(
        deployed: Deployment) -> None:
    tally, stop = Tally(), threading.Event()
    threads = [_guarded(_play, deployed, tally, stop), _guarded(_probe, deployed, tally, stop)]
    played = lambda: sum(tally.acked.values())  # noqa: E731
    try:
        _until(lambda: played() >= 10 or stop.is_set(), what="play")
        for n in range(ROLLING):  # docs/hosting.md: restart one, wait until it is ready, then the next
            before = played()
            deployed.backends[n % 2].restart()
            _until(lambda b=before: played() >= b + 6 or stop.is_set(), what="play after a restart")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    assert not tally.errors, tally.errors
    assert tally.failed_requests == [] and tally.requests > 50, tally.failed_requests[:5]
    assert tally.failed_connects == [], tally.failed_connects[:5]
    assert tally.reconnects >= ROLLING  # (the players' sockets did move)
    with deployed.client() as web:  # every acknowledged move is stored, once, in order
        for mid, acked in tally.acked.items():
            meta = web.get(f"/api/matches/{mid}").json()["match"]
            assert meta["seq"] >= acked, (mid, meta["seq"], acked)
            if meta["status"] == "over":
                assert Match.replay(web.get(f"/api/matches/{mid}/record").json()).is_terminal


def test_a_process_killed_mid_match_leaves_its_players_to_finish_on_the_other(deployed: Deployment) -> None:
    if deployed.kind != "plain":
        pytest.skip("killed once, behind nginx.conf (restarts are run through each file)")
    tally = Tally()
    with deployed.client() as web:
        doc = web.post("/api/matches", json={"opponent": "friend", "playset": "catalysts"}).json()
    mid = doc["match_id"]
    seats = _seats(deployed, doc, tally)
    rng, played, killed = random.Random(2), 0, False
    while all(s.view["match"]["status"] == "active" for s in seats.values()):
        if played >= 12 and not killed:  # the process that holds a seat goes, without a word
            holder = next(b for b in deployed.backends
                          if httpx2.get(f"{b.base}/api/status", timeout=10).json()["connections"])
            holder.kill()
            killed = True
        for seat, sock in seats.items():
            played = _move(seat, sock, rng, tally) or played
        time.sleep(0.01)
    assert killed and tally.reconnects >= 1 and tally.failed_connects == []
    with deployed.client() as web:
        record = web.get(f"/api/matches/{mid}/record").json()
    assert Match.replay(record).is_terminal and len(record["actions"]) >= played > 12


def test_nginx_tells_the_servers_the_origin_browsers_use(deployed: Deployment) -> None:
    """nginx sends its upstream a Host without the port; the X-Forwarded-Host (and -Proto) it adds say what the
    browser used, so that the servers' origin check lets nginx's own pages in and keeps other origins out (over
    TLS, a page over plain HTTP on the same port is another origin)."""
    own = deployed.base
    others = ["http://127.0.0.1:1"] + ([own.replace("https:", "http:")] if deployed.kind == "tls" else [])
    with deployed.websocket("/ws/lobby", origin=own) as ws:
        ws.send(json.dumps({"type": "hello"}))
        assert json.loads(ws.recv(timeout=30))["type"] == "welcome"
    for other in others:
        with pytest.raises(InvalidStatus) as refused:
            deployed.websocket("/ws/lobby", origin=other)
        assert refused.value.response.status_code == 403 and b'"bad_origin"' in refused.value.response.body
    with deployed.client() as web:
        for origin, status in ((own, 200), *((other, 403) for other in others)):
            r = web.put("/api/me", json={"name": None}, headers={"origin": origin})
            assert r.status_code == status, r.text


# ------------------------------------------------------------------ the systemd unit


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
