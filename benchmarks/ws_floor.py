"""What the WebSocket stack alone costs the server per action: a FastAPI app under uvicorn that answers each
message with two messages of a state message's size and does nothing else, driven like `converge serve-bench`
(one server process pinned to CPU 0, clients on the other CPUs, a pause before each message).

    python benchmarks/ws_floor.py --connections 400 --exchanges 25

Set beside `converge serve-bench` (the same traffic through the real server) and `benchmarks/hub_cpu.py`
(the server's own work without sockets), it tells how much of the server's CPU per action is the stack's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import time

from converge.server.load_bench import cpu_seconds
from converge.server.storage.pgcluster import free_port

SERVER = r"""
import sys, uvicorn
from fastapi import FastAPI, WebSocket, WebSocketDisconnect
app = FastAPI()
reply = "x" * int(sys.argv[2])
@app.websocket("/ws")
async def ws(websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        while True:
            await websocket.receive_text()
            await websocket.send_text(reply)
            await websocket.send_text(reply)
    except WebSocketDisconnect:
        pass
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", ws_max_size=65536,
            ws_per_message_deflate=False)
"""


async def _client(url: str, exchanges: int, rng: random.Random) -> None:
    import websockets

    async with websockets.connect(url, ping_interval=None, compression=None) as ws:
        for _ in range(exchanges):
            await asyncio.sleep(rng.uniform(1.5, 3.5))  # serve-bench's pace: ~160 actions a second, 400 seats
            await ws.send('{"type":"action","action":3,"seq":5}')
            await ws.recv()
            await ws.recv()


async def _clients(url: str, connections: int, exchanges: int) -> None:
    rng = random.Random(1)
    await asyncio.gather(*(_client(url, exchanges, rng) for _ in range(connections)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=400)
    parser.add_argument("--exchanges", type=int, default=25, help="messages each connection sends")
    parser.add_argument("--size", type=int, default=2400, help="bytes of each reply (a state message: ~2,400)")
    args = parser.parse_args(argv)
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(args.size)])
    try:
        if hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1:
            os.sched_setaffinity(server.pid, {0})
            os.sched_setaffinity(0, os.sched_getaffinity(0) - {0})
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        before = cpu_seconds(server.pid) or 0.0
        asyncio.run(_clients(f"ws://127.0.0.1:{port}/ws", args.connections, args.exchanges))
        used = (cpu_seconds(server.pid) or 0.0) - before
    finally:
        server.terminate()
        server.wait(timeout=30)
    n = args.connections * args.exchanges
    print(f"WebSocket stack alone: {used * 1000 / n:.3f} ms of server CPU per message in and two of "
          f"{args.size} bytes out ({n} exchanges, connections opened included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
