"""The hosts' actions and the players' reports, over the hub and the lobby of one server process.

* **A host action** names its actor (who, as they say) and its reason, and is written to the audit in the
  transaction that makes it. A player is named by their id or by their name (look-alikes share one key, so a
  name finds its player however it is typed); a name that several players could be is refused.
* **A ban** is stored at once (every door asks the database, so every process refuses the player from then
  on: :meth:`converge.server.lobby.players.Players.need_player`), closes the player's open tables, then ends
  each of their matches in progress as a loss, by the path a resignation takes (a rated match changes both
  ratings); the answer says which ended.
* **A report** comes from a player who holds a seat of the match (its token and their player cookie), about
  the player at the other seat, with one of :data:`~converge.server.moderation.REPORT_REASONS` and a note; at
  most :data:`REPORTS_PER_HOUR` an hour per reporter, one per match and seat.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping

from sqlalchemy import Engine

from converge.server.accounts.archive import archive
from converge.server.lobby.identity import name_keys, named
from converge.server.lobby.players import banned
from converge.server.lobby.service import Lobby
from converge.server.moderation import REPORT_REASONS
from converge.server.play.hub import Hub
from converge.server.protocol.answers import (
    AuditEntry,
    ChatRecord,
    FoundPlayer,
    HostActionDone,
    ListedEvent,
    ReportEntry,
    ReportMade,
)
from converge.server.protocol.archive_answers import PlayerArchive
from converge.server.protocol.errors import ProtocolError
from converge.server.security.tokens import MATCH_ID_RE, new_match_id
from converge.server.storage import chat_store, lobby_store, tournament_store
from converge.server.storage import moderation_store as store
from converge.server.storage.database import Refused, StorageError
from converge.server.storage.match_store import delete_matches
from converge.server.storage.writer import Tx, Writer
from converge.server.tournaments.service import HostVerb, Tournaments

log = logging.getLogger("converge.server.moderation")

#: Reports one player may make in an hour.
REPORTS_PER_HOUR = 10
#: The longest reason a host may give, and a player's note.
REASON_MAX = 500


class _Refused(Refused):
    """A host action refused inside its transaction (nothing written): the refusal it answers with."""

    def __init__(self, error: ProtocolError) -> None:
        super().__init__(error.message)
        self.error = error


def _text(value: object, what: str, limit: int, *, required: bool = True) -> str | None:
    """A reason, a note or an actor: printable text of at most ``limit`` characters, trimmed."""
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ProtocolError("malformed", f"give {what}")
    text = " ".join(value.split())
    if len(text) > limit or not text.isprintable():
        raise ProtocolError("malformed", f"{what} is at most {limit} printable characters")
    return text


class Moderation:
    """The hosts' actions and the players' reports (see the module doc)."""

    def __init__(self, hub: Hub, lobby: Lobby, events: Tournaments) -> None:
        self.hub = hub
        self.lobby = lobby
        self.events = events
        self.engine: Engine = hub.storage.engine
        self.writer: Writer = hub.writer

    # ------------------------------------------------------------------ finding

    async def find(self, ref: str) -> list[FoundPlayer]:
        """The players ``ref`` names (an id, a name, or part of one)."""
        ref = _text(ref, "a player's id or name", 64) or ""
        return await asyncio.to_thread(store.find_players, self.engine, ref, self._keys(ref))

    async def _one(self, ref: str) -> FoundPlayer:
        """The one player ``ref`` names by id or whole name; refused when none or several do."""
        ref = _text(ref, "a player's id or name", 64) or ""
        found = await asyncio.to_thread(store.find_players, self.engine, ref, self._keys(ref))
        keys = self._keys(ref)
        exact = [p for p in found if p["id"] == ref or (p["name"] is not None and not keys.isdisjoint(
            self._keys(p["name"])))]
        if not exact:
            raise ProtocolError("not_found", f"no player has the id or the name {ref!r}"
                                + (f" (names that hold it: {', '.join(repr(p['name']) for p in found[:5])})"
                                   if found else ""))
        if len(exact) > 1:
            raise ProtocolError("malformed", f"{len(exact)} players match {ref!r}: give one's id")
        return exact[0]

    @staticmethod
    def _keys(text: str) -> frozenset[str]:
        try:
            return name_keys(text)
        except Exception:  # (a text no name could be: it is looked up as an id only)
            return frozenset()

    async def _record(self, actor: str, action: str, target: str, reason: str, detail: Mapping[str, object],
                      change: Callable[[Tx], None] | None = None) -> HostActionDone:
        """Write ``change(conn)`` (if any) and the audit entry in one transaction."""

        def write(conn: Tx) -> None:
            if change is not None:
                change(conn)
            store.audit(conn, actor, action, target, reason, detail)

        try:
            await self.writer.write(write)
        except _Refused as exc:
            raise exc.error from None
        except StorageError:
            raise ProtocolError("storage", "the change could not be saved; nothing was done") from None
        log.info("host action: %s %s by %s", action, target, actor)
        return {"action": action, "target": target, "detail": dict(detail)}

    # ------------------------------------------------------------------ the hosts' actions

    async def rename(self, actor: str, ref: str, name: object, reason: str) -> HostActionDone:
        """Give a player another name (None: anonymous), whatever their own rename limits; the name rules and
        uniqueness hold as for anyone."""
        player = await self._one(ref)
        new = None if name is None else named(name)
        if new is not None and await asyncio.to_thread(lobby_store.name_taken, self.engine, new, player["id"]):
            raise ProtocolError("name_taken", "another player has that name, or one that looks the same")
        at = time.time()
        detail: dict[str, object] = {"from": player["name"], "to": None if new is None else new.name}

        def change(conn: Tx) -> None:
            store.rename_by_host(conn, player["id"], new, at)

        return await self._record(actor, "rename", player["id"], reason, detail, change)

    async def ban(self, actor: str, ref: str, reason: str) -> HostActionDone:
        """Ban a player: stored at once, their open tables closed, out of the tournaments they were in, their
        matches in progress ended as losses."""
        player = await self._one(ref)
        if player["banned"]:
            raise ProtocolError("malformed", f"{player['name'] or player['id']} is banned already")
        pid, at = player["id"], time.time()
        playing = await asyncio.to_thread(lobby_store.in_progress, self.engine, pid, 1000)
        closed: list[str] = []
        events: list[str] = []

        def change(conn: Tx) -> None:
            if not store.set_ban(conn, pid, reason, at):
                raise _Refused(ProtocolError("malformed", "the player is banned already"))
            closed.extend(store.open_tables_of(conn, pid, at))
            events.extend(tournament_store.withdraw_everywhere(conn, pid))

        detail: dict[str, object] = {"name": player["name"], "matches_in_progress": [m for m, _ in playing],
                                  "tables_closed": closed, "tournaments_left": events}
        done = await self._record(actor, "ban", pid, reason, detail, change)
        self.lobby.quick.drop_player(pid)
        if closed:
            await self.lobby.room.refresh()
        # (and any match that started between that read and the ban: none can start after it)
        later = await asyncio.to_thread(lobby_store.in_progress, self.engine, pid, 1000)
        ended, failed = [], []
        for match_id, seat in dict.fromkeys([*playing, *later]):
            try:
                session = await self.hub.live.get(match_id)
                if session is None:
                    raise ProtocolError("not_found", "no such match")
                await self.hub.matches.resign(session, seat, reason="banned")
                ended.append(match_id)
                self.hub.reception.shut_out(session, seat, banned(reason))
            except ProtocolError as exc:  # (over meanwhile, or the database away: the answer says so)
                log.warning("ban of %s: match %s not ended (%s)", pid, match_id, exc.message)
                failed.append(match_id)
        return {**done, "detail": {**detail, "ended": ended, "not_ended": failed}}

    async def export(self, actor: str, ref: str, reason: str) -> PlayerArchive:
        """The player's archive (:mod:`converge.server.accounts.archive`). The audit notes who took it, and why,
        first: the archive holds that note too."""
        player = await self._one(ref)
        await self._record(actor, "export", player["id"], reason, {"name": player["name"]})
        return await archive(self.hub, player["id"])

    async def tournaments(self) -> list[ListedEvent]:
        """Every event, a club's too."""
        return await self.events.listing_for_hosts()

    async def tournament(self, actor: str, tournament_id: str, what: HostVerb, reason: str) -> HostActionDone:
        """Start, pause, resume or cancel an event, whoever hosts it; then the audit entry."""
        event = await self.events.event(tournament_id)
        await self.events.act(event, what)
        return await self._record(actor, f"{what}_event", event.id, reason, {"name": event.name})

    async def unban(self, actor: str, ref: str, reason: str) -> HostActionDone:
        player = await self._one(ref)
        pid = player["id"]

        def change(conn: Tx) -> None:
            if not store.set_ban(conn, pid, None, time.time()):
                raise _Refused(ProtocolError("malformed", "the player is not banned"))

        return await self._record(actor, "unban", pid, reason, {"name": player["name"]}, change)

    async def close_table(self, actor: str, table_id: str, reason: str) -> HostActionDone:
        """Close an open lobby table, whoever its host."""
        if not MATCH_ID_RE.match(table_id):
            raise ProtocolError("table_gone", "no open table has that id")
        host: list[str | None] = []

        def change(conn: Tx) -> None:
            host.append(store.close_any_table(conn, table_id, time.time()))
            if host[0] is None:
                raise _Refused(ProtocolError("table_gone", "no open table has that id"))

        done = await self._record(actor, "close_table", table_id, reason, {}, change)
        await self.lobby.room.refresh()
        return {**done, "detail": {"host": host[0]}}

    async def delete_match(self, actor: str, match_id: str, reason: str) -> HostActionDone:
        """Delete a match and its record; its pages are told it is gone (a match in progress ends with it)."""
        if not MATCH_ID_RE.match(match_id):
            raise ProtocolError("not_found", "no such match")
        session = await self.hub.live.get(match_id)
        if session is None:
            raise ProtocolError("not_found", "no such match")
        detail: dict[str, object] = {"status": session.row.status, "actions": session.row.n_actions}

        def change(conn: Tx) -> None:
            delete_matches(conn, [match_id])

        done = await self._record(actor, "delete_match", match_id, reason, detail, change)
        self.hub.housekeeping.forget([match_id])
        return done

    async def chat(self, match_id: str) -> list[ChatRecord]:
        """Every chat line of a match (a reported one's, say), its players' and its spectators'."""
        if not MATCH_ID_RE.match(match_id):
            raise ProtocolError("not_found", "no such match")
        lines = await asyncio.to_thread(chat_store.of_matches, self.engine, [match_id])
        return [chat_store.record(line) for line in lines]

    async def reports(self, include_closed: bool) -> list[ReportEntry]:
        return await asyncio.to_thread(store.reports, self.engine, include_closed)

    async def close_report(self, actor: str, report_id: str, reason: str) -> HostActionDone:
        if not MATCH_ID_RE.match(report_id):
            raise ProtocolError("not_found", "no open report has that id")

        def change(conn: Tx) -> None:
            if not store.close_report(conn, report_id, time.time()):
                raise _Refused(ProtocolError("not_found", "no open report has that id"))

        return await self._record(actor, "close_report", report_id, reason, {}, change)

    async def audit(self, limit: int, target: str | None) -> list[AuditEntry]:
        return await asyncio.to_thread(store.audit_log, self.engine, limit, target)

    # ------------------------------------------------------------------ the players' reports

    async def report(self, reporter: lobby_store.Player, match_id: str, seat: int, reason: object,
                     note: object) -> ReportMade:
        """``reporter``, who holds ``seat`` of the match (its token) and is its player (the match records them
        there), reports the player at the other seat. A seat's token alone is not enough: it is no proof of who
        holds it (a token passed on, a link shared)."""
        if reason not in REPORT_REASONS:
            raise ProtocolError("malformed", f"\"reason\" is one of {', '.join(REPORT_REASONS)}")
        text = _text(note, "the note", REASON_MAX, required=False)
        mine = await asyncio.to_thread(store.seat_holder, self.engine, match_id, seat)
        if mine is None or mine[0] != reporter.id:
            raise ProtocolError("unauthorized", "only the player of a seat may report from it: this match does "
                                                "not have you at that seat")
        other = 1 - seat
        holder = await asyncio.to_thread(store.seat_holder, self.engine, match_id, other)
        if holder is None:
            raise ProtocolError("not_found", "the other seat has no player to report (a bot, or someone who "
                                             "played without a player on this server)")
        reported_id, name = holder
        if reported_id == reporter.id:
            raise ProtocolError("malformed", "you cannot report yourself")
        if await asyncio.to_thread(store.already_reported, self.engine, reporter.id, match_id, other):
            return {"reported": True, "new": False}
        if await asyncio.to_thread(store.reports_made, self.engine, reporter.id, time.time() - 3600) \
                >= REPORTS_PER_HOUR:
            raise ProtocolError("rate_limited", f"at most {REPORTS_PER_HOUR} reports an hour: the hosts have "
                                                "yours; try again later")
        values = {"id": new_match_id(), "at": time.time(), "reporter_id": reporter.id, "reported_id": reported_id,
                  "match_id": match_id, "seat": other, "reported_name": name, "reason": reason, "note": text}
        try:
            await self.writer.write(lambda conn: store.add_report(conn, values))
        except StorageError:
            raise ProtocolError("storage", "the report could not be saved; try again") from None
        return {"reported": True, "new": True}


__all__ = ["REASON_MAX", "REPORTS_PER_HOUR", "Moderation"]
