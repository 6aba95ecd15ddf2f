"""np.cov and np.corrcoef on gradjit values, in numpy's steps (so its dtypes, its rounding and
its errors): variables as rows, frequency and reliability weights, the normalization."""
from __future__ import annotations

import warnings

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import is_python_scalar
from gradjit.ops.numpy_api.dtypes import stand_in


def _array(x):
    return np.asarray(x) if is_python_scalar(x) or isinstance(x, (list, tuple)) else x


def _rows(x, name, rowvar, dt, transpose_when):
    """x as a 2-d array of variables in rows (numpy's ndmin=2: a 1-d x is one variable)."""
    shape = ops.shape_of(x)
    if len(shape) > 2:
        raise ValueError(f"{name} has more than 2 dimensions")
    x = ops.astype(ops.reshape(x, (1,) * (2 - len(shape)) + shape), dt)
    return ops.transpose(x) if not rowvar and transpose_when(x, shape) else x


def _weights(w, name, n):
    """fweights or aweights as float64, checked as numpy checks them (a traced weight's checks
    read its value, guarded)."""
    w = ops.astype(_array(w), np.float64)
    if len(ops.shape_of(w)) > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if ops.shape_of(w)[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if name == "fweights" and not bool(ops.all_(ops.eq(w, ops.round_(w)))):
        raise TypeError("fweights must be integer")
    if bool(ops.any_(ops.lt(w, 0))):
        raise ValueError(f"{name} cannot be negative")
    return w


def _cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
         dtype=None):
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m, y = _array(m), None if y is None else _array(y)
    given = [m] if y is None else [m, y]
    dt = np.result_type(*(stand_in(v) for v in given), np.float64) if dtype is None \
        else np.dtype(dtype)
    x = _rows(m, "m", rowvar, dt, lambda x, shape: len(shape) != 1)
    if ops.shape_of(x)[0] == 0:
        return np.array([]).reshape(0, 0)
    if y is not None:
        rows = _rows(y, "y", rowvar, dt, lambda y, shape: ops.shape_of(y)[0] != 1)
        x = ops.concatenate([x, rows], 0)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    n = ops.shape_of(x)[1]
    f = None if fweights is None else _weights(fweights, "fweights", n)
    a = None if aweights is None else _weights(aweights, "aweights", n)
    w = a if f is None else f if a is None else ops.mul(f, a)
    if w is None:
        avg, fact = ops.mean(x, 1), n - ddof
    else:
        w_sum = ops.sum_(w)
        avg = ops.true_divide(ops.sum_(ops.mul(x, w), 1), w_sum)
        fact = w_sum if ddof == 0 else ops.sub(w_sum, ddof) if a is None else ops.sub(
            w_sum, ops.true_divide(ops.mul(ddof, ops.sum_(ops.mul(w, a))), w_sum))
    x = ops.astype(ops.sub(x, ops.expand_dims(avg, 1)), dt)  # numpy subtracts in place
    if is_python_scalar(fact):
        if fact <= 0:
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)
            fact = 0.0
        scale = np.true_divide(1, fact)
    else:
        scale = ops.true_divide(1.0, ops.where(ops.le(fact, 0), 0.0, fact))
    c = ops.matmul(x, ops.conj(ops.transpose(x if w is None else ops.mul(x, w))))
    return ops.squeeze(ops.astype(ops.mul(c, scale), ops.result_type(c)))


def _corrcoef(x, y=None, rowvar=True, *, dtype=None):
    c = _cov(x, y, rowvar, dtype=dtype)
    if len(ops.shape_of(c)) != 2:  # one variable: nan for a zero, inf or nan variance, else 1
        return ops.true_divide(c, c)
    std = ops.sqrt(ops.diagonal(c))
    c = ops.true_divide(ops.true_divide(c, ops.expand_dims(std, 1)), ops.expand_dims(std, 0))
    if ops.result_type(c).is_complex:  # each part clipped, as numpy does
        return ops.complex_from(ops.clip(ops.real(c), -1, 1), ops.clip(ops.imag(c), -1, 1))
    return ops.clip(c, -1, 1)


FUNCTIONS = {np.cov: _cov, np.corrcoef: _corrcoef}
