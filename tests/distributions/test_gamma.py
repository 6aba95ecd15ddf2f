"""Gamma and Chi2 against PyTorch: log_prob, entropy, moments and mode with their gradients,
printing and validation errors; samples by their moments and quartiles against scipy's gamma."""
import numpy as np
import pytest
import torch
from scipy import stats

import gradjit

CONC, RATE = [0.5, 2.0, 7.5], [1.0, 0.3, 2.0]


def _evaluate(lib):
    conc = lib.tensor(CONC, dtype=lib.float64, requires_grad=True)
    rate = lib.tensor(RATE, dtype=lib.float64, requires_grad=True)
    dist = lib.distributions.Gamma(conc, rate)
    value = lib.tensor([[0.1, 2.0, 5.0], [3.0, 0.5, 1.0]], dtype=lib.float64)
    out = [dist.log_prob(value), dist.entropy(), dist.mean, dist.mode, dist.variance,
           dist.stddev]
    grads = lib.autograd.grad(sum(t.sum() for t in out), [conc, rate])
    shapes = (tuple(dist.batch_shape), tuple(dist.event_shape))
    return [t.detach().numpy() for t in out + list(grads)], (shapes, repr(dist),
                                                              str(dist.support))


def test_values_gradients_and_repr_equal_pytorch():
    ours, ours_rest = _evaluate(gradjit)
    theirs, their_rest = _evaluate(torch)
    for i, (a, t) in enumerate(zip(ours, theirs)):
        # The gradients go through trigamma, which gradjit computes to about 1e-10.
        tol = 1e-12 if i < 6 else 1e-9
        np.testing.assert_allclose(a, t, rtol=tol, atol=tol)
    assert ours_rest == their_rest


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_samples_follow_the_gamma_law(dtype):
    dist = gradjit.distributions.Gamma(gradjit.tensor(CONC, dtype=getattr(gradjit, dtype)),
                                       gradjit.tensor(RATE, dtype=getattr(gradjit, dtype)))
    gradjit.manual_seed(0)
    x = dist.sample((20000,))
    assert tuple(x.shape) == (20000, 3) and x.dtype == getattr(gradjit, dtype)
    assert not x.requires_grad and tuple(dist.sample().shape) == (3,)
    x = x.double().numpy()
    assert np.all(x > 0)
    law = stats.gamma(np.array(CONC), scale=1 / np.array(RATE))
    np.testing.assert_allclose(x.mean(0), law.mean(), rtol=0.03)
    np.testing.assert_allclose(x.var(0), law.var(), rtol=0.06)
    quartiles = law.ppf(np.array([[0.25], [0.5], [0.75]]))
    ours = np.quantile(x, [0.25, 0.5, 0.75], axis=0)
    assert np.all(np.abs(ours - quartiles) < 0.05 * (quartiles[2] - quartiles[0]))


def test_rsample_gradient_is_the_implicit_one_as_torchs():
    conc = gradjit.tensor([0.3, 1.0, 2.5, 10.0, 150.0], dtype=gradjit.float64,
                          requires_grad=True)
    rate = gradjit.tensor([1.0, 0.5, 2.0, 1.5, 3.0], dtype=gradjit.float64, requires_grad=True)
    dist = gradjit.distributions.Gamma(conc, rate)
    assert dist.has_rsample
    gradjit.manual_seed(1)
    x = dist.rsample((4,))
    x.sum().backward()
    rates = torch.tensor(RATE_5, dtype=torch.float64)
    draws = torch.tensor(x.detach().numpy()) * rates
    alpha = torch.tensor(CONC_5, dtype=torch.float64).expand(4, 5)
    # torch's derivative of a standard draw, chained through the division by the rate
    want_conc = (torch._standard_gamma_grad(alpha, draws) / rates).sum(0)
    want_rate = (-draws / rates ** 2).sum(0)
    np.testing.assert_allclose(conc.grad.numpy(), want_conc.numpy(), rtol=1e-4)
    np.testing.assert_allclose(rate.grad.numpy(), want_rate.numpy(), rtol=1e-10)


CONC_5, RATE_5 = [0.3, 1.0, 2.5, 10.0, 150.0], [1.0, 0.5, 2.0, 1.5, 3.0]


@pytest.mark.parametrize("make", [
    lambda lib, D: D.Gamma(lib.tensor([1.0, -1.0]), 1.0),
    lambda lib, D: D.Gamma(1.0, 0.0),
    lambda lib, D: D.Gamma(2.0, 1.0).log_prob(lib.tensor(-0.5)),
])
def test_validation_errors_match_pytorch(make):
    def outcome(lib):
        try:
            make(lib, lib.distributions)
        except Exception as e:  # noqa: BLE001 - the comparison is the test
            return type(e), str(e)
        return None
    expected = outcome(torch)
    assert expected is not None
    assert outcome(gradjit) == expected


def _chi2(lib):
    df = lib.tensor([0.5, 3.0, 9.0], dtype=lib.float64, requires_grad=True)
    dist = lib.distributions.Chi2(df)
    value = lib.tensor([[0.1, 2.0, 5.0], [3.0, 0.5, 1.0]], dtype=lib.float64)
    out = [dist.log_prob(value), dist.entropy(), dist.mean, dist.variance, dist.mode, dist.df]
    (grad,) = lib.autograd.grad(sum(t.sum() for t in out), [df])
    return [t.detach().numpy() for t in out + [grad]], (repr(dist), tuple(dist.batch_shape))


def test_chi2_equals_pytorch():
    ours, ours_rest = _chi2(gradjit)
    theirs, their_rest = _chi2(torch)
    for i, (a, t) in enumerate(zip(ours, theirs)):
        tol = 1e-12 if i < 6 else 1e-9  # the gradient goes through trigamma
        np.testing.assert_allclose(a, t, rtol=tol, atol=tol)
    assert ours_rest == their_rest
    gradjit.manual_seed(0)
    x = gradjit.distributions.Chi2(gradjit.tensor([3.0])).sample((20000,)).numpy()
    np.testing.assert_allclose([x.mean(), x.var()], [3.0, 6.0], rtol=0.06)


@pytest.mark.parametrize("make", [
    lambda lib, D: D.Chi2(-1.0),
    lambda lib, D: D.Chi2(2.0).log_prob(lib.tensor(-1.0)),
])
def test_chi2_validation_errors_match_pytorch(make):
    test_validation_errors_match_pytorch(make)
