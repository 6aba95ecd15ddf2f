"""Padding layers over F.pad: zero, constant, reflection, replication and circular, for the
last one, two or three dims; an int pads every side by it."""
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


def _family(base, name, mode=None):
    """{name}1d, {name}2d and {name}3d: `base` over the last 1, 2 or 3 dims."""
    extra = {} if mode is None else {"mode": mode}
    return tuple(type(f"{name}{n}d", (base,), {"dims": n, "__module__": __name__, **extra})
                 for n in (1, 2, 3))


ZeroPad1d, ZeroPad2d, ZeroPad3d = _family(_ZeroPad, "ZeroPad")
ConstantPad1d, ConstantPad2d, ConstantPad3d = _family(_ConstantPad, "ConstantPad")
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = _family(_Pad, "ReflectionPad", "reflect")
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = _family(_Pad, "ReplicationPad",
                                                               "replicate")
class _CircularPad(_Pad):
    mode = "circular"

    def forward(self, input):
        # PyTorch's circular layers check the rank themselves, before F.pad's general check
        if input.dim() not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got "
                             f"{input.dim()}D input)")
        return super().forward(input)


CircularPad1d, CircularPad2d, CircularPad3d = _family(_CircularPad, "CircularPad")
