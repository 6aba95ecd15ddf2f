"""kl_divergence against PyTorch for every pair PyTorch registers among gradjit's
distributions: values (inf where q misses p's support) and gradients of the finite ones."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

# family -> (the p of a pair, the q of a pair), from a tensor factory t
FAMILIES = {
    "Bernoulli": (lambda D, t: D.Bernoulli(t([0.2, 0.7])), lambda D, t: D.Bernoulli(t([0.5, 0.4]))),
    "Beta": (lambda D, t: D.Beta(t([2.0, 0.5]), t([3.0, 0.4])),
             lambda D, t: D.Beta(t([1.5, 2.5]), t([0.7, 1.2]))),
    "Binomial": (lambda D, t: D.Binomial(t([5.0, 7.0]), t([0.2, 0.7])),
                 lambda D, t: D.Binomial(t([5.0, 4.0]), t([0.5, 0.4]))),
    "Categorical": (lambda D, t: D.Categorical(t([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])),
                    lambda D, t: D.Categorical(t([[0.4, 0.3, 0.3], [0.2, 0.2, 0.6]]))),
    "Cauchy": (lambda D, t: D.Cauchy(t([0.5, -1.0]), t([1.5, 0.3])),
               lambda D, t: D.Cauchy(t([0.0, 1.0]), t([1.0, 2.0]))),
    "ContinuousBernoulli": (lambda D, t: D.ContinuousBernoulli(t([0.2, 0.4995])),
                            lambda D, t: D.ContinuousBernoulli(logits=t([0.5, -1.4]))),
    "Dirichlet": (lambda D, t: D.Dirichlet(t([[2.0, 0.5, 3.0], [0.7, 0.4, 0.9]])),
                  lambda D, t: D.Dirichlet(t([[1.0, 1.5, 2.0], [0.5, 0.8, 1.9]]))),
    "Exponential": (lambda D, t: D.Exponential(t([0.7, 2.0])),
                    lambda D, t: D.Exponential(t([1.5, 0.4]))),
    "Gamma": (lambda D, t: D.Gamma(t([2.0, 0.5]), t([1.0, 0.3])),
              lambda D, t: D.Gamma(t([1.5, 3.0]), t([0.7, 2.0]))),
    "Geometric": (lambda D, t: D.Geometric(t([0.2, 0.7])),
                  lambda D, t: D.Geometric(t([0.5, 0.4]))),
    "Gumbel": (lambda D, t: D.Gumbel(t([0.5, -1.0]), t([1.5, 0.3])),
               lambda D, t: D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0]))),
    "HalfNormal": (lambda D, t: D.HalfNormal(t([1.5, 0.3])),
                   lambda D, t: D.HalfNormal(t([1.0, 2.0]))),
    "Independent": (lambda D, t: D.Independent(D.Normal(t([0.5, -1.0]), t([1.5, 0.3])), 1),
                    lambda D, t: D.Independent(D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), 1)),
    "Laplace": (lambda D, t: D.Laplace(t([0.5, -1.0]), t([1.5, 0.3])),
                lambda D, t: D.Laplace(t([0.0, 1.0]), t([1.0, 2.0]))),
    "LogNormal": (lambda D, t: D.LogNormal(t([0.5, -1.0]), t([1.5, 0.3])),
                  lambda D, t: D.LogNormal(t([0.0, 1.0]), t([1.0, 2.0]))),
    "LowRankMultivariateNormal": (
        lambda D, t: D.LowRankMultivariateNormal(t([0.5, -1.0, 0.2]), t([[1.0], [0.5], [-0.3]]),
                                                 t([1.5, 0.3, 0.8])),
        lambda D, t: D.LowRankMultivariateNormal(t([[0.0, 1.0, 0.4], [0.3, 0.2, 0.1]]),
                                                 t([[0.3, 0.1], [-0.2, 0.6], [0.4, 0.5]]),
                                                 t([1.0, 2.0, 0.6]))),
    "MultivariateNormal": (
        lambda D, t: D.MultivariateNormal(t([0.5, -1.0, 0.2]), scale_tril=t(
            [[1.0, 0.0, 0.0], [0.5, 1.2, 0.0], [-0.3, 0.2, 0.7]])),
        lambda D, t: D.MultivariateNormal(t([[0.0, 1.0, 0.4], [0.3, 0.2, 0.1]]), t(
            [[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]]))),
    "Normal": (lambda D, t: D.Normal(t([0.5, -1.0]), t([1.5, 0.3])),
               lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, 2.0]))),
    "OneHotCategorical": (lambda D, t: D.OneHotCategorical(t([[0.2, 0.3, 0.5],
                                                               [0.1, 0.6, 0.3]])),
                          lambda D, t: D.OneHotCategorical(t([[0.4, 0.3, 0.3],
                                                               [0.2, 0.2, 0.6]]))),
    "Pareto": (lambda D, t: D.Pareto(t([0.5, 1.5]), t([2.5, 3.5])),
               lambda D, t: D.Pareto(t([0.3, 2.0]), t([1.5, 3.0]))),
    "Poisson": (lambda D, t: D.Poisson(t([0.5, 3.0])), lambda D, t: D.Poisson(t([2.0, 0.7]))),
    "Uniform": (lambda D, t: D.Uniform(t([0.2, 0.1]), t([0.7, 0.9])),
                lambda D, t: D.Uniform(t([0.0, -1.0]), t([1.0, 2.0]))),
}
PAIRS = sorted((p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY
               if p.__name__ in FAMILIES and q.__name__ in FAMILIES) + [
    ("LogNormal", "LogNormal")]


def _kl(lib, p_name, q_name):
    params = []

    def t(values):
        params.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
        return params[-1]
    D = lib.distributions
    p, q = FAMILIES[p_name][0](D, t), FAMILIES[q_name][1](D, t)
    kl = lib.distributions.kl_divergence(p, q)
    finite = kl[kl.isfinite()]
    grads = lib.autograd.grad(finite.sum(), params, allow_unused=True) if finite.numel() \
        else []
    return kl.detach().numpy(), [g.numpy() for g in grads if g is not None]


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
def test_kl_values_and_gradients_match_torch(pair):
    want, want_grads = _kl(torch, *pair)
    got, got_grads = _kl(gradjit, *pair)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert len(got_grads) == len(want_grads)
    for g, w in zip(got_grads, want_grads):
        # digamma's derivative (trigamma) in gradjit is good to about 1e-10
        np.testing.assert_allclose(g, w, rtol=1e-8, atol=1e-9)


def test_every_pair_torch_registers_among_ours_is_covered():
    ours = {(p.__name__, q.__name__) for p, q in gradjit.distributions.kl._KL}
    theirs = {(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY}
    names = set(gradjit.distributions.__all__)
    missing = {pair for pair in theirs - ours if set(pair) <= names}
    assert not missing
    assert set(PAIRS) - {("LogNormal", "LogNormal")} == \
        {pair for pair in theirs if set(pair) <= set(FAMILIES)}


def test_kl_errors_match_torch():
    def make(lib):
        D, t = lib.distributions, lib.tensor
        return D.Binomial(t([2.0]), t([0.3])), D.Binomial(t([5.0]), t([0.3]))
    same_error(lambda: gradjit.distributions.kl_divergence(*make(gradjit)),
               lambda: torch.distributions.kl_divergence(*make(torch)))
    for lib in (torch, gradjit):
        D = lib.distributions
        with pytest.raises(NotImplementedError):
            D.kl_divergence(D.LogNormal(0.0, 1.0), D.Gumbel(0.0, 1.0))
        with pytest.raises(NotImplementedError):
            D.kl_divergence(D.Independent(D.Normal(lib.zeros(2, 2), 1.0), 1),
                            D.Independent(D.Normal(lib.zeros(2, 2), 1.0), 2))
