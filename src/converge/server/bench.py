"""Load benchmark of the web server: many concurrent bot-vs-bot matches over WebSockets on loopback.

``converge serve-bench`` (or ``python -m converge.server.bench``) starts the server in its own process
(pinned to one CPU) with a fresh SQLite database, creates the matches over HTTP, and plays each one to
its end from this process (pinned to the other CPU) with two WebSocket clients per match. Each client is
a random bot that sees only its own messages: it waits ``think_ms`` before each decision, sends the
action with the ``seq`` it saw, and measures the time until the server's ``ack`` (sent once the action
is committed to the database).

At the end every match's record is fetched and compared with the acknowledged actions: an acknowledged
action missing from the record is *lost*; an action in the record that was not acknowledged (or twice)
is *duplicated*. The record is then replayed to check it ends the match as the clients saw it end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpus(text: str) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


@dataclass
class SeatLog:
    acked: list[tuple[int, int]] = field(default_factory=list)  # (index, action)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    winner: int | None = None
    finished: bool = False


@dataclass
class Barrier:
    """Every client connects and gets its welcome before any plays: the figures are for matches in play,
    not for 2 x N connections opening at the same instant."""

    expected: int
    ready: int = 0
    go: asyncio.Event = field(default_factory=asyncio.Event)

    def arrive(self) -> None:
        self.ready += 1
        if self.ready >= self.expected:
            self.go.set()


async def _play_seat(url: str, match_id: str, token: str, seat: int, rng: random.Random,
                     think: tuple[int, int], log: SeatLog, deadline: float, barrier: Barrier) -> None:
    import websockets

    async with websockets.connect(f"{url}/ws/{match_id}", max_size=2**24, open_timeout=120,
                                  ping_interval=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        seq = 0
        first = True
        sent_at = 0.0
        pending: int | None = None
        while time.monotonic() < deadline:
            raw = await asyncio.wait_for(ws.recv(), timeout=max(1.0, deadline - time.monotonic()))
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "ack":
                log.latencies.append((time.perf_counter() - sent_at) * 1000)
                if pending is not None:
                    log.acked.append((msg["seq"] - 1, pending))
                pending = None
                continue
            if kind == "error":
                log.errors.append(f"{msg['code']}: {msg['message']}")
                pending = None
                continue
            if kind not in ("welcome", "state"):
                continue
            if first:
                first = False
                barrier.arrive()
                await asyncio.wait_for(barrier.go.wait(), timeout=max(1.0, deadline - time.monotonic()))
            seq = msg["seq"]
            obs = msg["observation"]
            if msg["match"]["status"] == "over":
                log.finished = True
                log.winner = msg["match"]["result"]["winner"]
                return
            decision = obs["decision"]
            if pending is None and decision is not None and decision["player"] == seat:
                legal = decision["legal_actions"]
                action = legal[rng.randrange(len(legal))]["id"]
                lo, hi = think
                if hi > 0:
                    await asyncio.sleep(rng.uniform(lo, hi) / 1000)
                pending = action
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "action", "action": action, "seq": seq}))


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


async def _run_clients(base: str, matches: int, think: tuple[int, int], seed: int,
                       timeout: float) -> dict[str, Any]:
    import httpx2 as httpx

    from converge.engine.state import Match

    ws_url = base.replace("http://", "ws://")
    rng = random.Random(seed)
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        created = []
        for _ in range(matches):
            r = await http.post("/api/matches", json={"opponent": "friend", "playset": "random", "seat": 0})
            r.raise_for_status()
            doc = r.json()
            created.append((doc["match_id"], doc["token"], doc["invite_url"].split("#token=", 1)[1]))
        logs = [(SeatLog(), SeatLog()) for _ in created]
        barrier = Barrier(2 * len(created))
        connect_start = time.perf_counter()
        tasks = []
        for (mid, t0, t1), (l0, l1) in zip(created, logs, strict=True):
            tasks.append(_play_seat(ws_url, mid, t0, 0, random.Random(rng.random()), think, l0, deadline, barrier))
            tasks.append(_play_seat(ws_url, mid, t1, 1, random.Random(rng.random()), think, l1, deadline, barrier))
        running = asyncio.gather(*tasks, return_exceptions=True)
        while not barrier.go.is_set() and not running.done():
            await asyncio.sleep(0.01)
        start = time.perf_counter()
        connect_seconds = start - connect_start
        results = await running
        seconds = time.perf_counter() - start
        failures = [repr(r) for r in results if isinstance(r, BaseException)]
        lost = duplicated = verified = finished = 0
        for (mid, _t0, _t1), (l0, l1) in zip(created, logs, strict=True):
            acked = sorted(l0.acked + l1.acked)
            r = await http.get(f"/api/matches/{mid}/record")
            if r.status_code != 200:
                lost += len(acked)
                continue
            record = r.json()
            actions = record["actions"]
            seen: dict[int, int] = {}
            for idx, action in acked:
                if idx in seen:
                    duplicated += 1
                seen[idx] = action
                if idx >= len(actions) or actions[idx] != action:
                    lost += 1
            duplicated += sum(1 for i in range(len(actions)) if i not in seen)
            if l0.finished and l1.finished:
                finished += 1
            match = Match.replay(record)
            if match.is_terminal and match.winner == l0.winner == l1.winner == record["result"]["winner"]:
                verified += 1
    latencies = [x for pair in logs for log in pair for x in log.latencies]
    errors = [e for pair in logs for log in pair for e in log.errors] + failures
    n = len(latencies)
    return {
        "matches": matches, "connections": 2 * matches, "connect_seconds": connect_seconds,
        "think_ms": list(think), "actions": n,
        "seconds": seconds, "actions_per_s": n / seconds if seconds else 0.0, "finished": finished,
        "latency_ms": {"p50": _percentile(latencies, 50), "p90": _percentile(latencies, 90),
                       "p99": _percentile(latencies, 99), "max": max(latencies, default=0.0),
                       "mean": statistics.fmean(latencies) if latencies else 0.0},
        "lost": lost, "duplicated": duplicated, "errors": len(errors), "error_samples": errors[:5],
        "verified": verified,
    }


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux), or None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _wait_for_server(base: str, proc: subprocess.Popen[Any], timeout: float = 60) -> None:
    import httpx2 as httpx

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        with contextlib.suppress(Exception):
            if httpx.get(f"{base}/api/options", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("the server did not start in time")


def run_bench(matches: int = 200, think_ms: tuple[int, int] = (300, 900), seed: int = 1, db: str | None = None,
              server_cores: str = "0", timeout: float = 600) -> dict[str, Any]:
    """Start a server, play ``matches`` concurrent matches against it, and return the figures."""
    tmp = tempfile.TemporaryDirectory(prefix="converge-bench-")
    db_url = db or f"sqlite:///{Path(tmp.name) / 'bench.sqlite3'}"
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    cpus = _cpus(server_cores) if server_cores else set()
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    cpus &= available
    cmd = [sys.executable, "-m", "converge.server.bench", "--serve", "--port", str(port), "--db", db_url]
    if cpus:
        cmd += ["--cpus", ",".join(map(str, sorted(cpus)))]
    log_path = Path(tmp.name) / "server.log"
    log_file = log_path.open("wb")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log_file)
    client_cpus = available - cpus
    try:
        if client_cpus and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, client_cpus)
        _wait_for_server(base, proc)
        cpu_start = _cpu_seconds(proc.pid)
        try:
            import uvloop

            runner: Any = uvloop.run
        except ImportError:  # pragma: no cover
            runner = asyncio.run
        result: dict[str, Any] = runner(_run_clients(base, matches, think_ms, seed, timeout))
        cpu_end = _cpu_seconds(proc.pid)
        if cpu_start is not None and cpu_end is not None and result["actions"]:
            result["server_cpu_ms_per_action"] = (cpu_end - cpu_start) * 1000 / result["actions"]
    finally:
        if available and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, available)
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log_file.close()
        err = log_path.read_text(errors="replace")
        tmp.cleanup()
    result["server"] = f"pinned to CPU {','.join(map(str, sorted(cpus)))}" if cpus else "not pinned"
    result["db"] = "SQLite (WAL, synchronous=FULL)" if db is None else db.split("://")[0]
    if result["errors"] and err:
        result["server_log_tail"] = err[-2000:]
    return result


def _serve(port: int, db: str, cpus: str | None) -> None:
    import uvicorn

    from converge.server.app import create_app

    if cpus and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, _cpus(cpus))
    # The clients are bots: no pause before bot moves, no stand-ins, creation not rate-limited, and a rate
    # limit above what a bot with no think time sends (the limiter still runs on every message).
    app = create_app(db_url=db, bot_delay=0.0, replace_after=0.0, create_rate=1e6, create_burst=1e6, rate=1000.0,
                     burst=2000.0)
    # As `converge serve` runs it (no permessage-deflate unless asked for).
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536, backlog=4096,
                ws_per_message_deflate=os.environ.get("CONVERGE_BENCH_DEFLATE") == "1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m converge.server.bench", description=__doc__)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--cpus", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--think-ms", default="300-900")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.port, args.db, args.cpus)
        return 0
    lo, _, hi = args.think_ms.partition("-")
    result = run_bench(args.matches, (int(lo), int(hi or lo)), args.seed, args.db)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        from converge.cli.serve_command import format_bench

        print(format_bench(result))
    return 0 if result["lost"] == 0 and result["duplicated"] == 0 and result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
