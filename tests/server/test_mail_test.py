"""``converge admin mail-test ADDRESS`` (issue 46): a test mail through the mailer the server runs with, and one
line that says it was accepted, or which step failed — the connection, TLS, the login, the recipient — with the
SMTP server's own answer. Against real SMTP servers on loopback (aiosmtpd): a sink, one that wants a login, one
that refuses the recipient, and a closed port."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mail_support import Inbox, smtp_fixture  # noqa: F401 (a fixture)
from tests.server_support import Server, hang_guard  # noqa: F401 (hang_guard is a fixture)

aiosmtpd = pytest.importorskip("aiosmtpd.controller")

from aiosmtpd.smtp import AuthResult, LoginPassword  # noqa: E402

from converge.server.accounts.mail_check import SUBJECT, send_test_mail  # noqa: E402
from converge.server.accounts.mailer import FolderMailer, Mailer, SmtpMailer, SmtpSettings  # noqa: E402
from converge.server.protocol.answers import MailTested  # noqa: E402
from converge.server.storage.pgcluster import free_port  # noqa: E402

SENDER = "Converge <converge@example.org>"
TOKEN = "hosts-only-0c4f9a2b7e16"


def _try(mailer: Mailer, to: str = "host@example.org") -> MailTested:
    return asyncio.run(send_test_mail(mailer, to, "https://play.example.org"))


def _smtp(url: str) -> SmtpMailer:
    return SmtpMailer(SmtpSettings.parse(url), SENDER)


class _Refusing(Inbox):
    """An SMTP server that knows no mailbox."""

    async def handle_RCPT(self, _server: Any, _session: Any, _envelope: Any, address: str, _options: Any) -> str:
        return f"550 5.1.1 <{address}>: no such mailbox here"


@pytest.fixture(name="strict")
def strict_fixture() -> Iterator[str]:
    """An SMTP server that wants a login (ada / right-password), and whose mailboxes do not exist."""

    def check(_server: Any, _session: Any, _envelope: Any, _mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"ada", b"right-password")
        return AuthResult(success=ok, handled=False)  # (not handled: the server answers 535 itself)

    port = free_port()
    controller = aiosmtpd.Controller(_Refusing(), hostname="127.0.0.1", port=port, authenticator=check,
                                     auth_require_tls=False)
    controller.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        controller.stop()


def test_a_test_mail_reaches_the_smtp_server_and_says_so(smtp: tuple[str, Inbox]) -> None:
    url, inbox = smtp
    done = _try(_smtp(url), " Host@Example.org ")
    assert done == {"sent": True, "to": "host@example.org", "failure": None,
                    "via": f"the SMTP server {url[len('smtp://'):]} (STARTTLS when offered, no login)"}
    [mail] = inbox.wait("host@example.org")
    assert mail["Subject"] == SUBJECT and mail["From"] == SENDER
    assert "https://play.example.org" in mail.get_body(("plain",)).get_content()  # type: ignore[union-attr]


def test_each_failure_is_one_line_that_names_the_step_that_failed(smtp: tuple[str, Inbox], strict: str) -> None:
    closed = free_port()
    sink = smtp[0][len("smtp://"):]
    cases = {
        f"smtp://127.0.0.1:{closed}": f"127.0.0.1:{closed} refused the connection: no SMTP server listens there",
        f"smtps://{sink}": f"TLS with {sink} failed: ",
        f"smtp://ada:pw@{sink}": f"{sink} does not offer what was asked (SMTP AUTH extension not supported",
        f"smtp://ada:wrong-password@{strict}": f"{strict} refused the login as ada: 535 ",
        f"smtp://ada:right-password@{strict}": f"{strict} refused the recipient: host@example.org: 550 5.1.1 "
                                               "<host@example.org>: no such mailbox here",
    }
    for url, said in cases.items():
        done = _try(_smtp(url))
        assert not done["sent"] and done["failure"] is not None, url
        assert done["failure"].startswith(said), (url, done["failure"])
        assert "\n" not in done["failure"] and not {"pw", "wrong-password", "right-password"} & set(
            done["failure"].replace(":", " ").split())
    assert smtp[1].mails == []


def test_a_server_without_an_smtp_server_says_the_mail_is_a_file_not_sent(tmp_path: Path) -> None:
    done = _try(FolderMailer(tmp_path / "mail", SENDER))
    [written] = (tmp_path / "mail").glob("*.eml")
    assert not done["sent"] and done["failure"] == (
        f"the server has no SMTP server (accounts.smtp, --smtp): the mail was written to {written}, not sent")
    with pytest.raises(Exception, match="not a mail address"):
        _try(FolderMailer(tmp_path / "mail", SENDER), "not an address")


def test_converge_admin_mail_test_against_a_running_server(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's own mailer: accepted while its SMTP server runs; once that server is gone, the port it
    listened on is closed, and the command says so."""
    from tests.helpers import assert_user_error, run

    monkeypatch.setenv("CONVERGE_ADMIN_TOKEN", TOKEN)
    inbox, port = Inbox(), free_port()
    sink = aiosmtpd.Controller(inbox, hostname="127.0.0.1", port=port)
    sink.start()
    server = Server(tmp_path / "matches.sqlite3", None, env={"CONVERGE_ADMIN_TOKEN": TOKEN})
    server.extra = (*server.extra, "--smtp", f"smtp://127.0.0.1:{port}", "--public-url", server.base)
    try:
        server.start()
        code, out, err = run(capsys, "admin", "--server", server.base, "mail-test", "host@example.org")
        assert code == 0, err
        assert out.strip() == (f"sent a test mail to host@example.org through the SMTP server 127.0.0.1:{port} "
                               "(STARTTLS when offered, no login): it was accepted for delivery (look in the "
                               "inbox, and in the spam folder)")
        assert inbox.wait("host@example.org")[0]["Subject"] == SUBJECT
        code, _out, err = run(capsys, "admin", "--server", server.base, "mail-test", "nobody")
        assert_user_error(code, err, "that is not a mail address")
        sink.stop()
        code, _out, err = run(capsys, "admin", "--server", server.base, "mail-test", "host@example.org")
        assert_user_error(code, err, f"the test mail to host@example.org was not sent: 127.0.0.1:{port} refused "
                                     "the connection: no SMTP server listens there (is the port right?)")
    finally:
        server.stop()
        if sink.loop.is_running():
            sink.stop()
