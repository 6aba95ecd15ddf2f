"""Complex numbers on the array surface: parts, conjugate, angle and polar form over the
elementwise primitives; on real values they answer as numpy does, without a complex value."""
from __future__ import annotations

from gradjit.ir import elementwise as E
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.array import cos, eq, mul, sin
from gradjit.ops.promote import astype, operands, result_type, to_float
from gradjit.ops.ufuncs import arctan2


def is_complex(x) -> bool:
    return isinstance(x, complex) if is_python_scalar(x) else ir_type(x).dtype.is_complex


def conj(x):
    return E.conj(x) if is_complex(x) else x


def real(x):
    return E.real(x) if is_complex(x) else x


def imag(x):
    """The imaginary part; of a real array, zeros of its dtype."""
    if is_complex(x):
        return E.imag(x)
    t = ir_type(x)
    return E.full(value=0, shape=t.shape, dtype=t.dtype.name)


def angle(z, deg=False):
    """The argument atan2(imag, real); of a real number pi for negatives and -0.0, else 0."""
    x = to_float(z)
    if is_complex(x):
        out = arctan2(E.imag(x), E.real(x))
    else:
        out = arctan2(E.zeros_like(x), x)  # atan2(0, x): NaN only for a NaN x
    return mul(out, 180 / 3.141592653589793) if deg else out


def complex_from(re, im):
    """re + i im from real parts of one float type (integers become the default float)."""
    dt = result_type(re, im)
    return E.complex_(*operands(to_float(astype(re, dt)), to_float(astype(im, dt))))


def polar(magnitude, phase):
    """magnitude * (cos(phase) + i sin(phase))."""
    return complex_from(mul(magnitude, cos(phase)), mul(magnitude, sin(phase)))


def is_real_valued(x):
    """Elementwise: the imaginary part is 0 (every real value is)."""
    return eq(imag(x), 0)
