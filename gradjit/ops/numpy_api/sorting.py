"""numpy's sorting, searching, order statistics and unique values, mapped onto
gradjit.ops.sorting with numpy's signatures and errors.

Every sort is stable, so each `kind=` gets a valid answer; np.partition and np.argpartition
return a full sort, which is one of the partitions numpy may return."""
from __future__ import annotations

import builtins
import collections
import functools
import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from gradjit import ops
from gradjit.ir import structural as S
from gradjit.ir.types import TensorType, int64
from gradjit.ops import sorting as O
from gradjit.ops.numpy_api.basics import (checked_axis, numpy_float, warn_if_empty,
                                          warn_if_nan_only)

_NO_VALUE = np._NoValue


def _refuse(order=None):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _sort_kind(kind):
    """numpy reads a sort kind by its first letter."""
    if kind is not None and (not isinstance(kind, str) or not kind
                             or kind[0].lower() not in "qhms"):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got "
                         f"{kind!r})")


def _select_kind(kind):
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")


def _sort(a, axis=-1, kind=None, order=None, *, stable=None):
    _refuse(order=order)
    _sort_kind(kind)
    return O.sort(a, axis)


def _argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    _refuse(order=order)
    _sort_kind(kind)
    return O.argsort(a, None if ops.shape_of(a) == () else axis)


def _partitioned(a, kth, axis, kind, order, take):
    """A full sort is a valid partition for every kth."""
    _refuse(order=order)
    _select_kind(kind)
    x, moved = O.sort_axis(a, axis)
    O.check_kth(_static(kth), ops.shape_of(x)[moved])
    return take(x, moved)


def _partition(a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(a, kth, axis, kind, order, O.sort)


def _argpartition(a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(a, kth, axis, kind, order, O.argsort)


def _static(value):
    """A kth given as traced integers becomes its value (guarded by int())."""
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    known = ops.constant_value(value)
    return known.tolist() if known is not None else int(value)


def _median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    warn_if_empty(a, checked_axis(a, axis, strict=True))
    return O.median(a, axis, bool(keepdims))


def _nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=_NO_VALUE):
    warn_if_empty(a, checked_axis(a, axis, strict=True), nan=True)
    warn_if_nan_only(a, axis)
    return O.median(a, axis, keepdims is True, ignore_nan=True)


def _quantile_fn(scale, name, ignore_nan):
    """np.quantile / np.percentile and their nan forms: q is divided by `scale`; a constant q
    is checked against numpy's range (a traced one cannot be, when tracing)."""
    def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                 keepdims=_NO_VALUE if ignore_nan else False, *, weights=None):
        if ops.is_complex(a):
            raise TypeError("a must be an array of real numbers")
        checked_axis(a, axis, strict=True)
        if weights is not None:
            weights = _quantile_weights(a, weights, axis, method)
        weak = type(q) in (int, float)
        known = ops.constant_value(q)
        kind = known.dtype.kind if known is not None else ops.result_type(q).numpy.kind
        if scale == 1 and method == "linear" and weights is None and kind in "biu":
            method = "lower"  # numpy takes the element at an integral index: a's dtype kept
        if known is not None:
            q = np.true_divide(known, scale)
            if not np.all((q >= 0) & (q <= 1)):
                raise ValueError(f"{name} must be in the range [0, {scale}]")
            if weak:
                q = float(q)
        elif scale != 1:
            q = ops.true_divide(q, scale)
        if ignore_nan:
            warn_if_nan_only(a, axis)
        return O.quantile(a, q, axis, method, keepdims is True, ignore_nan, weak, weights)
    return quantile


def _quantile_weights(a, weights, axis, method):
    """numpy's checks of quantile weights, and the weights broadcast to a's shape (weights
    along the reduced axes only are spread over the others)."""
    if method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    weights = ops.asarray(np.asarray(weights) if isinstance(weights, (list, tuple)) else weights)
    shape, given = ops.shape_of(a), ops.shape_of(weights)
    if given != shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = normalize_axis_tuple(axis, len(shape), argname="axis")
        if given != tuple(shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        weights = ops.transpose(weights, tuple(np.argsort(axes).tolist()))
        weights = ops.broadcast_to(ops.reshape(weights, tuple(
            s if ax in axes else 1 for ax, s in enumerate(shape))), shape)
    if bool(ops.any_(ops.lt(weights, 0))):  # read from the value (guarded under tracing)
        raise ValueError("Weights must be non-negative.")
    return weights


def _searchsorted(a, v, side="left", sorter=None):
    return O.searchsorted(a, v, side, sorter)


def _digitize(x, bins, right=False):
    if ops.is_complex(x):
        raise TypeError("x may not be complex")
    return O.digitize(x, bins, right)


def _unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
            equal_nan=True, sorted=True):
    rank = len(ops.shape_of(ar))
    # numpy takes the elements of a 1-d array as its slices (so equal_nan counts there);
    # other slices compare as records, NaNs distinct
    if axis is not None and normalize_axis_index(axis, rank) is not None and rank != 1:
        return O.unique_along(ar, axis, return_index, return_inverse, return_counts)
    return O.unique(ar, return_index, return_inverse, return_counts, equal_nan)


UniqueAllResult = collections.namedtuple("UniqueAllResult",
                                         "values indices inverse_indices counts")
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", "values counts")
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", "values inverse_indices")


def _one_dimensional(x):
    if len(ops.shape_of(x)) > 1:
        raise ValueError("object too deep for desired array")
    if not ops.shape_of(x):
        raise ValueError("object of too small depth for desired array")


def _bincount(x, /, weights=None, minlength=0):
    """np.bincount. Its length is max(x) + 1 when that exceeds minlength: read from the value
    and guarded under tracing (a trace holds while max(x) < minlength, or for that max)."""
    x = np.asarray(x) if isinstance(x, (list, tuple)) else x
    if ops.result_type(x).numpy.kind not in "iub":
        raise TypeError(f"Cannot cast array data from dtype('{ops.result_type(x).numpy}') to "
                        "dtype('int64') according to the rule 'safe'")
    _one_dimensional(x)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    n = ops.shape_of(x)[0]
    top = ops.amax(x) if n else -1
    if n and bool(ops.lt(ops.amin(x), 0)):
        raise ValueError("'list' argument must have no negative elements")
    covered = not n or bool(ops.lt(top, minlength))
    length = minlength if covered else int(top) + 1
    if weights is None:
        updates = np.ones(n, np.int64)
        zeros = np.zeros(length, np.int64)
    else:
        _one_dimensional(weights)
        if ops.shape_of(weights) != (n,):
            raise ValueError("The weights and list don't have the same length.")
        updates = ops.astype(weights, "f8")
        zeros = np.zeros(length, np.float64)
    return S.scatter_add(zeros, ops.astype(x, "i8"), updates, axis=0) if n else zeros


def _histogram(a, bins=10, range=None, density=None, weights=None):
    """np.histogram with bins as a count or as edges. Without a range the edges span the
    data's min and max: computed by the program, their finiteness and whether they coincide
    read from the value (guarded under tracing)."""
    x, edges = _edges("histogram", a, bins, range, weights)
    n = ops.shape_of(edges)[0] - 1
    first, last = ops.getitem(edges, 0), ops.getitem(edges, -1)
    inside = ops.logical_and(ops.ge(x, first), ops.le(x, last))
    index = ops.where(ops.eq(x, last), n - 1, ops.sub(O.searchsorted(edges, x, "right"), 1))
    index = ops.where(inside, index, n)  # an extra bin for the values outside, dropped
    size = ops.shape_of(x)[0]
    updates = np.ones(size, np.int64) if weights is None else ops.reshape(weights, (-1,))
    zeros = np.zeros(n + 1, np.int64 if weights is None else ops.result_type(weights).numpy)
    hist = S.scatter_add(zeros, index, updates, axis=0) if size else zeros
    hist = ops.getitem(hist, slice(0, n))
    if density:
        widths = ops.sub(ops.getitem(edges, slice(1, None)), ops.getitem(edges, slice(0, -1)))
        hist = numpy_float(hist)  # counts divide in float64, a Tensor's too
        hist = ops.true_divide(ops.true_divide(hist, ops.sum_(hist)), widths)
    return hist, edges


def _edges(name, a, bins, range, weights):
    """The flattened a and numpy's bin edges: `bins` equal bins over `range` (or over the
    data's min and max), or the edges given."""
    if isinstance(bins, str) and name == "histogramdd":
        raise TypeError(f"np.{name}(bins={bins!r}) is not supported on traced values; give "
                        "a number of bins or the edges")
    if weights is not None and ops.shape_of(weights) != ops.shape_of(a):
        raise ValueError("weights should have the same shape as a.")
    x = ops.reshape(a, (-1,))
    if isinstance(bins, str):
        bins = _estimated_count(x, bins, range, weights)
    if np.ndim(bins) == 0 and not hasattr(bins, "shape"):
        try:
            count = operator.index(bins)
        except TypeError:
            raise TypeError("`bins` must be an integer, a string, or an array") from None
        edges = _uniform_edges(x, count, range)
        # edges closer than the float spacing collapse onto each other (read, guarded)
        if name != "histogramdd" and bool(ops.any_(ops.ge(
                ops.getitem(edges, slice(None, -1)), ops.getitem(edges, slice(1, None))))):
            raise ValueError(f"Too many bins for data range. Cannot create {count} "
                             "finite-sized bins.")
        return x, edges
    edges = bins if hasattr(bins, "shape") else np.asarray(bins)
    if len(ops.shape_of(edges)) != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if bool(ops.any_(ops.gt(ops.getitem(edges, slice(None, -1)),
                            ops.getitem(edges, slice(1, None))))):
        raise ValueError("`bins` must increase monotonically, when an array")
    return x, edges


def _histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """Counts (float64) of the rows of an (N, D) sample in a D-dimensional grid of bins, and
    the edges along each dimension: numpy's outlier bins on either side of each dimension,
    then the grid cut out of them."""
    columns = _sample_columns(sample)
    dims = len(columns)
    bins = [bins] * dims if isinstance(bins, (int, np.integer)) else list(bins)
    ranges = [None] * dims if range is None else list(range)
    if len(bins) != dims:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    if len(ranges) != dims:
        raise ValueError("range argument must have one entry per dimension")
    edges = [_edges("histogramdd", c, b, r, None)[1] for c, b, r in zip(columns, bins, ranges)]
    sizes = [ops.shape_of(e)[0] + 1 for e in edges]  # outlier bins at both ends
    flat = 0
    for column, e, size in zip(columns, edges, sizes):
        index = O.searchsorted(e, column, "right")
        index = ops.where(ops.eq(column, ops.getitem(e, -1)), ops.sub(index, 1), index)
        flat = ops.add(ops.mul(flat, size), index)
    n = ops.shape_of(columns[0])[0]
    total = int(np.prod(sizes))
    updates = np.ones(n, np.float64) if weights is None else ops.astype(
        ops.reshape(weights, (-1,)), np.float64)
    hist = S.scatter_add(np.zeros(total, np.float64), ops.astype(flat, "i8"), updates, axis=0) \
        if n else np.zeros(total, np.float64)
    hist = ops.getitem(ops.reshape(hist, tuple(sizes)), (slice(1, -1),) * dims)
    if density:
        mass = ops.sum_(hist)
        for i, e in enumerate(edges):
            widths = ops.sub(ops.getitem(e, slice(1, None)), ops.getitem(e, slice(None, -1)))
            shape = [1] * dims
            shape[i] = sizes[i] - 2
            hist = ops.true_divide(hist, ops.reshape(widths, tuple(shape)))
        hist = ops.true_divide(hist, mass)
    return hist, edges


def _sample_columns(sample):
    """The D coordinate arrays of a sample: an (N, D) array, or a sequence of D arrays."""
    if isinstance(sample, (list, tuple)):
        return [ops.reshape(ops.asarray(np.asarray(c) if isinstance(c, list) else c), (-1,))
                for c in sample]
    shape = ops.shape_of(sample)
    if len(shape) == 1:
        return [sample]
    return [ops.getitem(sample, (slice(None), i)) for i in builtins.range(shape[1])]


def _histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    if len(ops.shape_of(x)) != 1 or ops.shape_of(x) != ops.shape_of(y):
        raise ValueError("x and y must be 1-d arrays of the same length")
    if not isinstance(bins, (int, np.integer)) and len(bins) not in (1, 2):
        bins = [bins, bins]  # one array of edges for both
    hist, (xedges, yedges) = _histogramdd([x, y], bins, range, density, weights)
    return hist, xedges, yedges


def _histogram_bin_edges(a, bins=10, range=None, weights=None):
    return _edges("histogram_bin_edges", a, bins, range, weights)[1]


def _estimated_count(x, estimator, range, weights):
    """The number of equal bins numpy's estimator ('auto', 'fd', 'sturges', ...) picks for
    the data: numpy's own count, from the values (a traced value's by a host step, guarded,
    so other data giving another count traces again)."""
    # numpy's refusals (an unknown estimator, weights, a bad range), raised on a stand-in
    np.histogram_bin_edges(np.zeros(1), estimator, range, None if weights is None else [1])
    span = () if range is None else (np.asarray(range, np.float64),)
    known = ops.constant_value(x)
    if known is not None:
        return int(_bin_count(estimator)(known, *span))
    return int(_bin_count_primitive(estimator, bool(span))(x, *span))


def _bin_count(estimator):
    def count(x, *span):
        edges = np.histogram_bin_edges(x, estimator, tuple(span[0]) if span else None)
        return np.asarray(edges.size - 1, np.int64)
    return count


@functools.cache
def _bin_count_primitive(estimator, ranged):
    from gradjit.tracer.host import host_primitive  # the tracer builds on ops: not at import

    def no_cotangents(g, out, *args):
        return (None,) * len(args)
    return host_primitive(f"histogram_bins_{estimator}", lambda *types: TensorType((), int64),
                          _bin_count(estimator), 1 + ranged, vjp=no_cotangents)


def _uniform_edges(x, count, range):
    if count < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range is not None:
        first, last = range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
    elif ops.shape_of(x)[0] == 0:
        first, last = 0.0, 1.0
    else:
        first, last = ops.amin(x), ops.amax(x)
    if not bool(ops.logical_and(ops.isfinite(first), ops.isfinite(last))):
        if range is not None:
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
        raise ValueError(f"autodetected range of [{float(first)}, {float(last)}] is not "
                         "finite")
    if bool(ops.eq(first, last)):
        first, last = ops.sub(first, 0.5), ops.add(last, 0.5)
    dt = ops.result_type(x, first, last)
    dt = dt if dt.is_float else ops.default_float()
    first, last = (ops.astype(ops.asarray(end), dt) for end in (first, last))  # numbers too
    step = ops.true_divide(ops.sub(last, first), count)
    ramp = S.iota(shape=(count,), dtype=dt.name, axis=0)
    return ops.concatenate([ops.add(ops.mul(ramp, step), first), ops.reshape(last, (1,))])


FUNCTIONS = {
    np.sort: _sort, np.argsort: _argsort, np.lexsort: O.lexsort,
    np.partition: _partition, np.argpartition: _argpartition,
    np.median: _median, np.nanmedian: _nanmedian,
    np.quantile: _quantile_fn(1, "Quantiles", False),
    np.percentile: _quantile_fn(100, "Percentiles", False),
    np.nanquantile: _quantile_fn(1, "Quantiles", True),
    np.nanpercentile: _quantile_fn(100, "Percentiles", True),
    np.searchsorted: _searchsorted, np.digitize: _digitize, np.bincount: _bincount,
    np.unique: _unique, np.histogram: _histogram,
    np.histogram_bin_edges: _histogram_bin_edges, np.histogramdd: _histogramdd,
    np.histogram2d: _histogram2d,
    # the array API's unique functions count each NaN apart
    np.unique_values: lambda x: O.unique(x, equal_nan=False),
    np.unique_counts: lambda x: UniqueCountsResult(*O.unique(x, False, False, True, False)),
    np.unique_inverse: lambda x: UniqueInverseResult(*O.unique(x, False, True, False, False)),
    np.unique_all: lambda x: UniqueAllResult(*O.unique(x, True, True, True, False)),
}
UFUNCS = {}
