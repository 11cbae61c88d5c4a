"""Shared parts of the fuzz suites (``tests/*/test_fuzz.py``): how many examples to run, hostile data
strategies, the counter of generated inputs, and the checks every door must pass.

``make test`` runs a bounded slice (a few seconds, the same examples every time); ``make fuzz`` sets
``CONVERGE_FUZZ_EXAMPLES`` (examples per fuzz test) for a long run with fresh random examples, and loads
this module as a pytest plugin (``-p tests.fuzz_support``) to print how many inputs each door took.

The other suites use it as::

    from tests.fuzz_support import count, fuzz_settings, json_values

    @fuzz_settings()
    @given(doc=json_values)
    def test_some_door(doc):
        count("some door")
        ...
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

#: Examples per fuzz test: ``CONVERGE_FUZZ_EXAMPLES`` when set (``make fuzz``), else the bounded slice.
FUZZ_RUN = bool(os.environ.get("CONVERGE_FUZZ_EXAMPLES"))
EXAMPLES = int(os.environ.get("CONVERGE_FUZZ_EXAMPLES") or 40)

#: The seed of the seeded generators: ``CONVERGE_FUZZ_SEED``, else 1 in the bounded slice and a fresh one in
#: a long run (printed in the summary, to repeat a run).
SEED = int(os.environ.get("CONVERGE_FUZZ_SEED") or (int.from_bytes(os.urandom(4), "big") if FUZZ_RUN else 1))
#: Inputs per example of the bulk (seeded) fuzz tests.
BULK = 100

#: The longest error message any door may answer with.
MAX_MESSAGE = 300

#: Generated inputs per door, over the whole run (reported by :func:`pytest_terminal_summary`).
COUNTS: Counter[str] = Counter()
_STARTED = time.monotonic()


def count(door: str, n: int = 1) -> None:
    """Note ``n`` more generated inputs sent through ``door``."""
    COUNTS[door] += n


def fuzz_settings(scale: float = 1.0) -> settings:
    """Hypothesis settings of a fuzz test: ``scale`` times :data:`EXAMPLES` examples (at least 5), no
    deadline; derandomized (the same examples each run) except in a ``make fuzz`` run."""
    return settings(max_examples=max(5, int(EXAMPLES * scale)), deadline=None, derandomize=not FUZZ_RUN,
                    database=None if not FUZZ_RUN else settings.default.database,
                    suppress_health_check=list(HealthCheck), print_blob=True)


# ------------------------------------------------------------------ hostile data

#: Text as hostile as text gets: any code point (surrogates excluded: they cannot be sent as UTF-8),
#: control characters, markup, escapes.
texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
awkward_strings = st.sampled_from([
    "", " ", "\x00", "\n", "\x1b[31m", "[/x]", "[bold]", "{}", "[]", "null", "NaN", "-0", "1e400", "²", "٣",
    "Done", "done", "DONE", "discard", "ALC1", "alc1", "ALC1\n", " ALC1", "ALC9", "mine", "theirs", "catalysts",
    "random", "friend", "bot", "__proto__", "constructor", "%s%n", "../../etc/passwd", "\u202e", "\ufeff",
    "💥" * 20, "a" * 300, "9" * 50,
])
long_strings = st.integers(min_value=100, max_value=20_000).map(lambda n: "x" * n)
big_ints = st.one_of(st.integers(min_value=2**31 - 2, max_value=2**31 + 2), st.integers(min_value=2**63 - 2,
                     max_value=2**64 + 2), st.integers(min_value=-(2**70), max_value=2**70),
                     st.integers(min_value=10**100, max_value=10**101))
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-3, max_value=30), big_ints,
                    st.floats(allow_nan=True, allow_infinity=True), texts, awkward_strings, long_strings)
#: Any JSON value (NaN and Infinity included, as Python's json writes and reads them).
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=6), st.dictionaries(st.one_of(texts, awkward_strings), inner, max_size=6)),
    max_leaves=25)


def deep_json(depth: int, kind: str) -> str:
    """JSON nested ``depth`` deep (arrays or objects): more than Python's recursion limit allows."""
    if kind == "array":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


#: JSON texts no well-formed generator would write: nesting beyond any limit, numbers longer than Python
#: converts, truncations, bytes that are not UTF-8 text.
hostile_json_texts = st.one_of(
    st.builds(deep_json, st.sampled_from([500, 5_000, 100_000]), st.sampled_from(["array", "object"])),
    st.integers(min_value=4301, max_value=20_000).map(lambda n: "9" * n),
    st.integers(min_value=4301, max_value=8_000).map(lambda n: '{"type": "action", "action": ' + "1" * n + "}"),
    st.sampled_from(["", "{", "}", "[", "{\"a\":", "nul", "\"", "{\"type\": \"action\", \"action\": 1,}",
                     "NaN", "-Infinity", "1e999999", "\ufeff{}", "{}\x00", "{\"a\": 1} {\"b\": 2}"]),
    texts,
)


def mutate(doc: dict[str, Any], data: st.DataObject, keys: list[str]) -> dict[str, Any]:
    """``doc`` with a few of its fields changed to hostile values, removed, or joined by unknown ones."""
    out = dict(doc)
    for _ in range(data.draw(st.integers(min_value=1, max_value=3), label="changes")):
        how = data.draw(st.sampled_from(["set", "set", "set", "drop", "add"]), label="how")
        if how == "set":
            out[data.draw(st.sampled_from(keys), label="key")] = data.draw(json_values, label="value")
        elif how == "drop" and out:
            out.pop(data.draw(st.sampled_from(sorted(out)), label="drop"), None)
        else:
            out[data.draw(st.one_of(texts, awkward_strings), label="new key")] = data.draw(json_values, label="v")
    return out


def deep_mutate(doc: Any, data: st.DataObject, depth: int = 0) -> Any:
    """``doc`` with one value somewhere inside it (a field of a field, an element of a list...) replaced by
    a hostile one, or given a new element: the inner structure of a valid document, gone wrong."""
    stop = depth > 0 and data.draw(st.integers(min_value=0, max_value=3), label="stop here?") == 0
    if stop or not isinstance(doc, dict | list) or not doc:
        if isinstance(doc, list) and data.draw(st.booleans(), label="append?"):
            return [*doc, data.draw(json_values, label="element")]
        return data.draw(json_values, label="leaf")
    if isinstance(doc, dict):
        key = data.draw(st.sampled_from(sorted(doc)), label="into")
        return {**doc, key: deep_mutate(doc[key], data, depth + 1)}
    i = data.draw(st.integers(min_value=0, max_value=len(doc) - 1), label="at")
    return [*doc[:i], deep_mutate(doc[i], data, depth + 1), *doc[i + 1:]]


def dumps(doc: Any) -> str:
    """``doc`` as JSON; values Python's json cannot write are turned into their text."""
    return json.dumps(doc, default=str)


# ------------------------------------------------------------------ a seeded generator (bulk runs)

AWKWARD = ["", " ", "\x00", "\n", "\x1b[31m", "[/x]", "[bold]", "{}", "[]", "null", "NaN", "-0", "1e400", "²",
           "٣", "Done", "done", "discard", "ALC1", "alc1", "ALC1\n", " ALC1", "ALC9", "mine", "theirs",
           "catalysts", "random", "friend", "bot", "__proto__", "%s%n", "../../etc/passwd", "\u202e", "\ufeff",
           "💥" * 20, "a" * 300, "9" * 50]


class Hostile:
    """The same kinds of hostile data as the hypothesis strategies above, drawn from a seeded
    ``random.Random``: several times cheaper per input, for the bulk part of a long run (and as
    reproducible, from its seed)."""

    def __init__(self, seed: int) -> None:
        import random

        self.rng = random.Random(seed)

    def text(self) -> str:
        r = self.rng
        kind = r.randrange(6)
        if kind == 0:
            return r.choice(AWKWARD)
        if kind == 1:
            return "x" * r.randrange(100, 20_000)
        if kind == 2:  # any code point but surrogates
            return "".join(chr(c) for c in (r.randrange(0x110000) for _ in range(r.randrange(12)))
                           if not 0xD800 <= c < 0xE000)
        return "".join(r.choice("abcXYZ019 _-.:/\\\"'{}[]\n\t\x00é€💥") for _ in range(r.randrange(16)))

    def scalar(self) -> Any:
        r = self.rng
        kind = r.randrange(9)
        if kind == 0:
            return r.choice([None, True, False])
        if kind in (1, 2):
            return r.randrange(-3, 31)
        if kind == 3:
            return r.choice([2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**100])
        if kind == 4:
            return r.choice([0.0, -0.0, 1.5, 1e308, float("inf"), float("-inf"), float("nan"), r.random()])
        return self.text()

    def value(self, depth: int = 0) -> Any:
        r = self.rng
        kind = r.randrange(10)
        if depth > 3 or kind < 6:
            return self.scalar()
        if kind < 8:
            return [self.value(depth + 1) for _ in range(r.randrange(5))]
        return {self.text()[:20]: self.value(depth + 1) for _ in range(r.randrange(5))}

    def hostile_text(self) -> str:
        """JSON text no well-formed writer produces."""
        r = self.rng
        kind = r.randrange(5)
        if kind == 0:
            depth = r.choice([500, 5_000, 100_000])
            return r.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth])
        if kind == 1:
            return "9" * r.randrange(4301, 8_000)
        if kind == 2:
            return r.choice(["", "{", "[", "nul", '"', "NaN", "1e999999", "\ufeff{}", "{}\x00",
                             '{"a": 1} {"b": 2}'])
        return self.text()

    def mutate(self, doc: dict[str, Any], keys: list[str]) -> dict[str, Any]:
        out = dict(doc)
        for _ in range(self.rng.randrange(1, 4)):
            how = self.rng.randrange(5)
            if how < 3:
                out[self.rng.choice(keys)] = self.value()
            elif how == 3 and out:
                out.pop(self.rng.choice(sorted(out)))
            else:
                out[self.text()[:20]] = self.value()
        return out


# ------------------------------------------------------------------ checks


def hidden_words(text: str, hidden: set[str], sent: str = "") -> list[str]:
    """The card ids of ``hidden`` that ``text`` names (as whole words), except those the caller sent itself
    (an error may quote the input back: that tells the caller nothing)."""
    if not hidden:
        return []
    found = re.findall(r"\b(" + "|".join(sorted(hidden)) + r")\b", text)
    return [word for word in found if word not in sent]


def check_message(message: object) -> str:
    """An error message: a non-empty string of at most :data:`MAX_MESSAGE` characters on one line."""
    assert isinstance(message, str) and message, message
    assert len(message) <= MAX_MESSAGE, (len(message), message[:200])
    assert "\n" not in message and "Traceback" not in message, message
    return message


# ------------------------------------------------------------------ the pytest plugin (make fuzz)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not COUNTS:
        return
    spent = time.monotonic() - _STARTED
    write = terminalreporter.write_line
    write("")
    write(f"fuzz: {sum(COUNTS.values()):,} generated inputs over {len(COUNTS)} doors in {spent:,.0f} s "
          f"({EXAMPLES:,} examples per test, seed {SEED}: CONVERGE_FUZZ_SEED={SEED} repeats the seeded part)")
    for door, n in sorted(COUNTS.items()):
        write(f"  {n:>12,}  {door}")
    sys.stdout.flush()
