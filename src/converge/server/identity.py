"""Who a player is, without passwords: a long random player token in an HttpOnly cookie, and a display name.

* The cookie (:data:`COOKIE`) holds 256 random bits; the database keeps only their SHA-256 hash, so a copy
  of the database lets nobody act as a player. It is ``HttpOnly`` (no script reads it), ``SameSite=Lax``
  (other sites' forms and scripts do not send it), ``Path=/``, ``Secure`` when the page came over HTTPS,
  and lasts :data:`COOKIE_MAX_AGE`.
* A player may stay anonymous (no name): they still get a rating and a history, but are not listed on the
  leaderboard. A name can be changed at any time.
* Names (:func:`check_name`): 3 to 20 characters — letters and digits of any script, spaces, ``-``, ``_``,
  ``.`` and ``'`` — starting with a letter or a digit; unique regardless of case and accents; and never a
  bot's: no bot level or algorithm (``hard``, ``Easy``), no word "bot" (``easy (bot)``, ``Bot_7``), nothing
  that reads as the server speaking (``admin``, ``system``, ``converge``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from converge.bots import BOTS, LEVELS
from converge.server.protocol import ProtocolError
from converge.server.security import TOKEN_RE, hash_token, new_token

#: The cookie holding a player's token.
COOKIE = "converge_player"
#: How long the cookie lasts (400 days: the longest browsers keep one).
COOKIE_MAX_AGE = 400 * 86400

NAME_MIN = 3
NAME_MAX = 20

#: Words a name may not contain (as a word), and names it may not be (once folded: see :func:`name_key`).
BOT_WORDS = frozenset({"bot", "bots", "cpu", "robot"})
RESERVED = frozenset({"admin", "administrator", "moderator", "system", "server", "converge", "anonymous",
                      "guest", "nobody", "spectator", "you", "opponent", "computer"})

_ALLOWED = re.compile(r"^[\w][\w .'\-]*$")
#: Digits that stand for letters in an imitation ("H4rd", "b0t").
_LOOKALIKE = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "$": "s",
                            "@": "a"})


def _bot_names() -> frozenset[str]:
    return frozenset(n.lower() for n in (*BOTS, *LEVELS))


def name_key(name: str) -> str:
    """The folded form of a name two players may not share: case, accents, spaces and punctuation ignored."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    return "".join(ch for ch in text if ch.isalnum() and not unicodedata.combining(ch))


def _lookalike(key: str) -> str:
    return key.translate(_LOOKALIKE)


def check_name(raw: object) -> str:
    """The name to store for ``raw`` (trimmed, NFKC-normalised, inner spaces collapsed), or a
    ProtocolError ``bad_name`` that says what is wrong, in words for players."""
    if not isinstance(raw, str):
        raise ProtocolError("bad_name", "a name is text")
    if len(raw) > 200:
        raise ProtocolError("bad_name", f"a name is {NAME_MIN} to {NAME_MAX} characters long")
    if any(unicodedata.category(c)[0] == "C" for c in raw.strip()):  # control, format (bidi...) characters
        raise ProtocolError("bad_name", "a name uses letters, digits, spaces and - _ . ' and starts with a "
                                        "letter or a digit")
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ProtocolError("bad_name", f"a name is {NAME_MIN} to {NAME_MAX} characters long")
    key = name_key(name)
    words = {_lookalike(w) for w in re.split(r"[\W_]+", name.casefold()) if w} | {
        w for w in re.split(r"[\W_]+", name.casefold()) if w}
    bots = _bot_names()
    folded = {key, _lookalike(key)}
    looks_like_bot = (
        words & BOT_WORDS
        or folded & bots
        or any(f.endswith(("bot", "bots")) and f.rstrip("s")[:-3] in bots | {""} for f in folded)
        or any(f.startswith("bot") and f[3:] in bots for f in folded)
    )
    if looks_like_bot:
        raise ProtocolError("bad_name", "that name could be taken for one of the server's bots; choose another")
    if folded & RESERVED:
        raise ProtocolError("bad_name", "that name is reserved; choose another")
    if not _ALLOWED.match(name) or not name[0].isalnum() or any(unicodedata.category(c)[0] == "C" for c in name):
        raise ProtocolError("bad_name", "a name uses letters, digits, spaces and - _ . ' and starts with a "
                                        "letter or a digit")
    if len(key) < 2:
        raise ProtocolError("bad_name", "a name needs at least two letters or digits")
    return name


def display_name(name: str | None) -> str:
    """How a player is shown: their name, or "Anonymous"."""
    return name or "Anonymous"


@dataclass(frozen=True)
class NewToken:
    """A new player token: what goes in the cookie, and what the database keeps."""

    token: str
    token_hash: str


def issue_token() -> NewToken:
    token = new_token()
    return NewToken(token, hash_token(token))


def token_hash_of(cookie: str | None) -> str | None:
    """The stored form of a cookie's token, or None when there is no well-formed token."""
    if cookie is None or not TOKEN_RE.match(cookie):
        return None
    return hash_token(cookie)


__all__ = ["COOKIE", "COOKIE_MAX_AGE", "NAME_MAX", "NAME_MIN", "NewToken", "check_name", "display_name",
           "issue_token", "name_key", "token_hash_of"]
