"""Array functions with numpy's and PyTorch's semantics (broadcasting, promotion, axes,
-1 in shapes), written with primitives so they run eagerly and under tracing alike."""
from __future__ import annotations

import math

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import (AxisError, MismatchError, PermutationError,
                                   RepeatedAxisError, ReshapeError, UnknownDimensionsError,
                                   ir_type, is_python_scalar)
from gradjit.ir.types import int64
from gradjit.ops.promote import (accumulator, astype, broadcast, broadcast_shapes, comparison_dtype,
                                 default_float, flavor, operands, past_int64, result_type,
                                 to_float)


def shape_of(x) -> tuple[int, ...]:
    return () if is_python_scalar(x) else ir_type(x).shape


# ---- elementwise ----

def _binary(prim, on_bools=None):
    """prim on the promoted operands; `on_bools`, the logical primitive that gives its result
    on booleans (numpy and PyTorch add as `or`, multiply as `and`)."""
    def apply(a, b):
        if on_bools is not None and result_type(a, b).is_bool:
            return on_bools(*operands(a, b))
        return prim(*operands(a, b))
    apply.__name__ = prim.name
    return apply


_NUMPY_COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                      "gt": np.greater, "ge": np.greater_equal}


def _beyond_range(name, a, b):
    """numpy 2 compares an integer array with a Python integer outside the array's range
    exactly (2**63 with int64, -1 with uint64): every element lies on the same side, so the
    result is numpy's answer for the smallest element, everywhere (a traced integer past
    int64's range lies above all of a signed array). None where that is not so."""
    array = b if is_python_scalar(a) or past_int64(a) else a
    if is_python_scalar(array) or flavor(a, b) == "torch":
        return None
    dt = ir_type(array).dtype.numpy
    number = a if array is b else b
    if past_int64(number) and not past_int64(array):
        number = int(number.value)
    if dt.kind not in "iu" or not isinstance(number, int) or isinstance(number, bool) or \
            np.iinfo(dt).min <= number <= np.iinfo(dt).max:
        return None
    smallest = np.array(np.iinfo(dt).min, dt)
    value = _NUMPY_COMPARISONS[name](*((smallest, number) if array is a else (number, smallest)))
    return E.full(value=bool(value), shape=ir_type(array).shape, dtype="bool")


def _comparison(prim):
    def apply(a, b):
        constant = _beyond_range(prim.name, a, b)
        if constant is not None:
            return constant
        return prim(*operands(a, b, dtype=comparison_dtype(a, b)))
    apply.__name__ = prim.name
    return apply


add, sub, mul = _binary(E.add, E.logical_or), _binary(E.sub), _binary(E.mul, E.logical_and)
maximum, minimum = _binary(E.maximum, E.logical_or), _binary(E.minimum, E.logical_and)
eq, ne, lt, le, gt, ge = map(_comparison, (E.eq, E.ne, E.lt, E.le, E.gt, E.ge))


def true_divide(a, b):
    dt = result_type(a, b)
    if not dt.is_inexact:
        dt = default_float(a, b)
    return E.div(*operands(a, b, dtype=dt))


def power(a, b):
    """A constant exponent of 0.5 is a square root, as numpy and PyTorch compute it: that is
    what gives (-inf) ** 0.5 == nan and (-0.0) ** 0.5 == -0.0 (C's pow gives inf and +0)."""
    scalar = is_python_scalar(b) or isinstance(b, np.floating)
    if scalar and not isinstance(b, bool) and b == 0.5 and not is_python_scalar(a):
        return E.sqrt(astype(a, result_type(a, b)))
    return E.pow_(*operands(a, b))


def _logical(prim):
    def apply(a, b):
        return prim(*operands(a, b, dtype="bool"))
    apply.__name__ = prim.name
    return apply


logical_and, logical_or = _logical(E.logical_and), _logical(E.logical_or)


def logical_xor(a, b):
    return ne(_truth(a), _truth(b))


def _truth(x):
    # a Python number is one truth value (astype leaves numbers as they are: 2.5 != True)
    return bool(x) if is_python_scalar(x) else astype(x, "bool")


def logical_not(x):
    return E.logical_not(astype(x, "bool"))


def where(cond, a, b):
    if is_python_scalar(cond):  # a Python bool (or number) is a bool array, not a weak scalar
        cond = np.asarray(bool(cond))
    shape = broadcast_shapes(shape_of(cond), shape_of(a), shape_of(b))
    x, y = operands(a, b)
    return E.where(broadcast(astype(cond, "bool"), shape), broadcast(x, shape),
                   broadcast(y, shape))


def _float_unary(prim):
    def apply(x):
        return prim(to_float(x))
    apply.__name__ = prim.name
    return apply


exp, log, log1p, expm1, sqrt, rsqrt = map(_float_unary, (E.exp, E.log, E.log1p, E.expm1, E.sqrt,
                                                         E.rsqrt))
sin, cos, tan, tanh, sigmoid = map(_float_unary, (E.sin, E.cos, E.tan, E.tanh, E.sigmoid))


def no_loop(name: str) -> TypeError:
    """numpy's error for a ufunc that has no loop for its operands' types (complex ones)."""
    return TypeError(f"ufunc '{name}' not supported for the input types, and the inputs could "
                     "not be safely coerced to any supported types according to the casting "
                     "rule ''safe''")


def _integer_passthrough(prim):
    def apply(x):
        dt = ir_type(x).dtype
        if dt.is_complex:  # numpy rounds both parts and has no floor or ceil of them
            if prim is not E.round_:
                raise no_loop(prim.name)
            return E.complex_(prim(E.real(x)), prim(E.imag(x)))
        return x if not dt.is_float else prim(x)
    apply.__name__ = prim.name
    return apply


floor, ceil, round_ = map(_integer_passthrough, (E.floor, E.ceil, E.round_))
neg, abs_, sign, stop_gradient = E.neg, E.abs_, E.sign, E.stop_gradient


def relu(x):
    """PyTorch's relu: nan stays nan and -0.0 stays -0.0 (a max that keeps x unless x < 0);
    the gradient is 1 where x > 0 or x is nan and 0 for x <= 0, as its threshold_backward."""
    return where(le(x, 0), stop_gradient(where(lt(x, 0), 0, x)), x)


def clip(x, lo=None, hi=None):
    """Clamp into [lo, hi]; the gradient is 1 on the closed interval, as in PyTorch (a NaN
    stays NaN with gradient 0, as in PyTorch and JAX)."""
    if ir_type(x).dtype.is_float:
        x = where(eq(x, x), x, math.nan)
    if lo is not None:
        x = where(_past(x, lo, lt), lo, x)
    if hi is not None:
        x = where(_past(x, hi, gt), hi, x)
    return x


def _past(x, bound, compare):
    """Where clip puts `bound` in place of x: past it, and everywhere the bound is NaN (numpy's
    and PyTorch's clip give NaN there)."""
    past = compare(x, bound)
    if is_python_scalar(bound):
        return logical_or(past, True) if bound != bound else past
    return logical_or(past, ne(bound, bound)) if ir_type(bound).dtype.is_float else past


def isfinite(x):
    if ir_type(x).dtype.is_complex:
        return logical_and(isfinite(E.real(x)), isfinite(E.imag(x)))
    return lt(abs_(x), math.inf) if ir_type(x).dtype.is_float else ge(x, x)


# ---- reductions ----

def normalize_axes(axis, rank: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        if not -max(rank, 1) <= a < max(rank, 1):
            raise AxisError(a, rank)
        out.append(a % rank if rank else 0)
    if len(set(out)) != len(out):
        raise RepeatedAxisError(f"repeated axis in {axes}",
                                next(a for a in out if out.count(a) > 1))
    return tuple(sorted(set(out))) if rank else ()


def sum_(x, axis=None, keepdims=False, dtype=None):
    t = ir_type(x)
    return S.reduce_sum(accumulator(x, dtype), axes=normalize_axes(axis, t.rank),
                        keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    t = ir_type(x)
    if not t.dtype.is_inexact and flavor(x) == "torch":
        raise TypeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                        f"floating point or complex dtype. Got: {t.dtype.torch_name.title()}")
    axes = normalize_axes(axis, t.rank)
    count = math.prod(t.shape[a] for a in axes)
    return true_divide(sum_(to_float(x), axes, keepdims), float(count) if count else math.nan)


def amax(x, axis=None, keepdims=False):
    return _extremum(S.reduce_max, "max", x, axis, keepdims)


def amin(x, axis=None, keepdims=False):
    return _extremum(S.reduce_min, "min", x, axis, keepdims)


def _extremum(prim, name, x, axis, keepdims):
    t = ir_type(x)
    axes = normalize_axes(axis, t.rank)
    if any(t.shape[a] == 0 for a in axes):
        raise ValueError(f"{name}(): cannot reduce an empty axis of shape {t.shape}: there is "
                         "no identity")
    return prim(x, axes=axes, keepdims=keepdims)


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))), stable; rows of -inf give -inf and a zero gradient."""
    x = to_float(x)
    axes = normalize_axes(axis, ir_type(x).rank)
    peak = stop_gradient(S.reduce_max(x, axes=axes, keepdims=True))
    peak = where(isfinite(peak), peak, 0)
    total = sum_(exp(sub(x, peak)), axes, keepdims=True)
    empty = eq(total, 0)
    out = add(where(empty, -math.inf, log(where(empty, 1, total))), peak)
    return out if keepdims else squeeze(out, axes)


def softmax(x, axis=-1):
    x = to_float(x)
    axes = normalize_axes(axis, ir_type(x).rank)
    if 0 in ir_type(x).shape:  # no elements: no maximum to shift by, nothing to normalize
        return x
    shifted = exp(sub(x, stop_gradient(S.reduce_max(x, axes=axes, keepdims=True))))
    return true_divide(shifted, sum_(shifted, axes, keepdims=True))


def log_softmax(x, axis=-1):
    """x minus its (non-differentiated) maximum, minus the log of the shifted exponentials'
    sum. Unlike logsumexp's, the shift has no guard for infinite maxima: PyTorch's rows holding
    +inf (or all -inf) are nan throughout, not -inf at the finite entries."""
    x = to_float(x)
    axes = normalize_axes(axis, ir_type(x).rank)
    if 0 in ir_type(x).shape:
        return x
    shifted = sub(x, stop_gradient(S.reduce_max(x, axes=axes, keepdims=True)))
    return sub(shifted, log(sum_(exp(shifted), axes, keepdims=True)))


# ---- shapes ----

def reshape(x, *shape):
    shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape
    shape = tuple(int(d) for d in shape)
    t = ir_type(x)
    if shape.count(-1) > 1:
        raise UnknownDimensionsError(f"only one dimension can be inferred (-1) in {shape}")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or t.size % known:
            raise ReshapeError(f"shape {shape} is invalid for input of size {t.size}", shape,
                               t.size)
        shape = tuple(t.size // known if d == -1 else d for d in shape)
    if math.prod(shape) != t.size:
        raise ReshapeError(f"shape {shape} is invalid for input of size {t.size}", shape,
                           t.size)
    return x if shape == t.shape else S.reshape(x, shape=shape)


def transpose(x, axes=None):
    rank = ir_type(x).rank
    if axes is not None and len(axes) != rank:
        raise PermutationError(f"axes {axes} do not permute the {rank} dimensions", axes, rank)
    perm = tuple(reversed(range(rank))) if axes is None else \
        tuple(normalize_axes(a, rank)[0] if rank else a for a in axes)
    if sorted(perm) != list(range(rank)):
        raise PermutationError(f"axes {axes} do not permute the {rank} dimensions", axes, rank)
    return x if perm == tuple(range(rank)) else S.transpose(x, perm=perm)


def swapaxes(x, a, b):
    rank = ir_type(x).rank
    perm = list(range(rank))
    a, b = normalize_axes(a, rank)[0], normalize_axes(b, rank)[0]
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def expand_dims(x, axis):
    shape = list(ir_type(x).shape)
    if not -len(shape) - 1 <= axis <= len(shape):
        raise AxisError(axis, len(shape) + 1)
    shape.insert(axis % (len(shape) + 1), 1)
    return reshape(x, tuple(shape))


def squeeze(x, axis=None):
    shape = ir_type(x).shape
    axes = [a for a, d in enumerate(shape) if d == 1] if axis is None else [
        a for a in normalize_axes(axis, len(shape)) if shape[a] == 1]
    return reshape(x, tuple(d for a, d in enumerate(shape) if a not in axes))


def broadcast_to(x, shape):
    shape = tuple(shape)
    broadcast_shapes(ir_type(x).shape, shape)
    return broadcast(x, shape)


def concatenate(xs, axis=0):
    xs = list(xs)
    if not xs:
        raise ValueError("need at least one array to concatenate")
    dt = result_type(*xs)
    rank = ir_type(xs[0]).rank
    if rank == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axes(axis, rank)[0]
    return S.concatenate(*(astype(x, dt) for x in xs), axis=axis)


def stack(xs, axis=0):
    xs = list(xs)
    if not xs:
        raise ValueError("need at least one array to stack")
    shapes = {ir_type(x).shape for x in xs}
    if len(shapes) > 1:
        raise MismatchError(f"stack expects each array to be equal size, got {sorted(shapes)}")
    return concatenate([expand_dims(x, axis) for x in xs], axis)


def matmul(a, b):
    """numpy's matmul: 1-d operands gain and lose a unit axis, batch axes broadcast; bools
    multiply as integers, nonzero sums being True."""
    dt = result_type(a, b)
    if dt.is_bool:
        return ne(matmul(astype(a, int64), astype(b, int64)), 0)
    x, y = astype(a, dt), astype(b, dt)
    xs, ys = ir_type(x).shape, ir_type(y).shape
    if not xs or not ys:
        raise MismatchError("matmul: both operands need at least one dimension")
    x2 = reshape(x, (1,) + xs) if len(xs) == 1 else x
    y2 = reshape(y, ys + (1,)) if len(ys) == 1 else y
    s1, s2 = ir_type(x2).shape, ir_type(y2).shape
    if s1[-1] != s2[-2]:
        raise MismatchError(f"matmul: shapes {xs} and {ys} cannot be multiplied "
                         f"({s1[-2]}x{s1[-1]} and {s2[-2]}x{s2[-1]})")
    batch = broadcast_shapes(s1[:-2], s2[:-2])
    lead = (1,) if not batch else ()
    out = S.matmul(broadcast(reshape(x2, lead + s1) if lead else x2, lead + batch + s1[-2:]),
                   broadcast(reshape(y2, lead + s2) if lead else y2, lead + batch + s2[-2:]))
    shape = batch + (s1[-2],) * (len(xs) > 1) + (s2[-1],) * (len(ys) > 1)
    return reshape(out, shape)


def count(x) -> int:
    """int(x) of a scalar that picks among a few code paths (a number of squarings or of
    recurrence steps): a traced x answers it under a guard on the count, which a trace may
    keep, as it may not keep one on an arbitrary value."""
    read = getattr(getattr(x, "_value", x), "__gradjit_count__", None)  # a Tensor's, too
    return read() if read is not None else int(x)
