"""numpy's integer-semantics names: division with remainder, bitwise logic and shifts, gcd and
lcm, float_power (in float64), bitwise_count."""
from __future__ import annotations

import numpy as np

from gradjit import ops

# SWAR popcount: bits summed in pairs, nibbles, bytes, then the bytes added by shifts. The
# masks keep an arithmetic right shift's copies of the sign bit out of every sum.
_PAIRS, _NIBBLES, _BYTES = 0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F


def _bitwise_count(x):
    """The number of 1 bits of |x|, as uint8 (numpy's; |min int64| keeps its single bit)."""
    dt = ops.result_type(x).numpy
    if dt.kind not in "biu":
        raise TypeError("ufunc 'bitwise_count' not supported for the input types, and the "
                        "inputs could not be safely coerced to any supported types according "
                        "to the casting rule ''safe''")
    v = ops.abs_(ops.astype(x, np.int64))
    v = ops.sub(v, ops.bitwise_and(ops.right_shift(v, 1), _PAIRS))
    v = ops.add(ops.bitwise_and(v, _NIBBLES),
                ops.bitwise_and(ops.right_shift(v, 2), _NIBBLES))
    v = ops.bitwise_and(ops.add(v, ops.right_shift(v, 4)), _BYTES)
    for shift in (8, 16, 32):
        v = ops.add(v, ops.right_shift(v, shift))
    return ops.astype(ops.bitwise_and(v, 0x7F), np.uint8)


UFUNCS = {
    np.floor_divide: ops.floor_divide, np.remainder: ops.remainder, np.fmod: ops.fmod,
    np.divmod: ops.divmod_,
    np.bitwise_and: ops.bitwise_and, np.bitwise_or: ops.bitwise_or,
    np.bitwise_xor: ops.bitwise_xor, np.invert: ops.invert,
    np.left_shift: ops.left_shift, np.right_shift: ops.right_shift,
    np.gcd: ops.gcd, np.lcm: ops.lcm, np.float_power: ops.float_power,
    np.bitwise_count: _bitwise_count,
}
FUNCTIONS = {}
