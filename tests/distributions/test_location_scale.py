"""Exponential, Laplace, Cauchy, Gumbel, HalfNormal and LogNormal, and kl_divergence, against
torch.distributions: log_prob, cdf, icdf, entropy and moments with their gradients, seeded
samples where the draws are PyTorch's, sample shapes, and errors."""
import numpy as np
import pytest
import torch

import gradjit

LOC, SCALE, RATE = [0.5, -1.0, 2.0], [1.5, 0.3, 2.0], [0.7, 2.0, 1.2]
MAKE = {
    "Exponential": lambda D, t: D.Exponential(t(RATE)),
    "Laplace": lambda D, t: D.Laplace(t(LOC), t(SCALE)),
    "Cauchy": lambda D, t: D.Cauchy(t(LOC), t(SCALE)),
    "Gumbel": lambda D, t: D.Gumbel(t(LOC), t(SCALE)),
    "HalfNormal": lambda D, t: D.HalfNormal(t(SCALE)),
    "LogNormal": lambda D, t: D.LogNormal(t(LOC), t(SCALE)),
}
VALUES = [0.3, 1.7, 0.9]
PROBS = [0.2, 0.55, 0.9]


@pytest.mark.parametrize("name", MAKE)
def test_densities_moments_and_gradients_match_torch(name):
    results = []
    for lib in (torch, gradjit):
        params = []

        def t(values):
            params.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
            return params[-1]
        d = MAKE[name](lib.distributions, t)
        value = lib.tensor(VALUES, dtype=lib.float64)
        out = [d.log_prob(value), d.cdf(value), d.icdf(lib.tensor(PROBS, dtype=lib.float64)),
               d.entropy(), d.mean, d.mode, d.variance]
        finite = [o for o in out if bool(o.isfinite().all())]
        sum(o.sum() for o in finite).backward()
        results.append(([o.detach().numpy() for o in out], [p.grad.numpy() for p in params]))
    (want, want_grads), (got, got_grads) = results
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("name", ["Exponential", "Laplace", "Cauchy", "Gumbel"])
def test_seeded_samples_are_torchs(name):
    draws = []
    for lib in (torch, gradjit):
        lib.manual_seed(3)
        d = MAKE[name](lib.distributions, lambda v: lib.tensor(v, dtype=lib.float64))
        draws.append(d.rsample((4,)).numpy())
    np.testing.assert_allclose(draws[1], draws[0], rtol=1e-10)


@pytest.mark.parametrize("name", MAKE)
def test_sample_moments_and_shapes(name):
    gradjit.manual_seed(0)
    d = MAKE[name](gradjit.distributions, lambda v: gradjit.tensor(v, dtype=gradjit.float64))
    samples = d.sample((40000,))
    assert tuple(samples.shape) == (40000, 3) and not samples.requires_grad
    if name != "Cauchy":  # no mean or variance to compare
        np.testing.assert_allclose(samples.mean(0).numpy(), d.mean.numpy(), rtol=0.08,
                                   atol=0.03)
    np.testing.assert_allclose(np.median(samples.numpy(), 0), d.icdf(
        gradjit.full((3,), 0.5, dtype=gradjit.float64)).numpy(), rtol=0.08, atol=0.03)


PAIRS = {
    "normal": lambda D, t: (D.Normal(t([0.0, 1.0]), t([1.0, 2.0])),
                            D.Normal(t([0.5, -1.0]), t([1.5, 0.5]))),
    "uniform": lambda D, t: (D.Uniform(t([0.0, 0.0]), t([1.0, 3.0])),
                             D.Uniform(t([-1.0, 0.5]), t([2.0, 4.0]))),
    "exponential": lambda D, t: (D.Exponential(t([0.5, 2.0])), D.Exponential(t([1.0, 1.5]))),
    "laplace": lambda D, t: (D.Laplace(t([0.0, 1.0]), t([1.0, 2.0])),
                             D.Laplace(t([0.5, -1.0]), t([1.5, 0.5]))),
    "bernoulli": lambda D, t: (D.Bernoulli(t([0.2, 0.0, 1.0])), D.Bernoulli(t([0.5, 0.3, 0.9]))),
    "categorical": lambda D, t: (D.Categorical(t([[0.2, 0.8, 0.0], [0.3, 0.3, 0.4]])),
                                 D.Categorical(t([[0.5, 0.25, 0.25], [0.0, 0.5, 0.5]]))),
    "poisson": lambda D, t: (D.Poisson(t([0.5, 3.0])), D.Poisson(t([2.0, 0.7]))),
    "gamma": lambda D, t: (D.Gamma(t([0.5, 2.0]), t([1.0, 0.3])),
                           D.Gamma(t([2.0, 1.5]), t([0.7, 2.0]))),
}


@pytest.mark.parametrize("name", PAIRS)
def test_kl_divergence_matches_torch(name):
    results = []
    for lib in (torch, gradjit):
        p, q = PAIRS[name](lib.distributions, lambda v: lib.tensor(v, dtype=lib.float64))
        results.append(lib.distributions.kl_divergence(p, q).numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)


def test_kl_of_an_unregistered_pair_says_so_and_register_kl_adds_one():
    D = gradjit.distributions
    p, q = D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0)
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(p, q)
    D.register_kl(D.Cauchy, D.Normal)(lambda p, q: p.loc * 0 + 7.0)
    try:
        assert float(D.kl_divergence(p, q)) == 7.0
    finally:
        del gradjit.distributions.kl._KL[(D.Cauchy, D.Normal)]


def test_validation_matches_torch():
    for make in (lambda D: D.Exponential(-1.0), lambda D: D.Laplace(0.0, 0.0),
                 lambda D: D.HalfNormal(1.0).log_prob(torch.tensor(-1.0) if D is
                                                      torch.distributions else
                                                      gradjit.tensor(-1.0))):
        with pytest.raises(ValueError):
            make(torch.distributions)
        with pytest.raises(ValueError):
            make(gradjit.distributions)
