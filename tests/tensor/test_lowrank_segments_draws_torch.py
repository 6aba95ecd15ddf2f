"""svd_lowrank/pca_lowrank (seeded: PyTorch's random projection), segment_reduce (values,
gradients, errors) and the count draws poisson/binomial (by their laws) against torch and
scipy."""
import numpy as np
import pytest
from scipy import stats

import gradjit
from tests.nn.helpers import torch
from tests.torch_reference import same_error

RNG = np.random.default_rng(4)
A = RNG.standard_normal((8, 5))


def _aligned(u, reference):
    """u's columns with the signs of the reference's (an SVD fixes a column up to sign)."""
    return u * np.sign((u * reference).sum(0))


@pytest.mark.parametrize("name, kwargs", [
    ("svd_lowrank", {"q": 3}), ("svd_lowrank", {"q": 4, "niter": 0}),
    ("svd_lowrank", {"q": 3, "M": np.ones((1, 5))}), ("pca_lowrank", {"q": 2}),
    ("pca_lowrank", {}), ("pca_lowrank", {"q": 3, "center": False})])
@pytest.mark.parametrize("wide", [False, True])
def test_lowrank_matches_torch(name, kwargs, wide):
    matrix = A.T.copy() if wide else A
    results = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        args = {k: lib.tensor(v.T if wide else v) if isinstance(v, np.ndarray) else v
                for k, v in kwargs.items()}
        x = lib.tensor(matrix, requires_grad=True)
        u, s, v = getattr(lib, name)(x, **args)
        s.sum().backward()
        results.append((u.detach().numpy(), s.detach().numpy(), v.detach().numpy(),
                        x.grad.numpy()))
    (tu, ts, tv, tg), (gu, gs, gv, gg) = results
    np.testing.assert_allclose(gs, ts, rtol=1e-10, atol=1e-12)
    kept = ts > 1e-8  # a centred wide matrix has a null direction, fixed only up to rotation
    np.testing.assert_allclose(_aligned(gu, tu)[:, kept], tu[:, kept], atol=1e-9)
    np.testing.assert_allclose(_aligned(gv, tv)[:, kept], tv[:, kept], atol=1e-9)
    np.testing.assert_allclose(gg, tg, atol=1e-9)


@pytest.mark.parametrize("kwargs", [{"q": 7}, {"q": -1}, {"niter": -1}])
def test_pca_lowrank_errors(kwargs):
    same_error(lambda: gradjit.pca_lowrank(gradjit.tensor(A), **kwargs),
               lambda: torch.pca_lowrank(torch.tensor(A), **kwargs))


DATA = RNG.standard_normal(6)
SEGMENTS = {
    "lengths": lambda L: {"lengths": L.tensor([2, 0, 3, 1])},
    "offsets": lambda L: {"offsets": L.tensor([0, 2, 2, 5, 6])},
    "initial": lambda L: {"lengths": L.tensor([2, 0, 3, 1]), "initial": 0.5},
}


@pytest.mark.parametrize("segments", SEGMENTS)
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod", "amax"])
def test_segment_reduce_matches_torch(reduce, segments):
    results = []
    for lib in (torch, gradjit):
        x = lib.tensor(DATA, requires_grad=True)
        out = lib.segment_reduce(x, reduce, **SEGMENTS[segments](lib))
        out[out.isfinite()].sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), type(out.grad_fn).__name__))
    (want, want_grad, want_node), (got, got_grad, got_node) = results
    assert got_node == want_node
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-12)


def test_segment_reduce_rows_along_an_axis():
    data = RNG.standard_normal((2, 6, 3))
    got, want = (lib.segment_reduce(lib.tensor(data), "sum", axis=1,
                                    lengths=lib.tensor([[2, 4], [1, 5]]))
                 for lib in (gradjit, torch))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


SEGMENT_ERRORS = {
    "no_segments": lambda L: L.segment_reduce(L.ones(6), "sum"),
    "short": lambda L: L.segment_reduce(L.ones(6), "sum", lengths=L.tensor([2, 2])),
    "axis": lambda L: L.segment_reduce(L.ones(6), "sum", lengths=L.tensor([6]), axis=1),
    "indices": lambda L: L.segment_reduce(L.ones(6), "sum", indices=L.tensor([6])),
    "reduce": lambda L: L.segment_reduce(L.ones(6), "foo", lengths=L.tensor([6])),
}


@pytest.mark.parametrize("name", SEGMENT_ERRORS)
def test_segment_reduce_errors(name):
    same_error(lambda: SEGMENT_ERRORS[name](gradjit), lambda: SEGMENT_ERRORS[name](torch))


def test_poisson_follows_its_law():
    gradjit.manual_seed(0)
    rates = gradjit.tensor([0.5, 4.0, 30.0]).repeat(4000, 1).requires_grad_()
    draws = gradjit.poisson(rates)
    assert draws.dtype == gradjit.float32 and type(draws.grad_fn).__name__ == "PoissonBackward0"
    values = draws.detach().numpy()
    for column, rate in enumerate((0.5, 4.0, 30.0)):
        counts = np.bincount(values[:, column].astype(int), minlength=int(rate * 3) + 10)
        expected = stats.poisson.pmf(np.arange(counts.size), rate) * values.shape[0]
        keep = expected > 5
        assert stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() /
                               expected[keep].sum()).pvalue > 1e-3
    draws.sum().backward()
    assert (rates.grad.numpy() == 0).all()


def test_binomial_follows_its_law():
    gradjit.manual_seed(1)
    count = gradjit.tensor([10.0, 3.0, 0.0]).repeat(4000, 1)
    prob = gradjit.tensor([0.3, 0.9, 0.5])
    values = gradjit.binomial(count, prob).numpy()
    for column, (n, p) in enumerate(((10, 0.3), (3, 0.9))):
        counts = np.bincount(values[:, column].astype(int), minlength=n + 1)
        expected = stats.binom.pmf(np.arange(n + 1), n, p) * values.shape[0]
        keep = expected > 5
        assert stats.chisquare(counts[keep], expected[keep] * counts[keep].sum() /
                               expected[keep].sum()).pvalue > 1e-3
    assert (values[:, 2] == 0).all()


def test_count_draws_are_reproducible():
    draws = []
    for _ in range(2):
        gradjit.manual_seed(5)
        draws.append(gradjit.poisson(gradjit.full((50,), 3.0)).numpy())
    np.testing.assert_array_equal(*draws)


COUNT_ERRORS = {
    "negative_rate": lambda L: L.poisson(L.tensor([-1.0])),
    "integer_rate": lambda L: L.poisson(L.tensor([1, 2])),
    "integer_count": lambda L: L.binomial(L.tensor([1, 2]), L.tensor([0.5, 0.5])),
}


@pytest.mark.parametrize("name", COUNT_ERRORS)
def test_count_draw_errors(name):
    same_error(lambda: COUNT_ERRORS[name](gradjit), lambda: COUNT_ERRORS[name](torch))
