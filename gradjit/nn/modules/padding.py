"""Padding layers over F.pad: zero, constant, reflection, replication and circular, for the
last one or two dims; an int pads every side by it."""
from __future__ import annotations

from gradjit.nn import functional as F
from gradjit.nn.modules.module import Module


class _Pad(Module):
    dims, mode = 0, "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = (padding,) * (2 * self.dims) if isinstance(padding, int) else \
            tuple(padding)

    def forward(self, input):
        return F.pad(input, list(self.padding), self.mode, getattr(self, "value", None))

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPad(_Pad):
    value = 0.0


class ZeroPad1d(_ZeroPad):
    dims = 1


class ZeroPad2d(_ZeroPad):
    dims = 2


class ConstantPad1d(_ConstantPad):
    dims = 1


class ConstantPad2d(_ConstantPad):
    dims = 2


class ReflectionPad1d(_Pad):
    dims, mode = 1, "reflect"


class ReflectionPad2d(_Pad):
    dims, mode = 2, "reflect"


class ReplicationPad1d(_Pad):
    dims, mode = 1, "replicate"


class ReplicationPad2d(_Pad):
    dims, mode = 2, "replicate"


class CircularPad1d(_Pad):
    dims, mode = 1, "circular"


class CircularPad2d(_Pad):
    dims, mode = 2, "circular"
