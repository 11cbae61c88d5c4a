"""The accounts of one server process, beside the lobby: sign-in links (:mod:`.signin`), the "your turn" mails
(:mod:`.turn_mail`), and signing a player out of every device, which reaches into the lobby's seats, queue and
tables. Accounts stand on the lobby's players; the lobby knows nothing of accounts."""

from __future__ import annotations

import time

from converge.server.accounts.mailer import mailer_for
from converge.server.accounts.signin import Accounts
from converge.server.accounts.turn_mail import TurnMails
from converge.server.lobby.service import Lobby
from converge.server.play.hub import Hub
from converge.server.storage import accounts_store, moderation_store
from converge.server.storage.writer import Tx


class AccountService:
    """Sign-in links, turn mails and signing out everywhere, for one server process."""

    def __init__(self, hub: Hub, lobby: Lobby) -> None:
        cfg, engine, writer = hub.config, hub.storage.engine, hub.writer
        mailer = mailer_for(cfg.smtp_url, cfg.mail_from, cfg.public_url, cfg.resolved_mail_dir())
        self.lobby = lobby
        #: The server's mailer (a host's test mail goes through it: ``converge admin mail-test``).
        self.mailer = mailer
        self.links = Accounts(cfg, engine, writer, lobby.players, mailer, lobby.spawn)
        self.turn_mails = TurnMails(cfg, engine, writer, mailer, hub.wall, hub.life)

    async def sign_out_everywhere(self, cookie: str | None) -> None:
        """Sign every device of the caller's player out, in one transaction: their browsers' tokens, the tokens
        and keys to their seats in every match (the match's connections holding one are closed, here and, told
        by the database, in every other process) and their open tables; they leave the quick-match queue. Each
        device signs in again by a link, and gets a new key to each seat it plays."""
        player, _digest = await self.links.signed_in(cookie)
        at = time.time()
        closed: list[str] = []

        def write(conn: Tx) -> list[str]:
            accounts_store.sign_out_everywhere(conn, player.id)
            closed[:] = moderation_store.open_tables_of(conn, player.id, at)
            return accounts_store.revoke_seats(conn, player.id)

        lobby = self.lobby
        await lobby.seating.revoke(write)
        lobby.quick.drop_player(player.id)
        if closed:
            await lobby.room.refresh()

    def start(self) -> None:
        """Start sending the "your turn" mails."""
        self.turn_mails.start()

    async def close(self) -> None:
        await self.turn_mails.stop()
