"""Open WebSockets: each with its own bounded send queue and sender task, its rate limit and its place
in the match (a seat, or a spectator)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Coroutine, Generator, Mapping
from typing import Any, Protocol

import orjson

from converge.server.config import ServerConfig
from converge.server.ops.meter import Meter
from converge.server.protocol.errors import CLOSE_POLICY, CLOSE_TRY_AGAIN, ProtocolError
from converge.server.security.limits import TokenBucket


def dumps(doc: object) -> str:
    """A message as the server sends it: compact JSON (UTF-8, keys that are numbers written as strings).

    >>> dumps({"type": "ack", "seq": 3, "next": {4: "é"}})
    '{"type":"ack","seq":3,"next":{"4":"é"}}'
    """
    return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS).decode()


class WebSocketLike(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


async def refuse_before_connected(ws: WebSocketLike, error: ProtocolError, close: int, meter: Meter) -> None:
    """Send ``error`` and close, on a socket refused before it became a :class:`Connection` (its hello, the
    lobby's limits), counting the refusal as :meth:`Connection.refuse` does."""
    meter.error(error.code)
    with contextlib.suppress(Exception):
        await ws.send_text(dumps(error.to_message()))
        await ws.close(close)


class _Unfinished:
    """A send that could not finish at once (the socket's buffer was full): the sender task awaits the rest of
    it, forwarding what the event loop gives it, before anything queued after it."""

    __slots__ = ("coro", "waiting")

    def __init__(self, coro: Coroutine[Any, Any, None], waiting: Any) -> None:
        self.coro = coro
        self.waiting = waiting  # what the coroutine is waiting for (an asyncio future)

    def __await__(self) -> Generator[Any, Any, None]:
        coro, waiting = self.coro, self.waiting
        while True:
            try:
                sent = yield waiting
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as exc:  # (a cancellation): the coroutine handles it or ends with it
                try:
                    waiting = coro.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    waiting = coro.send(sent)
                except StopIteration:
                    return


class Connection:
    """One open WebSocket of a seat (``view`` 0 or 1) or a spectator (``view`` -1).

    A message is written to the socket at once when nothing is waiting before it and the socket takes it
    (the usual case: no task switch per message); otherwise it waits in a bounded queue for the sender
    task, so that a slow client never holds up the others: one that falls too far behind is disconnected
    (it reconnects and gets its current view).
    """

    _opened = itertools.count()

    def __init__(self, ws: WebSocketLike, view: int, config: ServerConfig, address: str = "?",
                 meter: Meter | None = None) -> None:
        self.ws = ws
        self.view = view
        #: Counts the refusals this connection is sent (:meth:`refuse`).
        self.meter = meter or Meter()
        #: A seat's connection: the hash of the token (the seat's or one of its keys) it holds the seat with;
        #: once that no longer holds the seat (revoked by a sign-out everywhere) the connection is closed.
        self.key: str | None = None
        #: The client's address as limits count it (:func:`~converge.server.security.limits.address_key`).
        self.address = address
        #: Order of arrival: a seat with too many connections loses its oldest.
        self.opened = next(self._opened)
        self.queue: asyncio.Queue[str | _Unfinished | None] = asyncio.Queue(maxsize=config.send_queue)
        self.bucket = TokenBucket(config.rate, config.burst)
        self.strikes = 0
        #: Over the rate limit since the last message let through: told once, then ignored silently.
        self.throttled = False
        self.events_sent = 0
        #: Acknowledgements as messages of their own (else in the state message that follows the action).
        self.acks = True
        #: A hint is being worked out for this connection.
        self.hinting = False
        self.closed = False
        self.close_code = 1000
        self.close_reason: str | None = None
        #: A spectator counted in the spectators of
        #: :class:`~converge.server.play.viewers.reception.Reception` (until it leaves).
        self.counted = False
        self.task: asyncio.Task[None] | None = None
        #: The sender task is writing a message: later ones queue behind it.
        self.sending = False

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._sender())

    def over_limit(self, rate: float, max_strikes: int) -> bool:
        """Whether the message just received is over the rate limit (then it is ignored). The first of a
        run gets one error; the rest are dropped without a word (a reply to each would be the flood the
        limit is there to stop), and more than ``max_strikes`` close the connection."""
        if self.bucket.allow():
            self.throttled = False
            return False
        self.strikes += 1
        if self.strikes > max_strikes:
            self.close(CLOSE_POLICY, "too many messages")
        elif not self.throttled:
            self.throttled = True
            self.refuse(ProtocolError("rate_limited", f"too many messages (at most {rate:g} a second): this one "
                                                      "and the next ones over the limit are ignored, without a "
                                                      "reply"))
        return True

    def refuse(self, error: ProtocolError) -> None:
        """Send ``error`` as the socket's error message, and count it: every refusal a socket is sent goes
        through here."""
        self.meter.error(error.code)
        self.send(error.to_message())

    def send(self, message: Mapping[str, object] | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else dumps(message)
        if not self.sending and self.queue.empty() and self.task is not None:
            self._send_now(text)
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close(CLOSE_TRY_AGAIN)

    def _send_now(self, text: str) -> None:
        """Write ``text`` without the sender task when the socket takes it at once; a send that has to wait
        (a full socket buffer) is handed to the sender task, which finishes it first."""
        coro = self.ws.send_text(text)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
        except Exception:  # the peer went away
            self.close()
            return
        self.sending = True  # (the queue is empty: the unfinished send takes its first place)
        self.queue.put_nowait(_Unfinished(coro, waiting))

    def close(self, code: int = 1000, reason: str | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.close_reason = reason
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:  # no room for the stop marker: drop what is queued and close now
            if self.task is not None:
                self.task.cancel()
            self.task = asyncio.get_running_loop().create_task(self._close_now())

    async def _close_now(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(self.close_code, self.close_reason)

    async def _sender(self) -> None:
        try:
            while True:
                item = await self.queue.get()
                if item is None:
                    break
                self.sending = True
                await (item if isinstance(item, _Unfinished) else self.ws.send_text(item))
                self.sending = False
        except Exception:  # the peer went away
            self.closed = True
        with contextlib.suppress(Exception):
            await self.ws.close(self.close_code, self.close_reason)

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait until queued messages are sent (or the connection is gone)."""
        if self.task is not None:
            self.close(self.close_code)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self.task), timeout)
