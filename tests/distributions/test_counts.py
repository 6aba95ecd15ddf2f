"""Geometric, Poisson and Binomial against PyTorch: log_prob, entropy and moments with their
gradients (by probs or logits), printing, validation errors, and samples by their counts."""
import numpy as np
import pytest
import torch

import gradjit

CASES = {
    "probs": (lambda D, p: D.Geometric(probs=p), [0.2, 0.7, 1.0]),
    "logits": (lambda D, p: D.Geometric(logits=p), [-1.5, 0.3, 2.0]),
}
VALUE = [[0.0, 3.0, 0.0], [2.0, 1.0, 5.0]]


def _evaluate(lib, name):
    make, param = CASES[name]
    param = lib.tensor(param, dtype=lib.float64, requires_grad=True)
    dist = make(lib.distributions, param)
    value = lib.tensor(VALUE if name == "logits" else [row[:2] + [0.0] for row in VALUE],
                       dtype=lib.float64)
    out = {"log_prob": dist.log_prob(value), "entropy": dist.entropy(), "mean": dist.mean,
           "mode": dist.mode, "variance": dist.variance, "probs": dist.probs}
    total = out["log_prob"].sum() + out["entropy"][:2].sum() + out["variance"].sum()
    (grad,) = lib.autograd.grad(total, [param])
    return out, grad, (tuple(dist.batch_shape), tuple(dist.event_shape)), repr(dist)


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_shapes_and_repr_equal_pytorch(name):
    ours, ours_grad, ours_shapes, ours_repr = _evaluate(gradjit, name)
    theirs, their_grad, their_shapes, their_repr = _evaluate(torch, name)
    for key, t in theirs.items():
        np.testing.assert_allclose(ours[key].detach().numpy(), t.detach().numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=key)
    np.testing.assert_allclose(ours_grad.numpy(), their_grad.numpy(), rtol=1e-10, atol=1e-12)
    assert (ours_shapes, ours_repr) == (their_shapes, their_repr)
    assert str(gradjit.distributions.Geometric(0.5).support) == \
        str(torch.distributions.Geometric(0.5).support)


def test_samples_follow_the_geometric_law():
    probs = [0.2, 0.7, 1.0]
    dist = gradjit.distributions.Geometric(gradjit.tensor(probs))
    gradjit.manual_seed(0)
    samples = dist.sample((20000,))
    assert tuple(samples.shape) == (20000, 3) and samples.dtype == gradjit.float32
    assert not samples.requires_grad and not dist.has_rsample
    x = samples.numpy()
    assert np.all(x == np.floor(x)) and np.all(x >= 0) and np.all(x[:, 2] == 0)
    for k in range(4):  # P(X = k) = (1 - p)^k p, from torch's pmf
        pmf = torch.distributions.Geometric(torch.tensor(probs)).log_prob(
            torch.tensor(float(k))).exp().numpy()
        np.testing.assert_allclose((x == k).mean(0), pmf, atol=0.015)


@pytest.mark.parametrize("make", [
    lambda lib, D: D.Geometric(lib.tensor([0.0, 0.5])),
    lambda lib, D: D.Geometric(lib.tensor([1.5, 0.5])),
    lambda lib, D: D.Geometric(),
    lambda lib, D: D.Geometric(0.5).log_prob(lib.tensor(1.5)),
    lambda lib, D: D.Geometric(0.5).log_prob(lib.tensor(-1.0)),
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


def _poisson(lib):
    rate = lib.tensor([0.0, 0.7, 4.5], dtype=lib.float64, requires_grad=True)
    dist = lib.distributions.Poisson(rate)
    log_prob = dist.log_prob(lib.tensor([[0.0, 3.0, 0.0], [0.0, 1.0, 5.0]], dtype=lib.float64))
    # d/d rate at rate 0 is 0/0 in PyTorch's xlogy; the others are compared.
    (grad,) = lib.autograd.grad(log_prob[:, 1:].sum(), [rate])
    out = [log_prob, dist.mean, dist.mode, dist.variance, grad[1:]]
    return [t.detach().numpy() for t in out], repr(dist), str(dist.support)


def test_poisson_values_gradients_and_repr_equal_pytorch():
    ours, ours_repr, ours_support = _poisson(gradjit)
    theirs, their_repr, their_support = _poisson(torch)
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a, t, rtol=1e-12, atol=1e-12)
    assert (ours_repr, ours_support) == (their_repr, their_support)


def test_poisson_samples_have_poisson_counts():
    rates = [0.0, 0.7, 4.5, 30.0]
    gradjit.manual_seed(0)
    x = gradjit.distributions.Poisson(gradjit.tensor(rates)).sample((20000,)).numpy()
    assert x.shape == (20000, 4) and x.dtype == np.float32
    assert np.all(x == np.floor(x)) and np.all(x[:, 0] == 0)
    np.testing.assert_allclose(x.mean(0), rates, rtol=0.03, atol=0.02)
    np.testing.assert_allclose(x.var(0), rates, rtol=0.05, atol=0.02)
    for k in range(3):
        pmf = torch.distributions.Poisson(torch.tensor(rates)).log_prob(
            torch.tensor(float(k))).exp().numpy()
        np.testing.assert_allclose((x == k).mean(0), pmf, atol=0.015)


@pytest.mark.parametrize("make", [
    lambda lib, D: D.Poisson(lib.tensor([1.0, -1.0])),
    lambda lib, D: D.Poisson(1.0).log_prob(lib.tensor(0.5)),
    lambda lib, D: D.Poisson(1.0).log_prob(lib.tensor(-2.0)),
])
def test_poisson_validation_errors_match_pytorch(make):
    test_validation_errors_match_pytorch(make)


def _binomial(lib, by_logits):
    param = lib.tensor([-1.2, 0.0, 2.0] if by_logits else [0.2, 0.5, 1.0], dtype=lib.float64,
                       requires_grad=True)
    D = lib.distributions
    dist = D.Binomial(5, logits=param) if by_logits else \
        D.Binomial(lib.tensor([3.0, 5.0, 5.0], dtype=lib.float64), probs=param)
    log_prob = dist.log_prob(lib.tensor([[0.0, 3.0, 5.0], [2.0, 1.0, 5.0]], dtype=lib.float64))
    # probs = 1 puts d log_prob / d probs at 0 * inf in both libraries; its column is left out.
    total = (log_prob if by_logits else log_prob[:, :2]).sum() + dist.variance.sum()
    (grad,) = lib.autograd.grad(total, [param])
    out = [log_prob, dist.mean, dist.mode, dist.variance, grad, dist.total_count]
    shapes = (tuple(dist.batch_shape), tuple(dist.event_shape))
    return [t.detach().numpy() for t in out], (shapes, repr(dist), str(dist.support))


@pytest.mark.parametrize("by_logits", [False, True])
def test_binomial_values_gradients_and_repr_equal_pytorch(by_logits):
    ours, ours_rest = _binomial(gradjit, by_logits)
    theirs, their_rest = _binomial(torch, by_logits)
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a, t, rtol=1e-12, atol=1e-12)
    assert ours_rest == their_rest


def test_binomial_samples_have_binomial_counts():
    counts, probs = [0.0, 3.0, 10.0], [0.5, 0.3, 0.8]
    gradjit.manual_seed(0)
    x = gradjit.distributions.Binomial(gradjit.tensor(counts), gradjit.tensor(probs)).sample(
        (20000,)).numpy()
    assert x.shape == (20000, 3) and x.dtype == np.float32
    assert np.all(x == np.floor(x)) and np.all(x >= 0) and np.all(x <= counts)
    for k in range(4):
        pmf = torch.distributions.Binomial(torch.tensor(counts), torch.tensor(probs)).log_prob(
            torch.tensor(float(k)).clamp(max=torch.tensor(counts))).exp().numpy()
        pmf[0] = float(k == 0)  # log_prob(0 draws of 0) is 1; its clamped value is not k
        np.testing.assert_allclose((x == k).mean(0), pmf, atol=0.015)


@pytest.mark.parametrize("make", [
    lambda lib, D: D.Binomial(2.5, lib.tensor(0.5)),
    lambda lib, D: D.Binomial(3, lib.tensor(1.5)),
    lambda lib, D: D.Binomial(3, lib.tensor(0.5)).log_prob(lib.tensor(4.0)),
    lambda lib, D: D.Binomial(3),
])
def test_binomial_validation_errors_match_pytorch(make):
    test_validation_errors_match_pytorch(make)
