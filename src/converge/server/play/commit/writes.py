"""The commits of changes to matches: each through the database writer and, with several server processes,
announced to the others in its own transaction; the hooks that run in the transaction that ends a match."""

from __future__ import annotations

from collections.abc import Callable

from converge.server.play.cluster.coordination import LocalCoordinator
from converge.server.play.match.session import Session
from converge.server.storage.match_store import Storage
from converge.server.storage.writer import Tx, Writer

#: Called inside the transaction that finishes a match, as ``hook(conn, session, winner)`` (the lobby's
#: ratings: :mod:`converge.server.lobby.service`); an exception fails that transaction.
FinishHook = Callable[[Tx, Session, int | None], None]


class MatchWrites:
    """Writes to matches, committed before anything is applied or acknowledged."""

    def __init__(self, writer: Writer, coord: LocalCoordinator) -> None:
        self.writer = writer
        self.coord = coord
        self.finish_hooks: list[FinishHook] = []

    async def write(self, match_id: str | None, fn: Callable[[Tx], None], payload: str | None = None,
                    driver: bool = False) -> None:
        """Commit ``fn``; when it changed a match, other server processes are told in the same transaction
        (``payload``: what to tell them, by default that the match changed). ``driver``: ``fn`` runs only
        driver statements (see :meth:`Writer.write <converge.server.storage.writer.Writer.write>`)."""
        if match_id is None or not self.coord.multi:
            await self.writer.write(fn, driver)
            return
        told = payload or self.coord.payload(match_id)

        def write(conn: Tx) -> None:
            fn(conn)
            Storage.announce(conn, told)

        await self.writer.write(write, driver)

    async def write_changing(self, fn: Callable[[Tx], list[str]]) -> list[str]:
        """Commit ``fn``, which returns the matches it changed; with several server processes, each is announced
        to the others in the same transaction. Returns those matches."""
        changed: list[str] = []

        def write(conn: Tx) -> None:
            changed[:] = fn(conn)
            if self.coord.multi:
                for match_id in changed:
                    Storage.announce(conn, self.coord.payload(match_id))

        await self.writer.write(write)
        return changed

    def finished(self, conn: Tx, session: Session, winner: int | None) -> None:
        """Run the finish hooks, inside the transaction that ends ``session``'s match."""
        for hook in self.finish_hooks:
            hook(conn, session, winner)

