"""Batching (vmap) as an IR -> IR pass: a function over stacks of its inputs, each op on a
stacked value rewritten by its primitive's batching rule, ops on shared values kept as they
are (computed once for the whole batch)."""
from __future__ import annotations

from gradjit.ir.collectives import batching_axis, binding
from gradjit.ir.core import Builder, Function
from gradjit.ir.primitive import BatchingError
from gradjit.ir.structural import materialize, move_axis
from gradjit.ir.types import TensorType


def batch(fn: Function, in_axes, size: int, out_axes, axis_name=None) -> Function:
    """`fn` applied to `size` examples at once: parameter i takes a stack of its values along
    axis in_axes[i] (None: one value shared by all examples), result j is the stack of its
    values along out_axes[j] (None: a result that is the same for every example, refused if it
    is not). Inside, every stacked value carries its batch on axis 0. The collectives over
    `axis_name` are batched even where their operands are shared."""
    with binding(batching_axis, axis_name):
        return _batched(fn, in_axes, size, out_axes, axis_name)


def _batched(fn, in_axes, size, out_axes, axis_name):
    builder = Builder(fn.name)
    stacked = {}  # value of fn -> its stack, batch axis first
    with builder:
        for p, axis in zip(fn.params, in_axes):
            if axis is None:
                builder.params.append(p)
                continue
            shape = list(p.type.shape)
            shape.insert(axis, size)
            new = builder.param(TensorType(tuple(shape), p.type.dtype), p.name)
            stacked[p] = move_axis(new, axis, 0)
        for op in fn.ops:
            flags = tuple(v in stacked for v in op.inputs)
            if not any(flags) and (axis_name is None or
                                   op.params.get("axis_name") != axis_name):
                builder.ops.append(op)
                continue
            builder.site = op.site
            out = op.prim.batch([stacked.get(v, v) for v in op.inputs], flags, size, **op.params)
            if op.out is not None:
                stacked[op.out] = out
        builder.site = None
        results = [_place(r, stacked, axis, size, j) for j, (r, axis)
                   in enumerate(zip(fn.results, out_axes))]
    return builder.build(results)


def _place(result, stacked, axis, size, index):
    if axis is None:
        if result in stacked:
            raise BatchingError(f"vmap: output {index} varies along the mapped axis, so its "
                                "out_axes cannot be None (give the axis to stack it along)")
        return result
    return move_axis(materialize(stacked.get(result, result), result in stacked, size), 0, axis)
