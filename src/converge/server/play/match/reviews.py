"""Reviews of finished matches: each of a seat's decisions judged by the hint from what that seat knew then
(:mod:`converge.bots.review`), made once, when a player of the match asks, by the bot workers within a time
budget, and stored with the match. A match in progress is never reviewed: its record would tell one player
the other's cards."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from converge.bots.review import VERSION as REVIEW_VERSION
from converge.server.config import ServerConfig
from converge.server.play.commit.writes import MatchWrites
from converge.server.play.match.session import Session
from converge.server.play.owner.botpool import BotPool
from converge.server.protocol.answers import ReviewState
from converge.server.protocol.errors import ProtocolError
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Tx

log = logging.getLogger("converge.server")

#: Reviews that may wait for the one being made before the server says it is busy.
QUEUE = 8


class Reviews:
    """The reviews this process makes, one at a time, and the stored ones it reads."""

    def __init__(self, config: ServerConfig, pool: BotPool, storage: Storage, writes: MatchWrites) -> None:
        self.config = config
        self.pool = pool
        self.storage = storage
        self.writes = writes
        self.slot = asyncio.Semaphore(1)  # (each review takes a CPU for up to its budget)
        self.making: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.failed: set[tuple[str, int]] = set()

    async def state(self, session: Session, seat: int) -> ReviewState:
        """``seat``'s review of the finished match: stored, being made, failed or not asked for."""
        if session.row.status != "over":
            raise ProtocolError("not_over", "a match is reviewed once it is over")
        if seat not in (0, 1):
            raise ProtocolError("malformed", "seat is 0 or 1")
        try:
            stored = await asyncio.to_thread(self.storage.review_of, session.id, seat)
        except Exception:
            log.exception("match %s: cannot read the review of seat %d", session.id, seat)
            raise ProtocolError("storage", "the review could not be read; try again") from None
        doc = json.loads(stored) if stored is not None else None
        if doc is not None and doc.get("version") == REVIEW_VERSION:  # (an older format is made again)
            return {"status": "done", "seat": seat, "review": doc}
        key = (session.id, seat)
        if key in self.making:
            return {"status": "running", "seat": seat, "review": None}
        return {"status": "failed" if key in self.failed else "none", "seat": seat, "review": None}

    async def request(self, session: Session, seat: int) -> ReviewState:
        """Start making ``seat``'s review (unless it is stored or being made); its state."""
        found = await self.state(session, seat)
        if found["status"] in ("done", "running"):
            return found
        if len(self.making) > QUEUE:
            raise ProtocolError("busy", "the server is reviewing many matches; ask again in a minute")
        key = (session.id, seat)
        self.failed.discard(key)
        self.making[key] = asyncio.create_task(self._make(session, seat))
        return {"status": "running", "seat": seat, "review": None}

    async def _make(self, session: Session, seat: int) -> None:
        key = (session.id, seat)
        cfg = self.config
        try:
            async with self.slot:
                record = session.row.record()
                doc = await self.pool.review(record, seat, cfg.review_simulations or None, cfg.review_seconds,
                                             cfg.hint_seed)
            text = json.dumps(doc, separators=(",", ":"))

            def write(conn: Tx) -> None:
                Storage.save_review(conn, session.id, seat, text)

            await self.writes.write(None, write)  # (not a change of the match: nobody is told)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.error("match %s: the review of seat %d failed (%s)", session.id, seat, exc or type(exc).__name__)
            self.failed.add(key)
        finally:
            self.making.pop(key, None)

    async def close(self) -> None:
        """Stop the reviews being made (a review asked again is made again)."""
        tasks = list(self.making.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):  # (cancelled, or already logged)
                await task
