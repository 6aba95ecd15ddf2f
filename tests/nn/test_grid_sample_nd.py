"""grid_sample's bicubic mode (2-d) and its 3-d (5-d input) bilinear and nearest modes, with
affine_grid's 5-d grids, against torch: values, gradients of input and grid, grad_fn names
and errors."""
import itertools

import numpy as np
import pytest

import gradjit
from tests.nn.helpers import randn, same_error, torch

PADDINGS = ["zeros", "border", "reflection"]


def _grid(shape, seed=0):
    grid = np.random.default_rng(seed).uniform(-1.3, 1.3, shape)
    grid.reshape(-1, shape[-1])[:3] = [[1] * shape[-1], [-1] * shape[-1],
                                       [0.5, -1, 1][:shape[-1]]]  # on the edges
    return grid


def _both(x, grid, *args):
    """Output, input gradient, grid gradient and grad_fn name of gradjit, then of torch."""
    results = []
    for lib in (gradjit, torch):
        xs, gs = lib.tensor(x, requires_grad=True), lib.tensor(grid, requires_grad=True)
        out = lib.nn.functional.grid_sample(xs, gs, *args)
        weights = lib.tensor(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)))
        (out * out * weights).sum().backward()
        results.append((out.detach().numpy(), xs.grad.numpy(), gs.grad.numpy(),
                        type(out.grad_fn).__name__))
    return results


def _close(ours, theirs, rtol=1e-10):
    for got, want in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-11)
    assert ours[3] == theirs[3]


@pytest.mark.parametrize("padding_mode,align_corners",
                         itertools.product(PADDINGS, [True, False]))
def test_bicubic_matches_torch(padding_mode, align_corners):
    x = randn(2, 3, 5, 6).astype(np.float64)
    _close(*_both(x, _grid((2, 4, 7, 2)), "bicubic", padding_mode, align_corners))


@pytest.mark.parametrize("mode,padding_mode,align_corners", itertools.product(
    ["bilinear", "nearest"], PADDINGS, [True, False]))
def test_three_dims_match_torch(mode, padding_mode, align_corners):
    x = randn(2, 3, 4, 5, 6).astype(np.float64)
    ours, theirs = _both(x, _grid((2, 3, 4, 5, 3)), mode, padding_mode, align_corners)
    _close(ours, theirs)
    assert ours[3] == "GridSampler3DBackward0"


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_a_5d_affine_grid_resamples_as_torch(mode):
    """A rotated and scaled volume: affine_grid's 5-d grid fed to grid_sample, gradients
    reaching theta through both."""
    x = randn(2, 2, 4, 5, 6).astype(np.float32)
    theta = np.array([[[0.9, -0.2, 0.1, 0.05], [0.2, 0.8, 0.0, -0.1], [0.0, 0.1, 1.1, 0.2]],
                      [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]],
                     np.float32)
    results = []
    for lib in (gradjit, torch):
        xs, th = lib.tensor(x, requires_grad=True), lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(th, (2, 2, 3, 4, 5), align_corners=False)
        out = lib.nn.functional.grid_sample(xs, grid, mode, "border", align_corners=False)
        (out * out).sum().backward()
        results.append((out.detach().numpy(), xs.grad.numpy(), th.grad.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


ERRORS = {
    "bicubic-5d": ((1, 1, 2, 2, 2), (1, 1, 1, 1, 3), "bicubic"),
    "last-dim": ((1, 1, 2, 2, 2), (1, 1, 1, 1, 2), "bilinear"),
    "batch": ((1, 1, 2, 2), (2, 1, 1, 2), "bilinear"),
    "grid-rank": ((1, 1, 2, 2, 2), (1, 1, 1, 3), "bilinear"),
    "input-rank": ((1, 1, 2), (1, 1, 1), "nearest"),
    "empty": ((1, 1, 0, 2), (1, 1, 1, 2), "bilinear"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    a, b, mode = ERRORS[name]
    same_error(lambda: gradjit.nn.functional.grid_sample(gradjit.ones(a), gradjit.ones(b), mode,
                                                         align_corners=False),
               lambda: torch.nn.functional.grid_sample(torch.ones(a), torch.ones(b), mode,
                                                       align_corners=False))


def test_torch_grid_sampler_3d_takes_modes_as_numbers():
    x, grid = randn(1, 2, 3, 4, 5).astype(np.float64), _grid((1, 2, 2, 2, 3))
    ours = gradjit.grid_sampler_3d(gradjit.tensor(x), gradjit.tensor(grid), 0, 2, True)
    theirs = torch.grid_sampler_3d(torch.tensor(x), torch.tensor(grid), 0, 2, True)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
