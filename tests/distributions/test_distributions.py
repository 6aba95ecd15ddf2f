"""torch.distributions against PyTorch: log_prob, entropy and moments with their gradients,
shapes and printing, validation errors, and samples (by their statistics: the generators
differ) with reparameterized gradients."""
import numpy as np
import pytest
import torch

import gradjit

PROBS = [[0.2, 0.3, 0.5], [0.6, 0.4, 0.0]]
LOGITS = [[0.1, -1.2, 2.0], [0.5, 0.5, -3.0]]
CASES = {
    "Normal": (lambda D, p: D.Normal(p[0], p[1]),
               ([0.5, -1.0, 2.0], [1.5, 0.3, 2.0]), [[0.1, 0.2, 0.3], [-1.0, 4.0, 2.5]]),
    "NormalScalar": (lambda D, p: D.Normal(p[0], 2.0), (0.5,), [0.1, -3.0]),
    "Uniform": (lambda D, p: D.Uniform(p[0], p[1]), ([0.0, -1.0], [1.0, 3.0]),
                [[0.5, 2.9], [0.0, -1.0]]),
    "BernoulliProbs": (lambda D, p: D.Bernoulli(probs=p[0]), ([0.2, 0.9, 0.5],),
                       [[1.0, 0.0, 1.0]]),
    "BernoulliLogits": (lambda D, p: D.Bernoulli(logits=p[0]), ([0.3, -2.0, 4.0],),
                        [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]),
    "CategoricalProbs": (lambda D, p: D.Categorical(probs=p[0]), (PROBS,), [[2, 1], [0, 0]]),
    "CategoricalLogits": (lambda D, p: D.Categorical(logits=p[0]), (LOGITS,), [2, 1]),
    "MultinomialProbs": (lambda D, p: D.Multinomial(4, probs=p[0]), (PROBS,),
                         [[1.0, 1.0, 2.0], [2.0, 2.0, 0.0]]),
    "MultinomialLogits": (lambda D, p: D.Multinomial(3, logits=p[0]), (LOGITS,),
                          [[0.0, 0.0, 3.0], [1.0, 1.0, 1.0]]),
}


def _make(lib, name, dtype):
    make, params, value = CASES[name]
    tensors = [lib.tensor(p, dtype=dtype, requires_grad=True) for p in params]
    long = name.startswith("Categorical")
    value = lib.tensor(value, dtype=lib.int64 if long else dtype)
    return make(lib.distributions, tensors), tensors, value


def _evaluate(lib, name, dtype):
    dist, params, value = _make(lib, name, dtype)
    out = {"log_prob": dist.log_prob(value), "entropy": dist.entropy(),
           "mean": dist.mean, "variance": dist.variance, "stddev": dist.stddev}
    total = out["log_prob"].sum() + out["entropy"].sum()
    grads = lib.autograd.grad(total, params)
    shapes = (tuple(dist.batch_shape), tuple(dist.event_shape))
    return out, grads, shapes, repr(dist)


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_shapes_equal_pytorch(name):
    ours, ours_grads, ours_shapes, ours_repr = _evaluate(gradjit, name, gradjit.float64)
    theirs, their_grads, their_shapes, their_repr = _evaluate(torch, name, torch.float64)
    for key, t in theirs.items():
        np.testing.assert_allclose(ours[key].detach().numpy(), t.detach().numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=key)
    for a, t in zip(ours_grads, their_grads):
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)
    assert ours_shapes == their_shapes
    assert ours_repr == their_repr


@pytest.mark.parametrize("name", CASES)
def test_samples_have_pytorch_shapes_and_statistics(name):
    dist, _, _ = _make(gradjit, name, gradjit.float32)
    tdist, _, _ = _make(torch, name, torch.float32)
    gradjit.manual_seed(0)
    samples = dist.sample((4000,))
    expected = tdist.sample((4000,))
    assert tuple(samples.shape) == tuple(expected.shape)
    assert samples.dtype == getattr(gradjit, str(expected.dtype).split(".")[1])
    assert not samples.requires_grad
    np.testing.assert_allclose(samples.double().mean(0).numpy(),
                               expected.double().mean(0).numpy(), atol=0.15, rtol=0.1)
    assert tuple(dist.sample().shape) == tuple(tdist.sample().shape)


@pytest.mark.parametrize("name", ["Normal", "Uniform"])
def test_rsample_is_differentiable_along_the_sample_path(name):
    dist, params, _ = _make(gradjit, name, gradjit.float64)
    gradjit.manual_seed(1)
    x = dist.rsample((3,))
    x.sum().backward()
    noise = x.detach()
    if name == "Normal":  # x = loc + eps * scale
        eps = (noise - params[0].detach()) / params[1].detach()
        np.testing.assert_allclose(params[0].grad.numpy(), [3.0, 3.0, 3.0])
        np.testing.assert_allclose(params[1].grad.numpy(), eps.sum(0).numpy(), rtol=1e-12)
    else:  # x = low + u * (high - low)
        u = (noise - params[0].detach()) / (params[1] - params[0]).detach()
        np.testing.assert_allclose(params[1].grad.numpy(), u.sum(0).numpy(), rtol=1e-12)
        np.testing.assert_allclose(params[0].grad.numpy(), (1 - u).sum(0).numpy(), rtol=1e-12)


def test_discrete_distributions_have_no_rsample():
    for lib in (gradjit, torch):
        with pytest.raises(NotImplementedError):
            lib.distributions.Bernoulli(probs=lib.tensor(0.3)).rsample()
    assert not gradjit.distributions.Categorical(gradjit.ones(2)).has_rsample
    assert gradjit.distributions.Normal(0.0, 1.0).has_rsample


@pytest.mark.parametrize("make", [
    lambda lib, D: D.Normal(0.0, -1.0),
    lambda lib, D: D.Normal(0.0, 1.0).log_prob(1.0),
    lambda lib, D: D.Normal(0.0, 1.0).log_prob(lib.tensor(float("nan"))),
    lambda lib, D: D.Uniform(1.0, 0.0),
    lambda lib, D: D.Uniform(0.0, 1.0).log_prob(lib.tensor(2.0)),
    lambda lib, D: D.Bernoulli(),
    lambda lib, D: D.Bernoulli(probs=1.5),
    lambda lib, D: D.Bernoulli(probs=0.5).log_prob(lib.tensor(0.5)),
    lambda lib, D: D.Categorical(lib.tensor([0.2, -0.1])),
    lambda lib, D: D.Categorical(lib.tensor(0.5)),
    lambda lib, D: D.Categorical(lib.tensor([0.2, 0.8])).log_prob(lib.tensor(2)),
    lambda lib, D: D.Multinomial(2.5, lib.tensor([0.5, 0.5])),
    lambda lib, D: D.Multinomial(3, lib.tensor([0.5, 0.5])).log_prob(lib.tensor([1.0, 1, 1])),
    lambda lib, D: D.Multinomial(3, lib.tensor([0.5, 0.5])).log_prob(lib.tensor([3.0, 1])),
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


def test_validate_args_false_skips_the_checks():
    for lib in (gradjit, torch):
        dist = lib.distributions.Normal(0.0, -1.0, validate_args=False)
        assert lib.isnan(dist.log_prob(lib.tensor(0.5)))
