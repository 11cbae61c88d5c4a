"""A real SMTP server on loopback for the tests (aiosmtpd): every mail it takes, parsed, and the sign-in
link in a mail."""

from __future__ import annotations

import email
import email.policy
import re
import time
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest

aiosmtpd = pytest.importorskip("aiosmtpd.controller")

from converge.server.storage.pgcluster import free_port  # noqa: E402

LINK = re.compile(r"https?://\S+/signin#token=([A-Za-z0-9_-]+)")


class Inbox:
    """What the SMTP server took, in order."""

    def __init__(self) -> None:
        self.mails: list[EmailMessage] = []

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        self.mails.append(msg)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.mails if str(m["To"]).casefold() == address.casefold()]

    def wait(self, address: str, count: int = 1, timeout: float = 10.0) -> list[EmailMessage]:
        """The mails to ``address`` once there are ``count`` of them."""
        end = time.monotonic() + timeout
        while len(self.to(address)) < count:
            assert time.monotonic() < end, f"no mail {count} to {address} in {timeout} s: {self.mails}"
            time.sleep(0.02)
        return self.to(address)


def link_token(mail: EmailMessage) -> str:
    body = mail.get_body(("plain",))
    assert body is not None
    found = LINK.search(body.get_content())
    assert found, body.get_content()
    return found.group(1)


@pytest.fixture(name="smtp")
def smtp_fixture() -> Iterator[tuple[str, Inbox]]:
    """An SMTP server on loopback: its URL, and its inbox."""
    inbox = Inbox()
    port = free_port()
    controller = aiosmtpd.Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield f"smtp://127.0.0.1:{port}", inbox
    finally:
        controller.stop()
