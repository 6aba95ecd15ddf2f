"""numpy's polynomial functions (poly, roots, polyval, polyder, polyint, polyadd, polysub,
polymul, polydiv, polyfit, vander), np.convolve, np.correlate and np.interp on gradjit values,
in numpy's semantics (Horner's rule, numpy's modes and argument order, its out-of-range values)."""
from __future__ import annotations

import warnings

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import is_python_scalar
from gradjit.ops import sorting as O
from gradjit.ops.indexing import constant_value
from gradjit.ops.numpy_api.dtypes import nonzero
from gradjit.ops.numpy_api.linalg import real_if_real


def _array(x):
    if isinstance(x, np.poly1d):  # its coefficients may be traced: numpy's asarray of it
        return x.coeffs
    return np.asarray(x) if is_python_scalar(x) or isinstance(x, (list, tuple)) else x


def _polyval(p, x):
    """p[0] * x**(n-1) + ... + p[-1], by Horner's rule as numpy evaluates it (a p of more
    dimensions holds polynomials along its first axis, broadcast against x; a poly1d x gives
    the composition, a poly1d)."""
    p = ops.asarray(_array(p))
    if isinstance(x, np.poly1d):
        y = 0
        for i in range(ops.shape_of(p)[0]):
            y = y * x + ops.getitem(p, i)
        return y
    x = ops.asarray(_array(x))
    if not ops.shape_of(p):
        raise TypeError("iteration over a 0-d array")
    y = ops.astype(ops.mul(x, 0), ops.result_type(p, x))  # numpy starts from zeros like x
    for i in range(ops.shape_of(p)[0]):
        y = ops.add(ops.mul(y, x), ops.getitem(p, i))
    return y


def _coefficients(p, name):
    p = ops.asarray(_array(p))
    if len(ops.shape_of(p)) != 1:
        raise ValueError(f"np.{name}: p must be a 1-d array of coefficients")
    return p


def _polyder(p, m=1):
    """The m-th derivative's coefficients (highest power first)."""
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _coefficients(p, "polyder")
    for _ in range(m):
        n = ops.shape_of(p)[0] - 1
        p = ops.mul(ops.getitem(p, slice(0, max(n, 0))), np.arange(n, 0, -1, dtype=np.float64))
    return p


def _polyint(p, m=1, k=None):
    """The m-th antiderivative's coefficients, the integration constants k (zeros)."""
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    constants = np.zeros(m) if k is None else np.broadcast_to(np.atleast_1d(k), (m,))
    p = _coefficients(p, "polyint")
    for i in range(m):
        n = ops.shape_of(p)[0]
        scaled = ops.true_divide(p, np.arange(n, 0, -1, dtype=np.float64))
        p = ops.concatenate([scaled, np.asarray([constants[i]])])
    return p


def _aligned(a1, a2):
    a1, a2 = ops.asarray(_array(a1)), ops.asarray(_array(a2))
    n1, n2 = ops.shape_of(a1)[0], ops.shape_of(a2)[0]
    width = max(n1, n2)
    return ops.pad(a1, [(width - n1, 0)]), ops.pad(a2, [(width - n2, 0)])


def _polyadd(a1, a2):
    return ops.add(*_aligned(a1, a2))


def _polysub(a1, a2):
    return ops.sub(*_aligned(a1, a2))


def _polymul(a1, a2):
    return _convolve(a1, a2)


def _poly(seq_of_zeros):
    """The monic polynomial with these roots: a product of (x - zero) factors, in numpy's
    order; of a square matrix, its characteristic polynomial (from its eigenvalues, which
    for a real matrix come in conjugate pairs: the coefficients are real, as numpy's)."""
    zeros = ops.asarray(_array(seq_of_zeros))
    shape = ops.shape_of(zeros)
    if len(shape) == 2 and shape[0] == shape[1] and shape[0]:
        coefficients = _poly(ops.linalg.eig(zeros)[0])
        return coefficients if ops.is_complex(zeros) else ops.real(coefficients)
    if len(shape) > 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if not shape[0]:
        return 1.0
    zeros = ops.to_float(zeros)
    a = np.ones(1, ops.result_type(zeros).numpy)
    for k in range(shape[0]):
        zero = ops.getitem(zeros, k)
        a = ops.sub(ops.pad(a, [(0, 1)]), ops.mul(zero, ops.pad(a, [(1, 0)])))
    # numpy's: roots in conjugate pairs give real coefficients (read from the values, guarded)
    if ops.is_complex(zeros) and bool(ops.all_(ops.eq(O.sort(zeros), O.sort(ops.conj(zeros))))):
        return ops.real(a)
    return a


def _polydiv(u, v):
    """Quotient and remainder by long division, leading remainder terms within 1e-8 of zero
    dropped as numpy drops them (read from the values: guarded under tracing)."""
    u, v = ops.ravel(ops.asarray(_array(u))), ops.ravel(ops.asarray(_array(v)))
    u, v = ops.add(u, 0.0), ops.add(v, 0.0)
    dtype = ops.result_type(u, v)
    u, v = ops.astype(u, dtype), ops.astype(v, dtype)
    m, n = ops.shape_of(u)[0] - 1, ops.shape_of(v)[0] - 1
    lead = ops.getitem(v, 0)
    r = [ops.getitem(u, i) for i in range(m + 1)]
    q = [np.zeros((), dtype.numpy)] * max(m - n + 1, 1)
    for k in range(m - n + 1):
        q[k] = ops.mul(ops.true_divide(1.0, lead), r[k])
        for j in range(n + 1):
            r[k + j] = ops.sub(r[k + j], ops.mul(q[k], ops.getitem(v, j)))
    while len(r) > 1 and bool(ops.le(ops.abs_(r[0]), 1e-8)):
        r = r[1:]
    return ops.stack(q), ops.stack(r)


def _vander(x, N=None, increasing=False):
    """Columns x**(N-1), ..., x, 1 (increasing: the other way round)."""
    x = ops.asarray(_array(x))
    if len(ops.shape_of(x)) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = ops.shape_of(x)[0] if N is None else N
    powers = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    return ops.power(ops.reshape(x, (-1, 1)), powers)


def _polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial's coefficients (highest power first), in numpy's steps:
    rows weighted by w, columns scaled to unit norm, lstsq; with full, lstsq's diagnostics
    and rcond; with cov, the coefficients' covariance (scaled by the residuals unless cov is
    'unscaled')."""
    order = int(deg) + 1
    x, y = (ops.add(ops.asarray(_array(v)), 0.0) for v in (x, y))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    _fit_checks(x, y)
    if rcond is None:
        rcond = ops.shape_of(x)[0] * np.finfo(ops.result_type(x).numpy).eps
    lhs, rhs = _vander(x, order), y
    if w is not None:
        w = ops.add(ops.asarray(_array(w)), 0.0)
        if len(ops.shape_of(w)) != 1:
            raise TypeError("expected a 1-d array for weights")
        if ops.shape_of(w)[0] != ops.shape_of(y)[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = ops.mul(lhs, ops.reshape(w, (-1, 1)))
        rhs = ops.mul(rhs, ops.reshape(w, (-1,) + (1,) * (len(ops.shape_of(y)) - 1)))
    scale = ops.sqrt(ops.sum_(ops.mul(lhs, lhs), 0))
    lhs = ops.true_divide(lhs, scale)
    c, resids, rank, s = ops.linalg.lstsq(lhs, rhs, rcond)
    c = ops.transpose(ops.true_divide(ops.transpose(c), scale))
    if not full and int(rank) != order:  # the rank is read from the value (guarded)
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=4)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    base = ops.true_divide(ops.linalg.inv(ops.matmul(ops.transpose(lhs), lhs)),
                           ops.outer(scale, scale))
    if cov == "unscaled":
        return c, base
    n = ops.shape_of(x)[0]
    if n <= order:
        raise ValueError("the number of data points must exceed order to scale the "
                         "covariance matrix")
    fac = ops.true_divide(resids, n - order)
    if len(ops.shape_of(y)) == 1:
        return c, ops.mul(base, fac)
    return c, ops.mul(ops.expand_dims(base, 2), fac)


def _fit_checks(x, y):
    if len(ops.shape_of(x)) != 1:
        raise TypeError("expected 1D vector for x")
    if not ops.shape_of(x)[0]:
        raise TypeError("expected non-empty vector for x")
    if len(ops.shape_of(y)) not in (1, 2):
        raise TypeError("expected 1D or 2D array for y")
    if ops.shape_of(x)[0] != ops.shape_of(y)[0]:
        raise TypeError("expected x and y to have same length")


def _full_convolution(a, v):
    """The full discrete convolution of 1-d a and v (length len(a) + len(v) - 1)."""
    m = ops.shape_of(v)[0]
    total = None
    for k in range(m):
        shifted = ops.pad(ops.mul(a, ops.getitem(v, k)), [(k, m - 1 - k)])
        total = shifted if total is None else ops.add(total, shifted)
    return total


def _at_least_1d(x):
    x = ops.asarray(_array(x))
    return ops.reshape(x, (1,)) if not ops.shape_of(x) else x


def _convolve(a, v, mode="full"):
    a, v = _at_least_1d(a), _at_least_1d(v)
    if len(ops.shape_of(a)) != 1 or len(ops.shape_of(v)) != 1:
        raise ValueError("object too deep for desired array")
    n, m = ops.shape_of(a)[0], ops.shape_of(v)[0]
    if n == 0:
        raise ValueError("a cannot be empty")
    if m == 0:
        raise ValueError("v cannot be empty")
    if m > n:  # numpy swaps them so that the longer one slides
        a, v, n, m = v, a, m, n
    mode = _mode_name(mode)
    full = _full_convolution(a, v)
    if mode == "full":
        return full
    start = (m - 1) // 2 if mode == "same" else m - 1
    return ops.getitem(full, slice(start, start + n - (m - 1 if mode == "valid" else 0)))


_MODES = ("valid", "same", "full")  # numpy's integer modes are their positions


def _mode_name(mode):
    """numpy's convolve/correlate mode as a name, from a name or its integer, with numpy's
    errors."""
    if isinstance(mode, str):
        if mode in _MODES:
            return mode
        if mode[:1].lower() in ("v", "s", "f"):  # numpy reads no further than the first letter
            raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    if not isinstance(mode, (int, np.integer)) or isinstance(mode, bool):
        raise TypeError("convolve/correlate mode not understood")
    if not 0 <= mode < len(_MODES):
        raise ValueError("integer convolve/correlate mode must be 0, 1, or 2")
    return _MODES[mode]


def _correlate(a, v, mode="valid"):
    """numpy's correlate: the convolution of a with v reversed and conjugated; a shorter a
    slides along v, the result reversed and conjugated back (where 'same' centres it)."""
    a, v = ops.asarray(_array(a)), ops.asarray(_array(v))
    if not ops.shape_of(a) or not ops.shape_of(v):  # unlike convolve, no 0-d operands
        raise ValueError("object of too small depth for desired array")
    if len(ops.shape_of(v)) != 1 or len(ops.shape_of(a)) != 1 or not ops.shape_of(v)[0]:
        return _convolve(a, v, mode)  # numpy's errors
    if 0 < ops.shape_of(a)[0] < ops.shape_of(v)[0]:
        return ops.conj(ops.flip(_correlate(v, a, mode), 0))
    return _convolve(a, ops.flip(ops.conj(v), 0), mode)


def _interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of (xp, fp) at x; left/right outside the range (the
    end values by default); complex fp gives complex values."""
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
        left = right = None
    x, xp, fp = _array(x), ops.asarray(_array(xp)), ops.asarray(_array(fp))
    if len(ops.shape_of(xp)) != 1 or len(ops.shape_of(fp)) != 1:
        raise ValueError("object too deep for desired array")
    n = ops.shape_of(xp)[0]
    if ops.shape_of(fp)[0] != n:
        raise ValueError("fp and xp are not of the same length.")
    if n == 0:
        raise ValueError("array of sample points is empty")
    x, xp = (ops.astype(_real(ops.asarray(v)), np.float64) for v in (x, xp))
    fp = ops.astype(fp, np.complex128 if ops.is_complex(fp) else np.float64)
    if n == 1:
        lo_value = hi_value = ops.getitem(fp, 0)
        value = ops.add(ops.mul(x, 0.0), lo_value)
    else:
        index = ops.clip(ops.sub(ops.sorting.searchsorted(xp, x, "right"), 1), 0, n - 2)
        x0, x1 = ops.take(xp, index), ops.take(xp, ops.add(index, 1))
        f0, f1 = ops.take(fp, index), ops.take(fp, ops.add(index, 1))
        if ops.is_complex(fp):
            value = ops.complex_from(*(_segment(x, x0, x1, part(f0), part(f1))
                                       for part in (ops.real, ops.imag)))
        else:
            value = _segment(x, x0, x1, f0, f1)
        lo_value, hi_value = ops.getitem(fp, 0), ops.getitem(fp, n - 1)
    below = lo_value if left is None else left
    above = hi_value if right is None else right
    value = ops.where(ops.lt(x, ops.getitem(xp, 0)), below, value)
    return ops.where(ops.gt(x, ops.getitem(xp, n - 1)), above, value)


def _segment(x, x0, x1, f0, f1):
    """numpy's value on the segment [x0, x1] (of real values): a sample point's own value at
    it, then the line from the left end, from the right end where that is NaN (an infinite
    end), and the common value where both ends are equal."""
    slope = ops.true_divide(ops.sub(f1, f0), ops.sub(x1, x0))
    value = ops.add(f0, ops.mul(slope, ops.sub(x, x0)))
    value = ops.where(ops.isnan(value), ops.add(f1, ops.mul(slope, ops.sub(x, x1))), value)
    value = ops.where(ops.logical_and(ops.isnan(value), ops.eq(f0, f1)), f0, value)
    # at a sample point itself, that point's value (numpy's, even where xp repeats)
    return ops.where(ops.eq(x, x0), f0, ops.where(ops.eq(x, x1), f1, value))


def _real(points):
    """numpy casts the points to float64 by the 'safe' rule, which refuses complex ones."""
    if ops.is_complex(points):
        raise TypeError(f"Cannot cast array data from dtype('{ops.result_type(points).numpy}') "
                        "to dtype('float64') according to the rule 'safe'")
    return points


def _periodic(x, xp, fp, period):
    """numpy's periodic interp as a plain one: everything taken modulo |period|, the points
    sorted and extended by one period's neighbour on each side."""
    if not bool(ops.ne(period, 0)):  # a traced period is read from the value (guarded)
        raise ValueError("period must be a non-zero value")
    period = ops.abs_(ops.astype(ops.asarray(_array(period)), np.float64))
    x, xp = (ops.astype(ops.asarray(_array(v)), np.float64) for v in (x, xp))
    fp = ops.asarray(_array(fp))
    if len(ops.shape_of(xp)) != 1 or len(ops.shape_of(fp)) != 1:
        raise ValueError("Data points must be 1-D sequences")
    if ops.shape_of(xp)[0] != ops.shape_of(fp)[0]:
        raise ValueError("fp and xp are not of the same length")
    x, xp = ops.remainder(x, period), ops.remainder(xp, period)
    order = ops.sorting.argsort(xp, 0)
    xp, fp = ops.take(xp, order), ops.take(fp, order)
    xp = ops.concatenate([ops.sub(ops.getitem(xp, slice(-1, None)), period), xp,
                          ops.add(ops.getitem(xp, slice(0, 1)), period)])
    fp = ops.concatenate([ops.getitem(fp, slice(-1, None)), fp, ops.getitem(fp, slice(0, 1))])
    return x, xp, fp


def _roots(p):
    """The eigenvalues of p's companion matrix, as numpy finds them (real when they all are,
    decided on the values: a guard). numpy strips p's leading and trailing zeros first, the
    trailing ones as roots at 0: which coefficients are zero is read from a traced p's values
    (guarded, so another pattern traces again)."""
    p = ops.asarray(_array(p))
    if len(ops.shape_of(p)) > 1:
        raise ValueError("Input must be a rank-1 array.")
    known = constant_value(p)
    if known is not None:
        return np.roots(known)
    p = ops.reshape(p, (-1,))
    (kept,) = nonzero(ops.ne(p, 0))
    if not len(kept):
        return np.zeros(0)
    first, last = int(kept[0]), int(kept[-1])
    trailing = ops.shape_of(p)[0] - 1 - last
    p = ops.to_float(ops.getitem(p, slice(first, last + 1)))
    n = last + 1 - first
    if n == 1:
        return np.zeros(trailing)
    first_row = ops.true_divide(ops.neg(ops.getitem(p, slice(1, None))), ops.getitem(p, 0))
    below = np.eye(n - 2, n - 1, dtype=ops.result_type(p).numpy)
    companion = ops.concatenate([ops.expand_dims(first_row, 0), below], 0)
    roots = real_if_real(companion, ops.linalg.eig(companion)[0])[0]
    return ops.concatenate([roots, np.zeros(trailing, ops.result_type(roots).numpy)]) \
        if trailing else roots


FUNCTIONS = {np.roots: _roots, np.poly: _poly, np.polydiv: _polydiv, np.polyval: _polyval,
             np.polyder: _polyder,
             np.polyint: _polyint, np.polyadd: _polyadd, np.polysub: _polysub,
             np.polymul: _polymul, np.polyfit: _polyfit, np.vander: _vander, np.convolve: _convolve,
             np.correlate: _correlate, np.interp: _interp}
# np.polynomial's only dispatched functions: numpy's own Python evaluates them on traced values
# (their polyval, at traced points, is gradjit.tracer.polynomial_values's while tracing)
FUNCTIONS.update({f: f._implementation for f in (np.polynomial.polynomial.polyval2d,
                                                  np.polynomial.polynomial.polygrid2d)})
