"""Sending mail: through an SMTP server (``converge serve --smtp smtp://user:password@host:587``; ``smtps://``
for TLS from the start, ``smtp://`` upgraded with STARTTLS when the server offers it), or, on a server with
none, written as files to a folder (a local set-up: the operator opens the sign-in link there). Never to the
log: a sign-in link is as good as the account, and logs are read by more people and kept longer.

A mail is built by :class:`Mail` with the standard library's :mod:`email` package, which refuses a header
with a line break, so no address or subject can add a header. Sending runs in a thread, never on the
event loop."""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import smtplib
import ssl
import time
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

log = logging.getLogger("converge.server.mail")

#: Seconds an SMTP conversation may take.
SMTP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Mail:
    """One mail, plain text."""

    to: str
    subject: str
    body: str

    def message(self, sender: str) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = self.to
        msg["Subject"] = self.subject
        msg["Date"] = formatdate(localtime=False)
        msg["Message-ID"] = make_msgid(domain=sender.rsplit("@", 1)[-1].strip(">") or "localhost")
        msg.set_content(self.body)
        return msg


class Mailer(Protocol):
    async def send(self, mail: Mail) -> None:
        """Send ``mail``, or raise :class:`MailError`."""


class MailError(Exception):
    """The mail could not be handed over (the SMTP server refused it, or could not be reached)."""


@dataclass(frozen=True)
class SmtpSettings:
    """Where mail goes: parsed from an ``smtp://`` or ``smtps://`` URL."""

    host: str
    port: int
    tls: bool  #: TLS from the start (smtps); otherwise STARTTLS when offered
    user: str | None
    password: str | None

    @classmethod
    def parse(cls, url: str) -> SmtpSettings:
        """``smtp://[user:password@]host[:port]`` (port 587 by default) or ``smtps://...`` (465); a
        ValueError that says what is wrong otherwise.

        >>> SmtpSettings.parse("smtp://mail.example.org")
        SmtpSettings(host='mail.example.org', port=587, tls=False, user=None, password=None)
        >>> SmtpSettings.parse("smtps://ada:s%40cret@mail.example.org:2465").password
        's@cret'
        """
        parts = urlsplit(url)
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError("an SMTP server is smtp://[user:password@]host[:port] or smtps://...")
        try:
            port = parts.port or (465 if parts.scheme == "smtps" else 587)
        except ValueError:
            raise ValueError("the SMTP server's port is a number from 1 to 65535") from None
        return cls(parts.hostname, port, parts.scheme == "smtps",
                   unquote(parts.username) if parts.username else None,
                   unquote(parts.password) if parts.password else None)


class SmtpMailer:
    """Mail through an SMTP server."""

    def __init__(self, settings: SmtpSettings, sender: str) -> None:
        self.settings = settings
        self.sender = sender

    async def send(self, mail: Mail) -> None:
        await asyncio.to_thread(self._send, mail.message(self.sender))

    def _send(self, msg: EmailMessage) -> None:
        s = self.settings
        try:
            if s.tls:
                smtp: smtplib.SMTP = smtplib.SMTP_SSL(s.host, s.port, timeout=SMTP_TIMEOUT_S,
                                                      context=ssl.create_default_context())
            else:
                smtp = smtplib.SMTP(s.host, s.port, timeout=SMTP_TIMEOUT_S)
            with smtp:
                smtp.ehlo()
                if not s.tls and smtp.has_extn("starttls"):
                    smtp.starttls(context=ssl.create_default_context())
                    smtp.ehlo()
                if s.user is not None:
                    smtp.login(s.user, s.password or "")
                smtp.send_message(msg)
        except (OSError, smtplib.SMTPException) as exc:
            raise MailError(f"{s.host}:{s.port}: {exc}") from None


class FolderMailer:
    """No SMTP server: each mail is written to ``folder`` as a file (``.eml``, only its owner may read it), for
    the operator of a local server; the log says where, not what."""

    def __init__(self, folder: Path, sender: str) -> None:
        self.folder = folder
        self.sender = sender

    async def send(self, mail: Mail) -> None:
        path = await asyncio.to_thread(self._write, mail)
        log.warning("no SMTP server (converge serve --smtp): the mail to %s, %r, is in %s",
                    masked_address(mail.to), mail.subject, path)

    def _write(self, mail: Mail) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{secrets.token_hex(4)}.eml"
        path, partial = self.folder / name, self.folder / f".{name}.partial"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(bytes(mail.message(self.sender)))
        partial.rename(path)  # whole or not there: whoever watches the folder never opens half a mail
        return path


def masked_address(address: str) -> str:
    """A mail address as a log may show it: ``a…@example.org``."""
    local, sep, domain = address.rpartition("@")
    return f"{local[:1]}…@{domain}" if sep else "…"


def mailer_for(smtp_url: str | None, sender: str, public_url: str | None, folder: Path | None = None) -> Mailer:
    """The mailer of a server's settings; a ValueError that says what is wrong with them. A server that
    mails needs its public address: a link built from a request's Host header could point anywhere."""
    if smtp_url is None:
        return FolderMailer(folder or Path("mail"), sender)
    if not public_url or urlsplit(public_url).scheme not in ("http", "https") or not urlsplit(public_url).netloc:
        raise ValueError("a server that sends mail (--smtp) needs its address as players reach it, "
                         "--public-url https://play.example.org (public_url in a settings file's [accounts]): "
                         "the links in mails start with it")
    return SmtpMailer(SmtpSettings.parse(smtp_url), sender)
