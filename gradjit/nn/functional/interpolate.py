"""F.interpolate: nearest, nearest-exact, (bi/tri)linear, bicubic and area resizing along the
trailing dims with PyTorch's source coordinates (a given scale_factor sets the coordinate scale,
as it does in PyTorch), and the antialiased bilinear and bicubic filters; every interpolating
mode is a weighted sum of gathers (its taps) per dim."""
from __future__ import annotations

import math

import numpy as np

import gradjit
from gradjit.nn.functional.grid import cubic_far, cubic_near, cubic_weights
from gradjit.tensor.refusals import refuse_integers
from gradjit.warn import warn_past_wrappers

_SPATIAL = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _out_sizes(input, size, scale_factor, n):
    """The output's trailing sizes, and the coordinate scale a scale_factor gives per dim."""
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None else
                         "only one of size or scale_factor should be defined")
    lengths = tuple(input.shape[-n:])
    if size is not None:
        sizes = (size,) * n if isinstance(size, int) else tuple(size)
        if len(sizes) != n:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(lengths)} and output size of {sizes}. Please provide "
                             "input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                             "(o1, o2, ...,oK) format.")
        if not all(_is_integer(s) for s in sizes):
            kinds = ", ".join("<class 'torch.Tensor'>" if gradjit.is_tensor(s) else str(type(s))
                              for s in sizes)
            raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            f"Tuple[int, int, int], but got size with types [{kinds}]")
        return sizes, [None] * n
    factors = (scale_factor,) * n if isinstance(scale_factor, (int, float)) else \
        tuple(scale_factor)
    if len(factors) != n:
        raise ValueError(f"Input and scale_factor must have the same number of spatial "
                         f"dimensions, but got input with spatial dimensions of "
                         f"{list(lengths)} and scale_factor of shape {factors}. Please provide "
                         "input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                         "(s1, s2, ...,sK) format.")
    sizes = tuple(math.floor(length * f) for length, f in zip(lengths, factors))
    if any(abs(s) >= 2 ** 63 for s in sizes):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return sizes, [1.0 / f for f in factors]


def _is_integer(size):
    if gradjit.is_tensor(size):
        return not size.is_floating_point()
    return isinstance(size, (int, np.integer))


def _source(out, scale, align_corners, mode):
    """Each output position's source coordinate along a dim; only the cubic taps may start
    left of the first input."""
    i = np.arange(out, dtype=np.float64)
    if mode == "nearest":
        return np.floor(i * scale)
    if mode == "nearest-exact":
        return np.floor((i + 0.5) * scale)
    if align_corners:
        return i * scale
    source = (i + 0.5) * scale - 0.5
    return source if mode == "bicubic" else np.maximum(source, 0.0)


def _linear_taps(source, length):
    low = np.floor(source)
    weight = source - low
    low = low.astype(np.int64)
    return np.stack([low, np.minimum(low + 1, length - 1)]), np.stack([1 - weight, weight])


def _cubic_taps(source, length):
    low = np.floor(source)
    index = low.astype(np.int64) + np.arange(-1, 3)[:, None]
    return np.clip(index, 0, length - 1), np.stack(cubic_weights(np.clip(source - low, 0, 1)))


# the antialiasing filters by mode, (half width, weight of a distance): PIL's, whose cubic
# kernel has a = -0.5 where the plain bicubic mode's has -0.75
_FILTERS = {"bilinear": (1, lambda x: np.maximum(1 - x, 0)),
            "bicubic": (2, lambda x: np.where(x < 1, cubic_near(x, -0.5),
                                              np.where(x < 2, cubic_far(x, -0.5), 0)))}


def _antialias_taps(out, length, scale, mode, real):
    """Each output's filter window over the input, stretched by the scale when downsampling
    so that every input contributes, its weights normalized to sum to one; computed in the
    input's precision (`real`), as PyTorch's kernel computes them."""
    half, weight_of = _FILTERS[mode]
    scale = real(scale)
    stretch = max(scale, real(1))
    support = half * stretch
    center = scale * (np.arange(out, dtype=real) + real(0.5))
    first = np.maximum(np.trunc(center - support + real(0.5)), 0).astype(np.int64)
    count = np.minimum(np.trunc(center + support + real(0.5)), length).astype(np.int64) - first
    offset = np.arange(2 * math.ceil(support) + 1)[:, None]
    index = first + offset
    weight = (weight_of(np.abs((index - center + real(0.5)) / stretch)) *
              (offset < count)).astype(real)
    total = weight.sum(0, dtype=real)
    return np.minimum(index, length - 1), weight / np.where(total != 0, total, real(1))


def _taps(mode, antialias, out, length, scale, align_corners, real):
    """The input positions (taps, out) along a dim and their weights (None: one tap, whole)."""
    if antialias:
        return _antialias_taps(out, length, scale, mode, real)
    source = _source(out, scale, align_corners, mode)
    if mode.startswith("nearest"):
        return np.minimum(source, length - 1).astype(np.int64)[None], None
    return (_cubic_taps if mode == "bicubic" else _linear_taps)(source, length)


# torch's CPU kernels that have no integer form, by mode, and antialiased (its 2-d nearest
# and bilinear kernels refuse integers in their channels-last form).
_INTEGER_REFUSALS = {("nearest", False): "compute_indices_weights_nearest",
                     ("nearest-exact", False): "compute_indices_weights_nearest",
                     ("linear", False): "compute_indices_weights_linear",
                     ("trilinear", False): "compute_indices_weights_linear",
                     ("bicubic", False): "compute_indices_weights_cubic",
                     ("bilinear", True): "compute_index_ranges_weights",
                     ("bicubic", True): "compute_index_ranges_weights"}


def _refuse_integers(input, mode, antialias, n):
    """PyTorch resizes uint8 images (nearest, and bilinear or bicubic in 2-d); no other
    integers."""
    if input.dtype is gradjit.uint8 and (mode.startswith("nearest") or n == 2):
        return
    kernel = _INTEGER_REFUSALS.get((mode, antialias))
    if n == 2 and not antialias and mode != "bicubic":
        kernel = f"upsample_{mode.split('-')[0]}2d_channels_last"
    refuse_integers(kernel, input)


def _fixed_point(x, dim, index, weight):
    """One dim's pass over uint8 values as PyTorch's kernel makes it: one weight per input
    read (taps clamped onto one border input summed first), in 16-bit fixed point at the most
    precision the largest allows, the sum rounded half up and clamped to [0, 255]."""
    weight = _one_per_input(index, weight)
    largest, bits = np.abs(weight).max(), 0
    while bits < 22 and int(0.5 + largest * (1 << (bits + 1))) < 1 << 15:
        bits += 1
    scaled = weight * (1 << bits)
    fixed = np.trunc(np.where(scaled < 0, scaled - 0.5, scaled + 0.5)).astype(np.int64)
    shape = (-1,) + (1,) * (x.dim() - 1 - dim)
    total = sum(x.index_select(dim, gradjit.tensor(i)).long() * gradjit.tensor(w).reshape(shape)
                for i, w in zip(index, fixed))
    return ((total + (1 << bits >> 1)) >> bits).clamp(0, 255).to(gradjit.uint8)


def _one_per_input(index, weight):
    """The weights with each tap's moved onto the first tap that reads the same input."""
    weight = weight.copy()
    for k in range(1, len(index)):
        for j in range(k):
            same = index[k] == index[j]
            weight[j] += np.where(same, weight[k], 0.0)
            weight[k] = np.where(same, 0.0, weight[k])
    return weight


def _check(input, mode, align_corners, antialias):
    """PyTorch's checks of the mode against the input's rank, in its order."""
    if mode == "lanczos":
        raise NotImplementedError("interpolate: mode 'lanczos' is not supported; nearest, "
                                  "nearest-exact, linear, bilinear, bicubic, trilinear and "
                                  "area are")
    if align_corners is not None and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    n = input.dim() - 2
    if 1 <= n <= 3 and mode in ("linear", "bilinear", "trilinear") and n != _SPATIAL[mode]:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_SPATIAL[mode] + 2}D input")
    if not 1 <= n <= 3 or (mode in _SPATIAL and n != _SPATIAL[mode]) or \
            mode not in ("nearest", "nearest-exact", "area", *_SPATIAL):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.dim()}D) for the modes: nearest | linear | "
                                  f"bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    _check(input, mode, align_corners, antialias)
    n = input.dim() - 2
    sizes, scales = _out_sizes(input, size, scale_factor, n)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        scales = [None] * n
    return _resample(input, sizes, scales, mode, bool(align_corners), bool(antialias))


def upsample_aa(mode):
    """aten's _upsample_{mode}2d_aa kernel: its overload of (scales_h, scales_w) and its .vec
    overload of scale_factors, which give the output size when output_size is None."""
    def upsample(input, output_size, align_corners, scales_h=None, scales_w=None, *,
                 scale_factors=None):
        if isinstance(scales_h, (list, tuple)):  # .vec's scale_factors, given by position
            scale_factors, scales_h = scales_h, None
        factors = scale_factors or (scales_h, scales_w)
        sizes = output_size or [int(math.floor(length * f))
                                for length, f in zip(input.shape[2:], factors)]
        return _resample(input, tuple(sizes), [1.0 / f if f else None for f in factors],
                         f"bi{mode}", bool(align_corners), True)
    upsample.__name__ = f"_upsample_bi{mode}2d_aa"
    return upsample


def _resample(input, sizes, scales, mode, align_corners, antialias):
    """input resized to `sizes` along its trailing dims; a scale of None is the sizes' ratio."""
    n = len(sizes)
    lengths = tuple(input.shape[-n:])
    if min(lengths + tuple(sizes)) <= 0:
        names = ("D", "H", "W")[3 - n:]
        shown = lambda values: ", ".join(f"{k}: {v}" for k, v in zip(names, values))  # noqa
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({shown(lengths)}) output ({shown(sizes)})")
    if not input.dtype.is_floating_point:
        _refuse_integers(input, mode, antialias, n)
    if mode == "area":
        pool = {1: gradjit.nn.functional.adaptive_avg_pool1d,
                2: gradjit.nn.functional.adaptive_avg_pool2d,
                3: gradjit.nn.functional.adaptive_avg_pool3d}[n]
        return pool(input, sizes)
    coordinate_scales = [((length - 1) / (out - 1) if out > 1 else 0.0) if align_corners else
                         length / out if scale is None else scale
                         for length, out, scale in zip(lengths, sizes, scales)]

    real = np.float64 if input.dtype == gradjit.float64 else np.float32

    def resample(x):
        axes = list(enumerate(zip(lengths, sizes, coordinate_scales)))
        for axis, (length, out, scale) in axes[::-1] if x.dtype is gradjit.uint8 else axes:
            dim = x.dim() - n + axis
            index, weight = _taps(mode, antialias, out, length, scale, align_corners, real)
            if weight is None:
                x = x.index_select(dim, gradjit.tensor(index[0]))
                continue
            if x.dtype is gradjit.uint8:  # PyTorch's kernel resizes the last dim first
                x = _fixed_point(x, dim, index, weight.astype(np.float64))
                continue
            shape = (-1,) + (1,) * (x.dim() - 1 - dim)
            taps = [x.index_select(dim, gradjit.tensor(i)) *
                    gradjit.tensor(w, dtype=x.dtype).reshape(shape) for i, w in zip(index, weight)]
            x = taps[0]
            for tap in taps[1:]:
                x = x + tap
        return x
    kind = "".join(part.title() for part in mode.split("-"))
    name = f"Upsample{kind}{n}D{'Aa' if antialias else ''}Backward0"
    return gradjit.autograd.composite(name, resample, input)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warn_past_wrappers("`nn.functional.upsample` is deprecated. Use "
                       "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warn_past_wrappers("`nn.functional.upsample_nearest` is deprecated. Use "
                       "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warn_past_wrappers("`nn.functional.upsample_bilinear` is deprecated. Use "
                       "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
