"""The engine's precise exceptions. All are ``ValueError``s: each means the caller's input was wrong."""

from __future__ import annotations


class ConvergeError(ValueError):
    """Base class of every error the engine raises for bad input."""


class IllegalActionError(ConvergeError):
    """An action that is not legal now; the state is left unchanged.

    The message says what was wrong without revealing anything hidden from the acting player.
    """


class PlaysetError(ConvergeError):
    """A playset that is not three different known skillsets, or a bad match setting (seed, start)."""


class PositionError(ConvergeError):
    """A position document that does not describe a legal state."""


class RecordError(ConvergeError):
    """A match record that is malformed or does not replay."""


class UnknownKindError(ConvergeError):
    """A goal or effect kind name that is not registered."""


def cut(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters (a long list in a message ends with "...")."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def quote(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters: an error message never repeats a huge input in full.

    >>> quote("x" * 100, 12)
    "'xxxxxxxx..."
    """
    try:
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
            text = "a huge integer"
        else:
            text = repr(value)
    except Exception:  # a hostile object whose repr fails
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit - 3] + "..."
