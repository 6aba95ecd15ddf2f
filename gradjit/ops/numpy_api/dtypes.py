"""numpy's dtype queries and real/complex predicates on gradjit values, and the functions whose
result positions depend on the data (nonzero, argwhere, trim_zeros): computed by numpy on a
constant, read (guarded) from a run-time integer or boolean value, refused on a float one.

The object predicates answer from the dtype alone, the elementwise ones from the imaginary
part, and numpy's type functions run on a stand-in of the value's dtype."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ir.primitive import ShapeError, ir_type, is_python_scalar
from gradjit.ops import shaping as S
from gradjit.ops.indexing import constant_value, value_deciding_shape


def stand_in(x):
    """What numpy's type functions need of x: a traced Python number stays a Python number
    (NEP 50 weak promotion), any other gradjit value becomes an empty array of its dtype."""
    if is_python_scalar(x) or not hasattr(x, "ir_type"):
        return x
    dt = ir_type(x).dtype.numpy
    if getattr(x, "__gradjit_weak__", False):
        return dt.type(0).item()
    return np.empty((0,) * len(ops.shape_of(x)), dt)


def _result_type(*arrays_and_dtypes):
    return np.result_type(*(stand_in(x) for x in arrays_and_dtypes))


def _common_type(*arrays):
    return np.common_type(*(stand_in(x) for x in arrays))


def _can_cast(from_, to, casting="safe"):
    return np.can_cast(stand_in(from_), stand_in(to), casting)


def _min_scalar_type(a, /):
    if ops.shape_of(a):  # numpy reads the value of 0-d arrays only
        return ir_type(a).dtype.numpy
    return np.min_scalar_type(_known(
        a, "np.min_scalar_type", "a 0-d array's value decides the dtype; use its dtype "
        "(x.dtype)"))


def _all(x, answer):
    """numpy's elementwise predicate result: a bool array of x's shape, a numpy bool for 0-d."""
    shape = ops.shape_of(x)
    return np.full(shape, answer) if shape else np.bool_(answer)


def _isneginf(x, out=None):
    return ops.logical_and(ops.isinf(x), ops.signbit(x))


def _isposinf(x, out=None):
    return ops.logical_and(ops.isinf(x), ops.logical_not(ops.signbit(x)))


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy's isclose: |a - b| <= atol + rtol |b| where b is finite, or a == b; b in at least
    float64's kind (a float dtype of its own is kept)."""
    a, b = (v if is_python_scalar(v) else S.asarray(v) for v in (a, b))
    if isinstance(b, int):
        b = float(b)
    elif not is_python_scalar(b):
        b = ops.astype(b, np.result_type(stand_in(b), 1.0))
    within = ops.le(ops.abs_(ops.sub(a, b)), ops.add(atol, ops.mul(rtol, ops.abs_(b))))
    close = ops.logical_and(within, ops.isfinite(b))
    close = ops.logical_or(close, ops.eq(a, b))
    return ops.logical_or(close, ops.logical_and(ops.isnan(a), ops.isnan(b))) if equal_nan \
        else close


def _array_equal(a1, a2, equal_nan=False):
    """numpy's array_equal: False for other shapes, else whether every element is equal (NaNs
    equal to NaNs at the same places with equal_nan), read from the values (guarded)."""
    a1, a2 = S.asarray(a1), S.asarray(a2)
    if ops.shape_of(a1) != ops.shape_of(a2):
        return False
    same = ops.eq(a1, a2)
    if equal_nan and (ops.result_type(a1).is_inexact or ops.result_type(a2).is_inexact):
        same = ops.logical_or(same, ops.logical_and(ops.isnan(a1), ops.isnan(a2)))
    return bool(ops.all_(same))


def _array_equiv(a1, a2):
    """numpy's array_equiv: whether the two broadcast to equal arrays (False if they cannot
    broadcast), read from the values (guarded)."""
    a1, a2 = S.asarray(a1), S.asarray(a2)
    try:
        ops.broadcast_shapes(ops.shape_of(a1), ops.shape_of(a2))
    except ShapeError:
        return False
    return bool(ops.all_(ops.eq(a1, a2)))


def _astype(x, dtype, /, *, copy=True, device=None):
    return ops.astype(x, dtype)


def _isreal(x):
    return ops.is_real_valued(x) if ops.is_complex(x) else _all(x, True)


def _iscomplex(x):
    return ops.logical_not(ops.is_real_valued(x)) if ops.is_complex(x) else _all(x, False)


def _sort_complex(a):
    """Sorted along the last axis by real part, then imaginary part, as complex numbers: real
    values in complex128 (numpy's choice, float32 too) but for 8- and 16-bit integers."""
    dt = ir_type(a).dtype.numpy
    if dt.kind != "c":
        a = ops.astype(a, np.complex64 if dt.char in "bhBH" else np.complex128)
    last = len(ops.shape_of(a)) - 1
    order = ops.sorting.lexsort((ops.imag(a), ops.real(a)), last)
    return ops.sorting.take_along_axis(a, order, last)


def _known(x, name, why):
    """x's numpy value when it is a constant of the trace; a run-time value is refused."""
    from gradjit.ops.numpy_api import NotSupported  # the package imports this module first
    value = constant_value(x)
    if value is None:
        raise NotSupported(f"{name} is not supported on values computed at run time: {why}")
    return value


def _positions(name, fn):
    """fn of where a is nonzero: which elements are decides the result's shape, so the trace
    holds for that pattern alone (value_deciding_shape)."""
    def function(a, *args, **kwargs):
        known = a if isinstance(a, (list, tuple)) else constant_value(a)
        if known is None:
            nonzero = a if ir_type(a).dtype.is_bool else ops.ne(a, 0)
            known = value_deciding_shape(nonzero, f"np.{name}'s nonzero elements")
            if known is None:
                _known(nonzero, f"np.{name}", _NONZERO)  # refused: no value is known
        return fn(known, *args, **kwargs)
    function.__name__ = name
    return function


_NONZERO = ("which elements are nonzero decides the result's shape; use np.where(condition, "
            "x, y) or a mask")


nonzero = _positions("nonzero", np.nonzero)


def _trim_zeros(filt, trim="fb", axis=None):
    """numpy's trim_zeros: the box around the nonzero elements (along `axis`, from the front
    and/or back). Which elements are nonzero decides the shape: a run-time value's are read,
    the trace then holding for that pattern alone (value_deciding_shape)."""
    known = filt if isinstance(filt, (list, tuple)) else constant_value(filt)
    if known is not None:
        return np.trim_zeros(known, trim, axis)
    nonzero = filt if ir_type(filt).dtype.is_bool else ops.ne(filt, 0)
    mask = value_deciding_shape(nonzero, "np.trim_zeros's nonzero elements")
    if mask is None:
        _known(nonzero, "np.trim_zeros", _NONZERO)  # refused: no value is known
    # numpy's errors, and the shape of its answer, from the pattern of nonzero elements
    shape = np.shape(np.trim_zeros(mask, trim, axis))
    rank = mask.ndim
    axes = range(rank) if axis is None else np.lib.array_utils.normalize_axis_tuple(axis, rank)
    where = np.argwhere(mask)
    start = where.min(0) if len(where) and "f" in trim.lower() else np.zeros(rank, int)
    index = tuple(slice(int(start[d]), int(start[d]) + shape[d]) if d in axes else slice(None)
                  for d in range(rank))
    return ops.getitem(filt, index[0] if rank == 1 else index)


def _indices_from(name, fn):
    def function(arr, k=0):
        shape = ops.shape_of(arr)
        if len(shape) != 2:
            raise ValueError("input array must be 2-d")
        return fn(shape[-2], k=k, m=shape[-1])
    function.__name__ = name
    return function


def _diag_indices_from(arr):
    shape = ops.shape_of(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return np.diag_indices(shape[0], len(shape))


def _isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """element's entries that equal any of test_elements (none of them, with invert)."""
    element = ops.asarray(np.asarray(element) if isinstance(element, (list, tuple)) else
                          element)
    tests = ops.ravel(ops.asarray(np.asarray(test_elements) if isinstance(
        test_elements, (list, tuple)) else test_elements))
    _check_kind(kind, element, tests)
    found = ops.any_(ops.eq(ops.expand_dims(element, -1), tests), -1)
    return ops.logical_not(found) if invert else found


def _check_kind(kind, element, tests):
    """numpy's refusals of a `kind` (the result is the same for every kind): an unknown one, a
    table of non-integers, a table whose range overflows (read from the values, guarded)."""
    if kind not in {None, "sort", "table"}:
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    if kind != "table":
        return
    dtypes = [ops.result_type(x).numpy for x in (element, tests)]
    if any(dt.kind not in "uib" for dt in dtypes):
        raise ValueError("The 'table' method is only supported for boolean or integer arrays. "
                         "Please select 'sort' or None for kind.")
    if dtypes[1].kind != "b" and ops.shape_of(tests)[0]:
        span = int(ops.extremum(tests)) - int(ops.extremum(tests, largest=False))
        if span > np.iinfo(dtypes[1]).max:
            raise RuntimeError("You have specified kind='table', but the range of values in "
                               "`ar2` or `ar1` exceed the maximum integer of the datatype. "
                               "Please set `kind` to None or 'sort'.")


FUNCTIONS = {
    np.isin: _isin,
    np.result_type: _result_type, np.common_type: _common_type,
    np.min_scalar_type: _min_scalar_type, np.can_cast: _can_cast,
    np.isrealobj: lambda x: not ops.is_complex(x), np.iscomplexobj: ops.is_complex,
    np.isreal: _isreal, np.iscomplex: _iscomplex,
    np.isclose: _isclose, np.array_equal: _array_equal, np.array_equiv: _array_equiv,
    np.astype: _astype,
    np.allclose: lambda a, b, rtol=1e-05, atol=1e-08, equal_nan=False: bool(ops.all_(
        _isclose(a, b, rtol, atol, equal_nan))),
    np.isneginf: _isneginf, np.isposinf: _isposinf, np.sort_complex: _sort_complex,
    np.nonzero: nonzero,
    np.argwhere: _positions("argwhere", np.argwhere),
    np.flatnonzero: _positions("flatnonzero", np.flatnonzero),
    np.trim_zeros: _trim_zeros,
    np.diag_indices_from: _diag_indices_from,
    np.tril_indices_from: _indices_from("tril_indices_from", np.tril_indices),
    np.triu_indices_from: _indices_from("triu_indices_from", np.triu_indices),
}
