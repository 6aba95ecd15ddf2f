"""Arithmetic of a tensor and a Python number as PyTorch's C++ composites write it, which
records other grad_fns than Python's operators do: `t op number` takes the Scalar overload
(AddBackward1, ..., t its one edge), `number - t` subtracts t from a filled tensor."""
from __future__ import annotations

import functools

from gradjit import ops
from gradjit.tensor.arith import apply
from gradjit.tensor.factories import full_like


def scalar_op(name, fn, t, number):
    return apply(name, lambda v: fn(v, number), t)


add_scalar, sub_scalar, mul_scalar, div_scalar = (
    functools.partial(scalar_op, name, fn) for name, fn in (
        ("AddBackward1", ops.add), ("SubBackward1", ops.sub), ("MulBackward1", ops.mul),
        ("DivBackward1", ops.true_divide)))


def minus(number, t):
    """number - t: SubBackward0 with no edge for the number, where Python's operator records
    RsubBackward1."""
    return full_like(t, number) - t
