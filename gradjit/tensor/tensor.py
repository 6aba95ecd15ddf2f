"""The Tensor class: storage and autograd core plus its operations, and the _ forms."""
from __future__ import annotations

from gradjit.tensor.arith import ArithMixin
from gradjit.tensor.base import TensorBase
from gradjit.tensor.linalg import LinalgMixin
from gradjit.tensor.shape import ShapeMixin


def _inplace(name, grad_fn=None, write=True):
    """The in-place form of method `name`: computed out of place, written back into self."""
    def method(self, *args, **kwargs):
        return self._update(lambda: getattr(self, name)(*args, **kwargs), grad_fn, write)
    method.__name__ = name + "_"
    return method


class Tensor(ArithMixin, ShapeMixin, LinalgMixin, TensorBase):
    """A PyTorch tensor over numpy storage (or a traced value while tracing)."""

    def __new__(cls, *args, dtype=None, device=None):
        from gradjit.tensor import factories
        if args and all(isinstance(a, int) for a in args):
            return factories.empty(*args, dtype=dtype or "float32", device=device)
        data = args[0] if args else []
        return factories.tensor(data, dtype=dtype or "float32", device=device)

    add_, sub_, mul_, div_ = map(_inplace, ("add", "sub", "mul", "div"))
    pow_, neg_, abs_, exp_, log_ = map(_inplace, ("pow", "neg", "abs", "exp", "log"))
    sqrt_, rsqrt_, sin_, cos_, tan_ = map(_inplace, ("sqrt", "rsqrt", "sin", "cos", "tan"))
    tanh_, sigmoid_, relu_ = map(_inplace, ("tanh", "sigmoid", "relu"))
    log1p_, expm1_, reciprocal_, square_ = map(_inplace, ("log1p", "expm1", "reciprocal",
                                                          "square"))
    floor_, ceil_, round_, trunc_, sign_ = map(_inplace, ("floor", "ceil", "round", "trunc",
                                                          "sign"))
    clamp_, clamp_min_, clamp_max_ = map(_inplace, ("clamp", "clamp_min", "clamp_max"))
    clip_ = clamp_
    t_ = _inplace("t", "TBackward1", write=False)
    transpose_ = _inplace("transpose", "TransposeBackward1", write=False)
    unsqueeze_ = _inplace("unsqueeze", "UnsqueezeBackward1", write=False)
    squeeze_ = _inplace("squeeze", "SqueezeBackward3", write=False)


Tensor.__module__ = "gradjit"
