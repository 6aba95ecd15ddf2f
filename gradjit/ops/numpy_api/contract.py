"""numpy's products, einsum and norms, mapped onto gradjit.ops (contract, einsum, norms)."""
from __future__ import annotations

import numpy as np

from gradjit import ops


def _einsum(*operands, out=None, optimize=False, **kwargs):
    if out is not None or kwargs:
        raise TypeError("np.einsum: out=, dtype=, order= and casting= are not supported when "
                        "tracing")
    return ops.einsum(*operands, optimize=optimize)


def _vecdot(x1, x2, /, *, axis=-1):
    return ops.vecdot(x1, x2, axis)


def _multi_dot(arrays, *, out=None):
    if out is not None:
        raise TypeError("np.linalg.multi_dot: out= is not supported when tracing")
    return ops.multi_dot(arrays)


def _linalg_outer(x1, x2, /):
    if len(ops.shape_of(x1)) != 1 or len(ops.shape_of(x2)) != 1:
        raise ValueError(f"np.linalg.outer takes 1-d vectors, not shapes {ops.shape_of(x1)} "
                         f"and {ops.shape_of(x2)}")
    return ops.outer(x1, x2)


def _vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """numpy's vector_norm: the axes named (all for None) become one, first, then a vector
    norm along it."""
    shape = ops.shape_of(x)
    axes = tuple(range(len(shape))) if axis is None else \
        ops.normalize_axes(axis, len(shape)) if isinstance(axis, tuple) else None
    if axes is None:  # one axis
        out, axes = ops.norm(x, ord, axis), ops.normalize_axes(axis, len(shape))
    else:
        rest = tuple(i for i in range(len(shape)) if i not in axes)
        merged = ops.reshape(ops.transpose(x, axes + rest),
                             (int(np.prod([shape[i] for i in axes])),) + tuple(
                                 shape[i] for i in rest))
        out = ops.norm(merged, ord, 0)
    if not keepdims:
        return out
    return ops.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(shape)))


UFUNCS = {np.vecdot: _vecdot, np.matvec: ops.matvec, np.vecmat: ops.vecmat}

FUNCTIONS = {
    np.dot: ops.dot, np.vdot: ops.vdot, np.inner: ops.inner, np.outer: ops.outer,
    np.tensordot: ops.tensordot, np.kron: ops.kron, np.cross: ops.cross,
    np.einsum: _einsum, np.einsum_path: ops.einsum_path,
    np.linalg.tensordot: lambda x1, x2, axes=2: ops.tensordot(x1, x2, axes),
    np.linalg.outer: _linalg_outer, np.linalg.matmul: ops.matmul,
    np.linalg.cross: lambda x1, x2, axis=-1: ops.cross(x1, x2, axis=axis),
    np.linalg.vecdot: _vecdot,
    np.linalg.multi_dot: _multi_dot,
    np.linalg.matrix_power: ops.matrix_power,
    np.linalg.norm: ops.norm, np.linalg.vector_norm: _vector_norm,
    np.linalg.matrix_norm: lambda x, /, *, keepdims=False, ord="fro": ops.norm(
        x, ord, (-2, -1), keepdims),
}
