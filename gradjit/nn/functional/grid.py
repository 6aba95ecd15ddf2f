"""affine_grid and 2-d grid_sample: sampling positions in [-1, 1] mapped onto the input's
pixels (PyTorch's align_corners conventions and padding modes), then gathered and blended
with tensor ops, so gradients reach both the input and the grid."""
from __future__ import annotations


import numpy as np

import gradjit
from gradjit.warn import warn_at_caller

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def _align(align_corners):
    if align_corners is None:
        warn_at_caller(_ALIGN_WARNING)
        return False
    return align_corners


def _linspace(steps, align_corners):
    """Pixel centres in [-1, 1]; without align_corners they stop half a pixel from the ends."""
    points = np.linspace(-1.0, 1.0, steps) if steps > 1 else np.zeros(steps)
    return points if align_corners else points * (steps - 1) / steps


def affine_grid(theta, size, align_corners=None):
    """The (N, *spatial, n) sampling grid of the affine maps theta (N, n, n + 1) applied to
    the output pixel centres, coordinates ordered x (last dim) first."""
    align_corners = _align(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    n = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (n, n + 1):
        raise ValueError(f"Expected a batch of {n}D affine matrices of shape Nx{n}x{n + 1} "
                         f"for size {size}. Got {theta.shape}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    spatial = list(size[2:])
    axes = np.meshgrid(*(_linspace(s, align_corners) for s in spatial), indexing="ij")
    base = np.stack(list(axes[::-1]) + [np.ones(spatial)], -1).reshape(-1, n + 1)
    base = gradjit.tensor(base, dtype=theta.dtype)

    def generate(t):
        return base.matmul(t.transpose(1, 2)).reshape(size[0], *spatial, n)
    return gradjit.autograd.composite("AffineGridGeneratorBackward0", generate, theta)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, low, high):
    """coord folded into [low, high] by reflection at its ends."""
    if low == high:
        return coord * 0
    span = high - low
    distance = (coord - low).abs()
    flips = (distance / span).floor()
    extra = distance - flips * span
    return gradjit.where(flips % 2 == 0, low + extra, high - extra)


def _source(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0.0, size - 1.0) if align_corners else \
            _reflect(coord, -0.5, size - 0.5)
    if padding_mode != "zeros":
        # on or past an edge the position stays there: no gradient, as in PyTorch
        inside = (coord > 0) & (coord < size - 1)
        coord = gradjit.where(inside, coord, coord.detach().clamp(0, size - 1))
    return coord


def _gather(input, ys, xs):
    """input (N, C, H, W) at integer positions ys, xs (N, Ho, Wo); zero outside."""
    n, c, h, w = input.shape
    inside = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
    flat = (ys.clamp(0, h - 1) * w + xs.clamp(0, w - 1)).reshape(n, 1, -1).expand(n, c, -1)
    values = input.reshape(n, c, -1).gather(2, flat).reshape(n, c, *ys.shape[1:])
    return values * inside.unsqueeze(1).to(input.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2) of (x, y) in [-1, 1]."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    if mode == "bicubic" or input.dim() != 4:
        raise NotImplementedError("grid_sample: only 4-D input with mode 'bilinear' or "
                                  "'nearest' is supported")

    def sample(x, g):
        h, w = x.shape[2:]
        xs = _source(g[..., 0], w, padding_mode, align_corners)
        ys = _source(g[..., 1], h, padding_mode, align_corners)
        if mode == "nearest":  # the grid gets a zero gradient, as PyTorch gives it, not None
            flat = ((g - g.detach()) * 0).sum()
            return _gather(x, ys.round().long(), xs.round().long()) + flat
        x0, y0 = xs.floor(), ys.floor()
        wx, wy = (xs - x0).unsqueeze(1), (ys - y0).unsqueeze(1)
        x0, y0 = x0.long(), y0.long()
        top = _gather(x, y0, x0) * (1 - wx) + _gather(x, y0, x0 + 1) * wx
        bottom = _gather(x, y0 + 1, x0) * (1 - wx) + _gather(x, y0 + 1, x0 + 1) * wx
        return top * (1 - wy) + bottom * wy
    return gradjit.autograd.composite("GridSampler2DBackward0", sample, input, grid)
