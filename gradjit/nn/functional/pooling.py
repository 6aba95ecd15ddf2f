"""Max, average and power-average pooling over 1 to 3 spatial dims, and max unpooling: a
pooling reduces the stacked window slices of conv.py; max indices come from the same windows
taken over a map of flat input positions."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.nn.functional.activation import relu
from gradjit.tensor.refusals import refuse_integers
from gradjit.nn.functional.conv import _batched, _out_size, _tuple, _window_index, _windows, pad


def _parameters(n, kernel_size, stride, padding, dilation, name):
    """The pooling's kernel, stride, padding and dilation as n-tuples, checked as PyTorch
    checks them before the input's shape."""
    either = "" if name == "avg_pool3d" else "either "  # how each kernel words it
    count = ("two", "three")[n - 2]

    def spread(value, what, forms=f"{either}be a single int"):
        value = _tuple(value, n)
        if len(value) not in (1, n):
            raise RuntimeError(f"{name}: {what} must {forms}, or a tuple of {count} ints")
        return value * n if len(value) == 1 else value  # one value stands for every dim
    kernel = spread(kernel_size, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else \
        spread(stride, "stride", f"{either}be omitted, a single int")
    padding = spread(padding, "padding")
    dilation = spread(dilation, "dilation", "be either a single int")
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    if min(padding) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for p, k, d in zip(padding, kernel, dilation):
        if p > int(((k - 1) * d + 1) / 2):  # C's division, toward zero
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    sides = "THW"[-n:]
    for what, label, values in (("kernel size", "k", kernel), ("stride", "d", stride),
                                ("dilation", "dilation", dilation)):
        if min(values) <= 0:
            got = " ".join(f"{label}{side}: {v}" for side, v in zip(sides, values))
            raise RuntimeError(f"{what} should be greater than zero, but got {got}")
    if any(p > k // 2 for p, k in zip(padding, kernel)):  # reached with a dilation only
        k, p = dict(zip(sides, kernel)), dict(zip(sides, padding))
        got = f"padW = {p['W']}, padH = {p['H']}, kW = {k['W']}, kH = {k['H']}" if n == 2 else \
            " ".join(f"{name}{side}: {table[side]}" for name, table in (("k", k), ("pad", p))
                     for side in "TWH")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"{got}")
    return kernel, stride, padding, dilation


def _pooled_size(length, kernel, stride, padding, dilation, ceil_mode):
    """Windows along a dim; a ceil_mode window may start in the padding on the right but not
    past it."""
    size = _out_size(length + 2 * padding, kernel, stride, dilation, ceil_mode)
    return size - 1 if ceil_mode and (size - 1) * stride >= length + padding else size


def _geometry(input, n, kernel, stride, padding, dilation, ceil_mode):
    """Each dim's overhang past the padded input in ceil_mode, and the output sizes."""
    out_sizes, extra = [], []
    for length, k, s, p, d in zip(input.shape[-n:], kernel, stride, padding, dilation):
        size = _pooled_size(length, k, s, p, d, ceil_mode)
        out_sizes.append(size)
        extra.append(max((size - 1) * s + d * (k - 1) + 1 - (length + 2 * p), 0))
    if min(out_sizes) < 1:
        shown = lambda sizes: "x".join(map(str, sizes))  # noqa: E731
        raise RuntimeError(f"Given input size: ({shown(input.shape[-n - 1:])}). Calculated "
                           f"output size: ({shown([input.shape[-n - 1]] + out_sizes)}). "
                           "Output size is too small")
    return extra, out_sizes


def _amounts(before, after):
    """F.pad's list (last dim first) for per-dim amounts before and after."""
    return [a for b, e in zip(reversed(before), reversed(after)) for a in (b, e)]


def _checked(input, n, name):
    """The batch may be empty (PyTorch's "optional 0 dim batch size"), no other dim; `name`
    begins the 3-d kernels' message."""
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for "
                           "input")
    if all(input.shape[-n - 1:]):
        return
    if n == 2:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{list(input.shape)}")
    # PyTorch's 3-d message names dimension 0 whichever one is empty
    raise RuntimeError(f"{name}(): Expected input's non-batch dimensions to have positive "
                       f"length, but input has a shape of {list(input.shape)} and non-batch "
                       "dimension 0 has length zero!")


def window_max(x, dim, valid=None):
    """(values, positions) along dim as PyTorch's max-pooling kernels choose them: the last NaN
    if there is one, else the first largest value; entries outside `valid` (padding) are never
    chosen, so a window of -inf picks its first element inside the input."""
    key, size = x.detach(), x.shape[dim]
    positions = gradjit.arange(size).reshape([size if d == dim % x.dim() else 1
                                              for d in range(x.dim())])
    if valid is not None:
        key = gradjit.where(valid, key, -math.inf)
    nan, hit = key.isnan(), key == key.amax(dim, keepdim=True)
    if valid is not None:  # a window of -inf ties its padding with its elements
        hit = hit & valid
    last_nan = gradjit.where(nan, positions, -1).amax(dim, keepdim=True)
    first_top = gradjit.where(hit, positions, size).amin(dim, keepdim=True)
    chosen = gradjit.where(last_nan >= 0, last_nan, first_top)
    return x.gather(dim, chosen).squeeze(dim), chosen.squeeze(dim)


def _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode):
    """(values, indices): each window's maximum and its flat position in the input's
    spatial dims, PyTorch's return_indices."""
    kernel, stride, padding, dilation = _parameters(n, kernel_size, stride, padding, dilation,
                                                    f"max_pool{n}d")
    _checked(input, n, f"max_pool{n}d_with_indices_out_cpu_template")
    original = input
    input, unbatched = _batched(input, n, f"max_pool{n}d")
    extra, out_sizes = _geometry(input, n, kernel, stride, padding, dilation, ceil_mode)
    amounts = _amounts(padding, [p + e for p, e in zip(padding, extra)])
    positions = np.pad(np.arange(math.prod(input.shape[2:])).reshape(input.shape[2:]),
                       [(a, b) for a, b in zip(padding, np.add(padding, extra))],
                       constant_values=-1)
    where = gradjit.tensor(np.stack([positions[index] for index in _window_index(
        kernel, stride, dilation, out_sizes)]))

    def pool(x):
        x = x.unsqueeze(0) if unbatched else x
        values, offsets = window_max(_windows(pad(x, amounts, value=-math.inf), kernel, stride,
                                              dilation, out_sizes), 2, where >= 0)
        spots = where.expand(*x.shape[:2], *where.shape)
        indices = spots.gather(2, offsets.unsqueeze(2)).squeeze(2)
        return (values.squeeze(0), indices.squeeze(0)) if unbatched else (values, indices)
    return gradjit.autograd.composite(f"MaxPool{n}DWithIndicesBackward0", pool, original)


def _avg_pool(input, n, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    kernel, stride, padding, ones = _parameters(n, kernel_size, stride, padding, 1,
                                                f"avg_pool{n}d")
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    _checked(input, n, f"avg_pool{n}d")
    original = input
    input, unbatched = _batched(input, n, f"avg_pool{n}d")
    extra, out_sizes = _geometry(input, n, kernel, stride, padding, ones, ceil_mode)
    if divisor_override is not None:
        counts = divisor_override
    else:
        # Each window's divisor counts its elements inside the input, or inside the padded
        # input with count_include_pad; the ceil_mode overhang never counts.
        inside = gradjit.ones(input.shape[2:], dtype=input.dtype)
        if count_include_pad:
            inside = pad(inside, _amounts(padding, padding), value=1)
            amounts = _amounts((0,) * n, extra)
        else:
            amounts = _amounts(padding, [p + e for p, e in zip(padding, extra)])
        counts = _windows(pad(inside, amounts)[None, None], kernel, stride, ones,
                          out_sizes).sum(2)[0, 0]

    def pool(x):
        x = x.unsqueeze(0) if unbatched else x
        amounts = _amounts(padding, [p + e for p, e in zip(padding, extra)])
        total = _windows(pad(x, amounts), kernel, stride, ones, out_sizes).sum(2)
        # integers divide as PyTorch's kernel does in C++: truncated, keeping the dtype
        out = total / counts if x.dtype.is_floating_point else \
            total.div(counts, rounding_mode="trunc")
        return out.squeeze(0) if unbatched else out
    return gradjit.autograd.composite(f"AvgPool{n}DBackward0", pool, original)


def _as_2d(name, input, *params):
    """A 1-d pooling as the 2-d one over a height of 1, as PyTorch runs it:
    (N, C, L) -> (N, C, 1, L)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    return (input.unsqueeze(-2),) + tuple(
        None if p is None or p == [] else (default, _tuple(p, 1)[0])
        for p, default in params)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    input2d, kernel, stride, padding, dilation = _as_2d(
        "max_pool1d", input, (kernel_size, 1), (stride, 1), (padding, 0), (dilation, 1))
    values, indices = _max_pool(input2d, 2, kernel, stride, padding, dilation, ceil_mode)
    return values.squeeze(-2), indices.squeeze(-2)


def _max_pool_nd(n):
    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                     return_indices=False):
        return _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode)
    with_indices.__name__ = with_indices.__qualname__ = f"max_pool{n}d_with_indices"
    return with_indices


max_pool2d_with_indices, max_pool3d_with_indices = _max_pool_nd(2), _max_pool_nd(3)


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """The checks of PyTorch's max_pool1d without indices, which word them their own way."""
    if input.dim() not in (2, 3) or not all(input.shape[-2:]):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    kernel, padding, dilation = (_tuple(v, 1)[0] for v in (kernel_size, padding, dilation))
    stride = None if stride is None or stride == [] or stride == () else _tuple(stride, 1)[0]
    for what, value, bad in (("kernel_size", kernel, kernel <= 0),
                             ("stride", stride, stride is not None and stride <= 0)):
        if bad:
            raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {value}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={padding} and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got "
                           f"{dilation}")
    size = _pooled_size(input.shape[-1], kernel, kernel if stride is None else stride, padding,
                        dilation, ceil_mode)
    if size < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {size}")


def _returning_indices(with_indices):
    """max_poolNd: the values, or (values, indices) with return_indices."""
    def pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
             return_indices=False):
        if not return_indices and with_indices is max_pool1d_with_indices:
            refuse_integers("max_pool1d_impl", input)  # torch's kernel without indices
            _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
        out = with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
        return out if return_indices else out[0]
    pool.__name__ = pool.__qualname__ = with_indices.__name__.replace("_with_indices", "")
    return pool


max_pool1d, max_pool2d, max_pool3d = map(_returning_indices, (
    max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    input2d, kernel, stride, padding = _as_2d("avg_pool1d", input, (kernel_size, 1), (stride, 1),
                                              (padding, 0))
    return _avg_pool(input2d, 2, kernel, stride, padding, ceil_mode, count_include_pad,
                     None).squeeze(-2)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _lp_pool_nd(n, max_pool, avg_pool):
    def lp_pool(input, norm_type, kernel_size, stride=None, ceil_mode=False):
        """(sum of x ** p over each window) ** (1 / p); p = inf is max pooling of |x|."""
        if norm_type in (math.inf, -math.inf):
            sign = 1 if norm_type > 0 else -1
            return sign * max_pool(sign * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
        size = math.prod(_tuple(kernel_size, n))
        return (out.sign() * relu(out.abs())).mul(size).pow(1.0 / norm_type)
    lp_pool.__name__ = lp_pool.__qualname__ = f"lp_pool{n}d"
    return lp_pool


lp_pool1d = _lp_pool_nd(1, max_pool1d, avg_pool1d)
lp_pool2d = _lp_pool_nd(2, max_pool2d, avg_pool2d)
lp_pool3d = _lp_pool_nd(3, max_pool3d, avg_pool3d)


def _unpool_sizes(input, kernel, stride, padding, output_size):
    n = len(kernel)
    default = [(length - 1) * s + k - 2 * p for length, k, s, p
               in zip(input.shape[-n:], kernel, stride, padding)]
    if output_size is None:
        sizes = default
    else:
        sizes = output_size[2:] if len(output_size) == n + 2 else output_size
        if len(sizes) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} "
                             f"elements, but it has a length of '{len(sizes)}'")
        for d, (size, least, s) in enumerate(zip(sizes, default, stride)):
            if not least - s < size < least + s:
                raise ValueError(f'invalid output_size "{sizes}" (dim {d} must be between '
                                 f"{least - s} and {least + s})")
    for d, size in enumerate(sizes):
        if size < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial "
                             f"dimensions, but got output_size[{d}]={size}")
    return list(sizes)


def _max_unpool(input, indices, n, kernel_size, stride, padding, output_size):
    """Each value placed at its index in a zero (N, C, *output_size) tensor."""
    kernel = _tuple(kernel_size, n)
    stride = kernel if stride is None else _tuple(stride, n)
    sizes = _unpool_sizes(input, kernel, stride, _tuple(padding, n), output_size)
    if tuple(indices.shape) != tuple(input.shape):
        unit = [1] * (n == 1)  # PyTorch's 1-d unpooling is the 2-d one over a unit width
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape) + unit}) but got indices tensor with shape: "
                           f"{list(indices.shape) + unit}")
    if indices.dtype is not gradjit.int64:  # PyTorch's 3-d message stops short
        got = f" but got: {indices.dtype.legacy}" if n < 3 else ""
        raise RuntimeError(f"elements in indices should be type int64{got}")
    lead = tuple(input.shape[:-n])
    flat_indices = indices.reshape(*lead, -1)
    where = flat_indices.__gradjit_constant__()
    if where is None:  # a scatter through repeated run-time indices would add their values
        from gradjit.tracer.torch_surface import refuse
        refuse(f"max_unpool{n}d's indices", "a value repeated at one index is placed once, "
               "which needs the indices known when tracing; pass them as a constant")
    invalid = where[(where < 0) | (where >= math.prod(sizes))]
    if invalid.size:
        shown = "x".join(map(str, sizes + [1] * (n == 1)))  # 1-d as 2-d over a unit width
        raise RuntimeError(f"Found an invalid max index: {invalid[0]} (output volumes are of "
                           f"size {shown})")

    def unpool(x):
        zeros = gradjit.zeros(*lead, math.prod(sizes), dtype=x.dtype)
        # One of the values sharing an index lands there, and each gets the gradient at its
        # index: scatter's own gradient, which keeps an infinite value as it is (no inf - inf).
        out = zeros.scatter(-1, flat_indices, x.reshape(*lead, -1))
        return out.reshape(*lead, *sizes, *width)
    # PyTorch's 1-d unpooling is the 2-d one of the input with a unit width
    width = (1,) * (n == 1)
    out = gradjit.autograd.composite(f"MaxUnpool{max(n, 2)}DBackward0", unpool,
                                     input.unsqueeze(-1) if width else input)
    return out.squeeze(-1) if width else out


def _max_unpool_nd(n):
    def max_unpool(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        return _max_unpool(input, indices, n, kernel_size, stride, padding, output_size)
    max_unpool.__name__ = max_unpool.__qualname__ = f"max_unpool{n}d"
    return max_unpool


max_unpool1d, max_unpool2d, max_unpool3d = map(_max_unpool_nd, (1, 2, 3))


def _fractional_starts(samples, length, out, pool):
    """Window starts along one dim for each plane's sample u in [0, 1): PyTorch's pseudo-random
    sequence int((i + u) * alpha) - int(u * alpha), alpha = (length - pool) / (out - 1), computed
    in the samples' dtype, the last window ending at the input's end."""
    i = np.arange(out - 1, dtype=samples.dtype)
    alpha = samples.dtype.type(length - pool) / samples.dtype.type(max(out - 1, 1))
    u = samples[..., None]
    starts = ((i + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    last = np.full(samples.shape + (1,), length - pool)
    return np.concatenate([starts, last], -1)[..., :out]  # none for an empty output


# Per spatial dim: its name in PyTorch's errors and which entry of a plane's samples draws
# its sequence (the 2-d kernel reads width's first), and the name its errors begin with.
_FRACTIONAL = {2: (("height", "width"), (1, 0), "fractional_max_pool2d()"),
               3: (("time", "height", "width"), (0, 1, 2), "fractional_max_pool3d_out()")}


def _check_samples(samples, batched, n):
    """_random_samples as PyTorch's fractional kernels require them."""
    if samples.dtype != batched.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.dim()}")
    if samples.shape[0] < batched.shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != batched.shape[1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")


def _fractional_max_pool(input, n, kernel_size, output_size, output_ratio, _random_samples):
    """Max pooling over kernel_size windows at pseudo-random starts, one sequence per plane
    and spatial dim drawn from _random_samples (N, C, n); returns (values, indices)."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"fractional_max_pool{n}d requires specifying either an output_size "
                         f"or an output_ratio")
    sides, order, where = _FRACTIONAL[n]
    kernel = _tuple(kernel_size, n)
    if output_size is None:
        if n == 2 and isinstance(output_ratio, (tuple, list)) and len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single "
                             "Int or tuple of Ints.")
        output_size = [int(size * r) for size, r in
                       zip(input.shape[-n:], _tuple(output_ratio, n))]
    sizes = _tuple(output_size, n)
    if _random_samples is None:
        _random_samples = gradjit.rand(1 if input.dim() == n + 1 else input.shape[0],
                                       input.shape[-n - 1], n, dtype=input.dtype)
    batched, unbatched = _batched(input, n, f"fractional_max_pool{n}d")
    for dim in range(input.dim() - n - 1, input.dim()):
        if not input.shape[dim]:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {dim} "
                               "being empty.")
    _check_samples(_random_samples, batched, n)
    lengths = tuple(batched.shape[-n:])
    for side, out, pool, length in zip(sides, sizes, kernel, lengths):
        if out + pool - 1 > length:
            raise RuntimeError(f"{where}: pool {side} {pool} too large relative to input "
                               f"{side} {length}")
    # planes read their batch's row of samples; PyTorch ignores rows past the batch
    samples = _random_samples.__gradjit_constant__()
    if samples is None:
        from gradjit.tracer.torch_surface import refuse
        refuse(f"fractional_max_pool{n}d's _random_samples", "they place the windows, whose "
               "positions must be known when tracing; pass them as a constant (closed over)")
    samples = samples[:batched.shape[0]]
    # flat input index of every (plane, output position..., kernel offset...)
    index, stride = 0, 1
    for d in reversed(range(n)):
        starts = _fractional_starts(samples[..., order[d]], lengths[d], sizes[d], kernel[d])
        at = starts[..., None] + np.arange(kernel[d])
        shape = at.shape[:2] + tuple(sizes[e] if e == d else 1 for e in range(n)) + \
            tuple(kernel[e] if e == d else 1 for e in range(n))
        index = index + at.reshape(shape) * stride
        stride *= lengths[d]
    index = gradjit.tensor(index.reshape(*index.shape[:2 + n], math.prod(kernel)))

    def pool(x):
        x = x.unsqueeze(0) if unbatched else x
        flat = x.flatten(2)
        picked = flat.gather(2, index.flatten(2)).reshape(index.shape)
        values, local = window_max(picked, -1)
        indices = index.gather(-1, local.unsqueeze(-1)).squeeze(-1)
        return (values.squeeze(0), indices.squeeze(0)) if unbatched else (values, indices)
    return gradjit.autograd.composite(f"FractionalMaxPool{n}DBackward0", pool, input)


def _fractional_max_pool_nd(n):
    def with_indices(input, kernel_size, output_size=None, output_ratio=None,
                     return_indices=False, _random_samples=None):
        return _fractional_max_pool(input, n, kernel_size, output_size, output_ratio,
                                    _random_samples)

    def fractional_max_pool(input, kernel_size, output_size=None, output_ratio=None,
                            return_indices=False, _random_samples=None):
        out = _fractional_max_pool(input, n, kernel_size, output_size, output_ratio,
                                   _random_samples)
        return out if return_indices else out[0]
    with_indices.__name__ = with_indices.__qualname__ = \
        f"fractional_max_pool{n}d_with_indices"
    fractional_max_pool.__name__ = fractional_max_pool.__qualname__ = \
        f"fractional_max_pool{n}d"
    return with_indices, fractional_max_pool


fractional_max_pool2d_with_indices, fractional_max_pool2d = _fractional_max_pool_nd(2)
fractional_max_pool3d_with_indices, fractional_max_pool3d = _fractional_max_pool_nd(3)
