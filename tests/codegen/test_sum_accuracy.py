"""Compiled float32 sums against numpy's float64 sum of the same data: the error stays at
pairwise summation's level (a few ulps times log2 n), whatever the reduction path."""
import numpy as np
import pytest

import gradjit
import gradjit as torch

SIZES = [1000, 100_000, 1_000_000, 4_000_000]


def bound(x, axis=None):
    """A few ulps of the sum of magnitudes per doubling of the summed count."""
    count = x.size if axis is None else x.shape[axis]
    magnitude = np.abs(x.astype(np.float64)).sum(axis)
    return 2 * np.finfo(np.float32).eps * np.log2(max(count, 2)) * magnitude


def check(got, x, axis=None, scale=1.0):
    exact = x.astype(np.float64).sum(axis) * scale
    err = np.abs(np.asarray(got, np.float64) - exact)
    assert np.all(err <= bound(x, axis) * scale), (err.max(), exact)


def draw(shape, positive):
    rng = np.random.default_rng(sum(shape))
    if positive == "constant":  # every partial rounds the same way: errors add up
        return np.full(shape, 0.1, np.float32)
    if positive:
        return np.full(shape, 0.1, np.float32) + rng.random(shape, np.float32) * 1e-3
    return rng.standard_normal(shape, np.float32) + 0.5


@pytest.mark.parametrize("positive", ["constant", True, False])
@pytest.mark.parametrize("n", SIZES)
def test_full_sum_and_mean(n, positive):
    x = draw((n,), positive)
    f = gradjit.jit(lambda t: (t.sum(), t.mean()))
    total, mean = f(torch.tensor(x))
    check(total.numpy(), x)
    check(mean.numpy(), x, scale=1 / n)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("shape,axis", [("n3", 0), ("n3", 1), ("3n", 1), ("3n", 0)])
def test_axis_sums(n, shape, axis):
    x = draw((n, 3) if shape == "n3" else (3, n), "constant")
    got = gradjit.jit(lambda t: t.sum(axis))(torch.tensor(x))
    check(got.numpy(), x, axis)


@pytest.mark.parametrize("n", [100_000, 1_000_000])
def test_gradient_reducing_a_broadcast(n):
    """d/db sum(w * (x + b)) over x: (n, 3), b: (3,) is the column sum of w."""
    w = draw((n, 3), True)

    def loss(x, b, w):
        return (w * (x + b)).sum()
    got = gradjit.jit(gradjit.grad(loss, argnums=1))(torch.zeros(n, 3), torch.zeros(3),
                                                     torch.tensor(w))
    check(np.asarray(got), w, 0)


def test_independent_of_thread_count():
    x = draw((1_000_000, 3), False)
    f = gradjit.jit(lambda t: (t.sum(), t.sum(0), t.sum(1)))
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = [r.numpy() for r in f(torch.tensor(x))]
        torch.set_num_threads(4)
        many = [r.numpy() for r in f(torch.tensor(x))]
    finally:
        torch.set_num_threads(threads)
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape,axis", [((4, 250_000, 3), 1), ((3, 300_000, 4), (0, 1)),
                                        ((250_000, 4, 3), 0)])
def test_sums_over_middle_and_outer_axes(shape, axis):
    x = draw(shape, "constant")
    got = gradjit.jit(lambda t: t.sum(axis))(torch.tensor(x))
    axes = axis if isinstance(axis, tuple) else (axis,)
    exact = x.astype(np.float64).sum(axis)
    count = int(np.prod([shape[a] for a in axes]))
    assert np.all(np.abs(got.numpy() - exact) <= 2 * np.finfo(np.float32).eps *
                  np.log2(count) * exact)
