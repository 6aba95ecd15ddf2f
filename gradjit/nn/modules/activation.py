"""Activation and dropout layers: each forward is one nn.functional call."""
from __future__ import annotations

import inspect

import gradjit
from gradjit.nn import functional as F
from gradjit.nn.modules.module import Functional, Module
from gradjit.nn.parameter import Parameter


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace
                                                          else "")


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _Elementwise(Module):
    """A layer whose forward is `function(input, *hyperparameters)`, with an `inplace` flag
    where `inplace` is not None (shown in the repr when `shows_inplace`)."""

    function = Functional("tanh")
    defaults: dict = {}
    inplace = None
    shows_inplace = True
    bare_repr = False  # Softshrink(0.5): the value without its name
    check = None  # a method checking the hyperparameters when the layer is built

    def __init__(self, *args, **kwargs):
        super().__init__()
        names = {**self.defaults, **({"inplace": False} if self.inplace is not None else {})}
        signature = inspect.Signature([inspect.Parameter(
            name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if value is ... else value)
            for name, value in names.items()])
        bound = signature.bind(*args, **kwargs)  # Python's TypeError for a wrong call
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            setattr(self, name, value)
        if self.check is not None:
            self.check()

    def forward(self, input):
        args = [getattr(self, name) for name in self.defaults]
        if self.inplace is not None:
            args.append(self.inplace)
        return self.function(input, *args)

    def extra_repr(self):
        if self.bare_repr:
            return ", ".join(str(getattr(self, n)) for n in self.defaults)
        parts = [f"{n}={getattr(self, n)}" for n in self.defaults]
        if self.inplace and self.shows_inplace:
            parts.append("inplace=True")
        return ", ".join(parts)


def _layer(name, function, defaults=None, inplace=False, **flags):
    """The class `name` of a layer computing `function`; `...` marks a required argument."""
    attributes = {"function": Functional(function.__name__), "defaults": defaults or {},
                  "inplace": False if inplace else None, "__module__": __name__,
                  "__doc__": f"Applies nn.functional.{function.__name__} elementwise.",
                  **flags}
    return type(name, (_Elementwise,), attributes)


ELU = _layer("ELU", F.elu, {"alpha": 1.0}, inplace=True)
CELU = _layer("CELU", F.celu, {"alpha": 1.0}, inplace=True)
SELU = _layer("SELU", F.selu, inplace=True)
SiLU = _layer("SiLU", F.silu, inplace=True)
Mish = _layer("Mish", F.mish, inplace=True)
Hardsigmoid = _layer("Hardsigmoid", F.hardsigmoid, inplace=True, shows_inplace=False)
Hardswish = _layer("Hardswish", F.hardswish, inplace=True, shows_inplace=False)
def _ordered_bounds(layer):
    if not layer.max_val > layer.min_val:
        raise AssertionError(f"max_val ({layer.max_val}) must be greater than min_val "
                             f"({layer.min_val})")


Hardtanh = _layer("Hardtanh", F.hardtanh, {"min_val": -1.0, "max_val": 1.0}, inplace=True,
                  check=_ordered_bounds)
Threshold = _layer("Threshold", F.threshold, {"threshold": ..., "value": ...}, inplace=True)
Softplus = _layer("Softplus", F.softplus, {"beta": 1.0, "threshold": 20.0})
Softshrink = _layer("Softshrink", F.softshrink, {"lambd": 0.5}, bare_repr=True)
Hardshrink = _layer("Hardshrink", F.hardshrink, {"lambd": 0.5}, bare_repr=True)
Softsign = _layer("Softsign", F.softsign)
LogSigmoid = _layer("LogSigmoid", F.logsigmoid)
Tanhshrink = _layer("Tanhshrink", F.tanhshrink)
GLU = _layer("GLU", F.glu, {"dim": -1})


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class PReLU(Module):
    """max(0, x) + weight * min(0, x) with a learned weight, one or one per channel."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(gradjit.empty(num_parameters, dtype=dtype, device=device))
        self.reset_parameters()

    def reset_parameters(self):
        with gradjit.no_grad():
            self.weight.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                            else "")


class Tanh(Module):
    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    def forward(self, input):
        return F.sigmoid(input)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim)


class Softmin(Softmax):
    def forward(self, input):
        return F.softmin(input, self.dim)


class Dropout(Module):
    drop = F.dropout  # the functional form (Dropout2d's: F.dropout2d, ...)

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self).drop(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Softmax2d(Module):
    """Softmax over the channels of each position of an image."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D "
                             "instead")
        return F.softmax(input, -3)
