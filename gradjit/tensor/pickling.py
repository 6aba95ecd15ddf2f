"""Tensors through pickle and copy.deepcopy as PyTorch's go: a copy of the storage with the
tensor's offset, sizes and strides over it; deepcopy shares one copy among the views of one
storage, and copies only graph leaves."""
from __future__ import annotations

import copy

import numpy as np

from gradjit.tensor.layout import _storage_of
from gradjit.tensor.strided import strided_view

_NOT_A_LEAF = ("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
               "protocol at the moment.  If you were attempting to deepcopy a module, this may "
               "be because of a torch.nn.utils.weight_norm usage, see "
               "https://github.com/pytorch/pytorch/pull/103001")


def _rebuild(storage, offset, size, stride, requires_grad, device):
    from gradjit.tensor.factories import _leaf
    out = _leaf(strided_view(storage, size, stride, offset), device)
    return out.requires_grad_() if requires_grad else out


def _root(t) -> np.ndarray:
    """The array that owns the memory t's elements lie in (the one its offset counts in)."""
    t._concrete()
    return _storage_of(t._layout())


def _plain(t) -> bool:
    """Whether t is a plain dense eager Tensor (subclasses, sparse and traced tensors keep
    Python's default way of copying their state)."""
    from gradjit.tensor.tensor import Tensor
    return type(t) is Tensor and isinstance(t._value, np.ndarray)


class PicklingMixin:
    def __reduce_ex__(self, protocol):
        if not _plain(self):
            return object.__reduce_ex__(self, protocol)
        return _rebuild, (_root(self).reshape(-1), self.storage_offset(),
                          tuple(self.shape), self.stride(), self.requires_grad,
                          self.device), _attributes(self) or None

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(_NOT_A_LEAF)
        if not _plain(self):  # Python's default deepcopy
            return copy._reconstruct(self, memo, *object.__reduce_ex__(self, 4))
        root = _root(self)
        if id(root) not in memo:  # views of one storage share its one copy
            memo[id(root)] = root.reshape(-1).copy()
        out = _rebuild(memo[id(root)], self.storage_offset(), tuple(self.shape), self.stride(),
                       self.requires_grad, self.device)
        memo[id(self)] = out
        if self.grad is not None:
            out.grad = copy.deepcopy(self.grad, memo)
        for name, value in _attributes(self).items():
            setattr(out, name, copy.deepcopy(value, memo))
        return out


def _attributes(t) -> dict:
    """The attributes a user set on t (gradjit's own begin with an underscore)."""
    return {k: v for k, v in vars(t).items() if not k.startswith("_")}
