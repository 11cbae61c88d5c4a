"""Typed parameters of goal kinds and effect kinds: what a card file may write, checked on load.

A kind declares its parameters once, as :class:`Param` values; the deck loader validates a card's
table against them (filling in defaults), and the kind compiles the validated values into the
integers the engine runs on.

>>> count = Param("count", "int", 1, low=1, high=3, doc="how many cards")
>>> count.check(2, None)
(2, '')
>>> count.check(7, None)
(None, 'must be between 1 and 3, got 7')
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from converge.engine.errors import quote

ParamValue = int | bool | str

#: A skillset-valued parameter may name a skillset or say "own": the card's own skillset.
OWN = "own"

PARAM_TYPES = ("int", "bool", "choice", "skillset")


@dataclass(frozen=True)
class Param:
    """One parameter of a goal or an effect: its name, type, bounds and default (None: required)."""

    name: str
    type: str  # one of PARAM_TYPES
    default: ParamValue | None = None
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()
    doc: str = ""

    def __post_init__(self) -> None:
        if self.type not in PARAM_TYPES:
            raise ValueError(f"parameter {self.name!r}: type must be one of {', '.join(PARAM_TYPES)}")

    def check(self, value: object, skillsets: Set[str] | None) -> tuple[ParamValue | None, str]:
        """``(value, "")`` when ``value`` is valid, else ``(None, what is wrong)``.

        ``skillsets`` (lower-case names) is what a skillset parameter may name; None accepts any name.
        """
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                return None, f"must be an integer, got {quote(value)}"
            if not self.low <= value <= self.high:
                return None, f"must be between {self.low} and {self.high}, got {quote(value)}"
            return value, ""
        if self.type == "bool":
            if not isinstance(value, bool):
                return None, f"must be true or false, got {quote(value)}"
            return value, ""
        if self.type == "choice":
            if not isinstance(value, str) or value not in self.choices:
                return None, f"must be one of {', '.join(self.choices)}, got {quote(value)}"
            return value, ""
        if not isinstance(value, str):
            return None, f"must be a skillset name or \"own\", got {quote(value)}"
        if value != OWN and skillsets is not None and value.lower() not in skillsets:
            return None, f"unknown skillset {quote(value)} (known: {', '.join(sorted(skillsets))})"
        return value, ""

    def describe(self) -> str:
        """One line for reference pages: type, bounds and default."""
        if self.type == "int":
            kind = f"integer {self.low}..{self.high}"
        elif self.type == "choice":
            kind = " | ".join(self.choices)
        else:
            kind = self.type
        default = "required" if self.default is None else f"default {self.default!r}"
        return f"{self.name} ({kind}; {default}): {self.doc}"


def skillset_index(value: ParamValue, skillsets: tuple[str, ...]) -> int:
    """The playset index of a skillset parameter's value, -1 when the skillset is not in the playset."""
    name = str(value).lower()
    for i, s in enumerate(skillsets):
        if s.lower() == name:
            return i
    return -1
