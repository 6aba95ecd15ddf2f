"""numpy's floating-point ufuncs and functions (inverse trig, hyperbolic, exp2/log2, logaddexp,
hypot, rounding to decimals, nan_to_num, ...) and the scipy.special ufuncs that reach
`__array_ufunc__` (when scipy is installed), mapped onto gradjit.ops."""
from __future__ import annotations

import operator
import sys

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import ir_type
from gradjit.ops import special
from gradjit.ops.numpy_api.basics import numpy_float


UFUNCS = {
    np.arcsin: ops.arcsin, np.arccos: ops.arccos, np.arctan: ops.arctan,
    np.arctan2: ops.arctan2, np.sinh: ops.sinh, np.cosh: ops.cosh, np.arcsinh: ops.arcsinh,
    np.arccosh: ops.arccosh, np.arctanh: ops.arctanh,
    np.exp2: ops.exp2, np.log2: ops.log2, np.log10: ops.log10, np.logaddexp: ops.logaddexp,
    np.logaddexp2: ops.logaddexp2, np.hypot: ops.hypot, np.cbrt: ops.cbrt, np.fabs: ops.fabs,
    np.heaviside: lambda x1, x2: ops.heaviside(x1, x2, numpy=True),
    np.copysign: ops.copysign, np.fmax: ops.fmax,
    np.fmin: ops.fmin, np.deg2rad: ops.deg2rad, np.radians: ops.deg2rad,
    np.rad2deg: ops.rad2deg, np.degrees: ops.rad2deg, np.isnan: ops.isnan, np.isinf: ops.isinf,
    np.signbit: ops.signbit, np.spacing: ops.spacing, np.ldexp: ops.ldexp,
    np.nextafter: ops.nextafter, np.trunc: ops.trunc, np.conjugate: ops.conj,
    np.modf: lambda x: ops.modf(_from_half(x)), np.frexp: lambda x: ops.frexp(_from_half(x)),
    np.rint: lambda x: ops.round_(_from_half(x)),
}


def _from_half(x):
    """numpy's modf, frexp and rint loops start at float16: bools and integers take the first
    float that holds them (int8 float16, int16 float32, wider float64)."""
    dt = ir_type(x).dtype.numpy
    return x if dt.kind == "f" else ops.astype(x, np.promote_types(dt, np.float16))


def _angle(z, deg=False):
    """numpy's angle is arctan2(0, z): a real z computes in arctan2's loop for it, where the
    0 (a Python int) makes a bool an int64 and leaves small integers their float16 or float32."""
    dt = ir_type(z).dtype.numpy
    if dt.kind in "biu":
        z = ops.astype(z, np.float64 if dt.kind == "b" else np.promote_types(dt, np.float16))
    return ops.angle(z, deg)


def _round(a, decimals=0, out=None):
    decimals = operator.index(decimals)  # numpy's TypeError for a float
    if decimals and ir_type(a).dtype.is_bool:  # numpy scales into the bool array itself
        step = "multiply" if decimals > 0 else "divide"
        raise TypeError(f"Cannot cast ufunc '{step}' output from dtype('float64') to "
                        "dtype('bool') with casting rule 'same_kind'")
    return ops.round_decimals(_from_half(a) if ir_type(a).dtype.is_bool else a, decimals)


def _i0(x):
    if ops.is_complex(x):
        raise TypeError("i0 not supported for complex values")
    return special.i0(x)


def _fix(x, out=None):
    return ops.trunc(x)


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """A new value whatever `copy` says: traced values are never written in place."""
    return ops.nan_to_num(x, nan, posinf, neginf)


def _real_if_close(a, tol=100):
    """The real part when every imaginary part is within tol machine epsilons of 0 (tol > 1;
    else tol itself), decided on the traced value's data (a guard)."""
    if not ops.is_complex(a):
        return a
    eps = np.finfo(ir_type(a).dtype.numpy).eps
    bound = tol * eps if tol > 1 else tol
    close = bool(ops.all_(ops.lt(ops.abs_(ops.imag(a)), bound)))
    return ops.real(a) if close else a


FUNCTIONS = {
    np.sinc: lambda x: ops.sinc(numpy_float(x)), np.fix: _fix, np.nan_to_num: _nan_to_num,
    np.round: _round, np.around: _round, np.i0: _i0, np.real: ops.real, np.imag: ops.imag,
    np.real_if_close: _real_if_close, np.angle: _angle,
}

# scipy.special's name -> gradjit's function
SCIPY = {"erf": special.erf, "erfc": special.erfc, "expit": special.expit,
         "logit": special.logit, "gammaln": special.gammaln, "psi": special.digamma,
         "xlogy": special.xlogy, "xlog1py": special.xlog1py, "ndtr": special.ndtr,
         "log_ndtr": special.log_ndtr, "erfinv": special.erfinv, "ndtri": special.ndtri,
         "i0": special.i0, "erfcx": special.erfcx, "entr": special.entr}
_SCIPY: dict = {}


def scipy_ufuncs() -> dict:
    """scipy.special's ufuncs that gradjit computes. A scipy ufunc reaches gradjit only once
    the caller has imported scipy.special, so gradjit never imports it (scipy is optional)."""
    sc = sys.modules.get("scipy.special")
    if sc is not None and not _SCIPY:
        _SCIPY.update({getattr(sc, name): fn for name, fn in SCIPY.items()})
    return _SCIPY
