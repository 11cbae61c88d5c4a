"""A connection's messages: written at once when the socket takes them, queued behind a send that has to wait,
always in the order they were sent, and a peer that is gone closes the connection."""

from __future__ import annotations

import asyncio

from converge.server.config import ServerConfig
from converge.server.transport.connections import Connection


class FakeSocket:
    """Takes messages at once, unless ``blocked`` (a full socket buffer): then each send waits for it."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed_with: int | None = None
        self.open = asyncio.Event()
        self.open.set()
        self.fail = False

    async def send_text(self, data: str) -> None:
        await self.open.wait()  # (returns without suspending while the socket is open, as uvicorn's does)
        if self.fail:
            raise ConnectionResetError("the peer went away")
        self.sent.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed_with = code


def _open(view: int = 0, config: ServerConfig | None = None) -> tuple[FakeSocket, Connection]:
    """A started connection on a fake socket (inside a running event loop)."""
    ws = FakeSocket()
    conn = Connection(ws, view, config or ServerConfig())
    conn.start()
    return ws, conn


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_message_is_written_at_once_when_the_socket_takes_it() -> None:
    async def main() -> None:
        ws, conn = _open()
        conn.send({"type": "pong"})
        conn.send("second")
        assert ws.sent == ['{"type":"pong"}', "second"]  # no task switch needed
        assert conn.queue.empty()
        await conn.drain()
        assert ws.closed_with == 1000

    asyncio.run(main())


def test_messages_wait_behind_a_send_that_cannot_finish_and_keep_their_order() -> None:
    async def main() -> None:
        ws, conn = _open()
        conn.send("1")
        ws.open.clear()  # the socket's buffer is full
        conn.send("2")  # begun, waiting for the socket
        conn.send("3")
        conn.send("4")
        await _settle()
        assert ws.sent == ["1"]
        assert conn.sending
        ws.open.set()
        await _settle()
        assert ws.sent == ["1", "2", "3", "4"]
        assert not conn.sending and conn.queue.empty()
        conn.send("5")  # the queue is empty again: written at once
        assert ws.sent[-1] == "5"
        await conn.drain()
        assert ws.closed_with == 1000

    asyncio.run(main())


def test_a_waiting_send_of_a_connection_closed_with_a_full_queue_is_cancelled() -> None:
    async def main() -> None:
        ws, conn = _open(config=ServerConfig(send_queue=2))
        ws.open.clear()
        for i in range(4):  # one begun and waiting, one queued, the third finds the queue full
            conn.send(str(i))
        await _settle()
        assert conn.closed and conn.close_code == 1013
        assert conn.task is not None and conn.task.done()
        assert ws.sent == [] and ws.closed_with == 1013
        conn.send("after")  # nothing more is sent on a closed connection
        ws.open.set()
        await _settle()
        assert ws.sent == []

    asyncio.run(main())


def test_a_peer_that_is_gone_closes_the_connection_whether_written_at_once_or_queued() -> None:
    async def main() -> None:
        ws, conn = _open(1)
        ws.fail = True
        conn.send("lost")
        assert conn.closed
        await conn.drain()
        assert ws.closed_with == 1000

        ws2, queued = _open(1)
        ws2.open.clear()
        queued.send("a")
        queued.send("b")
        ws2.fail = True
        ws2.open.set()
        await _settle()
        assert queued.closed and ws2.sent == []

    asyncio.run(main())
