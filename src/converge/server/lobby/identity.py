"""Who a player is, without passwords: a long random player token in an HttpOnly cookie, and a display name.

* The cookie (:data:`COOKIE`) holds 256 random bits; the database keeps only their SHA-256 hash, so a copy
  of the database lets nobody act as a player. It is ``HttpOnly`` (no script reads it), ``SameSite=Lax``
  (other sites' forms and scripts do not send it), ``Path=/``, ``Secure`` when the page came over HTTPS,
  and lasts :data:`COOKIE_MAX_AGE`.
* A player may stay anonymous (no name): they still get a rating and a history, but are not listed on the
  leaderboard. A name can be changed, a few times an hour (:mod:`converge.server.lobby.service`); a match shows
  the names its players had when it started.
* Names (:func:`check_name`): 3 to 20 characters — letters and digits of one script, spaces, ``-``,
  ``_``, ``.`` and ``'`` — starting with a letter or a digit; unique by their *key* (:func:`name_key`:
  look-alikes share one, whatever the case, accents, spaces, punctuation or homoglyphs); and never what
  the table or the server says: no bot level or algorithm (``hard``, ``ʜᴀʀᴅ``, ``H4rd``), no word for a
  bot (``easy (bot)``, ``Hard AI``, ``HardCPU``), nothing that reads as the server speaking (``admin``)
  or as the table's names for the seats (``you``, ``They``, ``player 0``). Each refusal says why.
* A key is the UTS #39 skeleton (disarm's ``skeleton_key``: confusables folded to their prototypes, case
  folded, to a fixed point) without accents, spaces or punctuation, with the digits that stand for letters
  folded too (``H4rd``, ``b0t``). The skeleton folds look-alikes *before* it folds case (a capital I is
  an l: ``paypaI`` is ``paypal``), so the skeleton of a name alone depends on its case (``ALICE`` would be
  ``allce``, ``Alice`` ``alice``). A name therefore has several keys (:func:`name_keys`): the skeletons of
  the name as typed, case-folded and in capitals. Two names that share any key are one name — a change of
  case (``VICTIM BOB``), a look-alike as typed (``Vict1m Bob``, Cyrillic ``Аda``) or in capitals (``VICTlM
  BOB``, the Greek capitals ``ΗΑΝΑ`` beside ``HANA``) — and every rule compares every key, so no rule is
  dodged by a homoglyph or by capitals (``ADMIN``, ``MEDIUM``). No single key can do this: a case-proof
  key that kept the capitals' look-alikes would make ``h`` and ``n`` one letter (Greek ``Η`` looks like
  ``H``, its small ``η`` like ``n``). The price: ``i`` and ``l`` are one letter (``Ali`` and ``All``, whose
  capitals ``ALI``/``ALL`` the skeleton reads alike); every key folds ``l`` to ``i``, so that no path through
  the look-alikes and the cases keeps them apart. :func:`name_key` is the key of the case-folded form,
  the one key every case form of a name has. The keys depend on these rules and on disarm's tables:
  :data:`NAME_RULES_VERSION` names them, and the stored keys are computed again when it changes
  (:func:`converge.server.lobby.rekey.rekey_names`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import disarm

from converge.bots import BOTS, LEVELS
from converge.server.protocol.errors import ProtocolError
from converge.server.security.tokens import TOKEN_RE, hash_token, new_token
from converge.server.storage.lobby_store import Named

#: The cookie holding a player's token.
COOKIE = "converge_player"
#: How long the cookie lasts (400 days: the longest browsers keep one).
COOKIE_MAX_AGE = 400 * 86400

NAME_MIN = 3
NAME_MAX = 20

#: The rules and keys of names: stored names are checked and keyed again when this changes (a new rule
#: here, or disarm's key schema or confusable tables in a new release). Bump the first part with the rules.
NAME_RULES_VERSION = f"rules-4/disarm-key-{disarm.KEY_SCHEMA_VERSION}/unicode-{disarm.CONFUSABLES_VERSION}"

#: Words for a bot: a name may not hold one as a word (``easy (bot)``), nor be one glued to a bot's level
#: (``hardbot``, ``HardCPU``, ``Medium-AI``). "AI" as a word is matched by its letters, not its skeleton
#: (the skeleton of "AI" is that of "Al", a common name); glued to a level, both count.
BOT_WORDS = ("bot", "bots", "robot", "robots", "cpu", "computer")
AI_WORDS = ("ai", "AI")
#: Names that read as the server speaking.
RESERVED = ("admin", "administrator", "moderator", "system", "server", "converge", "anonymous", "guest",
            "nobody", "official")
#: What the table and the lobby call the players (engine/narration.py, the web client): "you", "they",
#: "player 0", "your opponent", "the bot"... A player named so would read as the table's own words.
SEAT_WORDS = ("you", "your", "yours", "yourself", "me", "they", "them", "their", "theirs", "opponent",
              "opponents", "your opponent", "the opponent", "player", "players", "the player", "player 0",
              "player 1", "the bot", "spectator", "spectators", "your friend")
#: "player 2", "P12": a seat's number, whatever the number.
_PLAYER_N = re.compile(r"(?:player|p)\d+")

_ALLOWED = re.compile(r"^[\w][\w .'\-]*$")
#: Digits that stand for letters in an imitation ("H4rd", "b0t").
#: Digits that stand for letters, folded to them; and ``l`` to ``i``: the two are one letter in every key (see
#: the module doc), whatever path a look-alike took to either (``ɪ`` in capitals is ``Ɪ``, whose skeleton is
#: ``i`` where a capital ``I``'s is ``l``: a property test found ``iɪjpI`` and ``iijpl`` apart).
_LOOKALIKE = str.maketrans({"0": "o", "1": "i", "l": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"})
_WORD_SPLIT = re.compile(r"[\W_]+")


def _skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``, case folded: every confusable folded to its prototype (Cyrillic а
    to a, small capital ʜ to h, fullwidth and mathematical letters to plain ones), to a fixed point."""
    return disarm.skeleton_key(text)


def _skeletons(name: str) -> tuple[str, ...]:
    """The skeletons of a name's forms (NFKC): case-folded first (:func:`name_key`'s), as typed, and in
    capitals; each once."""
    typed = unicodedata.normalize("NFKC", name)
    return tuple(dict.fromkeys(_skeleton(form) for form in (typed.casefold(), typed, typed.upper())))


def _bare(text: str, digits: bool = True) -> str:
    """``text`` without accents, spaces or punctuation; ``digits``: with the digits that stand for letters
    folded to them."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(ch for ch in decomposed if ch.isalnum() and not unicodedata.combining(ch))
    return kept.translate(_LOOKALIKE) if digits else kept


def name_key(name: str) -> str:
    """The name's key whatever its case: every case form of a name has this one (``Alice``, ``ALICE`` and
    ``aLiCe`` are ``alice``), and so do its look-alikes in accents, spaces, punctuation or homoglyphs (``Zoë``
    = ``zoe`` = ``Zo-e``; Cyrillic ``Аda`` = ``Ada``). Two names are one when they share any of
    :func:`name_keys`, of which this is one."""
    return _bare(_skeletons(name)[0])


def name_keys(name: str) -> frozenset[str]:
    """Every key of a name (see the module doc): two players' names may share none. ``Victim Bob``, ``VICTIM
    BOB``, ``Vict1m Bob`` and ``VICTlM BOB`` share one; ``Hana`` and ``Nava`` do not."""
    return frozenset(_bare(s) for s in _skeletons(name))


def names_clash(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one name (they share a key)."""
    return not name_keys(a).isdisjoint(name_keys(b))


def _keys(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset().union(*(name_keys(w) for w in words))


_LEVEL_KEYS = _keys((*BOTS, *LEVELS))
_BOT_WORD_KEYS = _keys(BOT_WORDS)
_GLUED_KEYS = _keys(BOT_WORDS + AI_WORDS)
_RESERVED_KEYS = _keys(RESERVED)
_SEAT_KEYS = _keys(SEAT_WORDS)


def _reads_as_bot(name: str, skeleton: str, key: str) -> bool:
    words = {_bare(w) for w in _WORD_SPLIT.split(skeleton) if w}
    if words & _BOT_WORD_KEYS or set(_WORD_SPLIT.split(name.casefold())) & set(AI_WORDS) or key in _LEVEL_KEYS:
        return True
    level_or_nothing = _LEVEL_KEYS | {""}
    return any((key.endswith(w) and key[:-len(w)] in level_or_nothing)
               or (key.startswith(w) and key[len(w):] in level_or_nothing) for w in _GLUED_KEYS)


def _script_names(name: str) -> str:
    scripts = [s.name.replace("_", " ").title() for s in disarm.detect_scripts(name)]
    return ", ".join(scripts[:-1]) + " and " + scripts[-1] if len(scripts) > 1 else "".join(scripts)


_CHARACTERS = "a name uses letters, digits, spaces and - _ . ' and starts with a letter or a digit"


def check_name(raw: object) -> str:
    """The name to store for ``raw`` (trimmed, NFKC-normalised, inner spaces collapsed), or a
    ProtocolError ``bad_name`` that says what is wrong, in words for players."""
    if not isinstance(raw, str):
        raise ProtocolError("bad_name", "a name is text")
    if len(raw) > 200:
        raise ProtocolError("bad_name", f"a name is {NAME_MIN} to {NAME_MAX} characters long")
    if any(unicodedata.category(c)[0] == "C" for c in raw.strip()):  # control, format (bidi...) characters
        raise ProtocolError("bad_name", _CHARACTERS)
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ProtocolError("bad_name", f"a name is {NAME_MIN} to {NAME_MAX} characters long")
    skeletons = _skeletons(name)  # (every rule looks at every form: ADMIN is admin)
    keys = {_bare(s) for s in skeletons}
    if any(_reads_as_bot(name, s, _bare(s)) for s in skeletons):
        raise ProtocolError("bad_name", "that name could be taken for one of the server's bots; choose another")
    if keys & _RESERVED_KEYS:
        raise ProtocolError("bad_name", "that name is reserved for the server; choose another")
    if keys & _SEAT_KEYS or any(_PLAYER_N.fullmatch(_bare(s, digits=False)) for s in skeletons):
        raise ProtocolError("bad_name", "that name reads as the table's words for the players (you, they, "
                                        "player 0...); choose another")
    if not _ALLOWED.match(name) or not name[0].isalnum() or any(unicodedata.category(c)[0] == "C" for c in name):
        raise ProtocolError("bad_name", _CHARACTERS)
    if disarm.is_mixed_script(name):
        raise ProtocolError("bad_name", f"a name's letters must all be of one script: this one mixes "
                                        f"{_script_names(name)} letters, which can look alike; choose another")
    if len(_bare(skeletons[0])) < 2:
        raise ProtocolError("bad_name", "a name needs at least two letters or digits")
    return name


def named(raw: object) -> Named:
    """A name checked (:func:`check_name`, a ProtocolError if refused) with its keys, as storage keeps it."""
    name = check_name(raw)
    return Named(name, name_key(name), name_keys(name))


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


__all__ = ["COOKIE", "COOKIE_MAX_AGE", "NAME_MAX", "NAME_MIN", "NAME_RULES_VERSION", "NewToken", "check_name",
           "display_name", "issue_token", "name_key", "name_keys", "named", "names_clash", "token_hash_of"]
