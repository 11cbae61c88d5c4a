"""docs/hosting.md's flows, followed as the page writes them (its own blocks, read from the page), and one step
past each: the settings file of its example checked and served, the settings then at work for players; the
shipped settings file with the hosts' `converge admin --config --port`, the nightly backup's command line, a
restore into the stopped server's database as written, and the restored match played on once the server is
back. (Health, metrics, logs and rolling restarts are followed in test_metrics.py, test_log_secrets.py
and tests/test_deploy.py.)"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, run
from tests.server_support import free_port, hang_guard  # noqa: F401 (a fixture)

pytest.importorskip("fastapi")
pytest.importorskip("websockets.sync.client")

import httpx2
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as ws_connect

PAGE = ROOT / "docs" / "hosting.md"
ADMIN_TOKEN = "hosts-token-for-the-journey-0123"


def block(lang: str, holding: str) -> str:
    """The page's first ```lang block that holds ``holding``."""
    for found in re.finditer(rf"```{lang}\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL):
        if holding in found.group(1):
            return found.group(1)
    raise AssertionError(f"docs/hosting.md has no {lang} block holding {holding!r}")


def _until(check: Callable[[], bool], seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "never happened"
        time.sleep(0.05)


class Serve:
    """``converge serve --config FILE --port PORT``, as the page and the systemd unit start it."""

    #: Beside the page's command: bots that move at once, in the server's own process (the flows are the host's,
    #: not the bots'; a worker process and the bots' pauses would only make them slower).
    QUICK = ("--bot-delay", "0", "--bot-workers", "0")

    def __init__(self, config: Path, log: Path, env: dict[str, str] | None = None) -> None:
        self.config, self.log, self.port = config, log, free_port()
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.output: Any = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.output = self.log.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "converge", "serve", "--config", str(self.config),
                                      "--port", str(self.port), *self.QUICK], stdout=subprocess.DEVNULL,
                                     stderr=self.output,
                                     env=self.env)

        def ready() -> bool:
            assert self.proc is not None and self.proc.poll() is None, self.log.read_text()[-3000:]
            try:
                return httpx2.get(f"{self.base}/readyz", timeout=2, verify=False).status_code == 200
            except httpx2.HTTPError:
                return False

        _until(ready)

    def stop(self) -> None:
        """What `systemctl stop` does: SIGTERM, then the process drains and exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
        if self.output is not None:
            self.output.close()


@pytest.fixture
def served() -> Iterator[list[Serve]]:
    """The servers a test starts, stopped at its end whatever happens."""
    started: list[Serve] = []
    yield started
    for server in started:
        server.stop()


# ------------------------------------------------------------------ Configuration


def test_the_settings_file_of_the_page_is_checked_then_served_and_its_settings_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], served: list[Serve]) -> None:
    config = tmp_path / "converge.toml"
    config.write_text(block("toml", "[network]"))
    code, out, err = run(capsys, "config", "check", str(config))  # `converge config check FILE`
    assert code == 0 and "warning" not in out, err
    assert re.search(r"\bport +=\s+8001 +\(file\)", out) and "https://play.example.org" in out
    # `converge serve --config FILE`, with `--port` (the page's second process): the flag wins over the file
    server = Serve(config, tmp_path / "server.log", env={"XDG_DATA_HOME": str(tmp_path / "data")})
    served.append(server)
    server.start()
    # one step past: the file's settings at work for players
    ws = server.base.replace("http", "ws", 1) + "/ws/lobby"
    with ws_connect(ws, origin="https://play.example.org", open_timeout=30) as lobby:  # allowed_origins
        lobby.send(json.dumps({"type": "hello"}))
        assert json.loads(lobby.recv(timeout=30))["type"] == "welcome"
    with pytest.raises(InvalidStatus):
        ws_connect(ws, origin="https://elsewhere.example.org", open_timeout=30)
    with httpx2.Client(base_url=server.base, timeout=30) as web:
        assert web.get("/api/options", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 200
        asked = web.post("/api/auth/email", json={"email": "host@example.org"})
        assert asked.status_code == 200, asked.text
    mails = tmp_path / "data" / "converge" / "mail"  # (no SMTP server: beside the default database)
    _until(lambda: any(mails.glob("*.eml")))
    assert "https://play.example.org/signin#token=" in next(mails.glob("*.eml")).read_text()  # public_url
    server.stop()
    lines = [json.loads(line) for line in server.log.read_text().splitlines()]  # log_format = "json"
    assert any(d.get("path") == "/api/options" and d["client"].startswith("203.0.113.9") for d in lines)


# ------------------------------------------------------------------ Moderation, backups and a restore


def _play(base: str, made: dict[str, Any], moves: int, rng: random.Random) -> int:
    """Up to ``moves`` moves of the match's seat (its bot plays the other) over the API; the match's seq."""
    bearer = {"Authorization": f"Bearer {made['token']}"}
    played = 0
    while True:
        view = httpx2.get(f"{base}/api/matches/{made['match_id']}", headers=bearer, timeout=30).json()
        decision = view["observation"]["decision"]
        if played >= moves or view["match"]["status"] == "over":
            return int(view["match"]["seq"])
        if decision is None or decision["player"] != made["seat"]:
            time.sleep(0.01)  # (the bot's move comes)
            continue
        r = httpx2.post(f"{base}/api/matches/{made['match_id']}/actions", headers=bearer, timeout=30,
                        json={"action": rng.choice(decision["legal_actions"])["id"], "seq": view["match"]["seq"]})
        assert r.status_code == 200, r.text
        played += 1


def test_the_shipped_settings_file_then_moderation_a_nightly_backup_and_a_restore_as_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        served: list[Serve]) -> None:
    db = tmp_path / "lib" / "server.sqlite3"
    backups = tmp_path / "backups"
    backups.mkdir()
    config = tmp_path / "converge.toml"  # deploy/converge.toml, installed: its database where this test keeps it
    config.write_text((ROOT / "deploy" / "converge.toml").read_text().replace("/var/lib/converge/server.sqlite3",
                                                                             str(db)))
    monkeypatch.setenv("CONVERGE_ADMIN_TOKEN", ADMIN_TOKEN)  # (secrets.env, for the server and `converge admin`)
    server = Serve(config, tmp_path / "server.log", env={"CONVERGE_ADMIN_TOKEN": ADMIN_TOKEN})
    served.append(server)
    server.start()
    rng = random.Random(4)
    made = httpx2.post(f"{server.base}/api/matches", json={"opponent": "bot", "bot": "random",
                                                           "playset": "catalysts"}, timeout=30).json()
    assert httpx2.put(f"{server.base}/api/me", json={"name": "Mallory"}, timeout=30).status_code == 200
    at_backup = _play(server.base, made, 3, rng)

    # Moderation: `converge admin --config FILE --port N` (the file leaves each process's port to systemd)
    code, out, err = run(capsys, "admin", "--config", str(config), "--port", str(server.port), "players", "mallo")
    assert code == 0 and "Mallory" in out, err
    code, _out, err = run(capsys, "admin", "--config", str(config), "players", "mallo")  # (no --port: 8000)
    assert code == 2 and "http://127.0.0.1:8000" in err and "Traceback" not in err

    # Every night: the timer's command line, as the page writes it (its backup is the one restored below)
    unit = block("ini", "ExecStart=")
    command = re.search(r"ExecStart=(.*?')\n", unit.replace("\\\n", " "), re.DOTALL)
    assert command is not None
    line = (command.group(1).replace("/opt/converge/bin/converge", str(Path(sys.executable).parent / "converge"))
            .replace("/var/backups/converge", str(backups)).replace("/etc/converge/converge.toml", str(config))
            .replace("%%", "%"))
    done = subprocess.run(shlex.split(line), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("wrote "), done.stderr
    (nightly,) = backups.glob("matches-*.sqlite3")  # (named after the day: `date +%F`)
    assert re.fullmatch(r"matches-\d{4}-\d\d-\d\d\.sqlite3", nightly.name) and "1 in progress" in done.stdout
    _play(server.base, made, 2, rng)  # the live database moves on past the backup

    # Restore, as written: stop the server, restore with --replace, start it again
    restore = block("sh", "converge db restore")
    server.stop()  # `sudo systemctl stop 'converge@*'`
    argv = shlex.split(next(line for line in restore.splitlines() if line.startswith("converge db restore")))
    argv = [nightly.as_posix() if a.startswith("/var/backups/") else str(db) if a.startswith("/var/lib/") else a
            for a in argv]
    code, out, err = run(capsys, *argv[1:])
    assert code == 0 and f"into {db}, replacing its 1 match" in out, err
    server.start()  # `sudo systemctl start converge@8001`

    # one step past: the match is where the backup left it, and plays on
    view = httpx2.get(f"{server.base}/api/matches/{made['match_id']}", timeout=30).json()
    assert view["match"]["seq"] == at_backup and view["match"]["status"] == "active"
    assert _play(server.base, made, 3, rng) > at_backup
