"""Quick match, as the lobby's pages use it: the queue (:mod:`converge.server.lobby.matchmaking`, in this
process's memory) is stepped while anyone waits; paired players' match starts at once, each told on their
page with their own token; who has waited long enough is offered a bot of their level. A page whose player
was signed out or banned since it queued — by any process: the database says — is taken out of the queue
when it is paired, and told why; the other player waits on in their place."""

from __future__ import annotations

import asyncio
import random
import time

from converge.server.config import ServerConfig
from converge.server.lobby.matchmaking import QueueSettings, QuickMatchQueue, Waiting
from converge.server.lobby.players import Players
from converge.server.lobby.ratings import BOT_RATINGS, closest_bot
from converge.server.lobby.room import LobbyConnection, Spawn
from converge.server.lobby.seating import Ready, Seating
from converge.server.play.match.budget import BudgetExceeded
from converge.server.play.owner.botpool import BotPool
from converge.server.play.process.lifecycle import Lifecycle
from converge.server.protocol.errors import ProtocolError, restarting
from converge.server.protocol.messages import BotOffer, Queued, Unqueued
from converge.server.security.limits import KeyedRateLimit
from converge.server.security.tokens import hash_token, new_token
from converge.server.storage import lobby_store as store

#: The message that says a player is out of the queue.
UNQUEUED: Unqueued = {"type": "unqueued"}


def queue_settings(cfg: ServerConfig) -> QueueSettings:
    return QueueSettings(base_range=cfg.quick_match_range, widen_per_s=cfg.quick_match_widen_per_s,
                         max_range=cfg.quick_match_max_range, bot_after_s=cfg.quick_match_bot_after_s)


class QuickMatch:
    """The quick-match queue of one server process, and the matches it makes."""

    def __init__(self, config: ServerConfig, players: Players, seating: Seating, pool: BotPool, life: Lifecycle,
                 spawn: Spawn) -> None:
        self.config = config
        self.players = players
        self.catalog = seating.catalog
        self.budget = seating.budget
        self.pool = pool
        self.seating = seating
        self.life = life
        self.spawn = spawn
        self.queue = QuickMatchQueue(queue_settings(config))
        #: Queue joins per player.
        self.limit = KeyedRateLimit(config.queue_rate, config.queue_burst)
        self._task: asyncio.Task[None] | None = None

    def join(self, conn: LobbyConnection, clock: object) -> Queued:
        """Put ``conn``'s player in the queue for a match with ``clock`` seconds each (or none)."""
        player = conn.player
        if player is None:
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        if self.life.closing:
            raise restarting()
        if not self.limit.allow(player.id):
            raise ProtocolError("rate_limited", "you joined the queue too often; wait a little")
        self.budget.check(conn.address)  # (a pairing would be refused: it does not wait in the queue)
        clock_ms = self.catalog.check("friend", "random", None, 0, clock).clock_ms
        clock_s = None if clock_ms is None else clock_ms // 1000
        entry = self.queue.join(Waiting(player.id, player.rating.r, clock_s, time.monotonic(), conn,
                                        extra={"player": player}))
        self._ensure_running()
        return {"type": "queued", "clock_s": clock_s, "rating": round(player.rating.r),
                "bot_after_s": self.config.quick_match_bot_after_s,
                "waited_s": round(time.monotonic() - entry.since, 1)}

    def leave(self, conn: LobbyConnection) -> bool:
        """Take ``conn``'s player out of the queue (if it is still this page that waits); whether they were."""
        return conn.player is not None and self.queue.leave(conn.player.id, conn) is not None

    def drop_player(self, player_id: str) -> None:
        """Take a player out of the queue whatever page waits for them (banned by the hosts): that page is told."""
        entry = self.queue.leave(player_id)
        if entry is not None:
            entry.conn.send(UNQUEUED)

    def _ensure_running(self) -> None:
        if self._task is not None and not self._task.done():
            return

        async def run() -> None:
            while len(self.queue) and not self.life.closing:
                await self.step()
                await asyncio.sleep(0.1)

        self._task = self.spawn(run())

    async def step(self, now: float | None = None) -> None:
        """One round of the queue: pair who can be, offer bots to who has waited long enough."""
        pairs, offers = self.queue.step(time.monotonic() if now is None else now)
        for entry in offers:
            bot = closest_bot(entry.rating)
            offer: BotOffer = {"type": "bot_offer", "bot": bot, "bot_rating": round(BOT_RATINGS[bot]),
                               "waited_s": round(self.config.quick_match_bot_after_s, 1)}
            entry.conn.send(offer)
        for a, b in pairs:
            self.spawn(self._start_pair(a, b))

    async def _start_pair(self, a: Waiting, b: Waiting) -> None:
        assert a.player_id != b.player_id
        refused: dict[str, ProtocolError] = {}
        for e in (a, b):
            try:
                await self.players.still_allowed(e.extra["player"], e.conn.cookie_hash)
            except ProtocolError as exc:
                refused[e.player_id] = exc
        if refused:
            for e in (a, b):
                if e.player_id in refused:  # out of the queue, told why
                    e.conn.send(UNQUEUED)
                    e.conn.refuse(refused[e.player_id])
                elif not e.conn.closed:  # the other waits on, in their place
                    self.queue.join(e)
            self._ensure_running()
            return
        first = random.SystemRandom().randrange(2)
        seat_of = {a.player_id: first, b.player_id: 1 - first}
        tokens = {a.player_id: new_token(), b.player_id: new_token()}
        seats: dict[int, tuple[str | None, str]] = {
            seat_of[e.player_id]: (e.player_id, hash_token(tokens[e.player_id])) for e in (a, b)}
        try:
            names = self.catalog.check("friend", "random", None, 0, None).playset
            session, started = await self.seating.make_match(
                seats=seats, playset=names, clock_ms=None if a.clock_s is None else a.clock_s * 1000, rated=True,
                kind="quick", payers=[a.conn.address, b.conn.address])
        except BudgetExceeded as exc:
            for e in (a, b):
                if e.conn.address in exc.refused:  # out of the queue: told why
                    e.conn.send(UNQUEUED)
                    e.conn.refuse(exc)
                elif not e.conn.closed:  # unharmed: back in the queue in its place, nothing to tell
                    self.queue.join(e)
            self._ensure_running()
            return
        except ProtocolError as exc:
            for e in (a, b):  # back in the queue, in their places
                if not e.conn.closed:
                    self.queue.join(e)
                    e.conn.refuse(ProtocolError(exc.code, "the match could not be created; you are still in the "
                                                          "queue"))
            self._ensure_running()
            return
        for me, them in ((a, b), (b, a)):
            other: store.Player = them.extra["player"]
            ready = Ready(session.id, seat_of[me.player_id], tokens[me.player_id])
            me.conn.send(ready.message({**other.public(), "name": started.get(seat_of[them.player_id])}))

    async def accept_bot(self, conn: LobbyConnection) -> Ready:
        """Take the bot offered to ``conn``'s player: a rated match against it starts now."""
        player = conn.player
        if player is None:
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        entry = self.queue.waiting.get(player.id)
        if entry is None or not entry.offered:
            raise ProtocolError("no_offer", "no bot was offered to you: join the queue and wait a little")
        self.queue.leave(player.id)
        bot = closest_bot(entry.rating)
        token = new_token()
        seat = random.SystemRandom().randrange(2)
        names = self.catalog.check("friend", "random", None, 0, None).playset
        if self.pool.full:
            self.queue.join(entry)
            raise ProtocolError("busy", "every bot on this server is thinking: stay in the queue, or try again")
        try:
            session, _names = await self.seating.make_match(
                seats={seat: (player.id, hash_token(token))}, playset=names,
                clock_ms=None if entry.clock_s is None else entry.clock_s * 1000, rated=True, kind="quick",
                payers=[conn.address], bot=bot)
        except BudgetExceeded:
            conn.send(UNQUEUED)  # out of the queue: no match can be stored for it now
            raise
        except ProtocolError:
            self.queue.join(entry)
            raise
        return Ready(session.id, seat, token)
