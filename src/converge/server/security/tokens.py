"""Seat and player tokens, and match ids.

A seat token is 256 random bits (``secrets.token_urlsafe(32)``). The server keeps only its SHA-256 hash and
derives the seat from the token: a client never says which seat it is.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence

TOKEN_BYTES = 32  # 256 bits
MATCH_ID_BYTES = 9  # 72 bits: match ids are not secret (spectators use them), only unguessable-ish
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
MATCH_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def new_token() -> str:
    """A new seat token: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_match_id() -> str:
    return secrets.token_urlsafe(MATCH_ID_BYTES)


def hash_token(token: str) -> str:
    """The SHA-256 hex digest of a token: what the database stores."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def seat_of(token: object, hashes: Sequence[str | Sequence[str] | None]) -> int | None:
    """The seat one of whose stored hashes matches ``token`` (compared in constant time), or None. Each seat
    has one hash (a str; None: a bot's seat) or several (the seat's token and the keys of its player's other
    devices)."""
    if not isinstance(token, str) or not TOKEN_RE.match(token):
        return None
    digest = hash_token(token)
    found = None
    for seat, stored in enumerate(hashes):
        for one in (stored,) if stored is None or isinstance(stored, str) else stored:
            if one is not None and hmac.compare_digest(digest, one):
                found = seat
    return found
