"""The server's CPU per light HTTP request: `GET /api/options` and `GET /api/status` in turn, one at a time,
against the server process `converge serve-bench` runs (pinned to CPU 0 where there are two or more).

    python benchmarks/http_cpu.py --requests 2000

What every API call pays before its own work: uvicorn's HTTP parsing, the middlewares, FastAPI's routing and
dependencies, the JSON response.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import httpx2 as httpx

from converge.server.load_bench import cpu_seconds, wait_for_server
from converge.server.storage.pgcluster import free_port


def measure(requests: int) -> float:
    """Milliseconds of the server's CPU per request, over ``requests`` requests after a warm-up."""
    port = free_port()
    folder = tempfile.TemporaryDirectory(prefix="converge-http-cpu-")
    pinned = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1
    command = [sys.executable, "-m", "converge.server.load_bench", "--serve", "--port", str(port),
               "--db", f"sqlite:///{folder.name}/http.sqlite3"] + (["--cpus", "0"] if pinned else [])
    server = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    mine = os.sched_getaffinity(0) if pinned else set()
    try:
        if pinned:
            os.sched_setaffinity(0, mine - {0})
        base = f"http://127.0.0.1:{port}"
        wait_for_server(base, server)
        with httpx.Client(base_url=base) as client:
            for _ in range(20):
                client.get("/api/options").raise_for_status()
            before = cpu_seconds(server.pid) or 0.0
            for i in range(requests):
                client.get("/api/options" if i % 2 == 0 else "/api/status").raise_for_status()
            used = (cpu_seconds(server.pid) or 0.0) - before
    finally:
        if pinned:
            os.sched_setaffinity(0, mine)
        server.terminate()
        server.wait(timeout=30)
        folder.cleanup()
    return used * 1000 / requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args(argv)
    print(f"server CPU per light HTTP request: {measure(args.requests):.3f} ms ({args.requests} requests, "
          f"/api/options and /api/status in turn)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
