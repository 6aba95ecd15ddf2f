"""numpy's integer-semantics names: division with remainder, bitwise logic and shifts, gcd and
lcm, float_power (in float64), bitwise_count, packbits and unpackbits."""
from __future__ import annotations

from functools import partial

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from gradjit import ops
from gradjit.ir.primitive import ir_type

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


def _bits_axis(a, axis, numpy_result):
    """a with the bits' axis last (a flattened for axis None, a 0-d array as 1-d, as numpy
    reads them), and numpy's result on zeros of a's shape and dtype: its shape, and numpy's
    own errors for the dtype, axis, bit order and count."""
    a = ops.asarray(np.asarray(a) if isinstance(a, (list, tuple)) else a)
    stand_in = np.zeros(ops.shape_of(a), ir_type(a).dtype.numpy)
    result = numpy_result(stand_in)
    a = ops.reshape(a, (-1,)) if axis is None or not ops.shape_of(a) else a
    axis = 0 if axis is None else normalize_axis_index(axis, max(len(ops.shape_of(a)), 1))
    return ops.moveaxis(a, axis, -1), axis, result


def _weights(bitorder):
    weights = 1 << np.arange(8, dtype=np.int64)
    return weights if bitorder[0] == "l" else weights[::-1]


def _packbits(a, /, axis=None, bitorder="big"):
    """Each run of 8 elements along the axis as one uint8, a nonzero element a 1 bit (the
    first the highest bit, or the lowest with bitorder 'little'); the last run zero-padded."""
    x, axis, result = _bits_axis(a, axis, lambda z: np.packbits(z, axis, bitorder))
    *rest, n = ops.shape_of(x)
    bits = ops.astype(ops.ne(x, 0), np.int64)
    if n % 8:
        bits = ops.concatenate([bits, np.zeros((*rest, 8 - n % 8), np.int64)], -1)
    runs = ops.reshape(bits, (*rest, -1, 8))
    packed = ops.astype(ops.sum_(ops.mul(runs, _weights(bitorder)), -1), np.uint8)
    return ops.reshape(ops.moveaxis(packed, -1, axis), result.shape)


def _unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Each uint8 along the axis as its 8 bits (highest first, or lowest with bitorder
    'little'), the first `count` of them kept (zero-padded past the end; a negative count
    drops that many from the end)."""
    x, axis, result = _bits_axis(a, axis, lambda z: np.unpackbits(z, axis, count, bitorder))
    *rest, n = ops.shape_of(x)
    shifts = np.arange(8, dtype=np.uint8)
    shifted = ops.right_shift(ops.expand_dims(x, -1), shifts if bitorder[0] == "l" else
                              shifts[::-1])
    bits = ops.reshape(ops.bitwise_and(shifted, np.uint8(1)), (*rest, 8 * n))
    size = result.shape[axis] if result.ndim else 1
    if size > 8 * n:
        bits = ops.concatenate([bits, np.zeros((*rest, size - 8 * n), np.uint8)], -1)
    bits = ops.getitem(bits, (Ellipsis, slice(0, size)))
    return ops.reshape(ops.moveaxis(bits, -1, axis), result.shape)


FUNCTIONS = {np.packbits: _packbits, np.unpackbits: _unpackbits}


UFUNCS = {
    np.floor_divide: partial(ops.floor_divide, numpy=True),
    np.remainder: partial(ops.remainder, numpy=True), np.fmod: ops.fmod,
    np.divmod: partial(ops.divmod_, numpy=True),
    np.bitwise_and: ops.bitwise_and, np.bitwise_or: ops.bitwise_or,
    np.bitwise_xor: ops.bitwise_xor, np.invert: ops.invert,
    np.left_shift: ops.left_shift, np.right_shift: ops.right_shift,
    np.gcd: ops.gcd, np.lcm: ops.lcm, np.float_power: ops.float_power,
    np.bitwise_count: _bitwise_count,
}
