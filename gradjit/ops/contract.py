"""Products with numpy's rules (dot, vdot, inner, outer, tensordot, kron, cross, multi_dot,
matrix_power, vecdot, matvec, vecmat), each checked with numpy's errors and lowered through
the labelled contraction of gradjit.ops.contraction, so every one is a batched matmul."""
from __future__ import annotations

import operator

import numpy as np

from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type, is_python_scalar
from gradjit.ops.array import (concatenate, eq, logical_and, matmul, mul, normalize_axes,
                               reshape, sub, transpose, where)
from gradjit.ops.contraction import contract
from gradjit.ops.linalg import inv
from gradjit.ops.promote import astype, broadcast, broadcast_shapes, result_type


def _shape(x):
    return () if is_python_scalar(x) else ir_type(x).shape


def _times(a, b):
    """Elementwise product; of bools, their conjunction (numpy's multiply of bools)."""
    return logical_and(a, b) if result_type(a, b).is_bool else mul(a, b)


def _labels(prefix, rank):
    return tuple(f"{prefix}{i}" for i in range(rank))


def _not_aligned(sa, sb, ia, ib) -> str:
    return f"shapes {sa} and {sb} not aligned: {sa[ia]} (dim {ia}) != {sb[ib]} (dim {ib})"


def tensordot(a, b, axes=2):
    """Sum over the pairs of axes: `axes` is N (a's last N with b's first N) or a pair of
    axis sequences."""
    sa, sb = _shape(a), _shape(b)
    if isinstance(axes, (int, np.integer)):
        n = operator.index(axes)
        if n < 0 or n > min(len(sa), len(sb)):
            raise IndexError(f"tensordot: axes={n} does not fit shapes {sa} and {sb}")
        axes_a, axes_b = list(range(len(sa) - n, len(sa))), list(range(n))
    else:
        axes_a, axes_b = ([x] if isinstance(x, (int, np.integer)) else list(x) for x in axes)
    if len(axes_a) != len(axes_b):
        raise ValueError(f"tensordot: {len(axes_a)} axes of a paired with {len(axes_b)} of b")
    axes_a = [normalize_axes(i, len(sa))[0] for i in axes_a]
    axes_b = [normalize_axes(i, len(sb))[0] for i in axes_b]
    if any(sa[i] != sb[j] for i, j in zip(axes_a, axes_b)):
        raise ValueError(f"shape-mismatch for sum: axes {axes_a} of {sa} and {axes_b} of {sb}")
    la, lb = list(_labels("a", len(sa))), list(_labels("b", len(sb)))
    for i, j in zip(axes_a, axes_b):
        lb[j] = la[i]
    out = tuple(l for l in la if l not in lb) + tuple(l for l in lb if l not in la)
    return contract([a, b], [tuple(la), tuple(lb)], out)


def dot(a, b):
    """numpy's dot: dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])."""
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return _times(a, b)
    ib = 0 if len(sb) == 1 else len(sb) - 2
    if sa[-1] != sb[ib]:
        raise ValueError(_not_aligned(sa, sb, len(sa) - 1, ib))
    return tensordot(a, b, ([len(sa) - 1], [ib]))


def inner(a, b):
    """Sum over the last axes of both."""
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb:
        return _times(a, b)
    if sa[-1] != sb[-1]:
        raise ValueError(_not_aligned(sa, sb, len(sa) - 1, len(sb) - 1))
    return tensordot(a, b, ([-1], [-1]))


def _conjugate(x):
    return E.conj(x) if not is_python_scalar(x) and ir_type(x).dtype.is_complex else x


def vdot(a, b):
    """Dot product of the flattened operands, the first conjugated."""
    if np.prod(_shape(a)) != np.prod(_shape(b)):
        raise ValueError(f"vdot: operands of shapes {_shape(a)} and {_shape(b)} have different "
                         "sizes")
    return contract([reshape(_conjugate(a), (-1,)), reshape(b, (-1,))], [("i",), ("i",)], ())


def outer(a, b):
    return _times(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def kron(a, b):
    """Kronecker product: axes of the shorter operand are padded on the left with 1s; each
    axis i of the result has length sa[i] * sb[i] with a's index as the slow one."""
    sa, sb = _shape(a), _shape(b)
    rank = max(len(sa), len(sb))
    sa, sb = (1,) * (rank - len(sa)) + sa, (1,) * (rank - len(sb)) + sb
    x = reshape(a, tuple(d for n in sa for d in (n, 1))) if not is_python_scalar(a) else a
    y = reshape(b, tuple(d for n in sb for d in (1, n))) if not is_python_scalar(b) else b
    return reshape(_times(x, y), tuple(p * q for p, q in zip(sa, sb)))


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors (2-vectors get a zero third component; two 2-vectors give
    the scalar z component), broadcast over the other axes."""
    if axis is not None:
        axisa = axisb = axisc = axis
    dt = result_type(a, b)
    x, y = (_last(astype(v, dt), ax, name) for v, ax, name in ((a, axisa, "a"), (b, axisb, "b")))
    n, m = ir_type(x).shape[-1], ir_type(y).shape[-1]
    xs, ys = _components(x), _components(y)
    if n == m == 2:
        return sub(mul(xs[0], ys[1]), mul(xs[1], ys[0]))
    x0, x1, x2 = xs + [0] * (3 - n)
    y0, y1, y2 = ys + [0] * (3 - m)
    parts = [sub(mul(x1, y2), mul(x2, y1)), sub(mul(x2, y0), mul(x0, y2)),
             sub(mul(x0, y1), mul(x1, y0))]
    shape = broadcast_shapes(*(_shape(p) for p in parts))
    out = concatenate([reshape(broadcast(astype(p, dt), shape), shape + (1,)) for p in parts],
                      -1)
    rank = len(shape) + 1
    axisc = normalize_axes(axisc, rank)[0]
    perm = list(range(rank - 1))
    perm.insert(axisc, rank - 1)
    return transpose(out, perm)


def _last(x, axis, name):
    shape = _shape(x)
    if not shape:
        raise ValueError(f"cross: {name} is 0-d; it needs an axis of 2 or 3 components")
    axis = normalize_axes(axis, len(shape))[0]
    if shape[axis] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    perm = [i for i in range(len(shape)) if i != axis] + [axis]
    return transpose(x, perm)


def _components(x):
    shape = ir_type(x).shape
    out = []
    for i in range(shape[-1]):
        start = (0,) * (len(shape) - 1) + (i,)
        part = S.slice_(x, start=start, stop=shape[:-1] + (i + 1,), step=(1,) * len(shape))
        out.append(reshape(part, shape[:-1]))
    return out


# ---- chains and powers ----

def multi_dot(arrays):
    """A chain of matrix products in the order of fewest multiplications (the matrix-chain
    dynamic program); a 1-d first or last operand is a row or column vector."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    if len(arrays) == 2:  # as numpy: a plain dot, whatever the ranks
        return dot(*arrays)
    first, last = _shape(arrays[0]), _shape(arrays[-1])
    mats = list(arrays)
    if len(first) == 1:
        mats[0] = reshape(mats[0], (1, -1))
    if len(last) == 1:
        mats[-1] = reshape(mats[-1], (-1, 1))
    for m in mats:
        if len(_shape(m)) != 2:
            raise np.linalg.LinAlgError(f"{len(_shape(m))}-dimensional array given. Array must "
                                        "be two-dimensional")
    dims = [_shape(mats[0])[0]] + [_shape(m)[1] for m in mats]
    for i, m in enumerate(mats[1:], 1):
        if _shape(m)[0] != dims[i]:
            raise ValueError(_not_aligned(_shape(mats[i - 1]), _shape(m), 1, 0))
    out = _chain(mats, _chain_order(dims), 0, len(mats) - 1)
    shape = tuple(d for d, vector in ((dims[0], len(first) == 1), (dims[-1], len(last) == 1))
                  if not vector)
    return reshape(out, shape)


def _chain_order(dims):
    """split[i][j]: where the cheapest product of matrices i..j splits."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j], split[i][j] = min(
                (cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                for k in range(i, j))
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return dot(_chain(mats, split, i, k), _chain(mats, split, k + 1, j))


def matrix_power(a, n):
    """a @ a @ ... (n times) by repeated squaring; n = 0 gives the identity."""
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("exponent must be an integer") from None
    if n < 0:
        a, n = inv(a), -n
    if n == 0:
        rows = S.iota(shape=shape, dtype="i64", axis=len(shape) - 2)
        cols = S.iota(shape=shape, dtype="i64", axis=len(shape) - 1)
        # Selected over `a` so that the result depends on it (a zero gradient, a Tensor for
        # Tensor input) without arithmetic on its values.
        return where(np.ones(shape, bool), astype(eq(rows, cols), ir_type(a).dtype), a)
    result, square = None, a
    while n:
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


# ---- numpy 2's vector gufuncs: broadcast batch axes, one core axis ----

def vecdot(x1, x2, axis=-1):
    """Sum of conj(x1) * x2 along `axis`, the other axes broadcast."""
    x1 = _conjugate(x1)
    s1, s2 = _shape(x1), _shape(x2)
    if not s1 or not s2:
        raise ValueError("vecdot: both operands need at least one dimension")
    a1, a2 = (normalize_axes(axis, len(s))[0] for s in (s1, s2))
    if s1[a1] != s2[a2]:
        raise ValueError(f"vecdot: core dimensions differ: {s1[a1]} (axis {axis} of {s1}) and "
                         f"{s2[a2]} (axis {axis} of {s2})")
    l1, l2 = _batch_labels(s1[:a1] + s1[a1 + 1:], s2[:a2] + s2[a2 + 1:])
    out = _union_order(l1, l2)
    return contract([x1, x2], [l1[:a1] + ("n",) + l1[a1:], l2[:a2] + ("n",) + l2[a2:]], out)


def matvec(x1, x2):
    """(..., m, n) @ (..., n) -> (..., m)."""
    return _gufunc(x1, x2, ("m", "n"), ("n",), ("m",), "matvec")


def vecmat(x1, x2):
    """conj(..., n) @ (..., n, m) -> (..., m)."""
    return _gufunc(_conjugate(x1), x2, ("n",), ("n", "m"), ("m",), "vecmat")


def _gufunc(x1, x2, core1, core2, core_out, name):
    s1, s2 = _shape(x1), _shape(x2)
    if len(s1) < len(core1) or len(s2) < len(core2):
        raise ValueError(f"{name}: operands of shapes {s1} and {s2} have too few dimensions")
    c1, c2 = dict(zip(core1, s1[len(s1) - len(core1):])), dict(zip(core2, s2[len(s2) -
                                                                          len(core2):]))
    if c1["n"] != c2["n"]:
        raise ValueError(f"{name}: core dimension n differs: {c1['n']} in {s1}, {c2['n']} "
                         f"in {s2}")
    l1, l2 = _batch_labels(s1[:len(s1) - len(core1)], s2[:len(s2) - len(core2)])
    return contract([x1, x2], [l1 + core1, l2 + core2], _union_order(l1, l2) + core_out)


def _batch_labels(b1, b2):
    """Right-aligned labels for two broadcast batch shapes (sizes checked by contract)."""
    rank = max(len(b1), len(b2))
    labels = _labels(".", rank)
    return labels[rank - len(b1):], labels[rank - len(b2):]


def _union_order(l1, l2):
    return l1 if len(l1) >= len(l2) else l2
