"""A throwaway PostgreSQL cluster on a Unix socket, for tests and ``converge serve-bench --servers N``.

It needs PostgreSQL's server programs (``initdb``, ``pg_ctl``: Debian's ``postgresql`` package) and
nothing else: the cluster lives in a temporary folder, listens on no TCP port, trusts the local user,
runs with ``fsync=off`` (it is thrown away) and is stopped and deleted on :meth:`ThrowawayCluster.stop`.

>>> with ThrowawayCluster() as url:  # doctest: +SKIP
...     print(url)
postgresql://converge@/postgres?host=/tmp/converge-pg-.../&port=...
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType


class ClusterUnavailable(RuntimeError):
    """No throwaway cluster can be started here (no PostgreSQL, or no user to run it as)."""


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server programs, or None when it is not installed."""
    found = shutil.which("initdb")
    candidates = [Path(found).resolve().parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for d in candidates:
        if (d / "initdb").exists() and (d / "pg_ctl").exists():
            return d
    return None


def free_port() -> int:
    """A TCP port free on this machine now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayCluster:
    """Start with :meth:`start` (or ``with``), which returns the cluster's URL; :meth:`stop` deletes it."""

    def __init__(self, max_connections: int = 200) -> None:
        self.max_connections = max_connections
        self.root: str | None = None
        self.prefix: list[str] = []
        self.bindir: Path | None = None
        self._options = ""  # the server's options (its socket, port and settings), the same at each start

    def _run(self, *cmd: str) -> None:
        done = subprocess.run([*self.prefix, *cmd], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise ClusterUnavailable(f"{Path(cmd[0]).name} failed: {(done.stderr or done.stdout).strip()[:500]}")

    def start(self) -> str:
        self.bindir = postgres_bin()
        if self.bindir is None:
            raise ClusterUnavailable("PostgreSQL is not installed here (apt-get install postgresql)")
        self.root = tempfile.mkdtemp(prefix="converge-pg-")
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root: run it as the postgres user
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise ClusterUnavailable("running as root, with no postgres user to run PostgreSQL") from None
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        data, port = f"{self.root}/data", free_port()
        self._options = (f"-k {self.root} -p {port} -c listen_addresses='' -c fsync=off "
                         f"-c max_connections={self.max_connections}")
        try:
            self._run(str(self.bindir / "initdb"), "-D", data, "-A", "trust", "-U", "converge", "--no-sync")
            self.resume()
        except BaseException:
            self.stop()
            raise
        return f"postgresql://converge@/postgres?host={self.root}&port={port}"

    def pause(self) -> None:
        """Stop the database server, its data kept: every connection to it breaks and new ones are refused
        (a database outage, for tests) until :meth:`resume`."""
        assert self.bindir is not None and self.root is not None, "start the cluster first"
        self._run(str(self.bindir / "pg_ctl"), "-D", f"{self.root}/data", "-m", "fast", "-w", "-t", "60", "stop")

    def resume(self) -> None:
        """Start the database server (again), on the same socket and port."""
        assert self.bindir is not None and self.root is not None, "start the cluster first"
        self._run(str(self.bindir / "pg_ctl"), "-D", f"{self.root}/data", "-l", f"{self.root}/log", "-w", "-t",
                  "60", "-o", self._options, "start")

    def stop(self) -> None:
        if self.root is None:
            return
        if self.bindir is not None and Path(self.root, "data", "postmaster.pid").exists():
            subprocess.run(
                [*self.prefix, str(self.bindir / "pg_ctl"), "-D", f"{self.root}/data", "-m", "immediate", "stop"],
                capture_output=True,
                timeout=60,
            )
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
