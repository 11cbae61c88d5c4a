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
import socket
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
            raise MailError(smtp_failure(s, exc)) from None

    def describe(self) -> str:
        """Where mail goes, for the hosts (never the password)."""
        s = self.settings
        how = "TLS" if s.tls else "STARTTLS when offered"
        return f"the SMTP server {s.host}:{s.port} ({how}{f', as {s.user}' if s.user else ', no login'})"


def _reply(exc: smtplib.SMTPResponseException) -> str:
    """An SMTP server's answer: its code and its text."""
    text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
    return f"{exc.smtp_code} {' '.join(text.split())}"


def smtp_failure(s: SmtpSettings, exc: BaseException) -> str:
    """Why a mail could not be handed to the SMTP server, in one line that says which step failed: reaching it,
    TLS, the login, the sender, the recipient, or the message.

    >>> smtp_failure(SmtpSettings("mail.example.org", 587, False, None, None), ConnectionRefusedError(111, "x"))
    'mail.example.org:587 refused the connection: no SMTP server listens there (is the port right?)'
    """
    where = f"{s.host}:{s.port}"
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return f"{where} refused the login as {s.user}: {_reply(exc)} (the user name or password is wrong)"
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return f"{where} does not offer what was asked ({exc}): a login needs a server that offers AUTH, often " \
               "only after STARTTLS or on smtps://"
    if isinstance(exc, smtplib.SMTPSenderRefused):
        return f"{where} refused the sender {exc.sender}: {_reply(exc)} (is the sender an address the server " \
               "may send for? --mail-from)"
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        refused = "; ".join(f"{to}: {code} {text.decode('utf-8', 'replace') if isinstance(text, bytes) else text}"
                            for to, (code, text) in exc.recipients.items())
        return f"{where} refused the recipient: {refused}"
    if isinstance(exc, smtplib.SMTPDataError):
        return f"{where} refused the message: {_reply(exc)}"
    if isinstance(exc, smtplib.SMTPConnectError):
        return f"{where} answered but refused to talk: {_reply(exc)}"
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return f"{where} closed the connection: {exc or 'without a word'} (smtp:// on a port that expects TLS? " \
               "port 465 is smtps://)"
    if isinstance(exc, smtplib.SMTPResponseException):
        return f"{where} answered {_reply(exc)}"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"TLS with {where} failed: its certificate is not valid for {s.host} ({exc.verify_message})"
    if isinstance(exc, ssl.SSLError):
        return f"TLS with {where} failed: {exc.reason or exc} (smtps:// on a port that speaks plain SMTP? port " \
               "465 is smtps://, 587 is smtp://)"
    if isinstance(exc, ConnectionRefusedError):
        return f"{where} refused the connection: no SMTP server listens there (is the port right?)"
    if isinstance(exc, socket.gaierror):
        return f"cannot find the host {s.host}: {exc.strerror or exc}"
    if isinstance(exc, TimeoutError):
        return f"{where} did not answer within {SMTP_TIMEOUT_S:.0f} s (a firewall on the way? many hosts block " \
               "outgoing port 25)"
    if isinstance(exc, OSError):
        return f"cannot reach {where}: {exc.strerror or exc}"
    return f"{where}: {exc}"


class FolderMailer:
    """No SMTP server: each mail is written to ``folder`` as a file (``.eml``, only its owner may read it), for
    the operator of a local server; the log says where, not what."""

    def __init__(self, folder: Path, sender: str) -> None:
        self.folder = folder
        self.sender = sender

    async def send(self, mail: Mail) -> None:
        await self.deliver(mail)

    async def deliver(self, mail: Mail) -> Path:
        """:meth:`send`, and the file the mail is in."""
        path = await asyncio.to_thread(self._write, mail)
        log.warning("no SMTP server (converge serve --smtp): the mail to %s, %r, is in %s",
                    masked_address(mail.to), mail.subject, path)
        return path

    def describe(self) -> str:
        return f"no SMTP server: files in {self.folder}"

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
