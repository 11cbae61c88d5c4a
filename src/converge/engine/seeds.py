"""Seeds: a fresh one that nobody can predict, or one derived from others through a one-way hash.

Whoever knows a match's seed can deal every round of it (I2: the seed of a match in progress is hidden
from both players). So a seed that reaches a player or a bot — a bot's own random generator, the next
match of a sitting — is never the match's seed plus something: it is drawn afresh (:func:`new_seed`), or,
where a run must be reproducible from a seed the user gave, derived from it by :func:`derive_seed`, which
does not lead back to the seed it came from.

>>> derive_seed("converge-bot", 7, 1) == derive_seed("converge-bot", 7, 1) != derive_seed("converge-bot", 8, 1)
True
>>> 0 <= new_seed() < 2**63
True
"""

from __future__ import annotations

import hashlib
import secrets


def new_seed() -> int:
    """A seed from the operating system's secure generator (0 .. 2**63-1)."""
    return secrets.randbelow(2**63)


def derive_seed(*parts: object) -> int:
    """A seed (0 .. 2**62-1) determined by ``parts``, from BLAKE2b: the same parts give the same seed, and the
    seed does not give the parts back (short of trying every possible part)."""
    blob = "\0".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "big") >> 2
