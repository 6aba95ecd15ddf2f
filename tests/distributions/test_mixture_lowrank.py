"""MixtureSameFamily and LowRankMultivariateNormal against PyTorch: densities, moments, cdf,
matrices and entropies with their gradients, seeded draws, reprs and errors."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _params(lib):
    made = []

    def t(values):
        made.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
        return made[-1]
    return made, t


def _mixture(lib):
    params, t = _params(lib)
    D = lib.distributions
    scalar = D.MixtureSameFamily(D.Categorical(logits=t([[0.3, -0.7], [0.1, 0.5]])),
                                 D.Normal(t([[-1.0, 2.0], [0.5, 0.1]]),
                                          t([[0.5, 1.0], [2.0, 0.3]])))
    vector = D.MixtureSameFamily(D.Categorical(t([0.3, 0.7])),
                                 D.Independent(D.Normal(t([[-1.0, 2.0], [0.5, 0.1]]),
                                                        t([[0.5, 1.0], [2.0, 0.3]])), 1))
    x = lib.tensor([[0.2, 1.5], [-0.4, 0.3]], dtype=lib.float64)
    out = [scalar.log_prob(x), scalar.cdf(x), scalar.mean, scalar.variance,
           vector.log_prob(x), vector.mean, vector.variance]
    grads = lib.autograd.grad(sum(o.sum() for o in out), params)
    lib.manual_seed(4)
    draws = [scalar.sample((3,)), vector.sample((3,))]
    info = [repr(scalar), repr(scalar.support), repr(vector.support),
            tuple(vector.batch_shape), tuple(vector.event_shape), scalar.has_rsample]
    return [o.detach().numpy() for o in out + list(grads) + draws], info


def test_mixture_matches_torch():
    want, want_info = _mixture(torch)
    got, got_info = _mixture(gradjit)
    assert got_info == want_info
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def _lowrank(lib):
    params, t = _params(lib)
    d = lib.distributions.LowRankMultivariateNormal(
        t([[0.5, -1.0, 0.2], [0.0, 1.0, 0.4]]), t([[1.0, 0.2], [0.5, -0.4], [-0.3, 0.9]]),
        t([1.5, 0.3, 0.8]))
    x = lib.tensor([[0.2, 1.5, -0.3], [-0.4, 0.3, 1.1]], dtype=lib.float64)
    out = [d.log_prob(x), d.entropy(), d.mean, d.mode, d.variance, d.scale_tril,
           d.covariance_matrix, d.precision_matrix]
    grads = lib.autograd.grad(sum(o.sum() for o in out), params)
    lib.manual_seed(2)
    draw = d.rsample((3,))
    info = [repr(d), tuple(d.batch_shape), tuple(d.event_shape), repr(d.support)]
    return [o.detach().numpy() for o in out + list(grads) + [draw]], info


def test_lowrank_matches_torch():
    want, want_info = _lowrank(torch)
    got, got_info = _lowrank(gradjit)
    assert got_info == want_info
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def _errors(lib):
    D, z = lib.distributions, lib.zeros
    return {
        "mixture-not-categorical": lambda: D.MixtureSameFamily(D.Normal(0.0, 1.0),
                                                               D.Normal(z(2), 1.0)),
        "mixture-not-distribution": lambda: D.MixtureSameFamily(D.Categorical(z(2)), 3),
        "mixture-batch": lambda: D.MixtureSameFamily(D.Categorical(z(3, 2)),
                                                     D.Normal(z(4, 2), 1.0)),
        "mixture-components": lambda: D.MixtureSameFamily(D.Categorical(z(3)),
                                                          D.Normal(z(2), 1.0)),
        "lowrank-loc": lambda: D.LowRankMultivariateNormal(z(()), z(2, 1), z(2) + 1),
        "lowrank-factor-dims": lambda: D.LowRankMultivariateNormal(z(2), z(2), z(2) + 1),
        "lowrank-factor-rows": lambda: D.LowRankMultivariateNormal(z(2), z(3, 1), z(2) + 1),
        "lowrank-diag": lambda: D.LowRankMultivariateNormal(z(2), z(2, 1), z(3) + 1),
        "lowrank-batch": lambda: D.LowRankMultivariateNormal(z(3, 2), z(4, 2, 1), z(2) + 1),
        "lowrank-kl-events": lambda: D.kl_divergence(
            D.LowRankMultivariateNormal(z(2), z(2, 1), z(2) + 1),
            D.LowRankMultivariateNormal(z(3), z(3, 1), z(3) + 1)),
        "full-lowrank-kl-events": lambda: D.kl_divergence(
            D.MultivariateNormal(z(2), lib.eye(2)),
            D.LowRankMultivariateNormal(z(3), z(3, 1), z(3) + 1)),
        "lowrank-full-kl-events": lambda: D.kl_divergence(
            D.LowRankMultivariateNormal(z(3), z(3, 1), z(3) + 1),
            D.MultivariateNormal(z(2), lib.eye(2))),
    }


@pytest.mark.parametrize("name", _errors(torch))
def test_errors_match_torch(name):
    same_error(_errors(gradjit)[name], _errors(torch)[name])
