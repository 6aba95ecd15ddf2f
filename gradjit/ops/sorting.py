"""Order statistics on array-likes: sorts, quantiles, searches and unique values, each a
composition of the stable argsort primitive with gathers, so gradients flow through the
elements a sort selects (to one element of a tie, the first in stable order)."""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from gradjit.ir import elementwise as E
from gradjit.ir import sorting as P
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ir.types import float64, int64
from gradjit.ops.array import (add, ceil, concatenate, eq, floor, ge, gt, le, logical_and,
                               logical_not, logical_or, lt, maximum, minimum, mul, ne,
                               normalize_axes, reshape, shape_of, sub, sum_, transpose,
                               true_divide, where)
from gradjit.ops.indexing import flip, getitem
from gradjit.ops.reduce import any_, cumsum, nan_mask
from gradjit.ops.shaping import moveaxis
from gradjit.ops.promote import astype, broadcast, result_type


def sort_axis(x, axis):
    """The one axis a sort runs along; None means the flattened array (numpy's axis=None)."""
    if axis is None:
        return reshape(x, (-1,)), 0
    rank = ir_type(x).rank
    if not -max(rank, 1) <= axis < max(rank, 1) or rank == 0:
        raise np.exceptions.AxisError(axis, rank)
    return x, axis % rank


def argsort(x, axis=-1):
    """Indices that sort `x` along `axis`: stable, NaN last, int64."""
    x, axis = sort_axis(x, axis)
    return P.argsort(x, axis=axis)


def take_along_axis(x, idx, axis):
    """numpy's take_along_axis for same-rank `idx` of non-negative indices: one gather from
    the flattened array (its gradient is a scatter_add back to the taken elements)."""
    shape, rank = ir_type(x).shape, ir_type(x).rank
    perm = tuple(a for a in range(rank) if a != axis) + (axis,)
    moved, moved_idx = transpose(x, perm), transpose(idx, perm)
    n, m = shape[axis], ir_type(moved_idx).shape[-1]
    rows = math.prod(ir_type(moved).shape[:-1])
    offsets = mul(S.iota(shape=(rows, m), dtype="i64", axis=0), n) if rows and m else 0
    flat = add(reshape(astype(moved_idx, int64), (rows, m)), offsets)
    taken = reshape(S.gather(reshape(moved, (-1,)), flat, axis=0),
                    ir_type(moved_idx).shape)
    return transpose(taken, tuple(np.argsort(perm).tolist()))


def sort(x, axis=-1):
    x, axis = sort_axis(x, axis)
    return take_along_axis(x, P.argsort(x, axis=axis), axis)


def last_writes(targets):
    """Whether each of the flat positions `targets` (a vector computed at run time) is the last
    write to its position: the end of its run in the stable sort of the targets."""
    n = ir_type(targets).shape[0]
    order = argsort(targets)
    ranked = S.gather(targets, order, axis=0)
    ends = concatenate([logical_not(eq(getitem(ranked, slice(0, n - 1)),
                                       getitem(ranked, slice(1, n)))), np.ones(1, bool)])
    return gt(S.scatter_add(E.full(value=0, shape=(n,), dtype="i64"), order,
                            E.cast(ends, dtype="i64"), axis=0), 0)


def argsort_descending(x, axis):
    """Largest first, NaN first, ties in their original order: the stable ascending order of
    the reversed array, reversed, its indices mapped back."""
    n = ir_type(x).shape[axis]
    return sub(n - 1, flip(P.argsort(flip(x, axis), axis=axis), axis))


def lexsort(keys, axis=-1):
    """The order sorting by the last key, then the one before it, ...: one stable argsort
    per key, least significant first."""
    keys = list(keys) if not hasattr(keys, "shape") else [keys[i] for i in range(len(keys))]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = ir_type(keys[0]).shape
    if any(ir_type(k).shape != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    _, axis = sort_axis(keys[0], axis)
    order = P.argsort(keys[0], axis=axis)
    for key in keys[1:]:
        order = take_along_axis(order, P.argsort(take_along_axis(key, order, axis), axis=axis),
                                axis)
    return order


def check_kth(kth, n):
    """numpy's check of partition's kth (int or sequence; negative counts from the end)."""
    for k in np.atleast_1d(np.asarray(kth)).tolist():
        if not isinstance(k, int):
            raise TypeError("Partition index must be integer")
        if not -n <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")


# ---- searching ----

def _rank(x, axis):
    """Each element's position in the stable sort of `x` (the inverse of argsort)."""
    return P.argsort(P.argsort(x, axis=axis), axis=axis)


def searchsorted_last(a, v, right=False):
    """Insertion points of `v` into `a` sorted along the last axis (leading axes match). A
    stable sort of `v` joined to `a` places each value after the `a` elements below it
    (side left: `v` goes first, so equal `a` elements come after it); its position there
    less its rank among the values is the number of `a` elements before it."""
    dt = result_type(a, v)
    a, v = astype(a, dt), astype(v, dt)
    axis = ir_type(v).rank - 1
    joined = concatenate([a, v] if right else [v, a], axis)
    m, n = ir_type(v).shape[-1], ir_type(a).shape[-1]
    place = _rank(joined, axis)
    start = n if right else 0
    shape = ir_type(joined).shape
    mine = S.slice_(place, start=(0,) * axis + (start,), stop=shape[:-1] + (start + m,),
                    step=(1,) * (axis + 1))
    return sub(mine, _rank(v, axis))


def searchsorted(a, v, side="left", sorter=None):
    """numpy's searchsorted: `a` 1-d and ascending (or sorted by `sorter`), `v` any shape."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    if ir_type(a).rank > 1:
        raise ValueError("object too deep for desired array")
    if ir_type(a).rank == 0:
        raise ValueError("object of too small depth for desired array")
    if sorter is not None:
        if int(np.prod(shape_of(sorter))) != ir_type(a).shape[0]:
            raise ValueError("sorter.size must equal a.size")
        a = S.gather(a, astype(sorter, int64), axis=0)
    v = np.asarray(v) if is_python_scalar(v) else v
    out = searchsorted_last(a, reshape(v, (-1,)), right=side == "right")
    return reshape(out, ir_type(v).shape)


def digitize(x, bins, right=False):
    """numpy's digitize: the monotonic direction of `bins` decides the search; for traced
    bins it is read from their value and guarded (a trace holds for one direction)."""
    if ir_type(bins).rank > 1:
        raise ValueError("bins must be 1d")
    if ir_type(bins).rank == 0:
        raise ValueError("object of too small depth for desired array")
    n = ir_type(bins).shape[0]
    head = S.slice_(bins, start=(0,), stop=(max(n - 1, 0),), step=(1,))
    tail = S.slice_(bins, start=(min(1, n),), stop=(n,), step=(1,))
    rising = bool(S.reduce_min(astype(le(head, tail), "bool"), axes=(0,),
                               keepdims=False)) if n > 1 else True
    falling = bool(S.reduce_min(astype(ge(head, tail), "bool"), axes=(0,),
                                keepdims=False)) if n > 1 else True
    if not (rising or falling):
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if rising:
        return searchsorted(bins, x, side)
    return sub(n, searchsorted(flip(bins, 0), x, side))


# ---- unique ----

def _run_starts(flat, equal_nan):
    """Flags marking each element that differs from the one before it (NaNs equal to each
    other with equal_nan, as numpy's unique has it; distinct, as PyTorch's)."""
    n = ir_type(flat).shape[0]
    if n == 0:
        return np.zeros(0, bool)
    prev = S.slice_(flat, start=(0,), stop=(n - 1,), step=(1,))
    cur = S.slice_(flat, start=(1,), stop=(n,), step=(1,))
    differs = ne(cur, prev)
    if equal_nan:
        both = logical_and(nan_mask(cur), nan_mask(prev))
        differs = logical_and(differs, logical_not(both))
    return concatenate([np.ones(1, bool), differs])


def flagged(flat, flags):
    """The elements of 1-d `flat` that `flags` marks, in order, and their positions. Their
    number is the result's length: it is read from the value (guarded under tracing, so another
    count re-traces); the rest is computed by the program."""
    n = ir_type(flat).shape[0]
    count = int(sum_(flags)) if n else 0
    # A stable sort of the negated flags lists the flagged positions first, in order.
    positions = S.slice_(P.argsort(logical_not(flags), axis=0), start=(0,), stop=(count,),
                         step=(1,)) if n else np.zeros(0, np.int64)
    return (S.gather(flat, positions, axis=0) if n else flat), positions


def _runs(flat, first, return_inverse, return_counts):
    """The first value of each run that `first` flags and its position, then (with the flags)
    each element's run and each run's length."""
    n = ir_type(flat).shape[0]
    values, starts = flagged(flat, first)
    count = ir_type(starts).shape[0]
    out = [values, starts]
    if return_inverse:
        out.append(sub(searchsorted_last(starts, S.iota(shape=(n,), dtype="i64", axis=0),
                                         right=True), 1) if n else np.zeros(0, np.int64))
    if return_counts:
        ends = concatenate([S.slice_(starts, start=(1,), stop=(count,), step=(1,)),
                            np.full(1, n, np.int64)]) if n else starts
        out.append(sub(ends, starts))
    return out


def unique(x, return_index=False, return_inverse=False, return_counts=False, equal_nan=True):
    """numpy's unique of the flattened array: the runs of its stable sort."""
    flat = reshape(x, (-1,))
    order = P.argsort(flat, axis=0)
    ordered = S.gather(flat, order, axis=0)
    found = _runs(ordered, _run_starts(ordered, equal_nan), return_inverse, return_counts)
    return _unique_results(found, order, return_index, return_inverse, ir_type(x).shape)


def unique_along(x, axis, return_index=False, return_inverse=False, return_counts=False):
    """numpy's unique(axis=...): the distinct slices along `axis`, in the lexicographic order
    of their elements (NaNs distinct, as numpy compares the slices as records)."""
    shape = ir_type(x).shape
    axis = normalize_axis_index(axis, len(shape))  # numpy's AxisError
    moved = moveaxis(x, axis, 0)
    n, rest = shape[axis], ir_type(moved).shape[1:]
    rows = reshape(moved, (n, math.prod(rest)))
    columns = [S.slice_(rows, start=(0, j), stop=(n, j + 1), step=(1, 1))
               for j in range(math.prod(rest))]
    order = lexsort([reshape(c, (n,)) for c in columns[::-1]], 0) if columns and n else \
        S.iota(shape=(n,), dtype="i64", axis=0)
    ordered = S.gather(rows, order, axis=0) if n else rows
    if n and columns:
        prev = S.slice_(ordered, start=(0, 0), stop=(n - 1, len(columns)), step=(1, 1))
        cur = S.slice_(ordered, start=(1, 0), stop=(n, len(columns)), step=(1, 1))
        first = concatenate([np.ones(1, bool), any_(ne(cur, prev), 1)])
    else:  # slices without elements are all equal
        first = np.arange(n) == 0
    values, *found = _runs(ordered, first, return_inverse, return_counts)
    values = moveaxis(reshape(values, (ir_type(values).shape[0],) + rest), 0, axis)
    return _unique_results([values, *found], order, return_index, return_inverse, (n,))


def _unique_results(found, order, return_index, return_inverse, inverse_shape):
    """unique's outputs from the runs of the sorted elements: the values, then where each
    first occurs, each element's run and the runs' lengths as asked."""
    values, starts, *rest = found
    out = [values]
    if return_index:
        out.append(S.gather(order, starts, axis=0) if ir_type(starts).shape[0] else starts)
    if return_inverse:
        n = ir_type(order).shape[0]
        group = rest.pop(0)
        inverse = S.scatter_add(np.zeros(n, np.int64), order, group, axis=0) if n else group
        out.append(reshape(inverse, inverse_shape))
    out.extend(rest)
    return out[0] if len(out) == 1 else tuple(out)


def unique_consecutive(x, return_inverse=False, return_counts=False):
    """The first of each run of equal neighbours in the flattened array (NaNs distinct)."""
    flat = reshape(x, (-1,))
    values, _, *rest = _runs(flat, _run_starts(flat, False), return_inverse, return_counts)
    if return_inverse:
        rest[0] = reshape(rest[0], ir_type(x).shape)
    return (values, *rest) if rest else values


# ---- quantiles ----

def _continuous(alpha, beta):
    return lambda n, q: sub(add(mul(n, q), add(alpha, mul(q, 1 - alpha - beta))), 1)


def _discrete(shift, odd_only):
    """inverted_cdf and closest_observation: the order statistic at n*q - 1 - shift, the lower
    neighbour where that lands on an integer (closest_observation: an odd one)."""
    def index(n, q):
        at = sub(sub(mul(n, q), 1), shift)
        below = floor(at)
        exact = eq(at, below)
        if odd_only:
            exact = logical_and(exact, eq(sub(below, mul(floor(mul(below, 0.5)), 2)), 1))
        return maximum(where(exact, below, add(below, 1)), 0.0)
    return index


def _half_even(v):
    """Round half to even, as numpy's around."""
    down = floor(v)
    frac = sub(v, down)
    even = eq(sub(down, mul(floor(mul(down, 0.5)), 2)), 0)
    up = logical_or(gt(frac, 0.5), logical_and(eq(frac, 0.5), logical_not(even)))
    return where(up, add(down, 1), down)


def _less_one(n):
    """n - 1, a Python number for a Python n (so it promotes weakly, as numpy's does)."""
    return n - 1 if is_python_scalar(n) else sub(n, 1)


# name -> (virtual index from (count, q), whether the index is an order statistic)
METHODS = {
    "inverted_cdf": (_discrete(0.0, False), True),
    "averaged_inverted_cdf": (lambda n, q: sub(mul(n, q), 1), False),
    "closest_observation": (_discrete(0.5, True), True),
    "interpolated_inverted_cdf": (_continuous(0.0, 1.0), False),
    "hazen": (_continuous(0.5, 0.5), False),
    "weibull": (_continuous(0.0, 0.0), False),
    "linear": (lambda n, q: mul(_less_one(n), q), False),
    "median_unbiased": (_continuous(1 / 3, 1 / 3), False),
    "normal_unbiased": (_continuous(3 / 8, 3 / 8), False),
    "lower": (lambda n, q: floor(mul(_less_one(n), q)), True),
    "higher": (lambda n, q: ceil(mul(_less_one(n), q)), True),
    "midpoint": (lambda n, q: mul(add(floor(mul(_less_one(n), q)), ceil(mul(_less_one(n), q))),
                                  0.5), False),
    "nearest": (lambda n, q: _half_even(mul(_less_one(n), q)), True),
}


def _gamma(method, index, below):
    frac = sub(index, below)
    if method == "averaged_inverted_cdf":
        return where(eq(frac, 0), 0.5, 1.0)
    if method == "midpoint":
        return where(eq(frac, 0), 0.0, 0.5)
    return frac


def _rows(x, axis, keepdims):
    """x as (rows, n) with the reduced axes last, and the shape the rows take in the result."""
    shape = ir_type(x).shape
    axes = normalize_axes(axis, len(shape))
    kept = tuple(a for a in range(len(shape)) if a not in axes)
    n = math.prod(shape[a] for a in axes)
    rows = transpose(x, kept + axes) if shape else x
    rows = reshape(rows, (math.prod(shape[a] for a in kept), n))
    out_shape = tuple(1 if a in axes else d for a, d in enumerate(shape)) if keepdims else \
        tuple(shape[a] for a in kept)
    return rows, n, out_shape


def _pick(ordered, idx):
    """ordered[r, idx[r, j]] for (rows, n) values and (rows, k) indices."""
    rows, n = ir_type(ordered).shape
    k = ir_type(idx).shape[1]
    if rows * k * n == 0:
        return np.zeros((rows, k), ir_type(ordered).dtype.numpy)
    flat = add(astype(idx, int64), mul(S.iota(shape=(rows, k), dtype="i64", axis=0), n))
    return S.gather(reshape(ordered, (-1,)), flat, axis=0)


def _lerp(a, b, gamma, dtype):
    """numpy's linear interpolation: from the nearer end, so t = 0 and t = 1 are exact. The
    end is chosen by gamma as computed, the arithmetic done with gamma in `dtype`."""
    diff, t, rest = sub(b, a), astype(gamma, dtype), astype(sub(1, gamma), dtype)
    return where(ge(gamma, 0.5), sub(b, mul(diff, rest)), add(a, mul(diff, t)))


def quantile(x, q, axis=None, method="linear", keepdims=False, ignore_nan=False,
             weak_q=False, weights=None):
    """numpy's quantile (nanquantile with ignore_nan): q's axes first, then the kept axes;
    `weights` (x's shape, for method inverted_cdf) make each element count that much."""
    if method not in METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: "
                         f"{tuple(METHODS)}")
    index_of, discrete = METHODS[method]
    dt = ir_type(x).dtype
    if dt.is_bool and not discrete:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    rows, n, out_shape = _rows(x, axis, keepdims)
    if n == 0 and not ignore_nan:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    r = ir_type(rows).shape[0]
    order = P.argsort(rows, axis=1)
    ordered = take_along_axis(rows, order, 1)
    out_dt = float64 if not dt.is_float else dt if weak_q else result_type(x, q)
    q = np.asarray(q, np.float64) if is_python_scalar(q) else q
    # numpy computes the virtual index in q's type (float32 q: in float32).
    q_dt = ir_type(q).dtype if ir_type(q).dtype.is_float else float64
    q = astype(q, q_dt)
    q_shape = ir_type(q).shape
    qs = broadcast(reshape(q, (1, -1)), (r, max(math.prod(q_shape), 0)))
    nan = dt.is_float and n > 0
    count = n
    if ignore_nan and dt.is_float:
        count = sum_(logical_not(nan_mask(ordered)), -1, keepdims=True)
        count = astype(broadcast(count, ir_type(qs).shape), q_dt)
    if weights is not None:
        w = take_along_axis(_rows(weights, axis, keepdims)[0], order, 1)
        index = _weighted_index(ordered, w, qs, ignore_nan and dt.is_float)
    else:
        index = index_of(float(count) if isinstance(count, int) else count, qs)
    last = count - 1 if isinstance(count, int) else sub(count, 1)
    if discrete:
        result = _pick(ordered, maximum(minimum(index, last), 0.0))
    else:
        below = floor(index)
        low = maximum(minimum(below, last), 0.0)
        high = maximum(minimum(add(below, 1), last), 0.0)
        gamma = _gamma(method, index, below)
        # numpy subtracts the neighbours in the input's type, then promotes with gamma.
        result = _lerp(_pick(ordered, low), _pick(ordered, high), gamma, out_dt)
    if ignore_nan and dt.is_float:
        result = where(lt(count, 0.5), math.nan, result)
    elif nan:
        tail = S.slice_(ordered, start=(0, n - 1), stop=(r, n), step=(1, 1))
        result = where(broadcast(nan_mask(tail), ir_type(result).shape), math.nan, result)
    result = reshape(result, out_shape + q_shape)
    lead = len(out_shape)
    return transpose(result, tuple(range(lead, lead + len(q_shape))) + tuple(range(lead)))


def _weighted_index(ordered, weights, qs, ignore_nan):
    """numpy's weighted inverted_cdf: per row the first sorted element whose cumulative weight
    share reaches q (NaNs weigh nothing with ignore_nan); the share compared in q's dtype,
    leading zero shares as -1 so that q = 0 skips elements of no weight."""
    if ignore_nan:
        weights = where(nan_mask(ordered), 0.0, weights)
    cdf = cumsum(astype(weights, float64), 1)
    total = S.slice_(cdf, start=(0, ir_type(cdf).shape[1] - 1), stop=ir_type(cdf).shape,
                     step=(1, 1))
    cdf = true_divide(cdf, total)
    share = S.slice_(cdf, start=(0, ir_type(cdf).shape[1] - 1), stop=ir_type(cdf).shape,
                     step=(1, 1))
    if ignore_nan:  # a row of NaNs only has no weight and gives NaN, as numpy's
        share = where(nan_mask(S.slice_(ordered, start=(0, 0), stop=(ir_type(cdf).shape[0], 1),
                                      step=(1, 1))), 1.0, share)
    if bool(any_(nan_mask(share))):  # read from the value (guarded under tracing)
        raise ValueError("Weights included NaN, inf or were all zero.")
    cdf = astype(cdf, ir_type(qs).dtype)
    cdf = where(eq(cdf, 0), -1.0, cdf)
    below = lt(reshape(cdf, ir_type(cdf).shape + (1,)), reshape(qs, (ir_type(qs).shape[0], 1,
                                                                     -1)))
    return astype(sum_(astype(below, int64), 1), float64)


def median(x, axis=None, keepdims=False, ignore_nan=False):
    """numpy's median: the mean of the two middle elements (of the non-NaN ones with
    ignore_nan), so each gets half the gradient; an odd count gives the middle one."""
    dt = ir_type(x).dtype
    rows, n, out_shape = _rows(x, axis, keepdims)
    r = ir_type(rows).shape[0]
    ordered = sort(rows, -1)
    out_dt = dt if dt.is_inexact else float64
    if ignore_nan and dt.is_inexact:
        count = sum_(logical_not(nan_mask(ordered)), -1, keepdims=True)
        low = floor(true_divide(sub(count, 1), 2))
        high = floor(true_divide(count, 2))
        low, high = maximum(low, 0.0), minimum(high, max(n - 1, 0))
        empty = eq(count, 0)
    else:
        low, high = np.full((r, 1), (n - 1) // 2), np.full((r, 1), n // 2)
        empty = None
    if n == 0:
        return reshape(np.full((r,), math.nan, out_dt.numpy), out_shape)
    a, b = (astype(_pick(ordered, i), out_dt) for i in (low, high))
    result = true_divide(add(a, b), np.asarray(2, out_dt.numpy))
    if empty is not None:
        result = where(empty, math.nan, result)
    elif dt.is_inexact:
        tail = S.slice_(ordered, start=(0, n - 1), stop=(r, n), step=(1, 1))
        result = where(nan_mask(tail), math.nan, result)
    return reshape(result, out_shape)
