"""The container kit works as written, short of a container runtime (none runs on the machines the tests run
on: docs/containers.md says what is and is not tested):

* compose.yaml wires what the servers, the image and the shipped nginx file expect: the migrations before the
  servers, the servers on the ports deploy/nginx.conf sends players to, in nginx's network namespace (where
  deploy/converge.toml's loopback address and trusted proxy hold), the settings file the image holds, the
  secrets' file and what it must say, a stop that leaves the drain its time, health checks on ``/readyz``;
* the Dockerfile copies only what its build context (.dockerignore) holds, never the secrets, and builds its
  wheel with the step ``make test`` builds its own with (deploy/docker/build.sh);
* the image's steps, run in a fresh venv laid out as the image is: its install step (the Dockerfile's RUN
  line, deploy/docker/install.sh) installs that wheel with the web extra; compose's migrations service's
  command brings a new PostgreSQL database to the newest revision; two servers run the image's command line
  with its settings file, each found ready by the image's health check; nginx runs deploy/nginx.conf in front
  of them; ``converge serve-bench --target`` (the installed one) plays matches through nginx while one server
  is restarted as ``docker compose restart`` does (SIGTERM, then the same command again): every match
  finished, its record replayed, no acknowledged move lost, none applied twice. ``CONVERGE_CONTAINER_MATCHES``
  matches (20 by default; ``make fuzz`` plays 50).

The wheel is the one ``make test`` built (build/wheel/) or ``$CONVERGE_WHEEL``: building one here would
download the build's own requirements. Its dependencies come from this environment (no download either), the
wheel itself from its file."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import sysconfig
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.helpers import ROOT
from tests.server_support import free_port, hang_guard  # noqa: F401 (a fixture)

yaml = pytest.importorskip("yaml")
pytest.importorskip("psycopg")
httpx2 = pytest.importorskip("httpx2")

from converge.server.config import ServerConfig  # noqa: E402
from tests.test_deploy import NGINX, nginx_config  # noqa: E402

#: Matches ``serve-bench --target`` plays through nginx across a server's restart.
MATCHES = int(os.environ.get("CONVERGE_CONTAINER_MATCHES", "20"))
SECRETS = "deploy/docker/secrets.env"


# ------------------------------------------------------------------ reading the files


@dataclass
class Stage:
    """One stage of the Dockerfile: its instructions in order, each (keyword, the rest of its line)."""

    name: str | None
    steps: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [rest for kw, rest in self.steps if kw == keyword]

    def one(self, keyword: str) -> str:
        (found,) = self.all(keyword)
        return found


def dockerfile() -> list[Stage]:
    """The Dockerfile's stages (its continuation lines joined, its comments left out)."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text(encoding="utf-8"))
    stages: list[Stage] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        keyword, rest = keyword.upper(), " ".join(rest.split())
        if keyword == "FROM":
            _, _, name = rest.partition(" AS ")
            stages.append(Stage(name or None))
        elif stages:
            stages[-1].steps.append((keyword, rest))
    return stages


def exec_form(rest: str) -> list[str]:
    """An instruction's JSON (exec) form: its argument vector."""
    argv = json.loads(rest)
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), rest
    return argv


def copies(stage: Stage) -> list[tuple[list[str], str]]:
    """The stage's COPY steps from the build context (not from another stage): (sources, destination)."""
    found = []
    for rest in stage.all("COPY"):
        if not rest.startswith("--from="):
            *sources, dest = rest.split()
            found.append((sources, dest))
    return found


def compose() -> dict[str, Any]:
    doc = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def env_file(path: Path) -> dict[str, str]:
    """The variables an env file sets, and those it shows commented out (``# NAME=value``)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.fullmatch(r"#?\s*([A-Z][A-Z0-9_]*)=(\S*)", line.strip())
        if m:
            found[m[1]] = m[2]
    return found


def upstream_ports(name: str) -> list[int]:
    """The ports of nginx.conf's ``upstream NAME``."""
    text = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    block = re.search(r"upstream " + name + r" \{(.*?)\}", text, re.S)
    assert block is not None, name
    return [int(p) for p in re.findall(r"server 127\.0\.0\.1:(\d+)", block[1])]


def in_context(path: str) -> bool:
    """Whether the build context holds ``path`` (relative to the checkout), by .dockerignore's rules: each
    line in turn, the last that matches decides (``!``: kept); ``**/`` matches at any depth."""
    kept = True
    parts = path.split("/")
    for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line.lstrip("!").rstrip("/")
        if pattern.startswith("**/"):
            rest = pattern[3:]
            hit = any(fnmatch.fnmatch("/".join(parts[i:i + 1]), rest) for i in range(len(parts)))
        else:
            hit = any(fnmatch.fnmatch("/".join(parts[:i]), pattern) for i in range(1, len(parts) + 1))
        if hit:
            kept = negated
    return kept


def seconds(text: str) -> float:
    """A compose duration ("30s", "1m30s")."""
    parts = re.fullmatch(r"(?:(\d+)m)?(?:(\d+)s)?", text)
    assert parts is not None and text, text
    return int(parts[1] or 0) * 60 + int(parts[2] or 0)


# ------------------------------------------------------------------ what the files say to each other


def test_compose_wires_what_the_servers_the_image_and_nginx_expect() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "migrate", "server1", "server2", "nginx"}
    runtime = dockerfile()[-1]
    config = next(dest for sources, dest in copies(runtime) if sources == ["deploy/converge.toml"])
    cmd = exec_form(runtime.one("CMD"))
    assert shlex.split(cmd[-1])[:4] == ["exec", "converge", "serve", "--config"] and config in cmd[-1]

    # the migrations: the image's converge, its settings file, once PostgreSQL is healthy, before the servers
    migrate = services["migrate"]
    assert migrate["build"] == "." and migrate["command"] == ["converge", "db", "upgrade", "--config", config]
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert migrate["restart"] == "no"
    assert services["postgres"]["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]

    # two servers of that image, on the ports nginx's file sends players (and the lobby) to, in its network
    servers = [services["server1"], services["server2"]]
    ports = sorted(int(s["environment"]["PORT"]) for s in servers)
    assert ports == sorted(upstream_ports("converge")) == sorted(upstream_ports("converge_lobby"))
    for server in servers:
        assert server["image"] == migrate["image"] and server["build"] == "."
        assert server["network_mode"] == "service:nginx"  # where converge.toml's 127.0.0.1 holds
        assert server["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
        assert seconds(server["stop_grace_period"]) >= ServerConfig().drain_seconds + 10  # the drain's time
        assert "healthcheck" not in server and "ports" not in server  # the image's /readyz check; private
    settings = (ROOT / "deploy" / "converge.toml").read_text(encoding="utf-8")
    assert 'host = "127.0.0.1"' in settings and 'forwarded_allow_ips = ["127.0.0.1", "::1"]' in settings

    # nginx: the shipped file, as it is, in the image's place for it; its port the one published
    nginx = services["nginx"]
    host_path, container_path, mode = nginx["volumes"][0].split(":")
    assert (ROOT / host_path).resolve() == ROOT / "deploy" / "nginx.conf" and mode == "ro"
    assert container_path == "/etc/nginx/nginx.conf"
    listen = re.search(r"listen (\d+);", (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8"))
    assert listen is not None and nginx["ports"] == [f"{listen[1]}:{listen[1]}"]
    probe = nginx["healthcheck"]["test"][-1]
    assert probe.startswith(f"http://127.0.0.1:{listen[1]}/")
    assert [name for name, s in services.items() if "ports" in s] == ["nginx"]

    # the secrets: one file, kept out of git and of the image; what it must say agrees with compose.yaml
    for name in ("postgres", "migrate", "server1", "server2"):
        assert services[name]["env_file"] == SECRETS, name
    assert f"/{SECRETS}" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert not in_context(SECRETS)
    example = env_file(ROOT / f"{SECRETS}.example")
    url = urlsplit(example["CONVERGE_DATABASE_URL"])
    postgres = services["postgres"]["environment"]
    assert url.scheme == "postgresql" and url.hostname == "postgres"  # the service's name
    assert url.username == postgres["POSTGRES_USER"] and url.path == f"/{postgres['POSTGRES_DB']}"
    assert url.password == example["POSTGRES_PASSWORD"]
    # the server's secrets are those a systemd host's file holds
    server_secrets = {name for name in example if name.startswith("CONVERGE_")}
    assert server_secrets == set(env_file(ROOT / "deploy" / "secrets.env.example"))


def test_the_image_is_built_from_the_context_by_the_step_make_test_builds_its_wheel_with() -> None:
    build, runtime = dockerfile()
    assert build.name == "build" and runtime.name is None
    # the build stage runs deploy/docker/build.sh; `make test` builds the wheel it tests with the same script
    script = next(dest for sources, dest in copies(build) if sources == ["deploy/docker/build.sh"])
    assert any(run.split()[0] in (script, Path(script).name) for run in build.all("RUN"))  # (on PATH)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "deploy/docker/build.sh . $(WHEEL_DIR)" in makefile
    # everything copied from the context is in it; the secrets, the venv, a native core built here are not
    tracked = subprocess.run(["git", "ls-files", "src"], cwd=ROOT, capture_output=True, text=True, check=True)
    sources = [s for stage in (build, runtime) for srcs, _dest in copies(stage) for s in srcs]
    files = [s for s in sources if not s.endswith("/")] + tracked.stdout.split()
    assert len(files) > 100 and [f for f in files if not in_context(f)] == []
    for private in (SECRETS, ".venv/bin/python", ".git/config", "build/wheel/x.whl", "tests/conftest.py",
                    "src/converge/_native.cpython-311-x86_64-linux-gnu.so", "src/converge/__pycache__/a.pyc"):
        assert not in_context(private), private
    # the runtime: no compiler, not root, a health check, the port it says
    assert "gcc" not in " ".join(runtime.all("RUN")) and runtime.one("USER") not in ("root", "0")
    assert runtime.one("HEALTHCHECK").split(" CMD ")[1] and runtime.one("EXPOSE") == "8000"
    assert "PORT=8000" in runtime.one("ENV").split()


# ------------------------------------------------------------------ the image's steps, in a fresh venv


def the_wheel() -> Path:
    """The wheel to install (``make test``'s, or ``$CONVERGE_WHEEL``), checked to hold src/ as it is."""
    given = os.environ.get("CONVERGE_WHEEL")
    wheels = [Path(given)] if given else sorted((ROOT / "build" / "wheel").glob("converge_game-*.whl"))
    if not wheels:
        pytest.skip("no wheel: `make test` builds build/wheel/ with deploy/docker/build.sh (or set "
                    "CONVERGE_WHEEL)")
    wheel = wheels[-1]
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith("converge/") and name.endswith((".py", ".toml", ".js", ".mako")):
                source = ROOT / "src" / name
                assert source.is_file() and z.read(name) == source.read_bytes(), \
                    f"{wheel.name} is not src/ as it is now ({name}): `make test` builds it again"
    return wheel


class Image:
    """The runtime stage's file system under ``root`` (its absolute paths moved there), its environment and
    its command lines."""

    def __init__(self, root: Path, database: str) -> None:
        self.root, self.stage = root, dockerfile()[-1]
        self.workdir = self.path(self.stage.one("WORKDIR"))
        self.workdir.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CONVERGE_", "PYTHON", "VIRTUAL_ENV", "PIP_"))}
        for assignment in shlex.split(self.stage.one("ENV")):
            name, _, value = assignment.partition("=")
            env[name] = self.moved(value).replace("$PATH", env["PATH"])
        env["CONVERGE_DATABASE_URL"] = database  # (the secrets' file's)
        self.env = env

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def moved(self, text: str) -> str:
        """``text`` with the image's absolute paths under ``root``."""
        return re.sub(r"(?<![\w./])/(?=(tmp|opt|etc|var)/)", str(self.root) + "/", text)

    def run(self, argv: list[str], port: int | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        env = self.env if port is None else {**self.env, "PORT": str(port)}
        return subprocess.run([self.moved(a) for a in argv], env=env, cwd=self.workdir, capture_output=True,
                              text=True, timeout=120, **kwargs)

    def start(self, port: int, log: Path) -> subprocess.Popen[bytes]:
        """The image's CMD, listening on ``port``."""
        argv = [self.moved(a) for a in exec_form(self.stage.one("CMD"))]
        return subprocess.Popen(argv, env={**self.env, "PORT": str(port)}, cwd=self.workdir,
                                stdout=log.open("ab"), stderr=subprocess.STDOUT)

    def healthy(self, port: int) -> bool:
        """The image's HEALTHCHECK, for the server on ``port``."""
        argv = exec_form(self.stage.one("HEALTHCHECK").split(" CMD ", 1)[1])
        return self.run(argv, port).returncode == 0


def install(image: Image, wheel: Path) -> None:
    """The runtime stage's steps in order: its files copied in place (the wheel where the build stage leaves
    it), its RUN lines run, the user's creation aside. The install step's venv is made first, with the
    dependencies of this environment in view (a .pth), so that pip finds them instead of downloading them (the
    install step leaves a venv that exists as it is)."""
    runs = image.stage.all("RUN")
    assert len(runs) == 2 and runs[0].startswith("useradd --system"), runs
    for keyword, rest in image.stage.steps:
        if keyword == "COPY":
            *sources, dest = rest.split()
            if sources[0].startswith("--from="):
                sources = [str(wheel)]
            target = image.path(dest)
            (target if dest.endswith("/") else target.parent).mkdir(parents=True, exist_ok=True)
            for source in sources:
                data = (ROOT / source).read_bytes()
                (target / Path(source).name if dest.endswith("/") else target).write_bytes(data)
        elif keyword == "RUN" and rest == runs[1]:
            venv = re.search(r"install\.sh (\S+) ", rest)
            assert venv is not None and f"PATH={venv[1]}/bin:$PATH" in image.stage.one("ENV"), rest
            _venv_in_view(image.path(venv[1]), image.root / "deps")
            # (no index, no machine's pip.conf; PIP_VERBOSE=1 against the step's -q: pip says which requirements
            # it found)
            pip = {"PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull, "PIP_VERBOSE": "1"}
            done = subprocess.run(["sh", "-c", image.moved(rest)], env={**image.env, **pip}, capture_output=True,
                                  text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-3000:]
            found = {_name(n) for n in re.findall(r"Requirement already satisfied: (\S+)", done.stdout)}
            missing = _web_requirements(wheel) - found
            assert not missing and "fastapi" in found, (missing, done.stdout[-2000:])


def _name(requirement: str) -> str:
    """A requirement's project name, normalized (``uvicorn[standard]>=0.54`` -> ``uvicorn``)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name[0]).lower()


def _web_requirements(wheel: Path) -> set[str]:
    """The projects the wheel's web extra requires (its METADATA)."""
    with zipfile.ZipFile(wheel) as z:
        (metadata,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        text = z.read(metadata).decode()
    return {_name(line.split(":", 1)[1].strip()) for line in text.splitlines()
            if line.startswith("Requires-Dist:") and re.search(r"extra\s*==\s*['\"]web['\"]", line)}


def _venv_in_view(venv: Path, deps: Path) -> None:
    """A new venv at ``venv`` that sees this environment's packages but converge (linked from ``deps``)."""
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)],
                   check=True)
    site_packages = Path(sysconfig.get_paths()["purelib"])
    own = {Path(str(f)).parts[0] for dist in importlib.metadata.distributions(path=[str(site_packages)])
           if dist.metadata["Name"] == "converge-game" for f in dist.files or []}
    deps.mkdir()
    for entry in site_packages.iterdir():
        if entry.name not in own and entry.suffix != ".pth":
            (deps / entry.name).symlink_to(entry)
    (site,) = venv.glob("lib/python3*/site-packages")
    (site / "zz-this-environment.pth").write_text(f"{deps}\n")


@pytest.fixture
def image(postgres_url: str, tmp_path: Path) -> Image:
    wheel = the_wheel()
    made = Image(tmp_path / "image", postgres_url)
    install(made, wheel)
    return made


def _until(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, f"{what} did not happen in {seconds:g} s"
        time.sleep(0.1)


@dataclass
class Server:
    """A server run by the image's command line."""

    image: Image
    log: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def launch(self) -> None:
        self.proc = self.image.start(self.port, self.log)

    def wait_ready(self) -> None:
        def ready() -> bool:
            assert self.proc is not None and self.proc.poll() is None, self.log.read_text()[-3000:]
            return self.image.healthy(self.port)

        _until(ready, "a server's start")

    def stop(self) -> None:
        """SIGTERM, as ``docker stop`` sends: it drains, then exits."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(timeout=30) in (0, -signal.SIGTERM), self.log.read_text()[-3000:]

    def connections(self) -> int:
        try:
            return int(httpx2.get(f"http://127.0.0.1:{self.port}/api/status", timeout=5).json()["connections"])
        except (httpx2.HTTPError, ValueError, KeyError):
            return 0


@pytest.fixture
def site(image: Image, tmp_path: Path) -> Iterator[tuple[str, list[Server]]]:
    """The stack: the database migrated by compose's migrations service's command, two servers by the image's,
    nginx with the shipped file in front; its address and the servers."""
    if not Path(NGINX).exists():
        pytest.skip("nginx is needed: apt-get install nginx-light")
    migrate = compose()["services"]["migrate"]["command"]
    done = image.run(migrate)
    assert done.returncode == 0 and "upgraded" in done.stdout, done.stdout + done.stderr
    servers = [Server(image, tmp_path / f"server{i}.log") for i in range(2)]
    assert not image.healthy(servers[0].port)  # (the health check fails while nothing answers)
    listen = free_port()
    conf, _ = nginx_config("plain", tmp_path, listen, free_port(), [s.port for s in servers])
    proxy: subprocess.Popen[bytes] | None = None
    try:
        for server in servers:  # (side by side, as compose starts them)
            server.launch()
        for server in servers:
            server.wait_ready()
        proxy = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"],
                                 stderr=(tmp_path / "nginx.log").open("ab"))
        yield f"http://127.0.0.1:{listen}", servers
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(timeout=30)
        for server in servers:
            server.stop()


def test_the_images_steps_run_a_site_that_plays_through_nginx_across_a_server_restart(
        site: tuple[str, list[Server]]) -> None:
    base, servers = site
    # ready through nginx: the players' side answers (compose's health check of nginx), the operators' not
    probe = compose()["services"]["nginx"]["healthcheck"]["test"][-1]
    path = urlsplit(probe).path

    def answers() -> bool:
        try:
            return httpx2.get(base + path, timeout=5).status_code == 200
        except httpx2.HTTPError:
            return False

    _until(answers, "nginx's start")
    assert httpx2.get(f"{base}/readyz", timeout=5).status_code == 404  # each server's own, on loopback only
    assert all(s.image.healthy(s.port) for s in servers)

    converge = servers[0].image.path("/opt/converge/bin/converge")
    bench = subprocess.Popen([str(converge), "serve-bench", "--target", base + "/", "--matches", str(MATCHES),
                              "--think-ms", "60-160", "--seed", "3", "--timeout", "150", "--json"],
                             env=servers[0].image.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    restarted = threading.Event()
    failed: list[BaseException] = []

    def restart_once_in_play() -> None:
        # once every seat is connected (play begins), the first server is restarted as compose restarts it
        try:
            _until(lambda: sum(s.connections() for s in servers) >= 2 * MATCHES or bench.poll() is not None,
                   "the bench's connections", 120)
            if bench.poll() is None:
                time.sleep(1.0)
                servers[0].stop()
                servers[0].start()
                restarted.set()
        except BaseException as exc:  # (reported by the test's thread)
            failed.append(exc)

    restarter = threading.Thread(target=restart_once_in_play, daemon=True)
    restarter.start()
    out, err = bench.communicate(timeout=240)
    restarter.join(timeout=120)
    assert not failed, failed
    assert bench.returncode == 0 and "Traceback" not in err, (out[-2000:], err[-3000:])
    result = json.loads(out)
    summary = json.dumps({k: v for k, v in result.items() if k != "latency_ms"})
    assert restarted.is_set(), "the bench ended before the restart: more matches, or slower clients"
    assert result["target"] == base and result["reconnects"] > 0, summary  # (seats did move)
    assert result["finished"] == result["verified"] == MATCHES, summary
    assert result["lost"] == 0 and result["duplicated"] == 0 and result["errors"] == 0, summary
    assert result["in_doubt_stored"] == 0, summary
