"""numpy's products, einsum and norms, mapped onto gradjit.ops (contract, einsum, norms)."""
from __future__ import annotations

import numpy as np

from gradjit import ops
from gradjit.ops.numpy_api.dtypes import stand_in
from gradjit.ops.promote import check_casting
from gradjit.ops.numpy_api.writes import assign


def _einsum(*operands, out=None, optimize=False, dtype=None, order="K", casting="safe"):
    """numpy's einsum: operands cast to `dtype` and the result to out's dtype, each cast
    allowed by `casting`, out written as numpy writes it (order: a traced value has no
    layout)."""
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    check_casting(casting)
    operands = list(operands)
    string = isinstance(operands[0], str)
    places = range(1, len(operands)) if string else range(0, len(operands) - 1, 2)
    if dtype is not None:
        for i, place in enumerate(places):
            source = np.result_type(stand_in(operands[place]))
            if not np.can_cast(source, dtype, casting):
                raise TypeError(f"Iterator operand {i} dtype could not be cast from "
                                f"{source!r} to {np.dtype(dtype)!r} according to the rule "
                                f"'{casting}'")
            operands[place] = ops.astype(ops.asarray(operands[place]), np.dtype(dtype))
    result = ops.einsum(*operands, optimize=optimize)
    if out is None:
        return result
    target, source = np.result_type(stand_in(out)), ops.result_type(result).numpy
    if not np.can_cast(source, target, casting):
        raise TypeError(f"Iterator requested dtype could not be cast from {source!r} to "
                        f"{target!r}, the operand {len(places)} dtype, according to the rule "
                        f"'{casting}'")
    if ops.shape_of(out) != ops.shape_of(result):  # numpy's own ValueError
        np.einsum(*(_shaped_zeros(o) for o in operands), out=np.zeros(ops.shape_of(out)))
    assign(out, ops.astype(result, target), "einsum")
    return out


def _shaped_zeros(x):
    """A zero array of x's shape (a subscript or number as it is), for numpy's shape errors."""
    return x if isinstance(x, (str, list)) or not hasattr(x, "ir_type") else \
        np.zeros(ops.shape_of(x))


def _vecdot(x1, x2, /, *, axis=-1):
    return ops.vecdot(x1, x2, axis)


def _multi_dot(arrays, *, out=None):
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


def _matmul(x1, x2, /):
    """numpy's matmul: a 0-d operand or unequal contracted sizes are numpy's ValueErrors (a
    gufunc's core dimensions)."""
    shapes = [ops.shape_of(x) for x in (x1, x2)]
    for i, shape in enumerate(shapes):
        if not shape:
            raise ValueError(f"matmul: Input operand {i} does not have enough dimensions (has "
                             "0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    k1, k2 = shapes[0][-1], shapes[1][-2 if len(shapes[1]) > 1 else 0]
    if k1 != k2:
        raise ValueError("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                         f"gufunc signature (n?,k),(k,m?)->(n?,m?) (size {k2} is different "
                         f"from {k1})")
    return ops.matmul(x1, x2)


UFUNCS = {np.matmul: _matmul, np.vecdot: _vecdot, np.matvec: ops.matvec, np.vecmat: ops.vecmat}

FUNCTIONS = {
    np.dot: ops.dot, np.vdot: ops.vdot, np.inner: ops.inner, np.outer: ops.outer,
    np.tensordot: ops.tensordot, np.kron: ops.kron, np.cross: ops.cross,
    np.einsum: _einsum, np.einsum_path: ops.einsum_path,
    np.linalg.tensordot: lambda x1, x2, axes=2: ops.tensordot(x1, x2, axes),
    np.linalg.outer: _linalg_outer, np.linalg.matmul: _matmul,
    np.linalg.cross: lambda x1, x2, axis=-1: ops.cross(x1, x2, axis=axis),
    np.linalg.vecdot: _vecdot,
    np.linalg.multi_dot: _multi_dot,
    np.linalg.matrix_power: ops.matrix_power,
    np.linalg.norm: ops.norm, np.linalg.vector_norm: _vector_norm,
    np.linalg.matrix_norm: lambda x, /, *, keepdims=False, ord="fro": ops.norm(
        x, ord, (-2, -1), keepdims),
}
