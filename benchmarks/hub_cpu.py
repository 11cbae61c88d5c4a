"""The server's own work per action, without sockets: CPU time of the hub (checking, committing, observing,
sending to each seat's connection) with connections that drop what they are sent.

    python benchmarks/hub_cpu.py --matches 120 --actions 3000

Set beside `converge serve-bench` (the same work through uvicorn and real WebSockets), the difference is what
the network stack costs. SQLite in a temporary folder, `synchronous=FULL` as the server runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
from typing import Any

from converge.server.config import ServerConfig
from converge.server.load_bench import cpu_seconds
from converge.server.play.hub import Hub
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Writer
from converge.server.transport.connections import Connection


class _Drop:
    """A WebSocket that takes every message and sends nothing."""

    async def send_text(self, data: str) -> None:
        return None

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        return None


async def run(matches: int, actions: int, seed: int, acks: bool = False) -> dict[str, Any]:
    folder = tempfile.mkdtemp(prefix="converge-hub-cpu-")
    cfg = ServerConfig(db_url=f"sqlite:///{folder}/hub.sqlite3", bot_delay=0.0, replace_after=0.0,
                       matches_per_hour=0)  # (a benchmark creates as many matches as it needs)
    storage = Storage(cfg.resolved_db_url(), cfg.sqlite_sync, exclusive=True)
    writer = Writer(storage)
    hub = Hub(cfg, storage, writer)
    tables = []
    before = os.times()
    for _ in range(matches):
        created = await hub.matches.create("friend", ["alchemist", "mechanist", "archivist"], payer="bench")
        session = created.session
        conns = []
        for seat in (0, 1):
            conn = Connection(_Drop(), seat, cfg)
            conn.acks = acks
            conn.start()
            await hub.reception.welcome(session, conn)
            conns.append(conn)
        tables.append((session, conns))
    made = os.times()
    writer_before = _writer_cpu(writer)
    rng = random.Random(seed)
    done = 0
    live = list(tables)
    while done < actions:
        if not live:
            raise SystemExit(f"every match ended after {done} actions: give more --matches")
        pick = rng.randrange(len(live))
        session, conns = live[pick]
        if not session.active:  # (its last action was the previous one played at this table)
            live[pick] = live[-1]
            live.pop()
            continue
        seat = session.match.current_player
        action = rng.choice(session.match.legal_actions())
        await hub.matches.act(session, seat, action, session.seq, source=conns[seat])
        done += 1
        if done % 8 == 0:
            await asyncio.sleep(0)  # let the connections' senders run
    await asyncio.sleep(0.05)
    after = os.times()
    writer_cpu = _writer_cpu(writer) - writer_before
    writer.close()
    return {"create_ms_per_match": ((made.user - before.user) + (made.system - before.system)) * 1000 / matches,
            "user_ms_per_action": (after.user - made.user) * 1000 / actions,
            "system_ms_per_action": (after.system - made.system) * 1000 / actions,
            "writer_ms_per_action": writer_cpu * 1000 / actions}


def _writer_cpu(writer: Writer) -> float:
    """The database writer's thread's CPU seconds (0 where the system does not say)."""
    tid = writer.thread.native_id
    return (cpu_seconds(os.getpid(), tid) or 0.0) if tid is not None else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=120)
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--acks", action="store_true",
                        help="acknowledgements as messages of their own (default: in the state message, as the "
                             "browser asks)")
    args = parser.parse_args(argv)
    r = asyncio.run(run(args.matches, args.actions, args.seed, args.acks))
    print(f"hub CPU per action: {r['user_ms_per_action'] + r['system_ms_per_action']:.3f} ms "
          f"(user {r['user_ms_per_action']:.3f}, system {r['system_ms_per_action']:.3f}; the database writer's "
          f"thread {r['writer_ms_per_action']:.3f}); "
          f"creating a match and welcoming its two seats: {r['create_ms_per_match']:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
