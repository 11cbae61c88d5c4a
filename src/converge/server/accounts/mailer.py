"""Sending mail: through an SMTP server (``converge serve --smtp smtp://user:password@host:587``; ``smtps://``
for TLS from the start, ``smtp://`` upgraded with STARTTLS when the server offers it), or, on a server with
none, written to the server's log (a local set-up: the operator reads the sign-in link there).

A mail is built by :class:`Mail` with the standard library's :mod:`email` package, which refuses a header
with a line break, so no address or subject can add a header. Sending runs in a thread, never on the
event loop."""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
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


class LogMailer:
    """No SMTP server: each mail is written to the server's log, for the operator of a local server."""

    async def send(self, mail: Mail) -> None:
        log.warning("no SMTP server (converge serve --smtp): the mail to %s, %r, is:\n%s", mail.to, mail.subject,
                    mail.body)


def mailer_for(smtp_url: str | None, sender: str, public_url: str | None) -> Mailer:
    """The mailer of a server's settings; a ValueError that says what is wrong with them. A server that
    mails needs its public address: a link built from a request's Host header could point anywhere."""
    if smtp_url is None:
        return LogMailer()
    if not public_url or urlsplit(public_url).scheme not in ("http", "https") or not urlsplit(public_url).netloc:
        raise ValueError("a server that sends mail (--smtp) needs its address as players reach it, "
                         "--public-url https://play.example.org: the links in mails start with it")
    return SmtpMailer(SmtpSettings.parse(smtp_url), sender)
