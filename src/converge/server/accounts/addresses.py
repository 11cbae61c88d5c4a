"""Mail addresses as players type them: checked (email-validator's syntax rules, no look-up of the domain)
and keyed, so that one address is one account whatever its case."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email

from converge.server.protocol.errors import ProtocolError

#: The longest address (RFC 5321's path limit).
MAX_LENGTH = 254


def check_email(raw: object) -> str:
    """The address to store for ``raw`` (normalised and casefolded), or a ProtocolError ``bad_email`` saying
    what is wrong. Nothing that could end a mail header passes (no line break, no comma, no angle bracket).

    >>> check_email(" Ada@Example.org ")
    'ada@example.org'
    >>> check_email("ada@example.org\\r\\nBcc: eve@example.org")
    Traceback (most recent call last):
    ...
    converge.server.protocol.errors.ProtocolError: that is not a mail address: ...
    """
    if not isinstance(raw, str):
        raise ProtocolError("bad_email", "a mail address is text, like ada@example.org")
    text = raw.strip()
    if not text or len(text) > MAX_LENGTH:
        raise ProtocolError("bad_email", f"a mail address is 1 to {MAX_LENGTH} characters, like ada@example.org")
    try:
        found = validate_email(text, check_deliverability=False, allow_quoted_local=False,
                               allow_domain_literal=False, allow_display_name=False)
    except EmailNotValidError as exc:
        reason = str(exc).splitlines()[0][:160]
        raise ProtocolError("bad_email", f"that is not a mail address: {reason}") from None
    return found.normalized.casefold()
