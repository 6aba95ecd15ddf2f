"""threshold, hardtanh, elu, celu, gelu (approximate=), silu, mish, hardswish and their
relatives in place and out of place, as test_nn.py's device tests run them on the CPU:
values, gradients, what an in-place call does to its input, reprs and errors."""

import pytest

from tests.nn.helpers import same_outcome
from tests.nn.test_torch_suite_nn_functional import F, draw, with_grads

# name: keyword options (positional where PyTorch's signature takes them first)
ACTIVATIONS = {
    "threshold": {"threshold": 0.3, "value": -2.0},
    "hardtanh": {"min_val": -0.5, "max_val": 0.8},
    "relu": {},
    "relu6": {},
    "elu": {"alpha": 1.5},
    "celu": {"alpha": 0.7},
    "selu": {},
    "leaky_relu": {"negative_slope": 0.2},
    "rrelu": {"training": False},
    "gelu": {},
    "silu": {},
    "mish": {},
    "hardswish": {},
    "hardsigmoid": {},
}
MODULES = {
    "Threshold": (0.3, -2.0),
    "Hardtanh": (-0.5, 0.8),
    "ReLU": (),
    "ReLU6": (),
    "ELU": (1.5,),
    "CELU": (0.7,),
    "SELU": (),
    "LeakyReLU": (0.2,),
    "SiLU": (),
    "Mish": (),
    "Hardswish": (),
    "Hardsigmoid": (),
}
NO_INPLACE = ("gelu",)  # F.gelu has no inplace argument


def values(t, dtype="float64"):
    """Points on both sides of every kink, the kinks themselves included."""
    x = draw(t, 40, dtype=dtype) * 4
    edges = t.tensor([-3.0, -0.5, 0.0, 0.3, 0.8, 3.0, 6.0], dtype=getattr(t, dtype))
    return t.cat([x, edges])


def out_of_place(t, name, dtype="float64", **extra):
    options = {**ACTIVATIONS[name], **extra}
    return with_grads(t, lambda a: getattr(F(t), name)(a, **options), values(t, dtype))


def in_place(t, name, functional_form):
    """The in-place form on a non-leaf: the result is the input, modified, and the gradient
    reaches the leaf through it."""
    leaf = values(t).requires_grad_()
    x = leaf * 1.0
    version = x._version
    if functional_form:
        out = getattr(F(t), name + "_")(x, **ACTIVATIONS[name])
    else:
        out = getattr(F(t), name)(x, inplace=True, **ACTIVATIONS[name])
    same = out is x
    (out * t.linspace(0.5, 1.5, out.numel(), dtype=t.float64)).sum().backward()
    return same, x._version > version, out, leaf.grad, type(out.grad_fn).__name__


def module(t, cls, inplace):
    args = MODULES[cls]
    m = getattr(t.nn, cls)(*args, inplace=True) if inplace else getattr(t.nn, cls)(*args)
    leaf = values(t).requires_grad_()
    x = leaf * 1.0
    out = m(x)
    out.sum().backward()
    return repr(m), out, leaf.grad, out is x


def negative_inplace(t, name, **options):
    """PyTorch refuses the backward of in-place elu and leaky_relu with a negative slope."""
    leaf = values(t).requires_grad_()
    out = getattr(F(t), name)(leaf * 1.0, inplace=True, **options)
    out.sum().backward()
    return leaf.grad


def inplace_on_leaf(t, name):
    x = values(t).requires_grad_()
    return getattr(F(t), name)(x, inplace=True, **ACTIVATIONS[name])


SCENARIOS = {
    **{f"{name}": (lambda t, name=name: out_of_place(t, name)) for name in ACTIVATIONS},
    **{
        f"{name}_float32": (lambda t, name=name: out_of_place(t, name, "float32"))
        for name in ACTIVATIONS
    },
    **{
        f"{name}_inplace": (lambda t, name=name: in_place(t, name, False))
        for name in ACTIVATIONS
        if name not in NO_INPLACE
    },
    **{
        f"{name}_underscore": (lambda t, name=name: in_place(t, name, True))
        for name in ("threshold", "hardtanh", "relu", "elu", "celu", "selu", "leaky_relu", "rrelu")
    },
    **{
        f"{name}_inplace_on_leaf": (lambda t, name=name: inplace_on_leaf(t, name))
        for name in ("threshold", "hardtanh", "elu", "celu", "silu", "mish", "hardswish")
    },
    **{
        f"{cls}_{'inplace' if inplace else 'plain'}": (
            lambda t, cls=cls, inplace=inplace: module(t, cls, inplace)
        )
        for cls in MODULES
        for inplace in (False, True)
    },
    "gelu_tanh": lambda t: out_of_place(t, "gelu", approximate="tanh"),
    "gelu_tanh_float32": lambda t: out_of_place(t, "gelu", "float32", approximate="tanh"),
    "gelu_bad_approximate": lambda t: out_of_place(t, "gelu", approximate="fast"),
    "GELU_tanh": lambda t: (repr(t.nn.GELU("tanh")), t.nn.GELU("tanh")(values(t))),
    "GELU_repr": lambda t: repr(t.nn.GELU()),
    "elu_negative_alpha_inplace": lambda t: F(t).elu_(values(t) * 1.0, alpha=-1.0),
    **{
        f"{name}_inplace_overlap": (
            lambda t, name=name: getattr(F(t), name)(t.zeros(1, 1).expand(3, 3), inplace=True)
        )
        for name in ("elu", "hardtanh", "leaky_relu", "silu", "mish", "hardswish", "threshold")
        if name != "threshold"
    },
    "elu_inplace_negative_alpha_backward": lambda t: negative_inplace(t, "elu", alpha=-2.0),
    "leaky_relu_inplace_negative_slope_backward": lambda t: negative_inplace(
        t, "leaky_relu", negative_slope=-0.2
    ),
    "elu_inplace_negative_alpha_no_grad": lambda t: F(t).elu_(values(t) * 1.0, alpha=-2.0),
    "softplus_low_threshold": lambda t: with_grads(
        t, lambda a: F(t).softplus(a, beta=2.0, threshold=0.5), values(t)
    ),
    "celu_zero_alpha": lambda t: out_of_place(t, "celu", alpha=0.0),
    "hardtanh_min_above_max": lambda t: F(t).hardtanh(values(t), 1.0, 0.5),
    "Hardtanh_min_above_max": lambda t: t.nn.Hardtanh(1.0, 0.5),
    "threshold_int": lambda t: F(t).threshold(t.arange(-3, 4), 1, 20),
    "threshold_int_float_value": lambda t: F(t).threshold(t.arange(-3, 4), 0.5, 2.5),
    "threshold_nan": lambda t: F(t).threshold(t.tensor([float("nan"), 1.0, -1.0]), 0.0, 5.0),
    "hardtanh_int": lambda t: F(t).hardtanh(t.arange(-3, 4), -1, 2),
    "relu6_int": lambda t: F(t).relu6(t.arange(-3, 9)),
    "hardswish_int": lambda t: F(t).hardswish(t.arange(-3, 4)),
    "silu_int": lambda t: F(t).silu(t.arange(-3, 4)),
    "mish_int": lambda t: F(t).mish(t.arange(-3, 4)),
    "gelu_int": lambda t: F(t).gelu(t.arange(-3, 4)),
    "elu_int": lambda t: F(t).elu(t.arange(-3, 4)),
    "silu_bfloat16": lambda t: F(t).silu(values(t).bfloat16()),
    "mish_half": lambda t: F(t).mish(values(t).half()),
    "hardswish_half": lambda t: F(t).hardswish(values(t).half()),
    "gelu_bfloat16_tanh": lambda t: F(t).gelu(values(t).bfloat16(), approximate="tanh"),
    "elu_half": lambda t: F(t).elu(values(t).half()),
    "silu_empty": lambda t: with_grads(t, F(t).silu, t.zeros(0, 3, dtype=t.double)),
    "hardswish_inf": lambda t: with_grads(
        t, F(t).hardswish, t.tensor([float("inf"), -float("inf"), float("nan")], dtype=t.double)
    ),
    "mish_large": lambda t: with_grads(
        t, F(t).mish, t.tensor([-100.0, -30.0, 30.0, 100.0], dtype=t.double)
    ),
    "silu_large": lambda t: with_grads(
        t, F(t).silu, t.tensor([-800.0, -30.0, 30.0, 800.0], dtype=t.double)
    ),
    "gelu_large": lambda t: with_grads(
        t, lambda a: F(t).gelu(a, approximate="tanh"), t.tensor([-100.0, 100.0], dtype=t.double)
    ),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_activations_match_torch(name):
    tolerance = 2e-2 if "bfloat16" in name else 2e-3 if "half" in name else 1e-6
    same_outcome(SCENARIOS[name], rtol=tolerance, atol=tolerance)
