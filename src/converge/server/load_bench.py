"""Load benchmark of the web server: many concurrent matches over WebSockets on loopback.

``converge serve-bench`` (or ``python -m converge.server.load_bench``) starts the server in its own process
(pinned to one CPU) with a fresh SQLite database, creates the matches over HTTP, and plays each one to
its end from this process (pinned to the other CPU) with a WebSocket client per person. Each client is
a random bot that sees only its own messages: it waits ``think_ms`` before each decision, sends the
action with the ``seq`` it saw, and measures the time until the server's ``ack`` (sent once the action
is committed to the database). Matches are between two such clients (``opponent="friend"``), or one
client against the server's own bot (``opponent="bot"``).

With ``servers`` > 1 it starts that many server processes on one PostgreSQL database (a throwaway
cluster unless ``db`` names one): each match is created on one process and its two seats connect to two
different processes. ``kill_after`` kills one process with SIGKILL that many seconds into play; its
clients reconnect to the next process and play on. ``restart_after`` restarts every process in turn that many
seconds into play, as a host rolls out a new version: SIGTERM (the process drains: its moves in flight are
acknowledged, its clients told to reconnect), a new process on the same port once it has exited, ready
(``/readyz``) before the next one is stopped; each drain's seconds are measured.

At the end every match's record is fetched and compared with the acknowledged actions: an acknowledged
action missing from the record is *lost*; a person's action in the record that was not acknowledged (or
twice) is *duplicated*, unless it was sent to a process that died before it could answer (*in doubt*:
counted apart). The record is then replayed to check it ends the match as the clients saw it end.

:mod:`converge.server.load_bench_target` drives a site that is already running instead (``serve-bench
--target``) with the same clients and the same checks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from converge.server.storage.pgcluster import free_port


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
    #: Sent to a process that went away before answering: stored or not, the record says.
    in_doubt: list[tuple[int, int]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: Moves refused with ``restarting`` (sent to a process that was draining: nothing was done; played again).
    refused_restarting: int = 0
    reconnects: int = 0
    winner: int | None = None
    reason: str | None = None
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


async def _play_seat(urls: list[str], first: int, match_id: str, token: str, seat: int, rng: random.Random,
                     think: tuple[int, int], log: SeatLog, deadline: float, barrier: Barrier) -> None:
    """Play one seat to the end of its match, through ``urls[first]``, then the next process whenever the
    one it is connected to goes away."""
    import websockets

    k = first
    arrived = False
    while time.monotonic() < deadline:
        pending: tuple[int, int] | None = None
        sent_at = 0.0
        try:
            async with websockets.connect(f"{urls[k]}/ws/{match_id}", max_size=2**24, open_timeout=120,
                                          ping_interval=None) as ws:
                # as the browser does: the acknowledgement comes in the state message after the action
                await ws.send(json.dumps({"type": "hello", "token": token, "acks": False}))
                while time.monotonic() < deadline:
                    raw = await asyncio.wait_for(ws.recv(), timeout=max(1.0, deadline - time.monotonic()))
                    msg = json.loads(raw)
                    kind = msg["type"]
                    ack = msg.get("ack")
                    if ack is not None:
                        log.latencies.append((time.perf_counter() - sent_at) * 1000)
                        if pending is not None:
                            log.acked.append((ack["seq"] - 1, pending[1]))
                        pending = None
                    if kind == "error":
                        if msg["code"] == "restarting":  # (the process drains: nothing was done)
                            log.refused_restarting += 1
                        else:
                            log.errors.append(f"{msg['code']}: {msg['message']}")
                        pending = None
                        continue
                    if kind not in ("welcome", "state"):
                        continue
                    if not arrived:
                        arrived = True
                        barrier.arrive()
                        await asyncio.wait_for(barrier.go.wait(), timeout=max(1.0, deadline - time.monotonic()))
                    seq = msg["seq"]
                    obs = msg["observation"]
                    if msg["match"]["status"] == "over":
                        log.finished = True
                        log.winner = msg["match"]["result"]["winner"]
                        log.reason = msg["match"]["result"]["reason"]
                        return
                    decision = obs["decision"]
                    if pending is None and decision is not None and decision["player"] == seat:
                        legal = decision["legal_actions"]
                        action = legal[rng.randrange(len(legal))]["id"]
                        lo, hi = think
                        if hi > 0:
                            await asyncio.sleep(rng.uniform(lo, hi) / 1000)
                        pending = (seq, action)
                        sent_at = time.perf_counter()
                        await ws.send(json.dumps({"type": "action", "action": action, "seq": seq}))
        except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake, TimeoutError):
            if time.monotonic() >= deadline:
                raise
        # The process went away (or never answered): what was sent may or may not be stored; try the next.
        if pending is not None:
            log.in_doubt.append(pending)
        log.reconnects += 1
        k = (k + 1) % len(urls)
        await asyncio.sleep(0.1)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


@dataclass
class Plan:
    """What the clients play: matches between two clients (``opponent`` "friend"), or a client against the
    server's ``bot`` ("bot"), or every other match of each kind ("mixed")."""

    matches: int = 200
    think: tuple[int, int] = (300, 900)
    seed: int = 1
    timeout: float = 600
    opponent: str = "friend"
    bot: str = "random"
    clock_s: int | None = None
    kill_after: float | None = None
    restart_after: float | None = None


def _refusal(r: Any) -> str:
    """A refused request's status and the server's code and message (or the start of what answered)."""
    try:
        error = r.json()["error"]
        said = f"{error['code']}: {error['message']}"
    except (ValueError, KeyError, TypeError):
        said = r.headers.get("content-type", "").split(";")[0] or "no content type"
    return f"{r.status_code} ({said})"


async def _run_clients(bases: list[str], plan: Plan, kill: Any = None,
                       restart: Callable[[], list[float]] | None = None, own: bool = True) -> dict[str, Any]:
    """Play ``plan`` against the servers at ``bases`` and check the records. ``own``: the servers were started
    here, and their operators' paths (``/api/status``) are asked for their figures; else a site reached
    through its proxy, which keeps them private."""
    import httpx2 as httpx

    from converge.engine.state import Match

    # http -> ws, https -> wss
    ws_urls = [b.replace("http", "ws", 1) for b in bases]
    rng = random.Random(plan.seed)
    deadline = time.monotonic() + plan.timeout
    n = len(bases)

    def friend(m: int) -> bool:
        return plan.opponent == "friend" or (plan.opponent == "mixed" and m % 2 == 0)
    async with contextlib.AsyncExitStack() as stack:
        https = [await stack.enter_async_context(httpx.AsyncClient(base_url=b, timeout=60)) for b in bases]
        created = []
        for m in range(plan.matches):
            body: dict[str, Any] = {"opponent": "friend" if friend(m) else "bot", "playset": "random", "seat": 0,
                                    "clock": plan.clock_s}
            if not friend(m):
                body["bot"] = plan.bot
            r = await https[m % n].post("/api/matches", json=body)
            if r.status_code != 201:
                hint = "" if own else (" (a site limits the matches one client address creates: 60 at once and "
                                       "120 an hour by default; fewer --matches, or wait)")
                raise RuntimeError(f"{bases[m % n]} refused to create match {m + 1} of {plan.matches}: "
                                   f"{_refusal(r)}{hint}")
            doc = r.json()
            invite = doc["invite_url"].split("#token=", 1)[1] if friend(m) else None
            created.append((doc["match_id"], doc["token"], invite))
        logs = [(SeatLog(), SeatLog()) for _ in created]
        barrier = Barrier(sum(2 if friend(m) else 1 for m in range(plan.matches)))
        connect_start = time.perf_counter()
        tasks = []
        for m, ((mid, t0, t1), (l0, l1)) in enumerate(zip(created, logs, strict=True)):
            tasks.append(_play_seat(ws_urls, m % n, mid, t0, 0, random.Random(rng.random()), plan.think, l0,
                                    deadline, barrier))
            if t1 is not None:
                tasks.append(_play_seat(ws_urls, (m + 1) % n, mid, t1, 1, random.Random(rng.random()), plan.think,
                                        l1, deadline, barrier))
        running = asyncio.gather(*tasks, return_exceptions=True)
        while not barrier.go.is_set() and not running.done():
            await asyncio.sleep(0.01)
        start = time.perf_counter()
        connect_seconds = start - connect_start
        killed_at = restarted_at = None
        drains: list[float] = []
        if kill is not None and plan.kill_after is not None:
            try:
                await asyncio.wait_for(asyncio.shield(running), plan.kill_after)
            except TimeoutError:
                kill()
                killed_at = time.perf_counter() - start
        if restart is not None and plan.restart_after is not None:
            try:
                await asyncio.wait_for(asyncio.shield(running), plan.restart_after)
            except TimeoutError:
                restarted_at = time.perf_counter() - start
                drains = await asyncio.to_thread(restart)  # (the clients play on meanwhile)
        results = await running
        seconds = time.perf_counter() - start
        failures = [repr(r) for r in results if isinstance(r, BaseException)]
        lost = duplicated = verified = finished = doubt_stored = bot_actions = 0
        reasons: dict[str, int] = {}
        # (a process that was not killed: the first one is the one killed; after restarts, a new connection)
        survivor = https[-1] if restarted_at is None else await stack.enter_async_context(
            httpx.AsyncClient(base_url=bases[-1], timeout=60))
        if restarted_at is not None:
            https = [survivor]
        for (mid, _t0, t1), (l0, l1) in zip(created, logs, strict=True):
            mine = l0.acked + l1.acked
            doubtful = set(l0.in_doubt + l1.in_doubt)
            r = await survivor.get(f"/api/matches/{mid}/record")
            if r.status_code != 200:
                lost += len(mine)
                continue
            record = r.json()
            actions = record["actions"]
            seen: dict[int, int] = {}
            for idx, action in mine:
                if idx in seen:
                    duplicated += 1
                seen[idx] = action
                if idx >= len(actions) or actions[idx] != action:
                    lost += 1
            match = Match.replay(record, upto=0)
            for idx, action in enumerate(actions):
                person = t1 is not None or match.current_player == 0
                if not person:
                    bot_actions += 1
                elif idx not in seen:
                    if (idx, action) in doubtful:
                        doubt_stored += 1
                    else:
                        duplicated += 1
                match.apply(action)
            done = l0.finished and (t1 is None or l1.finished)
            finished += done
            result = record["result"]
            reasons[result["reason"]] = reasons.get(result["reason"], 0) + 1
            by_engine = match.is_terminal and match.winner == result["winner"] and result["reason"] == "match"
            if by_engine and l0.winner == result["winner"] and (t1 is None or l1.winner == result["winner"]):
                verified += 1
        statuses = []
        for client in (https[1:] if killed_at is not None else https) if own else []:
            with contextlib.suppress(Exception):
                statuses.append((await client.get("/api/status")).json())
    latencies = [x for pair in logs for log in pair for x in log.latencies]
    errors = [e for pair in logs for log in pair for e in log.errors] + failures
    count = len(latencies)
    return {
        "matches": plan.matches, "opponent": {"friend": "friend", "bot": f"the server's {plan.bot} bot",
                                              "mixed": f"a friend or the server's {plan.bot} bot"}[plan.opponent],
        "connections": len(tasks), "connect_seconds": connect_seconds, "servers": n,
        "think_ms": list(plan.think), "actions": count,
        "seconds": seconds, "actions_per_s": count / seconds if seconds else 0.0, "finished": finished,
        "latency_ms": {"p50": _percentile(latencies, 50), "p90": _percentile(latencies, 90),
                       "p99": _percentile(latencies, 99), "max": max(latencies, default=0.0),
                       "mean": statistics.fmean(latencies) if latencies else 0.0},
        "lost": lost, "duplicated": duplicated, "errors": len(errors), "error_samples": errors[:5],
        "verified": verified, "results": reasons, "bot_actions": bot_actions,
        "killed_at_s": killed_at, "reconnects": sum(log.reconnects for pair in logs for log in pair),
        "restarted_at_s": restarted_at, "drain_seconds": drains,
        "refused_restarting": sum(log.refused_restarting for pair in logs for log in pair),
        "in_doubt": sum(len(log.in_doubt) for pair in logs for log in pair), "in_doubt_stored": doubt_stored,
        "bots": _merge_bot_stats([s.get("bots", {}) for s in statuses]),
        "database": sorted({s["database"] for s in statuses if "database" in s}),
    }


def _merge_bot_stats(stats: list[dict[str, Any]]) -> dict[str, Any]:
    """The bot figures of the server processes that answered, together."""
    if not stats:
        return {}
    return {"decisions": sum(s.get("decisions", 0) for s in stats),
            "missed": sum(s.get("missed", 0) for s in stats),
            "think_ms_max": max((s.get("think_ms", {}).get("max", 0.0) for s in stats), default=0.0),
            "think_ms_p99": max((s.get("think_ms", {}).get("p99", 0.0) for s in stats), default=0.0),
            "wait_ms_p99": max((s.get("wait_ms", {}).get("p99", 0.0) for s in stats), default=0.0),
            "budget_ms": max((s.get("budget_ms", 0.0) for s in stats), default=0.0)}


def cpu_seconds(pid: int, thread: int | None = None) -> float | None:
    """User + system CPU time so far of a process, or of one of its threads (Linux), or None."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    try:
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def wait_for_server(base: str, proc: subprocess.Popen[Any], timeout: float = 60) -> None:
    """Return once the server process ``proc`` at ``base`` is ready (``/readyz``, as a load balancer asks);
    RuntimeError if it exits or takes over ``timeout`` seconds."""
    import httpx2 as httpx

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"a server process exited with code {proc.returncode} as it started")
        with contextlib.suppress(Exception):
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("the server did not start in time")


def run_bench(matches: int = 200, think_ms: tuple[int, int] = (300, 900), seed: int = 1, db: str | None = None,
              server_cores: str = "0", timeout: float = 600, servers: int = 1, kill_after: float | None = None,
              opponent: str = "friend", bot: str = "random", clock_s: int | None = None,
              bot_workers: int = 1, sqlite_sync: str = "FULL", restart_after: float | None = None,
              drain_seconds: float = 10.0) -> dict[str, Any]:
    """Start the server process(es), play ``matches`` concurrent matches against them, return the figures.

    ``sqlite_sync``: the SQLite server's ``synchronous`` setting, as ``converge serve --sqlite-sync`` sets it.
    ``restart_after``: restart the processes one after the other that many seconds into play (SIGTERM,
    each with ``drain_seconds``)."""
    from converge.server.storage.pgcluster import ClusterUnavailable, ThrowawayCluster

    postgres = db is not None and db.startswith(("postgresql://", "postgres://"))
    if sqlite_sync != "FULL" and (servers > 1 or postgres):
        raise ValueError("--sqlite-sync is SQLite's setting: it does not apply to PostgreSQL (--servers 2 or "
                         "more, or a postgresql:// --db)")
    if restart_after is not None and kill_after is not None:
        raise ValueError("either kill a process (--kill-after) or restart them all (--restart-after), not both")
    plan = Plan(matches, think_ms, seed, timeout, opponent, bot, clock_s, kill_after, restart_after)
    tmp = tempfile.TemporaryDirectory(prefix="converge-bench-")
    cluster: ThrowawayCluster | None = None
    if servers > 1 and not postgres:
        if db is not None:
            raise ValueError("several server processes need PostgreSQL: give --db postgresql://... (or no --db, "
                             "for a throwaway cluster)")
        cluster = ThrowawayCluster(max_connections=100 + 20 * servers)
        try:
            db = cluster.start()
        except ClusterUnavailable as exc:
            raise ValueError(f"several server processes need PostgreSQL, and {exc}") from None
    db_url = db or f"sqlite:///{Path(tmp.name) / 'bench.sqlite3'}"
    cpus = _cpus(server_cores) if server_cores else set()
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    cpus &= available
    procs: list[subprocess.Popen[Any]] = []
    bases: list[str] = []
    log_files: list[BinaryIO] = []
    cpu_used: dict[int, float] = {}
    cpu_start: dict[int, float] = {}

    def kill() -> None:
        """SIGKILL the first server process (its CPU time so far is counted)."""
        now = cpu_seconds(procs[0].pid)
        if now is not None and procs[0].pid in cpu_start:
            cpu_used[procs[0].pid] = now - cpu_start[procs[0].pid]
        procs[0].kill()

    cmds: list[list[str]] = []

    def restart() -> list[float]:
        """Restart every server process in turn, as a rolling restart does: SIGTERM, wait for its exit (the
        seconds it took), start it again on its port, wait until it is ready, then the next. Returns the
        seconds each took to drain and exit; a process that outlives the drain by far is killed."""
        took = []
        for i, proc in enumerate(procs):
            began = time.monotonic()
            proc.terminate()
            try:
                code = proc.wait(timeout=drain_seconds + 20)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
            took.append(time.monotonic() - began)
            if code not in (0, -signal.SIGTERM):  # (uvicorn ends by raising the signal it caught again)
                raise RuntimeError(f"server process {i} exited with code {code} after SIGTERM")
            procs[i] = subprocess.Popen(cmds[i], stdout=subprocess.DEVNULL, stderr=log_files[i])
            wait_for_server(bases[i], procs[i])
        return took

    try:
        for i in range(servers):
            port = free_port()
            cmd = [sys.executable, "-m", "converge.server.load_bench", "--serve", "--port", str(port), "--db",
                   db_url, "--bot-workers", str(bot_workers), "--sqlite-sync", sqlite_sync,
                   "--drain-seconds", str(drain_seconds)]
            if cpus:
                cmd += ["--cpus", ",".join(map(str, sorted(cpus)))]
            cmds.append(cmd)
            log_file = (Path(tmp.name) / f"server{i}.log").open("wb")
            log_files.append(log_file)
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log_file))
            bases.append(f"http://127.0.0.1:{port}")
        client_cpus = available - cpus
        if client_cpus and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, client_cpus)
        for i, (base, proc) in enumerate(zip(bases, procs, strict=True)):
            try:
                wait_for_server(base, proc)
            except RuntimeError as exc:
                log_files[i].flush()
                tail = (Path(tmp.name) / f"server{i}.log").read_text(errors="replace").strip().splitlines()[-3:]
                raise RuntimeError(f"{exc}: {' / '.join(tail)[-600:]}") from None
        for proc in procs:
            got = cpu_seconds(proc.pid)
            if got is not None:
                cpu_start[proc.pid] = got
        try:
            import uvloop

            runner: Any = uvloop.run
        except ImportError:  # pragma: no cover
            runner = asyncio.run
        result: dict[str, Any] = runner(_run_clients(bases, plan, kill if kill_after is not None else None,
                                                     restart if restart_after is not None else None))
        for proc in procs:
            if proc.pid not in cpu_used and proc.pid in cpu_start:
                got = cpu_seconds(proc.pid)
                if got is not None:
                    cpu_used[proc.pid] = got - cpu_start[proc.pid]
        if len(cpu_used) == len(procs) and result["actions"] and restart_after is None:
            result["server_cpu_ms_per_action"] = sum(cpu_used.values()) * 1000 / result["actions"]
    finally:
        if available and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, available)
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        for f in log_files:
            f.close()
        err = "".join((Path(tmp.name) / f"server{i}.log").read_text(errors="replace")[-1500:]
                      for i in range(len(procs)))
        tmp.cleanup()
        if cluster is not None:
            cluster.stop()
    result["server"] = f"pinned to CPU {','.join(map(str, sorted(cpus)))}" if cpus else "not pinned"
    # (as the servers themselves said it)
    result["db"] = " / ".join(result.pop("database")) or "(not said)"
    if cluster is not None:
        result["db"] += ", a throwaway cluster"
    if result["errors"] and err:
        result["server_log_tail"] = err[-3000:]
    return result


def format_bench(r: dict[str, Any]) -> str:
    """The benchmark's figures for people to read."""
    lat = r["latency_ms"]
    servers = r.get("servers", 1)
    target = r.get("target")
    who = "one uvicorn process" if servers == 1 else f"{servers} uvicorn processes"
    clients = (f"clients: one process, {r['connections']} WebSockets (opened in {r['connect_seconds']:.1f} s, "
               f"before play); client think time {r['think_ms'][0]}-{r['think_ms'][1]} ms")
    if target is None:
        where, site = "on loopback", f"  server: {who} ({r['server']}), database {r['db']}; {clients}"
        cpu = (f"{r['server_cpu_ms_per_action']:.2f} ms per action (all its work, creation included)"
               if "server_cpu_ms_per_action" in r else "not measured (a process was killed or restarted)")
    else:
        where = f"through {target}"
        site = f"  site: already running, reached as players reach it (its processes not seen); {clients}"
        cpu = "not measured (from outside the site)"
    lines = [
        f"Converge server benchmark: {r['matches']} concurrent matches over WebSockets {where}, "
        f"{'two clients each' if r['opponent'] == 'friend' else 'each a client against ' + r['opponent']}",
        site,
        f"  {r['actions']} client actions in {r['seconds']:.1f} s ({r['actions_per_s']:.0f} actions/s), "
        f"{r['finished']}/{r['matches']} matches finished; server CPU {cpu}",
        f"  action latency (send -> committed ack): p50 {lat['p50']:.1f} ms, p90 {lat['p90']:.1f} ms, "
        f"p99 {lat['p99']:.1f} ms, max {lat['max']:.1f} ms",
        f"  lost actions: {r['lost']}, applied twice: {r['duplicated']}, errors: {r['errors']}, "
        f"records replayed and matched: {r['verified']}/{r['matches']}",
    ]
    if r.get("restarted_at_s") is not None:
        drains = ", ".join(f"{s:.1f}" for s in r["drain_seconds"])
        lines.append(f"  every server process restarted in turn (SIGTERM, drained, started again) from "
                     f"{r['restarted_at_s']:.1f} s into play: each exited in {drains} s; {r['reconnects']} "
                     f"reconnections, {r['refused_restarting']} moves refused while draining (played again), "
                     f"{r['in_doubt']} actions sent as their connection closed, {r['in_doubt_stored']} of them "
                     "stored")
    if target is not None and (r["reconnects"] or r["in_doubt"] or r["refused_restarting"]):
        lines.append(f"  {r['reconnects']} reconnections (a process of the site went away), "
                     f"{r['refused_restarting']} moves refused while one drained (played again), {r['in_doubt']} "
                     f"actions sent as their connection closed, {r['in_doubt_stored']} of them stored")
    if r.get("killed_at_s") is not None:
        lines.append(f"  one server process killed (SIGKILL) {r['killed_at_s']:.1f} s into play: "
                     f"{r['reconnects']} reconnections; {r['in_doubt']} actions in flight to it, "
                     f"{r['in_doubt_stored']} of them stored")
    bots = r.get("bots") or {}
    if bots.get("decisions"):
        lines.append(f"  the server's bots: {r['bot_actions']} actions in the records; {bots['decisions']} "
                     f"decisions by the processes still running at the end, thinking p99 "
                     f"{bots['think_ms_p99']:.0f} ms, max {bots['think_ms_max']:.0f} ms "
                     f"(budget "
                     f"{bots['budget_ms']:.0f} ms, {bots['missed']} missed), waiting for a worker p99 "
                     f"{bots['wait_ms_p99']:.0f} ms")
    return "\n".join(lines)


def _serve(port: int, db: str, cpus: str | None, bot_workers: int, sqlite_sync: str, drain_seconds: float) -> None:
    from converge.server.app import create_app
    from converge.server.transport import draining
    from converge.server.transport.serving import uvicorn_options

    if cpus and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, _cpus(cpus))
    # The clients are bots: no pause before bot moves, no stand-ins, creation not rate-limited, a rate limit
    # above what a bot with no think time sends (the limiter still runs on every message), every bot match
    # let in, however long its bot's decisions wait for a worker (the figures say how long), and no cap on the
    # connections of one client address (every client is on loopback).
    app = create_app(db_url=db, bot_delay=0.0, replace_after=0.0, create_rate=1e6, create_burst=1e6, rate=1000.0,
                     burst=2000.0, matches_per_hour=0, bot_workers=bot_workers, bot_queue=1000,
                     sqlite_sync=sqlite_sync, drain_seconds=drain_seconds, max_connections_per_client=0)
    # As `converge serve` runs it (no permessage-deflate unless asked for).
    draining.serve(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096,
                   ws_per_message_deflate=os.environ.get("CONVERGE_BENCH_DEFLATE") == "1",
                   **uvicorn_options(app.state.config))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m converge.server.load_bench", description=__doc__)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--cpus", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--bot-workers", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--sqlite-sync", default="FULL", help=argparse.SUPPRESS)
    parser.add_argument("--drain-seconds", type=float, default=10.0, help=argparse.SUPPRESS)
    parser.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.port, args.db, args.cpus, args.bot_workers, args.sqlite_sync, args.drain_seconds)
        return 0
    parser.error("run the benchmark with `converge serve-bench`")
    return 2


if __name__ == "__main__":
    sys.exit(main())
