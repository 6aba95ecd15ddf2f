"""affine_grid and grid_sample over 2 or 3 spatial dims: sampling positions in [-1, 1] mapped
onto the input's pixels (PyTorch's align_corners conventions and padding modes), then gathered
and blended with tensor ops, so gradients reach both the input and the grid."""
from __future__ import annotations

import itertools
import math

import numpy as np

import gradjit
from gradjit.tensor.dtypes import numpy_of
from gradjit.warn import warn_at_caller

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def _align(align_corners):
    if align_corners is None:
        warn_at_caller(_ALIGN_WARNING)
        return False
    return align_corners


def _linspace(steps, align_corners, dtype):
    """Pixel centres in [-1, 1]; without align_corners they stop half a pixel from the ends.
    Rounded in theta's dtype as PyTorch rounds them: on a pixel centre grid_sample's gradient
    takes the side of the floor, so an ulp decides which neighbour it sees."""
    if steps <= 1:
        return np.zeros(steps, dtype=dtype)
    points = gradjit.linspace(-1.0, 1.0, steps, dtype=dtype).numpy()
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
    if theta.shape[0] != size[0]:  # PyTorch's batched product of the base grid and theta
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {n + 1}] but got: [{theta.shape[0]}, {n + 1}].")
    spatial = list(size[2:])
    if align_corners and min(spatial) == 1:  # (torch then skips the size check below)
        warn_at_caller("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                       "grids when align_corners=True. This is not an intended use case of "
                       "affine_grid. See the documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    dtype = numpy_of(theta.dtype)
    axes = np.meshgrid(*(_linspace(s, align_corners, dtype) for s in spatial), indexing="ij")
    base = np.stack(list(axes[::-1]) + [np.ones(spatial, dtype)], -1).reshape(-1, n + 1)
    base = gradjit.tensor(base)

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


def _gather(input, positions):
    """input (N, C, *S) at integer positions, one (N, *So) tensor per spatial dim; zero
    outside."""
    n, c, sizes = input.shape[0], input.shape[1], input.shape[2:]
    inside, flat = None, 0
    for p, size in zip(positions, sizes):
        within = (p >= 0) & (p < size)
        inside = within if inside is None else inside & within
        flat = flat * size + p.clamp(0, size - 1)
    # (counts spelled out: an empty batch or channel leaves -1 ambiguous)
    count, out_shape = math.prod(sizes), positions[0].shape[1:]
    flat = flat.reshape(n, 1, math.prod(out_shape)).expand(n, c, math.prod(out_shape))
    values = input.reshape(n, c, count).gather(2, flat).reshape(n, c, *out_shape)
    return values * inside.unsqueeze(1).to(input.dtype)


def _tap(coord, size, padding_mode, align_corners):
    """A bicubic tap's integer position after the padding mode (zeros: as it is)."""
    if padding_mode == "reflection":
        coord = _reflect(coord, 0.0, size - 1.0) if align_corners else \
            _reflect(coord, -0.5, size - 0.5)
    return coord.clamp(0, size - 1) if padding_mode != "zeros" else coord


def cubic_near(x, a):
    """The cubic convolution kernel at a distance x < 1."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def cubic_far(x, a):
    """The cubic convolution kernel at a distance 1 <= x < 2."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_weights(t):
    """The weights of the taps at -1, 0, 1, 2 for an offset t in [0, 1): the cubic
    convolution kernel with a = -0.75, as PyTorch's bicubic modes use it."""
    a = -0.75
    return cubic_far(t + 1, a), cubic_near(t, a), cubic_near(1 - t, a), cubic_far(2 - t, a)


def _check(input, grid, mode):
    """PyTorch's checks, in its order."""
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.dim() - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    for d in range(2, input.dim()):
        if input.shape[d] <= 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    rank = 4 if input.dim() == 4 else 5
    if input.dim() != rank or grid.dim() != rank:
        raise RuntimeError(f"grid_sampler(): expected {rank}D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if mode == "bicubic" and rank == 5:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2) of (x, y) in [-1, 1], or
    input (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3) of (x, y, z) (no bicubic mode there)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    _check(input, grid, mode)
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy} but found "
                           f"{grid.dtype.legacy}")

    def sample(x, g):
        sizes = x.shape[2:]
        axes = [g[..., len(sizes) - 1 - d] for d in range(len(sizes))]  # x is the last dim's
        if mode == "bicubic":
            return _bicubic(x, axes, padding_mode, align_corners)
        coords = [_source(c, size, padding_mode, align_corners) for c, size in zip(axes, sizes)]
        if mode == "nearest":  # the grid gets a zero gradient, as PyTorch gives it, not None
            flat = ((g - g.detach()) * 0).sum()
            return _gather(x, [c.round().long() for c in coords]) + flat
        lows = [c.floor() for c in coords]
        weights = [(c - low).unsqueeze(1) for c, low in zip(coords, lows)]
        out = 0
        for corner in itertools.product((0, 1), repeat=len(sizes)):
            weight = math.prod(w if up else 1 - w for w, up in zip(weights, corner))
            out = out + _gather(x, [low.long() + up for low, up in zip(lows, corner)]) * weight
        return out
    name = f"GridSampler{input.dim() - 2}DBackward0"
    return gradjit.autograd.composite(name, sample, input, grid)


def _bicubic(x, axes, padding_mode, align_corners):
    """The 4 x 4 taps around each (y, x) position, blended by the cubic kernel per axis; the
    padding mode places each tap, not the position."""
    coords = [_unnormalize(c, size, align_corners) for c, size in zip(axes, x.shape[2:])]
    lows = [c.floor() for c in coords]
    weights = [[w.unsqueeze(1) for w in cubic_weights(c - low)] for c, low in zip(coords, lows)]
    taps = [[_tap(low + k, size, padding_mode, align_corners).detach().long()
             for k in range(-1, 3)] for low, size in zip(lows, x.shape[2:])]
    out = 0
    for i, j in itertools.product(range(4), repeat=2):
        out = out + _gather(x, [taps[0][i], taps[1][j]]) * weights[0][i] * weights[1][j]
    return out
