"""A constant op's value: an immutable array that compares and hashes by its bytes, so that
IR holding large constants (arrays captured from the user's scope) stays cheap to build,
verify, deduplicate and print."""
from __future__ import annotations

import hashlib

import numpy as np


class ArrayValue:
    """An array frozen at construction. Equal when dtype, shape and bytes are equal, which
    keeps -0.0 apart from 0.0, as a common-subexpression pass must."""

    __slots__ = ("array", "_key", "_text")

    def __init__(self, array: np.ndarray):
        frozen = np.array(array, order="C")  # a copy: the user may change theirs later
        frozen.flags.writeable = False
        self.array = frozen
        digest = hashlib.blake2b(frozen.tobytes(), digest_size=16).digest()
        self._key = (frozen.dtype.str, frozen.shape, digest)
        self._text = None

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    def __eq__(self, other) -> bool:
        return isinstance(other, ArrayValue) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"ArrayValue({self.array.tolist()!r})"

    def __reduce__(self):
        return ArrayValue, (self.array,)

    def tolist(self):
        return self.array.tolist()

    def text(self) -> str:
        """The IR text of the value: nested lists, numbers spelled as the printer spells
        them (nan, inf, true), without spaces; kept, as a function is printed at every stage."""
        if self._text is None:
            if self.array.dtype.kind == "c":
                text = repr(_spelled(self.array.tolist())).replace(" ", "").replace("'", "")
            else:
                text = repr(self.array.tolist()).replace(" ", "")
            if self.array.dtype.kind == "b":
                text = text.replace("True", "true").replace("False", "false")
            self._text = text
        return self._text


def _spelled(values):
    """Complex numbers as the printer spells them, complex(re,im), in nested lists."""
    if isinstance(values, list):
        return [_spelled(v) for v in values]
    return f"complex({values.real!r},{values.imag!r})"
