"""Signing in by an emailed link, so that a player's name, rating and history follow them to every device;
anonymous play stays as it is (a player is a browser's cookie until they give an address).

* **Asking** (:meth:`Accounts.request`): the address is checked, then the per-client and per-address limits;
  a refused request stores nothing and mails nothing. A link holds a single-use token of 256 random bits,
  valid for ``sign_in_minutes``; the database keeps only its SHA-256 hash, and the token lives nowhere
  else but in the mail. The answer is the same whether or not the address has an account.
* **Following the link** (:meth:`Accounts.verify`, from the page ``/signin#token=...``; the fragment never
  reaches the server's logs): the token is spent in the transaction that signs the browser in — to the
  address's player, who gains a device; or, for an address new here, to the browser's own player (who keeps
  their name, rating and history), or to a new player.
* **Signing out** (this browser), **everywhere** (every device: each signs in again by a link) and
  **deleting the account** (the address, the names and the devices; the matches stay in the others'
  histories, played by "Anonymous")."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from sqlalchemy import Engine

from converge.server.accounts.addresses import check_email
from converge.server.accounts.mailer import Mail, Mailer, MailError
from converge.server.config import ServerConfig
from converge.server.lobby.identity import issue_token, token_hash_of
from converge.server.lobby.players import Players
from converge.server.protocol.errors import ProtocolError
from converge.server.security.limits import KeyedRateLimit
from converge.server.security.tokens import TOKEN_RE, hash_token, new_match_id, new_token
from converge.server.storage import accounts_store as accounts
from converge.server.storage import lobby_store as store
from converge.server.storage import outbox_store as outbox
from converge.server.storage.database import StorageError
from converge.server.storage.writer import Writer

log = logging.getLogger("converge.server.accounts")

#: Seconds between the tries of a mail that could not be handed over, and how many tries in all.
RETRY_S = (5.0, 30.0, 120.0)

Spawn = Callable[[Coroutine[Any, Any, None]], Any]


def sign_in_mail(to: str, link: str, minutes: int) -> Mail:
    """The mail of a sign-in link (nothing about any match or card)."""
    return Mail(to, "Sign in to Converge",
                f"To sign in to Converge on this device, open this link:\n\n{link}\n\n"
                f"It works once, within {minutes} minutes. Your name, rating and matches come with you.\n\n"
                "If you did not ask to sign in, ignore this mail: nothing changes until the link is opened.\n")


class Accounts:
    """Sign-in links, the devices they sign in, signing out and deleting an account."""

    def __init__(self, config: ServerConfig, engine: Engine, writer: Writer, players: Players, mailer: Mailer,
                 spawn: Spawn) -> None:
        self.config = config
        self.engine = engine
        self.writer = writer
        self.players = players
        self.mailer = mailer
        self.spawn = spawn
        hour = 3600.0
        self.per_client = KeyedRateLimit(config.sign_ins_per_client_hour / hour, config.sign_ins_per_client_hour,
                                         max_keys=100_000)
        self.per_address = KeyedRateLimit(config.sign_ins_per_address_hour / hour,
                                          config.sign_ins_per_address_hour, max_keys=100_000)

    async def request(self, raw_email: object, client: str, base_url: str) -> int:
        """Mail a sign-in link to the address; returns the minutes it is valid for. ``base_url``: this
        server's address as the browser sees it (the link's start), unless ``public_url`` is set."""
        email = check_email(raw_email)
        if not self.per_address.available(email):
            raise ProtocolError("rate_limited", "a sign-in link was mailed to that address a short while ago: "
                                                "use it, or ask again later")
        if not self.per_client.allow(client):
            raise ProtocolError("rate_limited", "too many sign-in links asked for from your address; try again "
                                                "later")
        self.per_address.allow(email)
        minutes = max(1, round(self.config.sign_in_minutes))
        token = new_token()
        now = time.time()

        def add(conn: Any) -> None:
            accounts.add_sign_in(conn, hash_token(token), email, now, now + minutes * 60)

        try:
            await self.writer.write(add)
        except StorageError:
            raise ProtocolError("storage", "the sign-in link could not be made; try again") from None
        link = f"{(self.config.public_url or base_url).rstrip('/')}/signin#token={token}"
        self.spawn(self._deliver(sign_in_mail(email, link, minutes)))
        return minutes

    async def _deliver(self, mail: Mail) -> None:
        for attempt, wait in enumerate((0.0, *RETRY_S)):
            await asyncio.sleep(wait)
            try:
                await self.mailer.send(mail)
                return
            except MailError as exc:  # (the log names the address and the error, never the link)
                log.error("sign-in mail to %s not sent (try %d of %d): %s", mail.to, attempt + 1, len(RETRY_S) + 1,
                          exc)

    async def verify(self, raw_token: object, cookie: str | None) -> tuple[store.Player, str | None]:
        """Spend a sign-in link's token and sign this browser in; returns the player and, when the browser's
        cookie changes, its new token. ``bad_sign_in`` for a token that is not a link's, used or expired."""
        if not isinstance(raw_token, str) or not TOKEN_RE.match(raw_token):
            raise ProtocolError("bad_sign_in", "this sign-in link is not valid: ask for a new one")
        current = await self.players.player_of(cookie)
        current_email = await asyncio.to_thread(accounts.email_of, self.engine, current.id) if current else None
        device = issue_token()
        new_id = new_match_id()
        chosen: list[tuple[str, bool]] = []  # (player id, whether the cookie changes)

        def sign_in(conn: Any) -> None:
            email = accounts.use_sign_in(conn, hash_token(raw_token), time.time())
            owner = accounts.player_id_by_email(conn, email)
            if owner is not None and current is not None and owner == current.id:
                chosen.append((owner, False))
            elif owner is not None:
                accounts.add_device(conn, owner, device.token_hash)
                chosen.append((owner, True))
            elif current is not None and current_email is None:  # this browser's player takes the address
                accounts.set_email(conn, current.id, email)
                chosen.append((current.id, False))
            else:
                store.create_player(conn, new_id, device.token_hash, None, None)
                accounts.set_email(conn, new_id, email)
                chosen.append((new_id, True))

        try:
            await self.writer.write(sign_in)
        except accounts.BadSignIn:
            raise ProtocolError("bad_sign_in", "this sign-in link was used already, has expired or is not one of "
                                               "ours: ask for a new one") from None
        except StorageError:
            raise ProtocolError("storage", "could not sign in now; try the link again") from None
        pid, changed = chosen[0]
        player = await asyncio.to_thread(store.player_by_id, self.engine, pid)
        if player is None:  # (deleted in between)
            raise ProtocolError("bad_sign_in", "this account was deleted")
        return player, device.token if changed else None

    async def _signed_in(self, cookie: str | None) -> tuple[store.Player, str]:
        player = await self.players.need_player(cookie)
        digest = token_hash_of(cookie)
        if digest is None:  # (need_player found the player by it)
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        if await asyncio.to_thread(accounts.email_of, self.engine, player.id) is None:
            raise ProtocolError("no_player", "this browser is not signed in with a mail address: signing out "
                                             "would lose your name, rating and matches for good")
        return player, digest

    async def sign_out(self, cookie: str | None, everywhere: bool = False) -> None:
        """Sign this browser out (``everywhere``: every device of the player)."""
        player, digest = await self._signed_in(cookie)

        def write(conn: Any) -> None:
            if everywhere:
                accounts.sign_out_everywhere(conn, player.id)
            else:
                accounts.sign_out(conn, player.id, digest)

        await self._write(write)

    async def delete(self, cookie: str | None) -> None:
        """Delete the caller's account: what is personal of it is gone, and no browser names it any more."""
        player = await self.players.need_player(cookie)
        await self._write(lambda conn: accounts.forget_player(conn, player.id))

    async def email_of(self, player: store.Player | None) -> str | None:
        """The address the player signs in with (only ever told to the player themselves)."""
        return None if player is None else await asyncio.to_thread(accounts.email_of, self.engine, player.id)

    async def set_turn_mails(self, cookie: str | None, on: bool) -> None:
        """Whether the caller is mailed when it is their turn in a turn-based match (they need an address)."""
        player = await self.players.need_player(cookie)
        if on and await self.email_of(player) is None:
            raise ProtocolError("no_player", "give a mail address first (sign in on other devices): the mails go "
                                             "there")
        await self._write(lambda conn: outbox.set_turn_mails(conn, player.id, on))

    async def turn_mails(self, player: store.Player | None) -> bool:
        return player is not None and await asyncio.to_thread(outbox.turn_mails_on, self.engine, player.id)

    async def _write(self, fn: Callable[[Any], None]) -> None:
        try:
            await self.writer.write(fn)
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; try again") from None
