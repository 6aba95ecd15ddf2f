"""torch.autograd.Variable, the constructor of PyTorch before 0.4 that old tutorials still
call: it returns a plain tensor, and every tensor is an instance of it."""
from __future__ import annotations

from gradjit.tensor import graph
from gradjit.tensor.base import TensorBase


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, TensorBase)


class _ExecutionEngine:
    """Variable._execution_engine: queue_callback(fn) runs fn once the backward pass in
    progress has delivered every gradient."""

    @staticmethod
    def queue_callback(callback):
        graph.after_backward(callback)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False): data detached from its history, sharing its
    storage, a leaf that requires grad when asked."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False, volatile=False):
        out = data.detach()
        return out.requires_grad_() if requires_grad else out
