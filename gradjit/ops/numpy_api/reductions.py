"""numpy's reductions and scans on gradjit values (prod, cumsum, diff, var, nan-reductions,
argmax, take_along_axis, ...), with numpy's signatures, mapped onto gradjit.ops."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import is_python_scalar
from gradjit.ops.indexing import constant_value
from gradjit.ops.numpy_api.writes import into_out
from gradjit.ops.numpy_api.basics import (accumulated, checked_axis, masked, numpy_float,
                                          warn_if_empty, warn_if_nan_only)

_UNSET = np._NoValue


def _inexact_dtype(a, dtype, out=None):
    """numpy's nan-functions of floats compute in a float dtype= only, and write into a float
    out= only."""
    if not ops.result_type(a).is_inexact:
        return
    if dtype is not None and not np.issubdtype(np.dtype(dtype), np.inexact):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not ops.result_type(out).is_inexact:
        raise TypeError("If a is inexact, then out must be inexact")


def _written(name, result, out):
    """The result, or (numpy's out= of the functions that check out's dtype themselves) out
    with the result written into it."""
    return result if out is None else into_out(name, out, result)


def _keep(keepdims):
    return False if keepdims is _UNSET else bool(keepdims)


def _array(x):
    """Python numbers and lists become numpy arrays; gradjit values pass."""
    return np.asarray(x) if is_python_scalar(x) or isinstance(x, (list, tuple)) else x


def _with_initial(result, initial, combine):
    """result combined with numpy's initial=, kept in the result's dtype."""
    if initial is _UNSET:
        return result
    return ops.astype(combine(result, initial), ops.result_type(result))


def _prod(a, axis=None, dtype=None, out=None, keepdims=_UNSET, initial=_UNSET, where=_UNSET):
    result = ops.prod(masked(a, where, 1), checked_axis(a, axis), _keep(keepdims),
                      accumulated(a, dtype))
    return _with_initial(result, initial, ops.mul)


def _nanprod(a, axis=None, dtype=None, out=None, keepdims=_UNSET, initial=_UNSET,
             where=_UNSET):
    result = ops.nanprod(masked(a, where, 1), checked_axis(a, axis), _keep(keepdims), dtype)
    return _with_initial(result, initial, ops.mul)


def _nansum(a, axis=None, dtype=None, out=None, keepdims=_UNSET, initial=_UNSET,
            where=_UNSET):
    result = ops.nansum(masked(a, where, 0), checked_axis(a, axis), _keep(keepdims), dtype)
    return _with_initial(result, initial, ops.add)


def _scan(name, fn):
    def function(a, axis=None, dtype=None, out=None):
        if not ops.shape_of(a):  # numpy's scans give at least one dimension
            a = ops.reshape(a, (1,))
        return fn(a, axis, dtype)
    function.__name__ = name
    return function


def _cumulative(name, fn, identity):
    """numpy 2's cumulative_sum/prod: the Array API's scans (an axis is needed above 1-d;
    include_initial puts the identity first)."""
    def function(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        rank = len(ops.shape_of(x))
        if axis is None:
            if rank > 1:
                raise ValueError(f"np.{name}: axis must be specified for an array of more "
                                 "than one dimension")
            axis = 0
        if rank == 0:
            x = ops.reshape(x, (1,))
        out_ = fn(x, axis, dtype)
        if not include_initial:
            return out_
        shape = list(ops.shape_of(out_))
        axis = ops.normalize_axes(axis, len(shape))[0]
        shape[axis] = 1
        first = np.full(shape, identity, ops.result_type(out_).numpy)
        return ops.concatenate([first, out_], axis)
    function.__name__ = name
    return function


def _diff(a, n=1, axis=-1, prepend=_UNSET, append=_UNSET):
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if n == 0:
        return a
    shape = ops.shape_of(a)
    if not shape:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = ops.normalize_axes(axis, len(shape))[0]
    parts = []
    for extra in (prepend, a, append):
        if extra is _UNSET:
            continue
        extra = _array(extra)
        if extra is not a and not ops.shape_of(extra):
            extra = ops.broadcast_to(extra, shape[:axis] + (1,) + shape[axis + 1:])
        parts.append(extra)
    return ops.diff(ops.concatenate(parts, axis) if len(parts) > 1 else a, n, axis)


def _no_bool_subtract(x):
    if ops.result_type(x).numpy == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")


def _ediff1d(ary, to_end=None, to_begin=None):
    _no_bool_subtract(ary)
    flat = ops.reshape(ary, (-1,))
    dt = ops.result_type(flat)
    parts = [ops.diff(flat)]
    for extra, first in ((to_begin, True), (to_end, False)):
        if extra is not None:
            extra = _array(extra)
            if not np.can_cast(ops.result_type(extra).numpy, dt.numpy, "same_kind"):
                which = "to_begin" if first else "to_end"
                raise TypeError(f"dtype of `{which}` must be compatible with input `ary` "
                                "under the `same_kind` rule.")
            piece = ops.astype(ops.reshape(extra, (-1,)), dt)
            parts.insert(0 if first else len(parts), piece)
    return ops.concatenate(parts, 0) if len(parts) > 1 else parts[0]


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    rank = len(ops.shape_of(y))
    axis = ops.normalize_axes(axis, rank)[0]
    if x is None:
        d = dx
    else:
        x = _array(x)
        if len(ops.shape_of(x)) == 1:
            d = ops.diff(x)
            d = ops.reshape(d, tuple(ops.shape_of(d)[0] if i == axis else 1
                                     for i in range(rank)))
        else:
            d = ops.diff(x, 1, axis)
    n = ops.shape_of(y)[axis]
    ahead = ops.getitem(y, (slice(None),) * axis + (slice(1, None),))
    behind = ops.getitem(y, (slice(None),) * axis + (slice(None, max(n - 1, 0)),))
    pair = (ops.logical_or if ops.result_type(y).is_bool else ops.add)(ahead, behind)  # bool +
    return ops.sum_(ops.true_divide(ops.mul(d, numpy_float(pair)), 2.0), axis)


def _gradient(f, *varargs, axis=None, edge_order=1):
    """numpy's gradient: per axis a spacing (one number, or one for all axes) or the
    coordinates along it; central differences inside, one-sided ones of `edge_order` at the
    ends, numpy's weighted ones for coordinates that are not evenly spaced."""
    _no_bool_subtract(f)
    rank = len(ops.shape_of(f))
    axis = checked_axis(f, axis, strict=True)
    ops.normalize_axes(axis, rank)  # range and repeats checked; the order is the caller's
    axes = tuple(range(rank)) if axis is None else (axis % rank,) if isinstance(axis, int) \
        else tuple(a % rank for a in axis)
    spacing = varargs * len(axes) if len(varargs) == 1 else varargs or (1.0,) * len(axes)
    if len(spacing) != len(axes):
        raise TypeError("invalid number of arguments")
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    f = numpy_float(f)
    out = [_gradient_along(f, a, _steps(h, ops.shape_of(f)[a]), edge_order)
           for a, h in zip(axes, spacing)]
    return out[0] if len(out) == 1 else tuple(out)


def _steps(h, n):
    """A spacing as numpy reads it: a number, or coordinates whose steps (float64 for integer
    coordinates) are one number when known to be equal."""
    if is_python_scalar(h) or np.ndim(h) == 0:
        return float(h)
    x = _array(h)
    if len(ops.shape_of(x)) != 1:
        raise ValueError("distances must be either scalars or 1d")
    if ops.shape_of(x)[0] != n:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    steps = ops.diff(x if ops.result_type(x).is_float else ops.astype(x, np.float64))
    known = constant_value(steps)
    return float(known[0]) if known is not None and (known == known[0]).all() else steps


def _gradient_along(f, axis, h, edge_order):
    n = ops.shape_of(f)[axis]
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "(edge_order + 1) elements are required.")

    def part(lo, hi):
        return ops.getitem(f, (slice(None),) * axis + (slice(lo, hi),))
    if not isinstance(h, float):
        return _uneven_gradient(part, n, axis, len(ops.shape_of(f)), h, edge_order)
    inner = ops.true_divide(ops.sub(part(2, n), part(0, n - 2)), 2.0 * h)
    if edge_order == 1:
        first = ops.true_divide(ops.sub(part(1, 2), part(0, 1)), h)
        last = ops.true_divide(ops.sub(part(n - 1, n), part(n - 2, n - 1)), h)
    else:
        def one_sided(a, b, c, sign):
            total = ops.add(ops.add(ops.mul(a, -1.5), ops.mul(b, 2.0)), ops.mul(c, -0.5))
            return ops.true_divide(total, sign * h)
        first = one_sided(part(0, 1), part(1, 2), part(2, 3), 1.0)
        last = one_sided(part(n - 1, n), part(n - 2, n - 1), part(n - 3, n - 2), -1.0)
    return ops.concatenate([first, inner, last], axis)


def _uneven_gradient(part, n, axis, rank, dx, edge_order):
    """numpy's differences for uneven steps dx: each point's weights of itself and its
    neighbours from the steps either side, in numpy's order of operations."""
    add, sub, mul, div, neg = ops.add, ops.sub, ops.mul, ops.true_divide, ops.neg

    def step(i, j=None):  # steps laid along `axis`
        return ops.reshape(ops.getitem(dx, slice(i, j)),
                           tuple(-1 if k == axis else 1 for k in range(rank)))

    def combine(a, b, c, lo, length):  # a f[lo] + b f[lo + 1] + c f[lo + 2], `length` of each
        return add(add(mul(a, part(lo, lo + length)), mul(b, part(lo + 1, lo + 1 + length))),
                   mul(c, part(lo + 2, lo + 2 + length)))
    d1, d2 = step(0, -1), step(1)
    inner = combine(div(neg(d2), mul(d1, add(d1, d2))), div(sub(d2, d1), mul(d1, d2)),
                    div(d1, mul(d2, add(d1, d2))), 0, n - 2)
    if edge_order == 1:
        first = div(sub(part(1, 2), part(0, 1)), step(0, 1))
        last = div(sub(part(n - 1, n), part(n - 2, n - 1)), step(-1))
    else:
        d1, d2 = step(0, 1), step(1, 2)
        first = combine(div(neg(add(mul(2.0, d1), d2)), mul(d1, add(d1, d2))),
                        div(add(d1, d2), mul(d1, d2)), div(neg(d1), mul(d2, add(d1, d2))), 0, 1)
        d1, d2 = step(-2, -1), step(-1)
        last = combine(div(d2, mul(d1, add(d1, d2))), div(neg(add(d2, d1)), mul(d1, d2)),
                       div(add(mul(2.0, d2), d1), mul(d2, add(d1, d2))), n - 3, 1)
    return ops.concatenate([first, inner, last], axis)


def _masked_extremum(a, where, initial, ufunc):
    """a with the elements `where=` leaves out set to `initial`, which numpy then requires."""
    if where is _UNSET or where is True:
        return a
    if initial is _UNSET:
        raise ValueError(f"reduction operation '{ufunc}' does not have an identity, so to use "
                         "a where mask one has to specify 'initial'")
    return masked(a, where, initial)


def _extremum(name, largest):
    def function(a, axis=None, out=None, keepdims=_UNSET, initial=_UNSET, where=_UNSET):
        ufunc = "maximum" if largest else "minimum"
        a = _masked_extremum(a, where, initial, ufunc)
        initial_ = None if initial is _UNSET else initial
        shape = ops.shape_of(a)
        if initial_ is None and 0 in shape and \
                any(shape[i] == 0 for i in ops.normalize_axes(axis, len(shape))):
            raise ValueError(f"zero-size array to reduction operation {ufunc} which has no "
                             "identity")
        return ops.extremum(a, checked_axis(a, axis), _keep(keepdims), initial_, largest)
    function.__name__ = name
    return function


def _nan_extremum(name, largest):
    def function(a, axis=None, out=None, keepdims=_UNSET, initial=_UNSET, where=_UNSET):
        a = _masked_extremum(a, where, initial, "fmax" if largest else "fmin")
        if initial is _UNSET:
            warn_if_nan_only(a, axis)
            return ops.nan_extremum(a, checked_axis(a, axis), _keep(keepdims), largest)
        # numpy's fmax/fmin reduce from `initial` (in a's dtype): a NaN never wins
        if ops.result_type(a).is_float:
            a = masked(a, ops.logical_not(ops.isnan(a)), initial)
        return ops.extremum(a, checked_axis(a, axis), _keep(keepdims), initial, largest)
    function.__name__ = name
    return function


def _arg(name, largest):
    def function(a, axis=None, out=None, *, keepdims=_UNSET):
        return ops.arg_extremum(a, axis, _keep(keepdims), largest)
    function.__name__ = name
    return function


def _nan_arg(name, largest):
    """argmax/argmin that skip NaNs (read as -inf / inf); a slice of NaNs only raises, as in
    numpy, which reads the value (guarded under tracing)."""
    def function(a, axis=None, out=None, *, keepdims=_UNSET):
        if ops.result_type(a).is_inexact and np.prod(ops.shape_of(a)):
            mask = ops.isnan(a)
            if bool(ops.any_(ops.all_(mask, axis))):
                raise ValueError("All-NaN slice encountered")
            a = ops.where(mask, -np.inf if largest else np.inf, a)
        return ops.arg_extremum(a, axis, _keep(keepdims), largest)
    function.__name__ = name
    return function


def _unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """numpy's unwrap in its steps: each jump wrapped into [-period/2, period/2) (a jump of
    exactly period/2 upwards kept), corrections summed along the axis where a jump reaches
    `discont`. The corrections are piecewise constant, so the gradient is the identity."""
    p = _array(p)
    dd = _diff(p, 1, axis)  # numpy's diff: bools differ by not_equal
    discont = period / 2 if discont is None else discont
    dt = np.result_type(ops.result_type(dd).numpy, period)
    dd = ops.astype(dd, dt)  # as each of numpy's steps promotes it
    if np.issubdtype(dt, np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    ddmod = ops.add(ops.remainder(ops.add(dd, high), period), -high)
    if ambiguous:
        ddmod = ops.where(ops.logical_and(ops.eq(ddmod, -high), ops.gt(dd, 0)), high, ddmod)
    correct = ops.where(ops.lt(ops.abs_(dd), discont), 0, ops.sub(ddmod, dd))
    axis = ops.normalize_axes(axis, len(ops.shape_of(p)))[0]
    head = (slice(None),) * axis
    first = ops.astype(ops.getitem(p, head + (slice(0, 1),)), dt)
    rest = ops.add(ops.getitem(p, head + (slice(1, None),)), ops.cumsum(correct, axis))
    return ops.concatenate([first, ops.astype(rest, dt)], axis)


def _ptp(a, axis=None, out=None, keepdims=_UNSET):
    keep, axis = _keep(keepdims), checked_axis(a, axis)
    return ops.sub(ops.extremum(a, axis, keep), ops.extremum(a, axis, keep, largest=False))


def _ddof(ddof, correction):
    if correction is _UNSET:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def _spread(name, fn, strict=True):
    def function(a, axis=None, dtype=None, out=None, ddof=0, keepdims=_UNSET, *,
                 where=_UNSET, mean=_UNSET, correction=_UNSET):
        nan = name.startswith("nan")
        if nan:
            _inexact_dtype(a, dtype, out)
        spread = computed(a, axis, dtype, ddof, keepdims, where, mean, correction, nan)
        if dtype is not None and np.dtype(dtype).kind == "c":  # numpy sums the squares in it
            spread = ops.astype(spread, dtype)
        return _written(name, spread, out)

    def computed(a, axis, dtype, ddof, keepdims, where, mean, correction, nan):
        a = numpy_float(a) if dtype is None else a
        args = (checked_axis(a, axis, strict), _ddof(ddof, correction), _keep(keepdims), dtype)
        everywhere = where is _UNSET or where is True
        if everywhere and mean is _UNSET:
            message = "Degrees of freedom <= 0 for slice" + ("." if nan else "")
            warn_if_empty(a, args[0], message, args[1], nan)
            if nan:
                warn_if_nan_only(a, args[0], message, args[1])
            return fn(a, *args)
        if nan and mean is _UNSET:  # left-out elements count as NaNs
            return fn(masked(ops.to_float(a), where, np.nan), *args)
        if nan:  # NaNs are left out as `where` leaves elements out; too few left give NaN
            kept = ops.logical_not(ops.isnan(a))
            where = kept if everywhere else ops.logical_and(kept, where)
        spread = _masked_var(a, where, mean, *args, short=np.nan if nan else None)
        return ops.safe_sqrt(spread) if name.endswith("std") else spread
    function.__name__ = name
    return function


def _masked_var(a, where, mean, axis, ddof, keepdims, dtype, short=None):
    """numpy's var with where= and mean=: the squares of the differences from `mean` (by
    default the mean of the elements `where` keeps) summed over the kept elements and divided
    by their count less ddof (`short` where that is not positive, if given)."""
    x = ops.astype(a, dtype) if dtype is not None else ops.to_float(a)
    dt = ops.result_type(x).numpy.type(0).real.dtype  # counts of complex values are real
    kept = np.ones((), dt) if where is _UNSET or where is True else ops.astype(where, dt)
    kept = ops.broadcast_to(kept, ops.shape_of(x))
    if mean is _UNSET:
        mean = ops.true_divide(ops.sum_(masked(x, where, 0), axis, True),
                               ops.sum_(kept, axis, True))
    total = ops.sum_of_squares(masked(ops.sub(x, mean), where, 0), axis, keepdims)
    dof = ops.sub(ops.sum_(kept, axis, keepdims), ddof)
    spread = ops.true_divide(total, ops.maximum(dof, 0))
    return spread if short is None else ops.where(ops.gt(dof, 0), spread, short)


def _nanmean(a, axis=None, dtype=None, out=None, keepdims=_UNSET, *, where=_UNSET):
    _inexact_dtype(a, dtype, out)
    a = numpy_float(a) if dtype is None else a
    if where is not _UNSET and where is not True:  # left-out elements count as NaNs
        a = masked(ops.to_float(a), where, np.nan)
    else:
        warn_if_empty(a, checked_axis(a, axis), nan=True)
        warn_if_nan_only(a, axis, "Mean of empty slice")
    return _written("nanmean", ops.nanmean(a, checked_axis(a, axis), _keep(keepdims), dtype),
                    out)


def _average(a, axis=None, weights=None, returned=False, *, keepdims=_UNSET):
    keep, axis = _keep(keepdims), checked_axis(a, axis, strict=True)
    shape = ops.shape_of(a)
    if weights is None:
        warn_if_empty(a, axis)
        exact = ops.result_type(a).is_float or ops.result_type(a).is_complex
        avg = ops.mean(a if exact else ops.astype(a, np.float64), axis, keep)
        scale = float(ops.count_of(a, axis))
        if not returned:
            return avg
        return avg, ops.broadcast_to(np.asarray(scale, ops.result_type(avg).numpy),
                                     ops.shape_of(avg))
    weights = _array(weights)
    dt = ops.result_type(a, weights)
    if not ops.result_type(a).is_float:
        dt = ops.result_type(a, weights, np.zeros((), np.float64))
    w_shape = ops.shape_of(weights)
    if w_shape != shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = np.lib.array_utils.normalize_axis_tuple(axis, len(shape))  # in the given order
        if w_shape != tuple(shape[i] for i in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        weights = ops.transpose(weights, tuple(np.argsort(axes))) if len(axes) > 1 else weights
        weights = ops.reshape(weights, tuple(d if i in axes else 1 for i, d in enumerate(shape)))
        weights = ops.broadcast_to(weights, shape)
    a, weights = ops.astype(a, dt), ops.astype(weights, dt)
    scale = ops.sum_(weights, axis, keep)
    if bool(ops.any_(ops.eq(scale, 0))):  # read from the values (guarded)
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = ops.true_divide(ops.sum_(ops.mul(a, weights), axis, keep), scale)
    return (avg, ops.broadcast_to(scale, ops.shape_of(avg))) if returned else avg


def _logical(name, fn):
    def function(a, axis=None, out=None, keepdims=_UNSET, *, where=_UNSET):
        return fn(masked(a, where, name == "all"), checked_axis(a, axis), _keep(keepdims))
    function.__name__ = name
    return function


def _count_nonzero(a, axis=None, *, keepdims=False):
    return ops.count_nonzero(a, checked_axis(a, axis), keepdims)


def _take_along_axis(arr, indices, axis=-1):
    return ops.take_along_axis(arr, _array(indices), axis)


UFUNCS = {}

FUNCTIONS = {
    np.prod: _prod, np.nanprod: _nanprod, np.nansum: _nansum,
    np.cumsum: _scan("cumsum", ops.cumsum), np.cumprod: _scan("cumprod", ops.cumprod),
    np.nancumsum: _scan("nancumsum", ops.nancumsum),
    np.nancumprod: _scan("nancumprod", ops.nancumprod),
    np.cumulative_sum: _cumulative("cumulative_sum", ops.cumsum, 0),
    np.cumulative_prod: _cumulative("cumulative_prod", ops.cumprod, 1),
    np.diff: _diff, np.ediff1d: _ediff1d, np.gradient: _gradient, np.trapezoid: _trapezoid,
    np.ptp: _ptp,
    np.max: _extremum("max", True), np.amax: _extremum("amax", True),
    np.min: _extremum("min", False), np.amin: _extremum("amin", False),
    np.nanmax: _nan_extremum("nanmax", True), np.nanmin: _nan_extremum("nanmin", False),
    np.argmax: _arg("argmax", True), np.argmin: _arg("argmin", False),
    np.nanargmax: _nan_arg("nanargmax", True), np.nanargmin: _nan_arg("nanargmin", False),
    np.unwrap: _unwrap,
    np.var: _spread("var", ops.var), np.std: _spread("std", ops.std),
    np.nanvar: _spread("nanvar", ops.nanvar, False),
    np.nanstd: _spread("nanstd", ops.nanstd, False),
    np.nanmean: _nanmean, np.average: _average,
    np.all: _logical("all", ops.all_), np.any: _logical("any", ops.any_),
    np.count_nonzero: _count_nonzero, np.take_along_axis: _take_along_axis,
}
