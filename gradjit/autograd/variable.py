"""torch.autograd.Variable, the constructor of PyTorch before 0.4 that old tutorials still
call: it returns a plain tensor, and every tensor is an instance of it."""
from __future__ import annotations

from gradjit.tensor.base import TensorBase


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, TensorBase)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False): data detached from its history, sharing its
    storage, a leaf that requires grad when asked."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        out = data.detach()
        return out.requires_grad_() if requires_grad else out
