"""F.interpolate: nearest, nearest-exact, (bi/tri)linear and area resizing along the trailing
dims with PyTorch's source coordinates (a given scale_factor sets the coordinate scale, as
it does in PyTorch), linear modes as one weighted pair of gathers per dim."""
from __future__ import annotations

import math
import warnings

import numpy as np

import gradjit
from gradjit.tensor.refusals import refuse_integers

_SPATIAL = {"linear": 1, "bilinear": 2, "trilinear": 3}


def _out_sizes(input, size, scale_factor, n):
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
        return sizes, [length / out if out else 0.0 for length, out in zip(lengths, sizes)]
    factors = (scale_factor,) * n if isinstance(scale_factor, (int, float)) else \
        tuple(scale_factor)
    return tuple(int(math.floor(length * f)) for length, f in zip(lengths, factors)), \
        [1.0 / f for f in factors]


def _source(out, length, scale, align_corners, mode):
    """Each output position's source coordinate along a dim of `length`."""
    i = np.arange(out, dtype=np.float64)
    if mode == "nearest":
        return np.minimum(np.floor(i * scale), length - 1)
    if mode == "nearest-exact":
        return np.minimum(np.floor((i + 0.5) * scale), length - 1)
    if align_corners:
        return i * ((length - 1) / (out - 1) if out > 1 else 0.0)
    return np.maximum((i + 0.5) * scale - 0.5, 0.0)


# torch's CPU kernels that have no integer form, by mode.
_INTEGER_REFUSALS = {"nearest": "compute_indices_weights_nearest",
                     "nearest-exact": "compute_indices_weights_nearest",
                     "linear": "compute_indices_weights_linear"}


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode not in ("nearest", "nearest-exact", "area", *_SPATIAL):
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported; nearest, "
                                  "nearest-exact, linear, bilinear, trilinear and area are")
    if align_corners is not None and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    n = input.dim() - 2
    if n < 1 or (mode in _SPATIAL and n != _SPATIAL[mode]):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.dim()}D) for the modes: nearest | linear | "
                                  f"bilinear | bicubic | trilinear | area | nearest-exact "
                                  f"(got {mode})")
    sizes, scales = _out_sizes(input, size, scale_factor, n)
    lengths = tuple(input.shape[-n:])
    if min(lengths + tuple(sizes)) <= 0:
        names = ("D", "H", "W")[3 - n:]
        shown = lambda values: ", ".join(f"{k}: {v}" for k, v in zip(names, values))  # noqa
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({shown(lengths)}) output ({shown(sizes)})")
    if mode in _INTEGER_REFUSALS:
        refuse_integers(_INTEGER_REFUSALS[mode], input)
    if recompute_scale_factor:
        scales = [length / out if out else 0.0 for length, out in zip(input.shape[-n:], sizes)]
    if mode == "area":
        pool = {1: gradjit.nn.functional.adaptive_avg_pool1d,
                2: gradjit.nn.functional.adaptive_avg_pool2d,
                3: gradjit.nn.functional.adaptive_avg_pool3d}[n]
        return pool(input, sizes)
    out = input
    for axis, (length, target, scale) in enumerate(zip(input.shape[-n:], sizes, scales)):
        dim = input.dim() - n + axis
        source = _source(target, length, scale, bool(align_corners), mode)
        low = np.floor(source).astype(np.int64)
        if mode.startswith("nearest"):
            out = out.index_select(dim, gradjit.tensor(low))
            continue
        high = np.minimum(low + 1, length - 1)
        weight = gradjit.tensor(source - low, dtype=input.dtype).reshape(
            (-1,) + (1,) * (input.dim() - 1 - dim))
        below = out.index_select(dim, gradjit.tensor(low))
        above = out.index_select(dim, gradjit.tensor(high))
        out = below + (above - below) * weight
    return out


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
