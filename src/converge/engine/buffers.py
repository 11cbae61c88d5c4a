"""The float buffers the engine's event writers fill (:mod:`converge.engine.tensors`), as a type.

It lives outside the modules compiled with mypyc: a protocol defined in a compiled module becomes a trait
there, which the compiled code tests a value against at each use; a protocol from a plain module is a plain
object to it, as an untyped buffer is.
"""

from __future__ import annotations

from typing import Protocol


class FloatBuffer(Protocol):
    """A preallocated buffer of floats written item by item: an ``array.array("f")``, a memoryview of one
    (``memoryview[float]``), a NumPy float array."""

    def __setitem__(self, index: int, value: float, /) -> None: ...


__all__ = ["FloatBuffer"]
