"""Vector and matrix norms with numpy's orders and axes, written so that gradients stay finite
where a naive chain rule meets 0 * inf (a zero vector, |x|^p at 0)."""
from __future__ import annotations

import math

from numpy.lib.array_utils import normalize_axis_index

from gradjit.ir.primitive import ir_type
from gradjit.ops.array import (abs_, add, amax, amin, eq, expand_dims, isfinite, logical_and,
                               logical_not, mul, ne, normalize_axes, power, reshape, sqrt,
                               squeeze, sum_, true_divide, where)
from gradjit.ir.linalg import eye_like
from gradjit.ops.linalg import inv, matrices, matrix_norm_svd, singular, svdvals
from gradjit.ops.promote import astype, flavor, in_float32, to_float
from gradjit.ops.reduce import any_
from gradjit.ops.ufuncs import isnan

# Matrix orders computed from singular values.
_SINGULAR_VALUE_ORDS = (2, -2, "nuc")


def _largest(magnitudes, axis, keepdims):
    """The largest magnitude over `axis`; numpy's starts from 0, so an empty axis gives 0 (the
    sum), where PyTorch's refuses."""
    shape = ir_type(magnitudes).shape
    if flavor(magnitudes) != "torch" and not all(
            shape[a] for a in normalize_axes(axis, len(shape))):
        return sum_(magnitudes, axis, keepdims)
    return amax(magnitudes, axis, keepdims)


def vector_norm(x, ord=2, axis=None, keepdims=False):
    """(sum |x|^ord)^(1/ord) over `axis` (all axes for None); ord = inf / -inf give the
    largest / smallest magnitude, ord = 0 the count of nonzeros.

    Gradients: 0 at a zero vector (a subgradient), 0 for entries that are 0 whatever ord, as
    PyTorch's norm backward masks them; for inf/-inf the cotangent is split evenly among tied
    extreme entries (PyTorch's and JAX's max convention)."""
    x = to_float(x)
    if ir_type(x).dtype.is_complex:  # every vector norm is one of the magnitudes
        x = abs_(x)
    return in_float32(lambda v: _vector_norm(v, ord, axis, keepdims), x)


def _vector_norm(x, ord, axis, keepdims):
    if ord is None:
        ord = 2
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == math.inf:
        return _largest(abs_(x), axis, keepdims)
    if ord == -math.inf:
        return amin(abs_(x), axis, keepdims)
    if ord == 0:  # piecewise constant: x's finite entries times 0 keep it on x's tape with
        # the zero gradient PyTorch records
        tied = where(isfinite(x), mul(x, 0.0), 0.0)
        return sum_(add(astype(ne(x, 0), ir_type(x).dtype), tied), axis, keepdims)
    if ord == 1:
        return sum_(abs_(x), axis, keepdims)
    if ord == 2:
        return _root(sum_(mul(x, x), axis, keepdims), 2)
    return _root(sum_(_magnitude_power(x, ord), axis, keepdims), ord)


def _magnitude_power(x, p):
    """|x|^p with 0 at x = 0 for p > 0 and inf for p < 0, through no power of 0."""
    size = abs_(x)
    zero = eq(size, 0)
    return where(zero, 0 if p > 0 else math.inf, power(where(zero, 1, size), p))


def _root(total, p):
    """total^(1/p); where total is 0 (a zero vector, p > 0) the value and gradient are 0."""
    if p < 0:  # total is 0 only for an empty axis, where numpy gives inf
        return power(total, 1.0 / p)
    zero = eq(total, 0)
    safe = where(zero, 1, total)
    return where(zero, 0, sqrt(safe) if p == 2 else power(safe, 1.0 / p))


def matrix_norm(x, ord="fro", axis=(-2, -1), keepdims=False):
    """Frobenius and the induced 1 / inf norms (max column / row sum of magnitudes) and their
    -1 / -inf minima, over the two axes `axis`."""
    x = to_float(x)
    rank = len(ir_type(x).shape)
    row, col = (normalize_axis_index(a, rank) for a in axis)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord in _SINGULAR_VALUE_ORDS:
        return matrix_norm_svd(x, ord, (row, col), keepdims)
    if ord in (None, "fro"):
        return vector_norm(x, 2, (row, col), keepdims)
    if ord in (1, -1, math.inf, -math.inf):
        extremum = _largest if ord > 0 else amin
        summed, other = (row, col) if abs(ord) == 1 else (col, row)
        out = extremum(sum_(abs_(x), summed, keepdims=True), other, keepdims=True)
        return out if keepdims else squeeze(out, (row, col))
    raise ValueError("Invalid norm order for matrices.")


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: a vector norm over one axis, a matrix norm over two; axis=None means
    the whole array for ord=None and otherwise its one or two axes."""
    x = to_float(x)
    shape = ir_type(x).shape
    if axis is None:
        if ord is None:
            out = vector_norm(reshape(x, (-1,)), 2)
            return reshape(out, (1,) * len(shape)) if keepdims else out
        if len(shape) not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(len(shape)))
    if isinstance(axis, tuple):
        axes = axis
    else:
        try:  # numpy's rule: anything int() takes
            axes = (int(axis),)
        except (TypeError, ValueError):
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    if len(axes) == 1:
        return vector_norm(x, ord, normalize_axis_index(axes[0], len(shape)), keepdims)
    if len(axes) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, axes, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def cond(x, p=None):
    """max(s) / min(s) for p None or 2 (its inverse for -2), otherwise norm(x, p) *
    norm(inv(x), p) (PyTorch's nuc: sum(s) * sum(1 / s)), with a singular matrix's inverse
    norm inf. numpy turns a NaN from a matrix without NaNs into inf; PyTorch does so for the orders
    other than the singular-value ones, whose 0 / 0 and 0 * inf stay NaN."""
    x = matrices(x)
    numpy_flavor = flavor(x) != "torch"
    if p in (None, 2, -2):
        s = svdvals(x)
        big, small = amax(s, -1), amin(s, -1)
        r = true_divide(small, big) if p == -2 else true_divide(big, small)
    elif p == "nuc" and numpy_flavor:
        # numpy's nuclear norm of a singular matrix's NaN inverse fails: its LinAlgError
        r = mul(norm(x, p, (-2, -1)), norm(inv(x), p, (-2, -1)))
    elif p == "nuc":  # PyTorch's: sum(s) * sum(1 / s), from one SVD
        s = svdvals(x)
        r = mul(sum_(s, -1), sum_(true_divide(1.0, s), -1))
    else:
        r = mul(norm(x, p, (-2, -1)), _inverse_norm(x, p))
    if not numpy_flavor and p in (None, 2, -2, "nuc"):
        return r
    clean = logical_not(any_(isnan(x), (-2, -1)))
    return where(logical_and(isnan(r), clean), math.inf, r)


def _inverse_norm(x, p):
    """norm(inv(x), p) over the last two axes, inf for a singular matrix."""
    bad = singular(x)
    box = expand_dims(expand_dims(bad, -1), -1)
    return where(bad, math.inf, norm(inv(where(box, eye_like(x), x)), p, (-2, -1)))

