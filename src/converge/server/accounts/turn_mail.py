""""Your turn" mails for turn-based matches. The move that passes the turn queues its mail in its own
transaction (:func:`converge.server.storage.outbox_store.queue`),
so a move never waits for mail; every server process looks at the queue every few seconds and takes a due
mail with one ``UPDATE`` (:func:`converge.server.storage.outbox_store.take`), so each is sent by one process;
a process that dies holding one lets it go after a lease, and another sends it.

A mail goes ``turn_mail_delay_s`` after the turn passed, to a player who gave an address and asked for these
mails, and only if it is still their turn then: at most one per match per turn. The mails due to one player at
once are one digest. A mail names the opponent and the time left, never a card, and ends with a link that
stops these mails without signing in (signed with the server's secret). A mail that cannot be handed over is
tried again later, then given up."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import Callable

from sqlalchemy import Engine

from converge.server.accounts.mailer import Mail, Mailer, MailError
from converge.server.config import ServerConfig
from converge.server.play.process.lifecycle import Lifecycle, Periodic
from converge.server.protocol.errors import ProtocolError
from converge.server.storage import outbox_store as outbox
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Tx, Writer

log = logging.getLogger("converge.server.mail")

#: Seconds a process holds a mail it took before another may take it; the waits before each next try of a
#: mail that could not be handed over (then it is given up).
LEASE_S = 60.0
RETRY_S = (30.0, 120.0, 600.0, 3600.0)


def time_left(seconds: float) -> str:
    """A deadline's time left, for players.

    >>> time_left(2 * 86400 + 5 * 3600 + 60), time_left(3 * 3600 + 600), time_left(30)
    ('2 days 5 hours', '3 hours 10 minutes', 'less than a minute')
    """
    minutes = int(max(0.0, seconds) // 60)
    days, hours, mins = minutes // 1440, minutes % 1440 // 60, minutes % 60

    def unit(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    if days:
        return unit(days, "day") + (f" {unit(hours, 'hour')}" if hours else "")
    if hours:
        return unit(hours, "hour") + (f" {unit(mins, 'minute')}" if mins else "")
    return unit(mins, "minute") if mins else "less than a minute"


def unsubscribe_token(secret: str, player_id: str) -> str:
    """The token of a player's link that stops their "your turn" mails."""
    return hmac.new(secret.encode(), f"unsubscribe:{player_id}".encode(), hashlib.sha256).hexdigest()[:40]


class TurnMails:
    """Sends the due "your turn" mails of this server process."""

    def __init__(self, config: ServerConfig, engine: Engine, writer: Writer, mailer: Mailer,
                 now: Callable[[], float], life: Lifecycle) -> None:
        self.config = config
        self.engine = engine
        self.writer = writer
        self.mailer = mailer
        self.now = now
        self._secret: str | None = None
        self._periodic = Periodic("turn_mails", "turn mails", config.turn_mail_every_s, self.send_due, life)

    async def secret(self) -> str:
        if self._secret is None:
            found: list[str] = []
            await self.writer.write(lambda conn: found.append(outbox.secret(conn)))
            self._secret = found[0]
        return self._secret

    async def send_due(self) -> int:
        """Take and send the mails due now; returns how many mails went (a digest counts once)."""
        now = self.now()
        due = await asyncio.to_thread(outbox.due, self.engine, now)
        taken: list[tuple[str, int]] = []

        def take(conn: Tx) -> None:  # (all in one transaction; each mail taken or left to another process)
            taken.extend((mid, idx) for mid, idx in due if outbox.take(conn, mid, idx, now, LEASE_S))

        if due:
            await self.writer.write(take)
        found = [await asyncio.to_thread(outbox.facts, self.engine, mid, idx) for mid, idx in taken]
        skipped = [(f.match_id, f.idx) for f in found if f.email is None or f.deadline is None]
        if skipped:
            await self._end(skipped, "skipped", now)
        by_player: dict[tuple[str, str], list[outbox.TurnMail]] = {}
        for f in found:
            if f.email is not None and f.player_id is not None and f.deadline is not None:
                by_player.setdefault((f.player_id, f.email), []).append(f)
        sent = 0
        for (pid, email), mails in by_player.items():
            keys = [(f.match_id, f.idx) for f in mails]
            try:
                await self.mailer.send(await self._mail(pid, email, mails, now))
            except MailError as exc:
                log.error("a turn mail to %s not sent: %s", email, exc)
                await self._again(keys, now)
                continue
            await self._end(keys, "sent", now)
            sent += 1
        return sent

    async def _mail(self, player_id: str, email: str, mails: list[outbox.TurnMail], now: float) -> Mail:
        base = (self.config.public_url or "").rstrip("/")
        stop = f"{base}/unsubscribe#p={player_id}&t={unsubscribe_token(await self.secret(), player_id)}"
        footer = ("\n\nYou get this mail because you asked to be told when it is your turn in a turn-based match "
                  f"(and when your next match of a turn-based event is ready). To stop these mails (no sign-in "
                  f"needed): {stop}\n")

        def line(f: outbox.TurnMail) -> str:
            assert f.deadline is not None
            who = f.opponent or ("your opponent" if f.event else "your friend")
            where = f" ({f.event})" if f.event else ""
            if f.ready:
                return (f"against {who}{where}: your match is ready; {who} moves first, and you will be told when "
                        f"it is your turn. See it: {base}/m/{f.match_id}")
            return f"against {who}{where}: {time_left(f.deadline - now)} left to move. Play: {base}/m/{f.match_id}"

        if len(mails) == 1:
            mail = mails[0]
            who = mail.opponent or ("your opponent" if mail.event else "your friend")
            if mail.event is not None:
                assert mail.deadline is not None
                link = f"{base}/m/{mail.match_id}"
                left = time_left(mail.deadline - now)
                body = (f"{who} moves first, and you will be told when it is your turn. See it: {link}"
                        if mail.ready else f"it is your turn, {left} left to move. Play: {link}")
                return Mail(email, f"Your match in {mail.event} is ready" + ("" if mail.ready else ": your turn")
                            + " — Converge", f"Your match in {mail.event} against {who} is ready: {body}{footer}")
            return Mail(email, f"Your turn against {who} — Converge",
                        f"It is your turn in your turn-based match {line(mail)}{footer}")
        lines = "\n".join(f"- {line(f)}" for f in sorted(mails, key=lambda f: (f.ready, f.deadline or 0.0)))
        turns = sum(1 for f in mails if not f.ready)
        if not turns:
            return Mail(email, f"{len(mails)} matches are ready — Converge",
                        f"Your next matches of turn-based events are ready:\n\n{lines}{footer}")
        also = "" if turns == len(mails) else ", then the matches of events that are ready"
        return Mail(email, f"Your turn in {turns} {'match' if turns == 1 else 'matches'} — Converge",
                    f"It is your turn in {turns} turn-based {'match' if turns == 1 else 'matches'}, the nearest "
                    f"deadline first{also}:\n\n{lines}{footer}")

    async def _end(self, keys: list[tuple[str, int]], outcome: str, now: float) -> None:
        def write(conn: Tx) -> None:
            for mid, idx in keys:
                outbox.done(conn, mid, idx, outcome, now)

        await self.writer.write(write)

    async def _again(self, keys: list[tuple[str, int]], now: float) -> None:
        def write(conn: Tx) -> None:
            for mid, idx in keys:
                outbox.again(conn, mid, idx, now, RETRY_S)

        await self.writer.write(write)

    async def unsubscribe(self, player_id: object, token: object) -> None:
        """Stop a player's "your turn" mails, from the link in one (``bad_sign_in`` for a link not ours)."""
        if not isinstance(player_id, str) or not isinstance(token, str) or not hmac.compare_digest(
                token, unsubscribe_token(await self.secret(), player_id)):
            raise ProtocolError("bad_sign_in", "this link is not one of ours (or it was cut short): copy it whole")
        try:
            await self.writer.write(lambda conn: outbox.set_turn_mails(conn, player_id, False))
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; try again") from None

    def start(self) -> None:
        """Look at the queue every ``turn_mail_every_s`` seconds while the server runs."""
        self._periodic.start()

    async def stop(self) -> None:
        task = self._periodic.stop()
        if task is not None:
            with contextlib.suppress(BaseException):
                await task
