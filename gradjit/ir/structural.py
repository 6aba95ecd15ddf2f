"""Structural primitives: shapes, reductions, contraction, indexing, sources and guards."""
from __future__ import annotations

import numpy as np

from gradjit.ir.elementwise import add, cast, div, eq, maximum, mul, where, zeros_like
from gradjit.ir.primitive import Primitive, ir_type, register, require
from gradjit.ir.types import TensorType, bool_
from gradjit.ir.types import dtype as resolve_dtype


def _prim(name, kind, rule, evaluate, vjp, params=(), variadic=False, differentiable=True,
          jvp=None):
    """jvp defaults to the linear rule: most structural primitives are linear maps of their
    float operands."""
    if differentiable and jvp is None:
        jvp = _linear_jvp(name)
    return register(Primitive(name, kind, rule, evaluate, vjp, params=tuple(params),
                              variadic=variadic, differentiable=differentiable, jvp=jvp))


def _linear_jvp(name, **fixed):
    """The JVP of a primitive linear in its float operands: the primitive on their tangents
    (zeros for a missing one; integer operands, indices, pass as they are), `fixed` params
    overriding (pad fills the tangent with 0)."""
    def jvp(tangents, out, *args, **params):
        from gradjit.ir.primitive import PRIMITIVES
        operands = [x if not ir_type(x).dtype.is_float else zeros_like(x) if t is None else t
                    for t, x in zip(tangents, args)]
        return PRIMITIVES[name](*operands, **{**params, **fixed})
    return jvp


def _check_axes(axes, rank, what="axes"):
    axes = tuple(axes)
    require(all(isinstance(a, int) and 0 <= a < rank for a in axes),
            f"{what} {axes} must lie in [0, {rank}) (normalize negative axes first)")
    require(list(axes) == sorted(set(axes)), f"{what} {axes} must be sorted and distinct")
    return axes


# ---- broadcast_to, reshape, transpose ----

def broadcast_axes(source: tuple, target: tuple) -> tuple[int, ...]:
    """The target axes along which `source` is repeated when broadcast to `target`."""
    lead = len(target) - len(source)
    return tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(source) if d == 1 and target[lead + i] != 1)


def _broadcast_rule(x, *, shape):
    shape = tuple(shape)
    lead = len(shape) - x.rank
    require(lead >= 0 and all(d in (1, t) for d, t in zip(x.shape, shape[lead:])),
            f"cannot broadcast shape {x.shape} to {shape}")
    return TensorType(shape, x.dtype)


def _broadcast_vjp(g, y, x, *, shape):
    x_shape = ir_type(x).shape
    summed = reduce_sum(g, axes=broadcast_axes(x_shape, tuple(shape)), keepdims=False)
    return (reshape(summed, shape=x_shape),)


broadcast_to = _prim("broadcast_to", "structural", _broadcast_rule,
                     lambda x, *, shape: np.broadcast_to(x, shape).copy(), _broadcast_vjp,
                     params=("shape",))


def _reshape_rule(x, *, shape):
    shape = tuple(shape)
    require(all(isinstance(d, int) and d >= 0 for d in shape), f"bad target shape {shape}")
    require(int(np.prod(shape, dtype=np.int64)) == x.size,
            f"cannot reshape {x.shape} ({x.size} elements) to {shape}")
    return TensorType(shape, x.dtype)


reshape = _prim("reshape", "structural", _reshape_rule,
                lambda x, *, shape: np.reshape(x, shape),
                lambda g, y, x, *, shape: (reshape(g, shape=ir_type(x).shape),),
                params=("shape",))


def _transpose_rule(x, *, perm):
    require(sorted(perm) == list(range(x.rank)), f"perm {tuple(perm)} is no permutation of "
            f"the {x.rank} axes")
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


transpose = _prim("transpose", "structural", _transpose_rule,
                  lambda x, *, perm: np.transpose(x, perm),
                  lambda g, y, x, *, perm: (transpose(g, perm=tuple(np.argsort(perm).tolist())),),
                  params=("perm",))


# ---- reductions ----

def _reduce_rule(x, *, axes, keepdims):
    axes = _check_axes(axes, x.rank)
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)
    return TensorType(shape, x.dtype)


def _expand_back(g, x, axes, keepdims):
    """Bring a reduced cotangent back to the operand's shape."""
    x_shape = ir_type(x).shape
    kept = tuple(1 if i in axes else d for i, d in enumerate(x_shape))
    if not keepdims:
        g = reshape(g, shape=kept)
    return broadcast_to(g, shape=x_shape)


def _sum_vjp(g, y, x, *, axes, keepdims):
    return (_expand_back(g, x, axes, keepdims),)


def _extremum_vjp(g, y, x, *, axes, keepdims):
    """Shared evenly among the elements that attain the extremum, as PyTorch's amax does."""
    hit = eq(x, _expand_back(y, x, axes, keepdims))
    count = reduce_sum(cast(hit, dtype=ir_type(x).dtype.name), axes=axes, keepdims=True)
    share = div(_expand_back(g, x, axes, keepdims), broadcast_to(count, shape=ir_type(x).shape))
    return (where(hit, share, zeros_like(x)),)


def _extremum_jvp(tangents, y, x, *, axes, keepdims):
    """The mean of the tangents of the elements that attain the extremum (the transpose of
    the even share); 0 where none does (a NaN among the terms), as the VJP gives."""
    (t,) = tangents
    hit = eq(x, _expand_back(y, x, axes, keepdims))
    count = reduce_sum(cast(hit, dtype=ir_type(x).dtype.name), axes=axes, keepdims=keepdims)
    total = reduce_sum(where(hit, t, zeros_like(x)), axes=axes, keepdims=keepdims)
    return div(total, maximum(count, 1.0))


def _prod_partials(x, axes):
    """d prod / d x_i, the product of the other terms, in x's shape. It is y / x_i only when no
    term is 0; with one zero only that term's derivative (the product of the rest) is nonzero,
    and with two or more all are 0. Counting the zeros keeps each case exact (exp(sum(log)) is
    not). The partials are differentiable again away from zeros; with a zero term the count is
    held fixed, so the mixed second derivatives through that zero come out 0."""
    zero = eq(x, 0.0)
    dt = ir_type(x).dtype.name
    count = _expand_back(reduce_sum(cast(zero, dtype=dt), axes=axes, keepdims=True), x, axes,
                         True)
    safe = where(zero, add(zeros_like(x), 1.0), x)
    rest = _expand_back(reduce_prod(safe, axes=axes, keepdims=True), x, axes, True)
    none, one = eq(count, 0.0), eq(count, 1.0)
    return where(zero, where(one, rest, zeros_like(x)), where(none, div(rest, safe),
                                                              zeros_like(x)))


def _prod_vjp(g, y, x, *, axes, keepdims):
    return (mul(_expand_back(g, x, axes, keepdims), _prod_partials(x, axes)),)


def _prod_jvp(tangents, y, x, *, axes, keepdims):
    (t,) = tangents
    return reduce_sum(mul(t, _prod_partials(x, axes)), axes=axes, keepdims=keepdims)


def _reduction(name, numpy_fn, vjp, jvp=None):
    def evaluate(x, *, axes, keepdims):
        if not axes:  # a reduction of one term is that term (numpy's sum adds +0.0 to -0.0)
            return x.copy()
        return numpy_fn(x, axis=tuple(axes), keepdims=keepdims)
    return _prim(name, "reduction", _reduce_rule, evaluate, vjp, params=("axes", "keepdims"),
                 jvp=jvp)


reduce_sum = _reduction("reduce_sum", np.sum, _sum_vjp)
reduce_max = _reduction("reduce_max", np.max, _extremum_vjp, _extremum_jvp)
reduce_min = _reduction("reduce_min", np.min, _extremum_vjp, _extremum_jvp)
# A primitive rather than a composition: one fused pass like the other reductions, where a
# product tree of slices would unroll into an expression with one leaf per term.
reduce_prod = _reduction("reduce_prod", lambda x, axis, keepdims: np.prod(
    x, axis=axis, keepdims=keepdims, dtype=x.dtype), _prod_vjp, _prod_jvp)


# ---- contraction ----

def _matmul_rule(a, b):
    require(a.rank >= 2 and b.rank == a.rank, "operands need equal rank >= 2 (batch dims "
            "broadcast explicitly)")
    require(a.shape[:-2] == b.shape[:-2], f"batch dims {a.shape[:-2]} and {b.shape[:-2]} differ")
    require(a.shape[-1] == b.shape[-2], f"inner dims {a.shape[-1]} and {b.shape[-2]} differ")
    require(a.dtype == b.dtype and not a.dtype.is_bool, f"dtypes {a.dtype} and {b.dtype}")
    return TensorType(a.shape[:-1] + b.shape[-1:], a.dtype)


def _swap_last(x):
    rank = ir_type(x).rank
    return transpose(x, perm=tuple(range(rank - 2)) + (rank - 1, rank - 2))


def _matmul_jvp(tangents, y, a, b):
    ta, tb = tangents
    left = None if ta is None else matmul(ta, b)
    right = None if tb is None else matmul(a, tb)
    return right if left is None else left if right is None else add(left, right)


matmul = _prim("matmul", "contraction", _matmul_rule, np.matmul,
               lambda g, y, a, b: (matmul(g, _swap_last(b)), matmul(_swap_last(a), g)),
               jvp=_matmul_jvp)


# ---- slicing and padding ----

def _slice_rule(x, *, start, stop, step):
    require(len(start) == len(stop) == len(step) == x.rank,
            f"start/stop/step need one entry per axis of {x.shape}")
    shape = []
    for lo, hi, st, d in zip(start, stop, step, x.shape):
        require(st >= 1 and 0 <= lo <= hi <= d, f"slice {lo}:{hi}:{st} does not fit an axis "
                f"of length {d} (bounds normalized, step >= 1)")
        shape.append(max(0, -(-(hi - lo) // st)))
    return TensorType(tuple(shape), x.dtype)


def _slice_vjp(g, y, x, *, start, stop, step):
    x_shape = ir_type(x).shape
    low, high = [], []
    for lo, n, st, d in zip(start, ir_type(y).shape, step, x_shape):
        lo = lo if n else 0
        low.append(lo)
        high.append(d - lo - ((n - 1) * st + 1 if n else 0))
    return (pad(g, low=tuple(low), high=tuple(high), interior=tuple(s - 1 for s in step),
                value=0.0),)


slice_ = _prim("slice", "structural", _slice_rule,
               lambda x, *, start, stop, step: x[tuple(map(slice, start, stop, step))],
               _slice_vjp, params=("start", "stop", "step"))


def _pad_rule(x, *, low, high, interior, value):
    require(len(low) == len(high) == len(interior) == x.rank,
            f"low/high/interior need one entry per axis of {x.shape}")
    require(min(low + high + interior, default=0) >= 0, "padding amounts must be >= 0")
    shape = tuple(lo + hi + d + max(d - 1, 0) * it
                  for lo, hi, it, d in zip(low, high, interior, x.shape))
    return TensorType(shape, x.dtype)


def _pad_eval(x, *, low, high, interior, value):
    out_type = _pad_rule(TensorType(x.shape, resolve_dtype(x.dtype)), low=low, high=high,
                         interior=interior, value=value)
    out = np.full(out_type.shape, value, x.dtype)
    out[tuple(slice(lo, lo + (d - 1) * (it + 1) + 1 if d else lo, it + 1)
              for lo, it, d in zip(low, interior, x.shape))] = x
    return out


def _pad_vjp(g, y, x, *, low, high, interior, value):
    x_shape = ir_type(x).shape
    stop = tuple(lo + (d - 1) * (it + 1) + 1 if d else lo
                 for lo, it, d in zip(low, interior, x_shape))
    return (slice_(g, start=tuple(low), stop=stop, step=tuple(it + 1 for it in interior)),)


pad = _prim("pad", "structural", _pad_rule, _pad_eval, _pad_vjp,
            params=("low", "high", "interior", "value"), jvp=_linear_jvp("pad", value=0.0))


# ---- integer-array indexing ----

def _gather_rule(x, idx, *, axis):
    require(0 <= axis < x.rank, f"axis {axis} out of range for rank {x.rank}")
    require(idx.dtype.is_int, f"indices must be integers, not {idx.dtype}")
    return TensorType(x.shape[:axis] + idx.shape + x.shape[axis + 1:], x.dtype)


def _gather_eval(x, idx, *, axis):
    return np.take(x, idx, axis=axis)  # raises IndexError on an index out of range


gather = _prim("gather", "structural", _gather_rule, _gather_eval,
               lambda g, y, x, idx, *, axis: (scatter_add(zeros_like(x), idx, g, axis=axis), None),
               params=("axis",))


def _scatter_add_rule(x, idx, updates, *, axis):
    expected = _gather_rule(x, idx, axis=axis)
    require(updates.shape == expected.shape and updates.dtype == x.dtype,
            f"updates must be {expected} for indices {idx} along axis {axis}, not {updates}")
    return x


def _scatter_add_eval(x, idx, updates, *, axis):
    out = x.copy()
    n = x.shape[axis]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"index out of range for an axis of size {n}")
    moved = np.moveaxis(out, axis, 0)
    upd = np.moveaxis(updates.reshape(x.shape[:axis] + (idx.size,) + x.shape[axis + 1:]), axis, 0)
    np.add.at(moved, idx.reshape(-1), upd)
    return out


scatter_add = _prim("scatter_add", "structural", _scatter_add_rule, _scatter_add_eval,
                    lambda g, y, x, idx, upd, *, axis: (g, None, gather(g, idx, axis=axis)),
                    params=("axis",))


# ---- concatenation ----

def _concat_rule(*xs, axis):
    first = xs[0]
    require(0 <= axis < first.rank, f"axis {axis} out of range for rank {first.rank}")
    for x in xs[1:]:
        require(x.dtype == first.dtype, f"dtypes {first.dtype} and {x.dtype} differ")
        require(x.rank == first.rank and all(
            a == b for i, (a, b) in enumerate(zip(x.shape, first.shape)) if i != axis),
            f"shapes {first.shape} and {x.shape} differ off axis {axis}")
    total = sum(x.shape[axis] for x in xs)
    return TensorType(first.shape[:axis] + (total,) + first.shape[axis + 1:], first.dtype)


def _concat_vjp(g, y, *xs, axis):
    out, offset = [], 0
    shape = ir_type(g).shape
    for x in xs:
        n = ir_type(x).shape[axis]
        start = tuple(offset if i == axis else 0 for i in range(len(shape)))
        stop = tuple(offset + n if i == axis else d for i, d in enumerate(shape))
        out.append(slice_(g, start=start, stop=stop, step=(1,) * len(shape)))
        offset += n
    return tuple(out)


concatenate = _prim("concatenate", "structural", _concat_rule,
                    lambda *xs, axis: np.concatenate(xs, axis=axis), _concat_vjp,
                    params=("axis",), variadic=True)


# ---- sources ----

def _iota_rule(*, shape, dtype, axis):
    require(0 <= axis < len(shape), f"axis {axis} out of range for shape {tuple(shape)}")
    return TensorType(tuple(shape), resolve_dtype(dtype))


def _iota_eval(*, shape, dtype, axis):
    ramp = np.arange(shape[axis], dtype=resolve_dtype(dtype).numpy)
    ramp = ramp.reshape((-1,) + (1,) * (len(shape) - axis - 1))
    return np.broadcast_to(ramp, shape).copy()


iota = _prim("iota", "source", _iota_rule, _iota_eval, lambda g, y: (),
             params=("shape", "dtype", "axis"), differentiable=False)


def _constant_rule(*, value, shape, dtype):
    array = np.asarray(value, dtype=resolve_dtype(dtype).numpy)
    empty = array.size == 0 and 0 in shape  # nested lists cannot spell an empty array's shape
    require(array.shape == tuple(shape) or empty,
            f"value of shape {array.shape} declared {tuple(shape)}")
    return TensorType(tuple(shape), resolve_dtype(dtype))


constant = _prim("constant", "source", _constant_rule,
                 lambda *, value, shape, dtype: np.asarray(value, resolve_dtype(dtype).numpy)
                 .reshape(shape),
                 lambda g, y: (), params=("value", "shape", "dtype"), differentiable=False)


# ---- guards: the control-flow decisions a trace took ----

class GuardFailed(Exception):
    """A traced decision went the other way for these inputs: the trace does not apply."""

    def __init__(self, site: str, expected: bool):
        super().__init__(f"guard at {site} expected {expected}")
        self.site, self.expected = site, expected


def _guard_rule(pred, *, expected, site):
    require(pred.dtype == bool_ and pred.shape == (), f"a guard tests a bool[] scalar, not {pred}")
    return None


def _guard_eval(pred, *, expected, site):
    if bool(pred) != expected:
        raise GuardFailed(site, expected)


guard = _prim("guard", "effect", _guard_rule, _guard_eval, lambda g, y, pred: (None,),
              params=("expected", "site"), differentiable=False)
