"""numpy's integer-semantics names: division with remainder, bitwise logic and shifts, gcd and
lcm, float_power (in float64)."""
from __future__ import annotations

import numpy as np

from gradjit import ops

UFUNCS = {
    np.floor_divide: ops.floor_divide, np.remainder: ops.remainder, np.fmod: ops.fmod,
    np.divmod: ops.divmod_,
    np.bitwise_and: ops.bitwise_and, np.bitwise_or: ops.bitwise_or,
    np.bitwise_xor: ops.bitwise_xor, np.invert: ops.invert,
    np.left_shift: ops.left_shift, np.right_shift: ops.right_shift,
    np.gcd: ops.gcd, np.lcm: ops.lcm, np.float_power: ops.float_power,
}
FUNCTIONS = {}
