"""The activation functions PyTorch computes in one kernel (torch.selu, torch._C._nn.elu, ...):
each one named tensor operation (its grad_fn) composed of gradjit.ops, so it runs eagerly, under
autograd and inside gradjit.grad/jit alike. A branch that is not taken is evaluated on a safe
stand-in for x (`_inside`), so its derivative never turns the zero cotangent into NaN."""
from __future__ import annotations

import functools
import math

from gradjit import ops
from gradjit.tensor import graph
from gradjit.tensor.arith import apply
from gradjit.tensor.refusals import refuse_integers
from gradjit.tensor.dtypes import bool_, finfo, float32

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _inside(condition, x):
    """x where `condition` holds, 0 elsewhere: the argument of a branch taken only there."""
    return ops.where(condition, x, 0)


def _elu(x, alpha, scale, input_scale):
    negative = ops.le(x, 0)
    below = ops.mul(ops.expm1(ops.mul(_inside(negative, x), input_scale)), alpha * scale)
    return ops.where(negative, below, ops.mul(x, scale) if scale != 1 else x)


def _hardtanh(x, low, high):
    return ops.where(ops.le(x, low), low, ops.where(ops.ge(x, high), high, x))


def _softplus(x, beta, threshold):
    linear = ops.gt(ops.mul(x, beta), threshold)
    soft = ops.log1p(ops.exp(ops.mul(_inside(ops.logical_not(linear), x), beta)))
    return ops.where(linear, x, ops.true_divide(soft, beta) if beta != 1 else soft)


def _in_place(x, out, name):
    """`out` (a function of x) written into x as the in-place operation `name` (None: the
    out-of-place operation's name, as PyTorch's silu_ and hardswish_ keep it)."""
    return x._update(out, name)


_NEGATIVE_ALPHA_IN_PLACE = (
    "In-place elu backward calculation is triggered with a negative slope which is not "
    "supported. This is caused by calling in-place forward function with a negative slope, "
    "please call out-of-place version instead.")


def elu(x, alpha=1.0, inplace=False):
    def out():
        return apply("EluBackward0", _elu, x, alpha, 1.0, 1.0)
    if inplace and alpha < 0 and x.requires_grad:
        # PyTorch's in-place backward reads the sign from the result, which a negative alpha
        # flips, so it refuses rather than differentiate wrongly
        return x.copy_(graph.refuse_gradient(out(), graph.Node.named("EluBackward1"),
                                             _NEGATIVE_ALPHA_IN_PLACE, [x]))
    return _in_place(x, out, "EluBackward1") if inplace else out()


def selu(x, inplace=False):
    def out():
        return apply("EluBackward0", _elu, x, SELU_ALPHA, SELU_SCALE, 1.0)
    return _in_place(x, out, "EluBackward1") if inplace else out()


def celu(x, alpha=1.0, inplace=False):
    if alpha == 0:  # PyTorch's message names the Python error it stands for
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    def out():
        return apply("CeluBackward0", _elu, x, alpha, 1.0, 1.0 / alpha)
    return _in_place(x, out, "CeluBackward1") if inplace else out()


def hardtanh(x, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val]; integer inputs keep their dtype, the bounds cut to
    integers (toward zero) as PyTorch's kernel reads them."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if x.dtype is bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if not x.dtype.is_floating_point and not x.dtype.is_complex:
        min_val, max_val = int(min_val), int(max_val)

    def out():
        return apply("HardtanhBackward0", _hardtanh, x, min_val, max_val)
    return _in_place(x, out, None) if inplace else out()


def threshold(x, threshold, value, inplace=False):
    if not x.dtype.is_floating_point and not x.dtype.is_complex:  # the kernel's scalar type
        threshold, value = int(threshold), int(value)

    def out():
        return apply("ThresholdBackward0",
                     lambda t: ops.where(ops.le(t, threshold), value, t), x)
    return _in_place(x, out, "ThresholdBackward1") if inplace else out()


def softplus(x, beta=1.0, threshold=20.0):
    return apply("SoftplusBackward0", _softplus, x, beta, threshold)


def silu(x, inplace=False):
    def out():
        return apply("SiluBackward0", lambda t: ops.mul(t, ops.sigmoid(t)), x)
    return _in_place(x, out, None) if inplace else out()


def mish(x, inplace=False):
    def out():
        return apply("MishBackward0", lambda t: ops.mul(t, ops.tanh(_softplus(t, 1.0, 20.0))),
                     x)
    return _in_place(x, out, None) if inplace else out()


def logsigmoid(x):
    return apply("LogSigmoidBackward0", lambda t: ops.neg(_softplus(ops.neg(t), 1.0, 20.0)), x)


def _between_threes(t):
    return ops.logical_and(ops.lt(-3, t), ops.lt(t, 3))


def hardsigmoid(x, inplace=False):
    """(x + 3) / 6 inside (-3, 3), else 0 or 1; NaN stays NaN with a zero gradient."""
    def hard(t):
        inside = _between_threes(t)
        outside = ops.where(ops.le(t, -3), 0, ops.where(ops.ge(t, 3), 1, ops.mul(t, 0)))
        return ops.where(inside, ops.true_divide(ops.add(_inside(inside, t), 3), 6), outside)

    def out():
        return apply("HardsigmoidBackward0", hard, x)
    return _in_place(x, out, None) if inplace else out()


def hardswish(x, inplace=False):
    """x (x + 3) / 6 inside (-3, 3), else 0 or x (-inf * 0: NaN, as PyTorch computes it)."""
    def hard(t):
        inside = _between_threes(t)
        safe = _inside(inside, t)
        middle = ops.true_divide(ops.mul(safe, ops.add(safe, 3)), 6)
        return ops.where(inside, middle, ops.where(ops.le(t, -3), ops.mul(t, 0), t))

    def out():
        return apply("HardswishBackward0", hard, x)
    return _in_place(x, out, None) if inplace else out()


def hardshrink(x, lambd=0.5):
    return apply("HardshrinkBackward0",
                 lambda t: ops.where(ops.le(ops.abs_(t), lambd), 0, t), x)


def softshrink(x, lambd=0.5):
    """x moved lambd towards 0, 0 within [-lambd, lambd] (-0.0 below 0 and NaN at NaN, as
    PyTorch's x * 0 gives them; NaN's gradient passes through)."""
    largest = finfo(x.dtype).max if x.dtype.is_floating_point else math.inf
    if not 0 <= lambd <= largest:
        raise RuntimeError(f"lambda must be in range [0, {largest:g}] for input dtype "
                           f"{x.dtype.legacy}, but found {lambd:g}")

    def soft(t):
        shifted = ops.where(ops.gt(t, lambd), ops.sub(t, lambd),
                            ops.where(ops.lt(t, -lambd), ops.add(t, lambd), t))
        return ops.where(ops.le(ops.abs_(t), lambd), ops.mul(t, 0), shifted)
    return apply("SoftshrinkBackward0", soft, x)


def glu(x, dim=-1):
    if x.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = dim % x.dim()
    if x.shape[axis] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size "
                           f"{x.shape[axis]}")
    refuse_integers("glu_cpu", x)

    def gated(t):
        a, b = ops.split(t, 2, axis)
        return ops.mul(a, ops.sigmoid(b))
    return apply("GluBackward0", gated, x)


def gelu(x, *, approximate="none"):
    """x * Phi(x), Phi by erfc so its left tail keeps its digits (PyTorch's vectorized erf
    loses them: both agree to 1e-6 absolute), or the tanh approximation; -inf gives NaN as
    in PyTorch, and so does +inf in float32."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")

    def exact(t):
        cdf_times_two = ops.special.erfc(ops.mul(t, -math.sqrt(0.5)))
        if x.dtype != float32:
            return ops.mul(ops.mul(t, 0.5), cdf_times_two)
        # PyTorch's float32 kernel multiplies by 1 + erf before halving, so it overflows past
        # max/2 and gives NaN at +inf: Tensors give what PyTorch gives.
        return ops.where(ops.eq(t, math.inf), math.nan, ops.mul(ops.mul(t, cdf_times_two), 0.5))

    def tanh(t):
        cube = ops.mul(ops.mul(ops.mul(t, t), t), 0.044715)
        inner = ops.mul(ops.add(t, cube), math.sqrt(2 / math.pi))
        return ops.mul(ops.mul(t, 0.5), ops.add(ops.tanh(inner), 1))
    return apply("GeluBackward0", exact if approximate == "none" else tanh, x)


def prelu(x, weight):
    """max(0, x) + weight * min(0, x), weight one value or one per channel (dim 1)."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if x.dim() == 0 and weight.numel() != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    channels = x.shape[1] if x.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {weight.numel()} and channel size = "
                           f"{channels}.")
    if weight.dim() != x.dim():  # PyTorch's kernel takes the weight viewed in x's rank
        shape = [1] * x.dim()
        if x.dim() > 1:
            shape[1] = weight.numel()
        weight = weight.reshape(shape)

    def parametric(t, w):
        return ops.where(ops.gt(t, 0), t, ops.mul(t, w))
    return apply("PreluKernelBackward0", parametric, x, weight)


def rrelu(x, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Inputs <= 0 scaled by a slope drawn uniformly from [lower, upper) per element in
    training (PyTorch's draws, and the drawn slope is the gradient there), by the mean slope
    otherwise."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")

    def out():
        if training:
            from gradjit.tensor.random import rrelu_slopes
            slope = rrelu_slopes(x, lower, upper)
            return apply("RreluWithNoiseBackward0",
                         lambda t, s: ops.where(ops.le(t, 0), ops.mul(t, s), t), x, slope,
                         operands=(x,))
        slope = (lower + upper) / 2
        return apply("RreluWithNoiseBackward0",
                     lambda t: ops.where(ops.gt(t, 0), t, ops.mul(t, slope)), x)
    return _in_place(x, out, "RreluWithNoiseBackward1") if inplace else out()


def floating_kernel(kernel, fn):
    """fn, refusing integer and bool inputs as PyTorch's CPU kernel `kernel` (built for floating
    types only) does."""
    @functools.wraps(fn)
    def checked(x, *args, **kwargs):
        refuse_integers(kernel, x)
        return fn(x, *args, **kwargs)
    return checked


# The activations whose PyTorch kernels take floating types only, by kernel name.
_KERNELS = {"elu": "elu_cpu", "selu": "elu_cpu", "celu": "elu_cpu", "gelu": "GeluKernelImpl",
            "silu": "silu_cpu", "mish": "mish_cpu", "softplus": "softplus_cpu",
            "hardswish": "hardswish_cpu", "hardsigmoid": "hardsigmoid_cpu",
            "logsigmoid": "log_sigmoid_cpu", "softshrink": "softshrink_check",
            "hardshrink": "hardshrink_cpu"}
globals().update({name: floating_kernel(kernel, globals()[name])
                  for name, kernel in _KERNELS.items()})


def _in_place_function(kernel):
    def function(x, *args, **kwargs):
        return kernel(x, *args, inplace=True, **kwargs)
    function.__name__ = kernel.__name__ + "_"
    return function


# torch.selu_(x), ...: the in-place forms PyTorch's namespace offers as functions
selu_, celu_, threshold_, rrelu_ = map(_in_place_function, (selu, celu, threshold, rrelu))
