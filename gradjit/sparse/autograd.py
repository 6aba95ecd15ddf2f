"""Sparse operations on the autograd tape: each records one grad_fn whose backward, written
with the sparse kernels, turns the output's cotangent (sparse or strided, as PyTorch's
formulas make it) into each operand's."""
from __future__ import annotations

from gradjit.sparse import storage as K
from gradjit.tensor.grad_mode import is_grad_enabled
from gradjit.tensor.graph import Node, Record


def wrap(array):
    """A strided tensor over `array` (no copy)."""
    from gradjit.tensor.tensor import Tensor  # the sparse layout sits above Tensor
    return Tensor._wrap(array)


def strided(g):
    """A cotangent, sparse or strided, as the numpy array of its full shape."""
    g = g.detach()
    return K.dense(g._value) if g._sparse_layout else g._concrete()


class _Rule:
    """The engine calls vjp(g, out, *operands) of a record's rule; a sparse operation's rule
    closes over what its backward needs."""

    differentiable = True

    def __init__(self, backward):
        self.backward = backward

    def vjp(self, g, out, *operands):
        return self.backward(g)


def recorded(name, result, operands, backward):
    """result with grad_fn `name` over `operands` when one of them requires grad;
    backward(g) gives the cotangent of each operand (None where it needs none)."""
    if not is_grad_enabled() or not any(t.requires_grad for t in operands):
        return result
    result._edge = Record(_Rule(backward), {}, list(operands),
                          [t._grad_edge() for t in operands], result, Node.named(name))
    return result
