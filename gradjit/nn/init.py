"""torch.nn.init: fill a tensor in place from PyTorch's initialization distributions."""
from __future__ import annotations

import math
import warnings

import gradjit

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fill(tensor, values):
    with gradjit.no_grad():
        return tensor.copy_(values)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    # the Tensor method rounds as PyTorch's kernel does; rand() * (b - a) + a rounds twice
    with gradjit.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with gradjit.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) restricted to [a, b] by rejection, drawn as PyTorch's (so seeded draws
    agree): normal draws redrawn where out of [a, b] when it holds over 30% of the mass, else
    uniform draws on [a, b] kept with the normal density relative to its peak."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)

    def cdf(x):
        return (1 + math.erf((x - mean) / std / math.sqrt(2))) / 2
    with gradjit.no_grad():
        if cdf(b) - cdf(a) > 0.3:
            low, high = (gradjit.tensor(x, dtype=tensor.dtype).item() for x in (a, b))
            return _rejection(tensor, lambda t: t.normal_(mean, std, generator=generator),
                              lambda c: (c < low) | (c > high))
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

        def rejected(c):
            log_density = ((c - mean) / std).pow(2) * -0.5 - log_peak
            return gradjit.empty_like(c).uniform_(generator=generator).log_() > log_density
        return _rejection(tensor, lambda t: t.uniform_(a, b, generator=generator), rejected)


def _rejection(tensor, draw, rejected):
    """Fill `tensor` by `draw`, drawing afresh (whole tensors) where `rejected` says, until
    no entry is."""
    result = draw(tensor)
    pending = rejected(result)
    while pending.any():
        candidates = draw(gradjit.empty_like(tensor))
        result = gradjit.where(pending, candidates, result)
        pending = gradjit.where(pending, rejected(candidates), pending)
    return tensor.copy_(result)


def constant_(tensor, val):
    with gradjit.no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    return constant_(tensor, 0)


def ones_(tensor):
    return constant_(tensor, 1)


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of "
                         f"{['fan_in', 'fan_out']}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, the tensor's first dim by the rest: the Q of a normal
    draw's QR, its columns' signs fixed by R's diagonal, as PyTorch computes it."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    draw = normal_(gradjit.empty((rows, cols), dtype=tensor.dtype), generator=generator)
    if rows < cols:
        draw = draw.t()
    q, r = gradjit.linalg.qr(draw)
    q = q * r.diagonal().sign()
    if rows < cols:
        q = q.t()
    return _fill(tensor, q.reshape(tensor.shape) * gain)


def eye_(tensor):
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, gradjit.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """The identity of a convolution: each group's output channel d passes input channel d
    through the kernel's centre."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if tensor.shape[0] % groups:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = tensor.shape[0] // groups
    values = gradjit.zeros(tensor.shape, dtype=tensor.dtype)
    centre = tuple(size // 2 for size in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(per_group, tensor.shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Normal(0, std) entries with ceil(sparsity * rows) of each column zeroed at random."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    values = normal_(gradjit.empty(tensor.shape, dtype=tensor.dtype), 0, std, generator)
    for column in range(cols):
        # as PyTorch's: the zeroed rows come from the global generator, not `generator`
        values[gradjit.randperm(rows)[:zeros], column] = 0
    return _fill(tensor, values)


def _deprecated(method):
    """The name without the trailing underscore, as PyTorch keeps it: a FutureWarning, then
    the method."""
    old = method.__name__[:-1]

    def deprecated(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{method.__name__}`.",
                      FutureWarning, stacklevel=2)
        return method(*args, **kwargs)
    deprecated.__name__ = old
    return deprecated


uniform, normal, constant, xavier_uniform, xavier_normal, kaiming_uniform, kaiming_normal, \
    orthogonal, sparse, dirac, eye = map(_deprecated, (
        uniform_, normal_, constant_, xavier_uniform_, xavier_normal_, kaiming_uniform_,
        kaiming_normal_, orthogonal_, sparse_, dirac_, eye_))
