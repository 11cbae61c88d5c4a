"""The live matches of one server process, by id, and those being loaded."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

from converge.server.play.match.session import Session
from converge.server.play.match.single_flight import SingleFlight

#: Loads a match from the database (None: there is no such match).
Loader = Callable[[str], Awaitable[Session | None]]


class Sessions:
    """The sessions held in memory; a match is loaded once however many callers ask for it at the same time."""

    def __init__(self) -> None:
        self._live: dict[str, Session] = {}
        self._loading: SingleFlight[str, Session | None] = SingleFlight()

    def __getitem__(self, match_id: str) -> Session:
        return self._live[match_id]

    def __contains__(self, match_id: object) -> bool:
        return match_id in self._live

    def __iter__(self) -> Iterator[Session]:
        return iter(list(self._live.values()))

    def __len__(self) -> int:
        return len(self._live)

    def get(self, match_id: str) -> Session | None:
        return self._live.get(match_id)

    def add(self, session: Session) -> None:
        self._live[session.id] = session

    def remove(self, session: Session) -> None:
        """Drop ``session`` (not another session of the same match that replaced it)."""
        if self._live.get(session.id) is session:
            del self._live[session.id]

    def loading(self) -> set[str]:
        """The matches being loaded now."""
        return self._loading.running()

    async def load(self, match_id: str, loader: Loader, loaded: Callable[[Session], None]) -> Session | None:
        """The live session of ``match_id``, loaded by ``loader`` if it is not held (the callers that ask
        meanwhile wait for that load); ``loaded`` is called once the new session is held."""
        session = self._live.get(match_id)
        if session is not None:
            return session

        async def load_and_hold() -> Session | None:
            made = await loader(match_id)
            if made is not None:
                self._live[match_id] = made
                loaded(made)
            return made

        return await self._loading.run(match_id, load_and_hold)
