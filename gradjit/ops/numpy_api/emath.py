"""np.emath (np.lib.scimath): sqrt, log, power and the inverse functions whose real inputs
outside the real domain give complex results. Whether any input is outside decides the
result's dtype, read from the values (a guard, as numpy's eigvals decides real or complex)."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import ir_type, is_python_scalar

# numpy's narrow types go complex in complex64, the others in complex128
_SINGLE = {np.dtype(t) for t in (np.float32, np.int8, np.int16, np.uint8, np.uint16)}


def _complex_where(x, outside):
    """x as numpy's scimath takes it: complex when it is real and any element is outside
    the real domain."""
    x = ops.asarray(np.asarray(x) if is_python_scalar(x) or isinstance(x, (list, tuple)) else x)
    if ops.is_complex(x) or not bool(ops.any_(outside(x))):
        return x
    return ops.astype(x, np.complex64 if ir_type(x).dtype.numpy in _SINGLE else np.complex128)


def _negative(x):
    return _complex_where(x, lambda v: ops.lt(v, 0))


def _beyond_one(x):
    return _complex_where(x, lambda v: ops.gt(ops.abs_(v), 1))


def _logn(n, x):
    return np.true_divide(np.log(_negative(x)), np.log(_negative(n)))


def _power(x, p):
    """x ** p, a negative x complex; negative integer powers taken in float64."""
    p = ops.asarray(np.asarray(p) if is_python_scalar(p) or isinstance(p, (list, tuple)) else p)
    if ops.result_type(p).numpy.kind in "iu" and bool(ops.any_(ops.lt(p, 0))):
        p = ops.astype(p, np.float64)
    return np.power(_negative(x), p)


FUNCTIONS = {
    np.emath.sqrt: lambda x: np.sqrt(_negative(x)), np.emath.log: lambda x: np.log(_negative(x)),
    np.emath.log10: lambda x: np.log10(_negative(x)),
    np.emath.log2: lambda x: np.log2(_negative(x)), np.emath.logn: _logn,
    np.emath.power: _power,
    np.emath.arccos: lambda x: np.arccos(_beyond_one(x)),
    np.emath.arcsin: lambda x: np.arcsin(_beyond_one(x)),
    np.emath.arctanh: lambda x: np.arctanh(_beyond_one(x)),
}
