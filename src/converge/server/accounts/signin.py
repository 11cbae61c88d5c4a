"""Signing in by an emailed link, so that a player's name, rating and history follow them to every device;
anonymous play stays as it is (a player is a browser's cookie until they give an address).

* **Asking** (:meth:`Accounts.request`): the address is checked, then the per-client and per-address limits;
  a refused request stores nothing and mails nothing. A link holds a single-use token of 256 random bits,
  valid for ``sign_in_minutes``; the database keeps only its SHA-256 hash, and the token lives nowhere
  else but in the mail. The link remembers the player of the browser that asked (if it is one). The answer
  is the same whether or not the address has an account. A player who signs in with an address already asks
  for links to that one only.
* **Following the link** (:meth:`Accounts.verify`, from the page ``/signin#token=...``; the fragment never
  reaches the server's logs): the token is spent in the transaction that signs the browser it is opened in
  to the account's player — the address's player, if it has one; else the player who asked, who takes the
  address (keeping their name, rating and history); else, asked by a browser that was no player yet, the
  opening browser's own player, or a new one. The account is always the asker's or the address's: opening
  a link never moves the address to the opening browser's player, nor turns the asker into anyone else.
  Opened again in a browser it signed in already, a spent link just says so. A browser whose own player
  would be left behind for good (no address to come back with, and a name or matches to lose) is asked
  first (``would_leave``; nothing is spent): it signs in only when the page says so (``leave``).
* **Signing out** (this browser), **everywhere** (every device: each signs in again by a link; its keys to
  the player's seats are revoked too, :meth:`.service.AccountService.sign_out_everywhere`) and **deleting the
  account** (the address, the names and the devices; the matches stay in the others' histories, played by
  "Anonymous")."""

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
from converge.server.storage.database import Refused, StorageError
from converge.server.storage.writer import Tx, Writer

log = logging.getLogger("converge.server.accounts")

#: Seconds between the tries of a mail that could not be handed over, and how many tries in all.
RETRY_S = (5.0, 30.0, 120.0)

Spawn = Callable[[Coroutine[Any, Any, None]], Any]


def sign_in_mail(to: str, link: str, minutes: int, name: str | None = None) -> Mail:
    """The mail of a sign-in link, naming the player it signs in as if they have a name (nothing about any
    match or card)."""
    who = f" as {name}" if name else ""
    return Mail(to, "Sign in to Converge",
                f"To sign in to Converge{who} on a device, open this link on it:\n\n{link}\n\n"
                f"It works once, within {minutes} minutes. Your name, rating and matches come with you.\n\n"
                "If you did not ask to sign in, ignore this mail: nothing changes until the link is opened.\n")


class _WouldLeave(Refused):
    """Signing in would leave the browser's own player (``name``) behind for good, for the link's (``target``;
    None: anonymous or new); nothing written."""

    def __init__(self, name: str | None, target: str | None) -> None:
        super().__init__("the browser's player would be left behind")
        self.name, self.target = name, target


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

    async def request(self, raw_email: object, client: str, base_url: str, cookie: str | None = None) -> int:
        """Mail a sign-in link to the address, for the browser whose cookie is ``cookie``; returns the minutes it
        is valid for. ``base_url``: this server's address as the browser sees it (the link's start), unless
        ``public_url`` is set."""
        email = check_email(raw_email)
        asker = await self.players.player_of(cookie)
        own = await self.email_of(asker)
        if own is not None and own != email:
            raise ProtocolError("bad_email", f"you sign in with {own} already: a link to it signs in any device "
                                             "to you")
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

        name: list[str | None] = [None]

        def add(conn: Tx) -> None:
            accounts.add_sign_in(conn, hash_token(token), email, asker.id if asker else None, now,
                                 now + minutes * 60)
            owner = accounts.player_id_by_email(conn, email)
            name[0] = accounts.name_of(conn, owner) if owner else asker.name if asker else None

        try:
            await self.writer.write(add)
        except StorageError:
            raise ProtocolError("storage", "the sign-in link could not be made; try again") from None
        link = f"{(self.config.public_url or base_url).rstrip('/')}/signin#token={token}"
        self.spawn(self._deliver(sign_in_mail(email, link, minutes, name[0])))
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

    async def verify(self, raw_token: object, cookie: str | None,
                     leave: bool = False) -> tuple[store.Player, str | None]:
        """Spend a sign-in link's token and sign this browser in to the account's player (see the module doc);
        returns the player and, when the browser's cookie changes, its new token. ``bad_sign_in`` for a token
        that is not a link's, used or expired; ``would_leave`` (nothing spent) when the browser's own player
        would be left behind for good, unless ``leave``."""
        if not isinstance(raw_token, str) or not TOKEN_RE.match(raw_token):
            raise ProtocolError("bad_sign_in", "this sign-in link is not valid: ask for a new one")
        digest = hash_token(raw_token)
        current = await self.players.player_of(cookie)
        device = issue_token()
        new_id = new_match_id()
        chosen: list[tuple[str, bool]] = []  # (player id, whether the cookie changes)

        def sign_in(conn: Tx) -> None:
            now = time.time()
            link = accounts.sign_in_of(conn, digest, now)
            owner = accounts.player_id_by_email(conn, link.email)
            here = None if current is None else current.id
            if link.used:  # opened again in the browser it signed in: nothing to do; anywhere else: spent
                if owner is None or owner != here:
                    raise accounts.BadSignIn()
                chosen.append((owner, False))
                return
            asker = link.asker_id if link.asker_id and accounts.is_player(conn, link.asker_id) else None
            if owner is None and asker is None and here and accounts.email_of_player(conn, here) is None:
                asker = here  # (asked by no player: the opening browser's own player takes the address)
            target = owner or asker
            if here is not None and target != here and not leave \
                    and accounts.email_of_player(conn, here) is None and accounts.has_played(conn, here):
                raise _WouldLeave(current.name if current is not None else None,
                                  accounts.name_of(conn, target) if target is not None else None)
            accounts.use_sign_in(conn, digest, now)
            changes = target is None or target != here
            if target is None:  # asked by no player, opened by none: a new player
                target = new_id
                store.create_player(conn, target, device.token_hash)
            elif changes:
                accounts.add_device(conn, target, device.token_hash)
            if owner is None and accounts.email_of_player(conn, target) is None:
                accounts.set_email(conn, target, link.email)
            chosen.append((target, changes))

        try:
            await self.writer.write(sign_in)
        except accounts.BadSignIn:
            raise ProtocolError("bad_sign_in", "this sign-in link was used already, has expired or is not one of "
                                               "ours: ask for a new one") from None
        except _WouldLeave as exc:
            who, them = exc.name or "an anonymous player", exc.target or "the link's player"
            raise ProtocolError("would_leave", f"this browser plays as {who}, who has no mail address: signing it "
                                               f"in as {them} would leave {who} behind for good, with their "
                                               "matches") from None
        except StorageError:
            raise ProtocolError("storage", "could not sign in now; try the link again") from None
        pid, changed = chosen[0]
        player = await asyncio.to_thread(store.player_by_id, self.engine, pid)
        if player is None:  # (deleted in between)
            raise ProtocolError("bad_sign_in", "this account was deleted")
        return player, device.token if changed else None

    async def signed_in(self, cookie: str | None) -> tuple[store.Player, str]:
        """The player the cookie holds, signed in with an address, and the cookie's hash (``no_player`` if
        not: signing out would lose them for good)."""
        player = await self.players.need_player(cookie)
        digest = token_hash_of(cookie)
        if digest is None:  # (need_player found the player by it)
            raise ProtocolError("no_player", "choose a name (or play anonymously) first")
        if await asyncio.to_thread(accounts.email_of, self.engine, player.id) is None:
            raise ProtocolError("no_player", "this browser is not signed in with a mail address: signing out "
                                             "would lose your name, rating and matches for good")
        return player, digest

    async def sign_out(self, cookie: str | None) -> None:
        """Sign this browser out (every device:
        :meth:`converge.server.accounts.service.AccountService.sign_out_everywhere`)."""
        player, digest = await self.signed_in(cookie)
        await self._write(lambda conn: accounts.sign_out(conn, player.id, digest))

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

    async def _write(self, fn: Callable[[Tx], None]) -> None:
        try:
            await self.writer.write(fn)
        except StorageError:
            raise ProtocolError("storage", "that could not be saved now; try again") from None
