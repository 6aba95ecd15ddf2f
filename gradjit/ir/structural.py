"""Structural primitives: shapes, reductions, contraction, indexing, sources and guards."""
from __future__ import annotations

import linecache

import numpy as np

from gradjit.ir.elementwise import add, cast, div, eq, mul, where, zeros_like
from gradjit.ir.primitive import (PRIMITIVES, BatchingError, Partials, Primitive, ir_type, register,
                                  require)
from gradjit.ir.types import TensorType, bool_
from gradjit.ir.types import dtype as resolve_dtype
from gradjit.runtime.blas import product


def _prim(name, kind, rule, evaluate, vjp, params=(), variadic=False, differentiable=True,
          jvp=None, batch=None):
    """jvp defaults to the linear rule: most structural primitives are linear maps of their
    float operands."""
    if differentiable and jvp is None:
        jvp = _linear_jvp(name)
    return register(Primitive(name, kind, rule, evaluate, vjp, params=tuple(params),
                              variadic=variadic, differentiable=differentiable, jvp=jvp,
                              batch=batch))


def _linear_jvp(name, **fixed):
    """The JVP of a primitive linear in its float operands: the primitive on their tangents
    (zeros for a missing one; integer operands, indices, pass as they are), `fixed` params
    overriding (pad fills the tangent with 0)."""
    def jvp(tangents, out, *args, **params):
        from gradjit.ir.primitive import PRIMITIVES
        operands = [x if not ir_type(x).dtype.is_inexact else zeros_like(x) if t is None else t
                    for t, x in zip(tangents, args)]
        return PRIMITIVES[name](*operands, **{**params, **fixed})
    return jvp


def batch_shifted(name, shift=lambda size, **params: params):
    """The batching rule of a one-operand primitive: the primitive on the stack, with `shift`
    rewriting the params that name axes for the leading batch axis (library primitives that
    act on the trailing axes, as numpy's linalg does, keep theirs)."""
    def batch(args, batched, size, **params):
        return PRIMITIVES[name](*args, **shift(size, **params))
    return batch


def batch_stacked(name):
    """The batching rule of a primitive on stacks of matrices: every operand batched (the
    shared ones broadcast), the batch axis one more leading stack axis."""
    def batch(args, batched, size, **params):
        return PRIMITIVES[name](*[materialize(a, b, size) for a, b in zip(args, batched)],
                                **params)
    return batch


def materialize(x, batched, size):
    """x with a leading batch axis of length size: as it is if batched, else broadcast."""
    return x if batched else broadcast_to(x, shape=(size,) + ir_type(x).shape)


def move_axis(x, source, destination):
    """x with its axis `source` moved to position `destination`, the others in order."""
    if source == destination:
        return x
    perm = [i for i in range(ir_type(x).rank) if i != source]
    perm.insert(destination, source)
    return transpose(x, perm=tuple(perm))


def _after_batch(axes):
    return tuple(a + 1 for a in axes)


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


def _broadcast_batch(args, batched, size, *, shape):
    x, = args
    inner = ir_type(x).shape[1:]
    lead = len(shape) - len(inner)
    if lead:  # the operand's axes align with the target's last ones, the batch axis first
        x = reshape(x, shape=(size,) + (1,) * lead + inner)
    return broadcast_to(x, shape=(size,) + tuple(shape))


def _broadcast_vjp(g, y, x, *, shape):
    x_shape = ir_type(x).shape
    summed = reduce_sum(g, axes=broadcast_axes(x_shape, tuple(shape)), keepdims=False)
    return (reshape(summed, shape=x_shape),)


def _broadcast_copy(x, *, shape):
    """np.broadcast_to(x, shape).copy() without np.broadcast_to's Python-level checks (the
    shape rule made them): a sum's VJP runs it on every backward."""
    x = np.asarray(x)
    out = np.empty(shape, x.dtype)
    out[...] = x
    return out


broadcast_to = _prim("broadcast_to", "structural", _broadcast_rule, _broadcast_copy,
                     _broadcast_vjp, params=("shape",), batch=_broadcast_batch)


def _reshape_rule(x, *, shape):
    shape = tuple(shape)
    require(all(isinstance(d, int) and d >= 0 for d in shape), f"bad target shape {shape}")
    require(int(np.prod(shape, dtype=np.int64)) == x.size,
            f"cannot reshape {x.shape} ({x.size} elements) to {shape}")
    return TensorType(shape, x.dtype)


reshape = _prim("reshape", "structural", _reshape_rule,
                lambda x, *, shape: np.asarray(x).reshape(shape),  # (np.reshape: 3 frames)
                lambda g, y, x, *, shape: (reshape(g, shape=ir_type(x).shape),),
                params=("shape",),
                batch=batch_shifted("reshape", lambda size, shape: {"shape": (size, *shape)}))


def _transpose_rule(x, *, perm):
    require(sorted(perm) == list(range(x.rank)), f"perm {tuple(perm)} is no permutation of "
            f"the {x.rank} axes")
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


transpose = _prim("transpose", "structural", _transpose_rule,
                  lambda x, *, perm: np.transpose(x, perm),
                  lambda g, y, x, *, perm: (transpose(g, perm=tuple(np.argsort(perm).tolist())),),
                  params=("perm",), batch=batch_shifted(
                      "transpose", lambda size, perm: {"perm": (0, *_after_batch(perm))}))


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
    """Shared evenly among the elements that attain the extremum, as JAX's max and PyTorch's
    amax share it: the indicator times g over the count, so a NaN extremum (which no element
    equals: a count of 0) gives NaN everywhere, as both do. PyTorch's max() sends it to the
    NaNs instead (tensor/reductions.py)."""
    hit = eq(x, _expand_back(y, x, axes, keepdims))
    count = reduce_sum(cast(hit, dtype=ir_type(x).dtype.name), axes=axes, keepdims=True)
    share = div(_expand_back(g, x, axes, keepdims), broadcast_to(count, shape=ir_type(x).shape))
    return (where(hit, share, mul(zeros_like(x), share)),)  # 0 * share: NaN where it is


def _extremum_jvp(tangents, y, x, *, axes, keepdims):
    """The mean of the tangents of the elements that attain the extremum (the transpose of
    the even share); NaN where none does (a NaN among the terms), as the VJP gives."""
    (t,) = tangents
    hit = eq(x, _expand_back(y, x, axes, keepdims))
    count = reduce_sum(cast(hit, dtype=ir_type(x).dtype.name), axes=axes, keepdims=keepdims)
    total = reduce_sum(where(hit, t, zeros_like(x)), axes=axes, keepdims=keepdims)
    return div(total, count)


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


def _ordered_reduce_rule(x, *, axes, keepdims):
    require(not x.dtype.is_complex, f"complex numbers have no order ({x.dtype})")
    return _reduce_rule(x, axes=axes, keepdims=keepdims)


def _reduction(name, numpy_fn, vjp, jvp=None, ordered=False):
    def evaluate(x, *, axes, keepdims):
        if not axes:  # a reduction of one term is that term (numpy's sum adds +0.0 to -0.0)
            return x.copy()
        return numpy_fn(x, axis=tuple(axes), keepdims=keepdims)
    rule = _ordered_reduce_rule if ordered else _reduce_rule
    return _prim(name, "reduction", rule, evaluate, vjp, params=("axes", "keepdims"),
                 jvp=jvp, batch=batch_shifted(name, lambda size, axes, keepdims: {
                     "axes": _after_batch(axes), "keepdims": keepdims}))


# The ufuncs' reduce is what np.sum/np.max/np.min call, without their wrapper's argument
# handling (a third of an eager sum over a small array).
reduce_sum = _reduction("reduce_sum", np.add.reduce, _sum_vjp)
reduce_max = _reduction("reduce_max", np.maximum.reduce, _extremum_vjp, _extremum_jvp,
                        ordered=True)
reduce_min = _reduction("reduce_min", np.minimum.reduce, _extremum_vjp, _extremum_jvp,
                        ordered=True)
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


def _matmul_batch(args, batched, size):
    a, b = args
    b_shape = ir_type(b).shape
    if batched == (True, False) and all(d == 1 for d in b_shape[:-2]):
        # a stack of rows times one matrix is one product of all the rows (one BLAS call)
        a_shape = ir_type(a).shape
        k, n = b_shape[-2:]
        rows = matmul(reshape(a, shape=(size * int(np.prod(a_shape[1:-1])), k)),
                      reshape(b, shape=(k, n)))
        return reshape(rows, shape=a_shape[:-1] + (n,))
    a_shape = ir_type(a).shape
    if batched == (False, True) and b_shape[-1] == 1 and all(d == 1 for d in a_shape[:-2]):
        # one matrix times a stack of vectors is one product with the vectors as rows (one
        # BLAS call, not one per example; a Jacobian's basis is such a stack)
        m, k = a_shape[-2:]
        rows = matmul(reshape(b, shape=(size, k)), _swap_last(reshape(a, shape=(m, k))))
        return reshape(rows, shape=(size,) + a_shape[:-1] + (1,))
    a, b = materialize(a, batched[0], size), materialize(b, batched[1], size)
    if ir_type(a).shape[-1] == 1:
        # a stack of outer products (per-example weight gradients) is one fused elementwise
        # loop, where a batched product would make one tiny BLAS call per example
        shape = ir_type(a).shape[:-1] + ir_type(b).shape[-1:]
        return mul(broadcast_to(a, shape=shape), broadcast_to(b, shape=shape))
    return matmul(a, b)


matmul = _prim("matmul", "contraction", _matmul_rule, product,
               Partials(lambda g, y, a, b: matmul(g, _swap_last(b)),
                        lambda g, y, a, b: matmul(_swap_last(a), g)),
               jvp=_matmul_jvp, batch=_matmul_batch)


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
               _slice_vjp, params=("start", "stop", "step"), batch=batch_shifted(
                   "slice", lambda size, start, stop, step: {
                       "start": (0, *start), "stop": (size, *stop), "step": (1, *step)}))


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
            params=("low", "high", "interior", "value"), jvp=_linear_jvp("pad", value=0.0),
            batch=batch_shifted("pad", lambda size, low, high, interior, value: {
                "low": (0, *low), "high": (0, *high), "interior": (0, *interior),
                "value": value}))


# ---- integer-array indexing ----

def _gather_rule(x, *indices, axis):
    """x[:, .., :, i0, .., ik-1, :, ..]: k index arrays of one shape (broadcast explicitly)
    on the adjacent axes axis..axis+k-1, whose places their shape takes (numpy's rule for
    adjacent index arrays)."""
    k = len(indices)
    require(k >= 1, "needs at least one index array")
    require(0 <= axis and axis + k <= x.rank, f"axis {axis} out of range for rank {x.rank}"
            + (f" with {k} index arrays" if k > 1 else ""))
    for idx in indices:
        require(idx.dtype.is_int, f"indices must be integers, not {idx.dtype}")
    require(all(i.shape == indices[0].shape for i in indices),
            "index arrays need one shape: " + ", ".join(str(i.shape) for i in indices))
    return TensorType(x.shape[:axis] + indices[0].shape + x.shape[axis + k:], x.dtype)


def _selector(indices, axis):
    return (slice(None),) * axis + tuple(indices)


def _gather_eval(x, *indices, axis):
    if len(indices) == 1:
        return np.take(x, indices[0], axis=axis)  # raises IndexError on an index out of range
    return x[_selector(indices, axis)]


def _examples(x, indices, batched, size, axis):
    """For batched index arrays: x with its batch axis moved next to the indexed axes (to
    `axis`) and the index arrays, all batched, led by an iota that picks each example's own
    slice; each index is checked against its own axis, so none reaches a neighbour's rows."""
    indices = [materialize(i, b, size) for i, b in zip(indices, batched)]
    t = ir_type(indices[0])
    return move_axis(x, 0, axis), [iota(shape=t.shape, dtype=t.dtype.name, axis=0), *indices]


def _gather_batch(args, batched, size, *, axis):
    x, *indices = args
    if not any(batched[1:]):
        return gather(x, *indices, axis=axis + 1)
    if not batched[0]:  # the stack of indices picks its own stack of slices of one x
        indices = [materialize(i, b, size) for i, b in zip(indices, batched[1:])]
        return move_axis(gather(x, *indices, axis=axis), axis, 0)
    x, indices = _examples(x, indices, batched[1:], size, axis)
    return move_axis(gather(x, *indices, axis=axis), axis, 0)


def _gather_vjp(g, y, x, *indices, axis):
    return (scatter_add(zeros_like(x), *indices, g, axis=axis),) + (None,) * len(indices)


gather = _prim("gather", "structural", _gather_rule, _gather_eval, _gather_vjp,
               params=("axis",), variadic=True, batch=_gather_batch)


def _scatter_add_rule(x, *operands, axis):
    require(len(operands) >= 2, "needs index arrays and the updates")
    *indices, updates = operands
    expected = _gather_rule(x, *indices, axis=axis)
    require(updates.shape == expected.shape and updates.dtype == x.dtype,
            f"updates must be {expected} for indices {', '.join(map(str, indices))} along axis "
            f"{axis}, not {updates}")
    return x


def _scatter_add_eval(x, *operands, axis):
    *indices, updates = operands
    out = x.copy()
    for i, idx in enumerate(indices):
        n = x.shape[axis + i]
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError(f"index out of range for an axis of size {n}")
    np.add.at(out, _selector(indices, axis), updates)
    return out


def _scatter_add_batch(args, batched, size, *, axis):
    x, *indices, updates = args
    x, updates = materialize(x, batched[0], size), materialize(updates, batched[-1], size)
    if not any(batched[1:-1]):
        return scatter_add(x, *indices, updates, axis=axis + 1)
    x, indices = _examples(x, indices, batched[1:-1], size, axis)
    summed = scatter_add(x, *indices, move_axis(updates, 0, axis), axis=axis)
    return move_axis(summed, axis, 0)


def _scatter_add_vjp(g, y, x, *operands, axis):
    *indices, _ = operands
    return (g,) + (None,) * len(indices) + (gather(g, *indices, axis=axis),)


scatter_add = _prim("scatter_add", "structural", _scatter_add_rule, _scatter_add_eval,
                    _scatter_add_vjp, params=("axis",), variadic=True, batch=_scatter_add_batch)


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
                    params=("axis",), variadic=True,
                    batch=lambda args, batched, size, *, axis: concatenate(
                        *map(materialize, args, batched, (size,) * len(args)), axis=axis + 1))


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


def _guard_batch(args, batched, size, *, expected, site):
    """A traced decision holds for one example, not for the batch: the decision would have
    to differ per example, which one trace cannot do (JAX refuses it too)."""
    path, _, number = (site or "").rpartition(":")
    line = linecache.getline(path, int(number)).strip() if number.isdigit() else ""
    raise BatchingError(
        f"vmap: a Python decision (if, while, bool(), float(), int(), item()) depends on a "
        f"value that differs along the mapped axis; use np.where (or lax-style selects) "
        f"instead\n  at {site}: {line}")


guard = _prim("guard", "effect", _guard_rule, _guard_eval, lambda g, y, pred: (None,),
              params=("expected", "site"), differentiable=False, batch=_guard_batch)


# ---- index checks: an index out of range, in the words of the library the user called ----

INDEX_ERRORS = {"IndexError": IndexError, "RuntimeError": RuntimeError}


def check_index_range(index, *, bound, low, error, words):
    """Raise `error` with `words` (the owning library's message, {index} where the offending
    value goes) for the first element of `index` outside [low, bound)."""
    index = np.asarray(index)
    if index.size and (index.min() < low or index.max() >= bound):
        bad = index[(index < low) | (index >= bound)].flat[0]
        raise INDEX_ERRORS[error](words.format(index=bad))


def _check_index_rule(index, *, bound, low, error, words):
    require(index.dtype.is_int, f"check_index checks an integer index, not {index}")
    return index


def _check_index_eval(index, *, bound, low, error, words):
    check_index_range(index, bound=bound, low=low, error=error, words=words)
    return index


# The user's index, checked against the size of the axis it indexes before it is turned into
# flat positions, so that an error names the user's value, axis and size.
check_index = _prim("check_index", "structural", _check_index_rule, _check_index_eval,
                    lambda g, y, index: (None,), params=("bound", "low", "error", "words"),
                    differentiable=False, batch=batch_shifted("check_index"))
