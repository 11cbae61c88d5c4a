"""A registry of named kinds (goal kinds, effect kinds): the public extension point card files rely on."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Generic, Protocol, TypeVar

from converge.engine.errors import UnknownKindError, cut, quote

_NAME = re.compile(r"[a-z][a-z0-9_]{0,23}")


class Named(Protocol):
    name: str
    index: int


K = TypeVar("K", bound=Named)


class Registry(Generic[K]):
    """Kinds by name, in registration order; each kind's ``index`` is its place in that order.

    The package's own kinds are registered first, by :meth:`register_builtins`, and cannot be removed.
    """

    def __init__(self, what: str, base: type) -> None:
        self.what = what
        self.base = base
        self.builtin = 0  # how many of the kinds are the package's
        self.kinds: dict[str, K] = {}

    def register_builtins(self, kinds: Iterable[K]) -> None:
        """Register the package's own kinds, in their canonical order (once, before any other)."""
        if self.kinds:
            raise ValueError(f"the built-in {self.what} kinds are registered first, and once")
        for kind in kinds:
            self.register(kind)
        self.builtin = len(self.kinds)

    def register(self, kind: K) -> K:
        """Add ``kind`` (its name must be new: lower-case letters, digits and _); returns it."""
        if not isinstance(kind, self.base):
            raise TypeError(f"a {self.what} kind is a {self.base.__name__}, got {type(kind).__name__}")
        if not isinstance(kind.name, str) or not _NAME.fullmatch(kind.name):
            raise ValueError(f"a {self.what} kind's name is lower-case letters, digits and _, got {kind.name!r}")
        if kind.name in self.kinds:
            raise ValueError(f"{self.what} kind {kind.name!r} is already registered")
        kind.index = len(self.kinds)
        self.kinds[kind.name] = kind
        return kind

    def unregister(self, name: str) -> None:
        """Remove a kind added by :meth:`register` (for tests); the built-in kinds stay."""
        kind = self.kinds.get(name)
        if kind is None or kind.index < self.builtin:
            raise ValueError(f"{name!r} is not a registered extension {self.what} kind")
        del self.kinds[name]
        for i, k in enumerate(self.kinds.values()):
            k.index = i

    def get(self, name: str) -> K:
        """The kind called ``name``; :class:`UnknownKindError` if there is none."""
        kind = self.kinds.get(name)
        if kind is None:
            raise UnknownKindError(f"unknown {self.what} kind {quote(name)} (known: "
                                   f"{cut(', '.join(self.kinds))})")
        return kind

    def all(self) -> Mapping[str, K]:
        return self.kinds
