"""PyTorch's distributions suite's KL checks, with torch and gradjit side by side: every pair of
families it registers (values over 4 x 4 parameter grids, and their gradients), the pairs whose
divergence is infinite, edge cases, shapes over every example, and the exponential-family
(Bregman) forms of entropy and KL."""
import numpy as np
import pytest
import torch

import gradjit
from tests.distributions.test_torch_suite_generic import CASES, IDS, both, outcome


def pairwise(lib, name, *params):
    """Two distributions whose 4 x 4 batches pair every parameter set with every other."""
    cls = getattr(lib.distributions, name)
    first = [lib.tensor([p] * len(p)) for p in params]
    return cls(*first), cls(*[p.transpose(0, 1) for p in first])


class _Binomial30:
    def __init__(self, lib):
        self.lib = lib

    def __call__(self, probs):
        return self.lib.distributions.Binomial(30, probs)


GRIDS = {
    "bernoulli": ("Bernoulli", [0.1, 0.2, 0.6, 0.9]),
    "beta": ("Beta", [1.0, 2.5, 1.0, 2.5], [1.5, 1.5, 3.5, 3.5]),
    "categorical": ("Categorical", [[0.4, 0.3, 0.3], [0.2, 0.7, 0.1], [0.33, 0.33, 0.34],
                                    [0.2, 0.2, 0.6]]),
    "cauchy": ("Cauchy", [-2.0, 2.0, -3.0, 3.0], [1.0, 2.0, 1.0, 2.0]),
    "chi2": ("Chi2", [1.0, 2.0, 2.5, 5.0]),
    "dirichlet": ("Dirichlet", [[0.1, 0.2, 0.7], [0.5, 0.4, 0.1], [0.33, 0.33, 0.34],
                                [0.2, 0.2, 0.4]]),
    "exponential": ("Exponential", [1.0, 2.5, 5.0, 10.0]),
    "gamma": ("Gamma", [1.0, 2.5, 1.0, 2.5], [1.5, 1.5, 3.5, 3.5]),
    "gumbel": ("Gumbel", [-2.0, 4.0, -3.0, 6.0], [1.0, 2.5, 1.0, 2.5]),
    "halfnormal": ("HalfNormal", [1.0, 2.0, 1.0, 2.0]),
    "inversegamma": ("InverseGamma", [1.0, 2.5, 1.0, 2.5], [1.5, 1.5, 3.5, 3.5]),
    "laplace": ("Laplace", [-2.0, 4.0, -3.0, 6.0], [1.0, 2.5, 1.0, 2.5]),
    "lognormal": ("LogNormal", [-2.0, 2.0, -3.0, 3.0], [1.0, 2.0, 1.0, 2.0]),
    "normal": ("Normal", [-2.0, 2.0, -3.0, 3.0], [1.0, 2.0, 1.0, 2.0]),
    "onehotcategorical": ("OneHotCategorical", [[0.4, 0.3, 0.3], [0.2, 0.7, 0.1],
                                                [0.33, 0.33, 0.34], [0.2, 0.2, 0.6]]),
    "poisson": ("Poisson", [0.3, 1.0, 5.0, 10.0]),
    "uniform_within_unit": ("Uniform", [0.1, 0.9, 0.2, 0.75], [0.15, 0.95, 0.25, 0.8]),
    "uniform_positive": ("Uniform", [1, 1.5, 2, 4], [1.2, 2.0, 3, 7]),
    "uniform_real": ("Uniform", [-2.0, -1, 0, 2], [-1.0, 1, 1, 4]),
    "uniform_pareto": ("Uniform", [6.5, 7.5, 6.5, 8.5], [7.5, 8.5, 9.5, 9.5]),
    "continuous_bernoulli": ("ContinuousBernoulli", [0.1, 0.2, 0.5, 0.9]),
}


def family(lib, key):
    D, t = lib.distributions, lib.tensor
    if key in GRIDS:
        return pairwise(lib, *GRIDS[key])
    if key == "binomial30":
        return (D.Binomial(30, t([[0.1, 0.2, 0.6, 0.9]] * 4)),
                D.Binomial(30, t([[0.1, 0.2, 0.6, 0.9]] * 4).transpose(0, 1)))
    if key == "binomial_vectorized_count":
        return (D.Binomial(t([3, 4]), t([0.4, 0.6])), D.Binomial(t([3, 4]), t([0.5, 0.8])))
    if key == "independent":
        normal = pairwise(lib, *GRIDS["normal"])
        return D.Independent(normal[0], 1), D.Independent(normal[1], 1)
    assert key == "pareto"
    return (D.Pareto(t([2.5, 4.0, 2.5, 4.0]).expand(4, 4), t([2.25, 3.75, 2.25, 3.75])
                     .expand(4, 4)),
            D.Pareto(t([2.25, 3.75, 2.25, 3.8]).expand(4, 4), t([2.25, 3.75, 2.25, 3.75])
                     .expand(4, 4)))


FINITE = [
    ("bernoulli", "bernoulli"), ("bernoulli", "poisson"), ("beta", "beta"), ("beta", "chi2"),
    ("beta", "exponential"), ("beta", "gamma"), ("beta", "normal"), ("binomial30", "binomial30"),
    ("binomial_vectorized_count", "binomial_vectorized_count"),
    ("categorical", "categorical"), ("cauchy", "cauchy"), ("chi2", "chi2"),
    ("chi2", "exponential"), ("chi2", "gamma"), ("chi2", "normal"), ("dirichlet", "dirichlet"),
    ("exponential", "chi2"), ("exponential", "exponential"), ("exponential", "gamma"),
    ("exponential", "gumbel"), ("exponential", "normal"), ("gamma", "chi2"),
    ("gamma", "exponential"), ("gamma", "gamma"), ("gamma", "gumbel"), ("gamma", "normal"),
    ("gumbel", "gumbel"), ("gumbel", "normal"), ("halfnormal", "halfnormal"),
    ("independent", "independent"), ("inversegamma", "inversegamma"), ("laplace", "laplace"),
    ("lognormal", "lognormal"), ("laplace", "normal"), ("normal", "gumbel"),
    ("normal", "laplace"), ("normal", "normal"), ("onehotcategorical", "onehotcategorical"),
    ("pareto", "chi2"), ("pareto", "pareto"), ("pareto", "exponential"), ("pareto", "gamma"),
    ("poisson", "poisson"), ("uniform_within_unit", "beta"), ("uniform_positive", "chi2"),
    ("uniform_positive", "exponential"), ("uniform_positive", "gamma"),
    ("uniform_real", "gumbel"), ("uniform_real", "normal"), ("uniform_pareto", "pareto"),
    ("continuous_bernoulli", "continuous_bernoulli"),
    ("continuous_bernoulli", "exponential"), ("continuous_bernoulli", "normal"),
    ("beta", "continuous_bernoulli"),
]


@pytest.mark.parametrize("p_key,q_key", FINITE)
def test_kl_between_registered_families_equals_pytorch(p_key, q_key):
    def kl(lib):
        return lib.distributions.kl_divergence(family(lib, p_key)[0], family(lib, q_key)[1])
    expected, found = kl(torch), kl(gradjit)
    assert tuple(found.shape) == tuple(expected.shape)
    np.testing.assert_allclose(found.numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)


INFINITE = [
    ("Bernoulli", (0,), "Bernoulli", (1,)), ("Bernoulli", (1,), "Bernoulli", (0,)),
    ("Categorical", ([0.9, 0.1],), "Categorical", ([1.0, 0.0],)),
    ("Categorical", ([[0.9, 0.1], [0.9, 0.1]],), "Categorical", ([1.0, 0.0],)),
    ("Beta", (1, 2), "Uniform", (0.25, 1)), ("Beta", (1, 2), "Uniform", (0, 0.75)),
    ("Beta", (1, 2), "Uniform", (0.25, 0.75)), ("Beta", (1, 2), "Pareto", (1, 2)),
    ("Binomial", (31, 0.7), "Binomial", (30, 0.3)),
    ("Binomial", ([3, 4], [0.4, 0.6]), "Binomial", ([2, 3], [0.5, 0.8])),
    ("Poisson", (2,), "Bernoulli", (0.5,)), ("Poisson", (2.3,), "Binomial", (10, 0.2)),
    ("Uniform", (-1, 1), "Beta", (2, 2)), ("Uniform", (0, 2), "Beta", (3, 4)),
    ("Pareto", (1, 2), "Normal", (-3, 4)), ("Pareto", (1, 2), "Pareto", (3, 4)),
    ("Pareto", (2, 1), "Chi2", (3,)), ("ContinuousBernoulli", (0.25,), "Uniform", (0.25, 1)),
    ("ContinuousBernoulli", (0.25,), "Uniform", (0, 0.75)),
    ("ContinuousBernoulli", (0.25,), "Pareto", (1, 2)),
] + [(p, pa, q, qa) for p, pa in [("Chi2", (1,)), ("Exponential", (1,)), ("Gamma", (1, 2)),
                                  ("Gumbel", (-1, 2)), ("Laplace", (-1, 2)),
                                  ("Normal", (-1, 2)), ("Uniform", (-1, 2))]
     for q, qa in [("Beta", (3, 4)), ("Pareto", (3, 4)), ("Uniform", (-3, 4)),
                   ("Chi2", (3,)), ("Exponential", (3,)), ("Gamma", (3, 4)),
                   ("ContinuousBernoulli", (0.75,))]]


def _make(lib, name, args):
    return getattr(lib.distributions, name)(*[lib.tensor(a) if isinstance(a, list) else a
                                              for a in args])


@pytest.mark.parametrize("p,pa,q,qa", INFINITE)
def test_kl_infinite_or_as_pytorch(p, pa, q, qa):
    def kl(lib):
        return outcome(lambda: lib.distributions.kl_divergence(_make(lib, p, pa),
                                                               _make(lib, q, qa)))
    expected, found = kl(torch), kl(gradjit)
    if isinstance(expected, tuple):
        assert found == expected
        return
    np.testing.assert_allclose(found.numpy(), expected.numpy(), rtol=1e-5)


def test_kl_edge_cases_are_zero():
    for lib in (torch, gradjit):
        D, t = lib.distributions, lib.tensor
        for p, q in [(D.Bernoulli(0), D.Bernoulli(0)), (D.Bernoulli(1), D.Bernoulli(1)),
                     (D.Categorical(t([0.0, 1.0])), D.Categorical(t([0.0, 1.0]))),
                     (D.Uniform(0, 1), D.Beta(1, 1))]:
            assert float(D.kl_divergence(p, q)) == 0


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_kl_of_every_example_with_itself(case):
    _, name, spec = case
    t, g = both(name, spec)
    expected = outcome(lambda: torch.distributions.kl_divergence(t, t))
    found = outcome(lambda: gradjit.distributions.kl_divergence(g, g))
    if isinstance(expected, tuple):
        assert found == expected
        return
    assert tuple(found.shape) == tuple(expected.shape) == tuple(t.batch_shape)
    np.testing.assert_allclose(found.detach().numpy(), expected.detach().numpy(),
                               rtol=1e-4, atol=1e-4)


def test_kl_of_transformed_and_independent_normals_keeps_the_batch():
    for lib in (torch, gradjit):
        D = lib.distributions
        diag = D.Independent(D.Normal(lib.zeros(2, 3), lib.ones(2, 3)), 1)
        moved = D.TransformedDistribution(diag, D.AffineTransform(loc=0.0, scale=2.0))
        assert tuple(D.kl_divergence(diag, diag).shape) == (2,)
        assert tuple(D.kl_divergence(moved, moved).shape) == (2,)


def _tril(lib, x):
    return lib.distributions.transform_to(lib.distributions.constraints.lower_cholesky)(x)


@pytest.mark.parametrize("q_batch", [(7,), ()])
def test_kl_multivariate_normal_batched_equals_pytorch(q_batch):
    rng = np.random.RandomState(0)
    locs = [rng.randn(7, 3), rng.randn(7, 3)]
    trils = [rng.randn(7, 3, 3), rng.randn(*q_batch, 3, 3)]

    def kl(lib):
        D = lib.distributions
        p = D.MultivariateNormal(lib.tensor(locs[0]), scale_tril=_tril(lib, lib.tensor(trils[0])))
        q = D.MultivariateNormal(lib.tensor(locs[1]), scale_tril=_tril(lib, lib.tensor(trils[1])))
        one = D.kl_divergence(D.MultivariateNormal(p.loc[0], scale_tril=p.scale_tril[0]),
                              D.MultivariateNormal(q.loc[0], scale_tril=q.scale_tril[0]
                                                   if q_batch else q.scale_tril))
        return D.kl_divergence(p, q), one
    (t_all, t_one), (g_all, g_one) = kl(torch), kl(gradjit)
    np.testing.assert_allclose(g_one.numpy(), t_one.numpy(), rtol=1e-10)
    np.testing.assert_allclose(g_all.numpy(), t_all.numpy(), rtol=1e-10)
    np.testing.assert_allclose(g_one.numpy(), g_all[0].numpy(), rtol=1e-10)


def test_kl_lowrank_and_full_multivariate_normals_equal_pytorch():
    rng = np.random.RandomState(1)
    loc, factor, diag = rng.randn(2, 5, 4), rng.randn(2, 5, 4, 3), rng.randn(2, 5, 4)

    def kls(lib):
        D, t = lib.distributions, lib.tensor
        low = [D.LowRankMultivariateNormal(t(loc[i]), t(factor[i]), t(np.exp(diag[i])))
               for i in range(2)]
        full = [D.MultivariateNormal(t(loc[i]), d.covariance_matrix) for i, d in enumerate(low)]
        return [D.kl_divergence(a, b) for a, b in [(low[0], low[1]), (low[0], full[1]),
                                                    (full[0], low[1]), (full[0], full[1])]]
    for g, t in zip(kls(gradjit), kls(torch)):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-8)


EXP_FAMILY = [c for c in CASES
              if issubclass(getattr(torch.distributions, c[1]),
                            torch.distributions.ExponentialFamily)]


@pytest.mark.parametrize("case", EXP_FAMILY, ids=[c[0] for c in EXP_FAMILY])
def test_exponential_family_bregman_entropy_and_kl(case):
    _, name, spec = case
    t, g = both(name, spec)
    for fn in (lambda lib, d: lib.distributions.ExponentialFamily.entropy(d),
               lambda lib, d: lib.distributions.kl._kl_expfamily_expfamily(d, d)):
        expected, found = outcome(lambda: fn(torch, t)), outcome(lambda: fn(gradjit, g))
        if isinstance(expected, tuple):
            assert found == expected
        else:
            np.testing.assert_allclose(found.detach().numpy(), expected.detach().numpy(),
                                       rtol=1e-4, atol=1e-4)
