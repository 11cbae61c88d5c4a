"""Challenges: a named player proposes a match (playset, clock or hours per move, rated or not) to another by
name; the challenged accepts (the match is made, each takes a key to their seat) or declines, the challenger
may cancel, and an open challenge expires after :data:`LIVE_EXPIRY_S` (a live match) or
:data:`TURN_EXPIRY_S` (a turn-based one). Expiry is checked whenever a challenge is acted on or listed.

A player with ``friends_only`` set takes challenges only from the players they follow; banned players neither
send nor receive challenges; two players have at most one open challenge between them. A challenged player
who gave an address and asked for turn mails is mailed a link to their challenges."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Literal, get_args

from converge.server.accounts.mailer import Mail, Mailer, MailError
from converge.server.lobby.players import Players
from converge.server.lobby.seating import Seating
from converge.server.people.follows import Follows
from converge.server.protocol.errors import ProtocolError
from converge.server.protocol.people_answers import ChallengeAccepted, ChallengeList, ChallengeView
from converge.server.security.limits import KeyedRateLimit
from converge.server.security.tokens import MATCH_ID_RE, hash_token, new_match_id, new_token
from converge.server.storage import friends_store as store
from converge.server.storage.database import Refused, StorageError
from converge.server.storage.writer import Tx

log = logging.getLogger("converge.server.people")

Status = Literal["open", "accepted", "declined", "cancelled", "expired"]
#: A stored status as the answers say it.
STATUSES: dict[str, Status] = {s: s for s in get_args(Status)}

#: How long an open challenge to a live match (a clock, or none) waits for its answer: the challenger is
#: likely at their screen now.
LIVE_EXPIRY_S = 600.0
#: How long an open challenge to a turn-based match waits: a day, as its players come by now and then.
TURN_EXPIRY_S = 86400.0
#: Challenges one player may send, in a burst and then per hour; the address's budget is twice that.
CHALLENGES_BURST = 10
CHALLENGES_PER_HOUR = 30
#: A challenge answered this recently is still listed to its challenger (their page's poll learns the answer).
ANSWERED_SHOWN_S = 3600.0


class Challenges:
    """The challenges between players."""

    def __init__(self, players: Players, seating: Seating, follows: Follows, mailer: Mailer,
                 now: Callable[[], float]) -> None:
        self.config = seating.catalog.config
        self.players = players
        self.seating = seating
        self.follows = follows
        self.writer = players.writer
        self.engine = players.engine
        self.mailer = mailer
        #: The wall clock (the hub's: tests move it to expire challenges).
        self.now = now
        rate = CHALLENGES_PER_HOUR / 3600
        self.per_player = KeyedRateLimit(rate, CHALLENGES_BURST)
        self.per_address = KeyedRateLimit(2 * rate, 2 * CHALLENGES_BURST)

    async def create(self, cookie: str | None, address: str, *, name: str, playset: object, clock: object,
                     move_hours: object, rated: bool) -> ChallengeView:
        me = await self.players.may_play(cookie)
        if me.name is None:
            raise ProtocolError("no_player", "choose a name before you challenge a player: they see it")
        settings = self.seating.catalog.check("friend", playset, None, 0, clock, move_hours)
        them = await self.follows.person(name)
        if them.id == me.id:
            raise ProtocolError("malformed", "you cannot challenge yourself")
        if them.banned:
            raise ProtocolError("banned", f"{them.name} may not play on this server now")
        if them.friends_only and not await asyncio.to_thread(store.follows, self.engine, them.id, me.id):
            raise ProtocolError("friends_only", f"{them.name} takes challenges only from the players they follow")
        if not self.per_player.allow(me.id) or not self.per_address.allow(address):
            raise ProtocolError("rate_limited", "too many challenges; wait a little")
        now = self.now()
        expiry = TURN_EXPIRY_S if settings.move_s is not None else LIVE_EXPIRY_S
        row = store.ChallengeRow(new_match_id(), me.id, them.id, settings.playset, settings.clock_ms,
                                 settings.move_s, rated, "open", now, now + expiry, None)
        await self._write(lambda conn: store.add_challenge(conn, row, now))
        if them.email and them.notify_turns:
            await self._mail(them, me.name, row)
        return self._view(row, {me.id: me.name, them.id: them.name}, now)

    async def listing(self, cookie: str | None) -> ChallengeList:
        me = await self.players.need_player(cookie)
        now = self.now()
        rows = await asyncio.to_thread(store.challenges_of, self.engine, me.id, now - TURN_EXPIRY_S
                                       - ANSWERED_SHOWN_S)
        names = await self._names(rows)
        mine = await asyncio.to_thread(store.people_by_ids, self.engine, [me.id])
        out: ChallengeList = {"incoming": [], "outgoing": [], "answered": [],
                              "friends_only": me.id in mine and mine[me.id].friends_only}
        for row in rows:
            view = self._view(row, names, now)
            if view["status"] == "open":
                out["incoming" if row.to_id == me.id else "outgoing"].append(view)
            elif row.from_id == me.id and view["status"] != "cancelled" and (
                    view["status"] != "expired" or row.expires_at >= now - ANSWERED_SHOWN_S):  # (old news: not)
                out["answered"].append(view)
        out["answered"] = out["answered"][:20]
        return out

    async def accept(self, cookie: str | None, challenge_id: str, address: str) -> ChallengeAccepted:
        """The challenged player accepts: the match is made (the challenger in seat 0; who holds the artifact
        first is drawn) and the challenge closed, in one transaction."""
        me = await self.players.may_play(cookie)
        row = await self._challenge(challenge_id, me.id)
        if row.to_id != me.id:
            raise ProtocolError("not_found", "no such challenge to you")
        self._still_open(row)
        people = await asyncio.to_thread(store.people_by_ids, self.engine, [row.from_id])
        challenger = people.get(row.from_id)
        if challenger is None or challenger.banned:
            raise ProtocolError("challenge_closed", "the challenger may not play now")
        match_id, now = new_match_id(), self.now()

        def close(conn: Tx) -> None:
            if not store.close_challenge(conn, row.id, "accepted", now, match_id):
                raise Refused("the challenge is no longer open")

        # (the tokens are thrown away: each player takes a key to their seat, POST /api/matches/{id}/seat)
        seats: dict[int, tuple[str | None, str]] = {0: (row.from_id, hash_token(new_token())),
                                                    1: (row.to_id, hash_token(new_token()))}
        try:
            await self.seating.make_match(seats=seats, playset=row.playset, clock_ms=row.clock_ms,
                                          rated=row.rated, kind="duel", payers=[address], move_s=row.move_s,
                                          match_id=match_id, also=close)
        except Refused as exc:
            raise ProtocolError("challenge_closed", str(exc)) from None
        return {"match_id": match_id, "url": f"/m/{match_id}"}

    async def decline(self, cookie: str | None, challenge_id: str) -> None:
        me = await self.players.need_player(cookie)
        row = await self._challenge(challenge_id, me.id)
        if row.to_id != me.id:
            raise ProtocolError("not_found", "no such challenge to you")
        await self._close(row, "declined")

    async def cancel(self, cookie: str | None, challenge_id: str) -> None:
        me = await self.players.need_player(cookie)
        row = await self._challenge(challenge_id, me.id)
        if row.from_id != me.id:
            raise ProtocolError("not_found", "no such challenge from you")
        await self._close(row, "cancelled")

    async def set_friends_only(self, cookie: str | None, on: bool) -> None:
        me = await self.players.need_player(cookie)
        await self._write(lambda conn: store.set_friends_only(conn, me.id, on))

    # ------------------------------------------------------------------ helpers

    async def _challenge(self, challenge_id: str, player_id: str) -> store.ChallengeRow:
        """A challenge to or from the player (any other is "not found": its existence is not theirs to know)."""
        row = None
        if MATCH_ID_RE.match(challenge_id):
            row = await asyncio.to_thread(store.read_challenge, self.engine, challenge_id)
        if row is None or player_id not in (row.from_id, row.to_id):
            raise ProtocolError("not_found", "no such challenge")
        return row

    def _still_open(self, row: store.ChallengeRow) -> None:
        if row.status != "open":
            raise ProtocolError("challenge_closed", f"the challenge was {row.status}")
        if row.expires_at <= self.now():
            raise ProtocolError("challenge_closed", "the challenge expired")

    async def _close(self, row: store.ChallengeRow, status: str) -> None:
        self._still_open(row)
        now = self.now()
        done: list[bool] = []
        await self._write(lambda conn: done.append(store.close_challenge(conn, row.id, status, now)))
        if not done[0]:
            raise ProtocolError("challenge_closed", "the challenge is no longer open")

    async def _names(self, rows: list[store.ChallengeRow]) -> dict[str, str]:
        ids = sorted({r.from_id for r in rows} | {r.to_id for r in rows})
        people = await asyncio.to_thread(store.people_by_ids, self.engine, ids)
        return {pid: p.name for pid, p in people.items()}

    @staticmethod
    def _view(row: store.ChallengeRow, names: dict[str, str], now: float) -> ChallengeView:
        status: Status = "expired" if row.status == "open" and row.expires_at <= now else STATUSES[row.status]
        return {"id": row.id, "challenger": names.get(row.from_id, "(a former player)"),
                "challenged": names.get(row.to_id, "(a former player)"), "playset": row.playset,
                "clock": None if row.clock_ms is None else row.clock_ms // 1000,
                "move_hours": None if row.move_s is None else row.move_s // 3600, "rated": row.rated,
                "status": status, "expires_at": row.expires_at, "match_id": row.match_id,
                "url": None if row.match_id is None else f"/m/{row.match_id}"}

    async def _mail(self, them: store.Person, challenger: str, row: store.ChallengeRow) -> None:
        """Tell the challenged player by mail; a mail that cannot be sent is logged, the challenge stands."""
        assert them.email is not None
        base = (self.config.public_url or "").rstrip("/")
        how = (f"{row.move_s // 3600} hours a move" if row.move_s is not None else
               f"{row.clock_ms // 60000} minutes each" if row.clock_ms is not None else "no clock")
        body = (f"{challenger} challenges you to a {'rated' if row.rated else 'friendly'} match of Converge: "
                f"{', '.join(n.capitalize() for n in row.playset)}, {how}.\n\n"
                f"Accept or decline it: {base}/challenges#id={row.id}\n\n"
                f"You get this mail because you asked for turn mails; turn them off on your page.\n")
        try:
            await self.mailer.send(Mail(them.email, f"{challenger} challenges you — Converge", body))
        except (MailError, OSError) as exc:
            log.warning("challenge %s: the mail to the challenged player was not sent: %s", row.id, exc)

    async def _write(self, fn: Callable[[Tx], object]) -> None:
        try:
            await self.writer.write(fn)
        except store.OpenAlready as exc:
            raise ProtocolError("challenge_closed", str(exc)) from None
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; nothing changed: try again") from None
