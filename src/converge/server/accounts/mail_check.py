"""A test mail, for the hosts (``converge admin mail-test ADDRESS``): sent through the mailer the server
runs with, its settings as the process has them, and the answer says where it went or exactly what failed
(:func:`converge.server.accounts.mailer.smtp_failure`)."""

from __future__ import annotations

import socket
import time

from converge.server.accounts.addresses import check_email
from converge.server.accounts.mailer import FolderMailer, Mail, Mailer, MailError, SmtpMailer
from converge.server.protocol.answers import MailTested

SUBJECT = "Converge: a test mail"


def _body(public_url: str | None) -> str:
    return ("This is a test mail from the Converge server"
            f"{f' at {public_url}' if public_url else ''} (host {socket.gethostname()}), sent by its hosts with "
            "`converge admin mail-test` at "
            f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}.\n\n"
            "If it reached the inbox, players' sign-in links will too. If it is in the spam folder, see "
            "\"Mail that arrives\" in the hosting guide: SPF, DKIM and DMARC.\n")


async def send_test_mail(mailer: Mailer, raw_to: object, public_url: str | None) -> MailTested:
    """Send a test mail to ``raw_to`` (a ProtocolError ``bad_email`` if it is no address); whether it was handed
    over, and where, or why not. A server with no SMTP server writes it to its mail folder: not sent."""
    to = check_email(raw_to)
    via = mailer.describe() if isinstance(mailer, (SmtpMailer, FolderMailer)) else type(mailer).__name__
    mail = Mail(to, SUBJECT, _body(public_url))
    if isinstance(mailer, FolderMailer):
        path = await mailer.deliver(mail)
        return {"sent": False, "to": to, "via": via,
                "failure": f"the server has no SMTP server (accounts.smtp, --smtp): the mail was written to "
                           f"{path}, not sent"}
    try:
        await mailer.send(mail)
    except MailError as exc:
        return {"sent": False, "to": to, "via": via, "failure": str(exc)}
    return {"sent": True, "to": to, "via": via, "failure": None}
