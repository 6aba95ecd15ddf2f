"""ExponentialFamily against PyTorch: which classes belong to it, their natural parameters and
log normalizers, the entropy computed from the log normalizer by autograd and the Bregman
KL divergence between two members of one family, with gradients, and its refusal across
families."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

MAKE = {
    "Normal": lambda D, t: D.Normal(t([0.5, -1.0]), t([1.5, 0.3])),
    "Gamma": lambda D, t: D.Gamma(t([2.0, 0.7]), t([1.0, 4.0])),
    "Chi2": lambda D, t: D.Chi2(t([2.0, 3.5])),
    "Exponential": lambda D, t: D.Exponential(t([2.0, 0.3])),
    "Bernoulli": lambda D, t: D.Bernoulli(t([0.3, 0.8])),
    "ContinuousBernoulli": lambda D, t: D.ContinuousBernoulli(t([0.3, 0.4995, 0.8])),
    "Beta": lambda D, t: D.Beta(t([2.0, 0.5]), t([1.0, 4.0])),
    "Dirichlet": lambda D, t: D.Dirichlet(t([[2.0, 0.5, 1.0], [1.0, 4.0, 3.0]])),
    "Poisson": lambda D, t: D.Poisson(t([0.3, 4.0])),
}
# the second member of each family, for KL(p || q)
OTHER = {
    "Normal": lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, 0.8])),
    "Gamma": lambda D, t: D.Gamma(t([1.0, 2.0]), t([2.0, 1.0])),
    "Chi2": lambda D, t: D.Chi2(t([1.0, 5.0])),
    "Exponential": lambda D, t: D.Exponential(t([1.0, 1.5])),
    "Bernoulli": lambda D, t: D.Bernoulli(t([0.6, 0.5])),
    "ContinuousBernoulli": lambda D, t: D.ContinuousBernoulli(t([0.6, 0.2, 0.5004])),
    "Beta": lambda D, t: D.Beta(t([1.0, 1.5]), t([3.0, 2.0])),
    "Dirichlet": lambda D, t: D.Dirichlet(t([[1.0, 1.5, 2.0], [3.0, 2.0, 0.5]])),
    "Poisson": lambda D, t: D.Poisson(t([1.0, 2.5])),
}
WITH_CARRIER = [n for n in MAKE if n not in ("Beta", "Dirichlet", "Poisson")]


def _build(lib, makers, name):
    params = []

    def t(values):
        params.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
        return params[-1]
    return makers[name](lib.distributions, t), params


def _check(ours, theirs, our_params, their_params):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    weights = np.linspace(0.5, 1.5, theirs.numel()).reshape(tuple(theirs.shape))
    # the natural parameters are detached (as PyTorch's are) so gradients reach only those
    # used otherwise
    grads = gradjit.autograd.grad((ours * gradjit.tensor(weights)).sum(), our_params,
                                  allow_unused=True)
    want = torch.autograd.grad((theirs * torch.tensor(weights)).sum(), their_params,
                               allow_unused=True)
    assert [g is None for g in grads] == [w is None for w in want]
    for g, w in zip(grads, want):
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-8, atol=1e-12)


def test_the_family_has_pytorch_members():
    for name in dir(torch.distributions):
        theirs = getattr(torch.distributions, name)
        if isinstance(theirs, type) and issubclass(theirs, torch.distributions.Distribution) \
                and hasattr(gradjit.distributions, name):
            ours = getattr(gradjit.distributions, name)
            assert issubclass(ours, gradjit.distributions.ExponentialFamily) == \
                issubclass(theirs, torch.distributions.ExponentialFamily), name
    assert gradjit.distributions.exp_family.ExponentialFamily is \
        gradjit.distributions.ExponentialFamily


@pytest.mark.parametrize("name", MAKE)
def test_natural_parameters_and_log_normalizer_equal_pytorch(name):
    (ours, our_params), (theirs, their_params) = _build(gradjit, MAKE, name), \
        _build(torch, MAKE, name)
    mine, want = ours._natural_params, theirs._natural_params
    assert len(mine) == len(want)
    for a, b in zip(mine, want):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    _check(ours._log_normalizer(*mine), theirs._log_normalizer(*want), our_params,
           their_params)


@pytest.mark.parametrize("name", WITH_CARRIER)
def test_entropy_from_the_log_normalizer_equals_pytorch(name):
    (ours, our_params), (theirs, their_params) = _build(gradjit, MAKE, name), \
        _build(torch, MAKE, name)
    mine = gradjit.distributions.ExponentialFamily.entropy(ours)
    want = torch.distributions.ExponentialFamily.entropy(theirs)
    assert type(mine.grad_fn).__name__ == type(want.grad_fn).__name__
    _check(mine, want, our_params, their_params)


@pytest.mark.parametrize("name", MAKE)
def test_bregman_kl_equals_pytorch(name):
    (p, p_params), (q, q_params) = _build(gradjit, MAKE, name), _build(gradjit, OTHER, name)
    (tp, tp_params), (tq, tq_params) = _build(torch, MAKE, name), _build(torch, OTHER, name)
    from gradjit.distributions.exp_family import kl_exponential_family
    want = torch.distributions.kl._kl_expfamily_expfamily(tp, tq)
    _check(kl_exponential_family(p, q), want, p_params + q_params, tp_params + tq_params)
    # and the Bregman divergence is the closed form KL
    np.testing.assert_allclose(want.detach().numpy(),
                               torch.distributions.kl_divergence(tp, tq).detach().numpy(),
                               rtol=1e-6)


def test_a_new_member_gets_entropy_and_kl_from_its_log_normalizer():
    """A family declared only by its natural parameter: Exponential(rate) as theta = -rate."""
    results = []
    for lib in (gradjit, torch):
        class Rate(lib.distributions.ExponentialFamily):
            arg_constraints = {}
            _mean_carrier_measure = 0

            def __init__(self, rate):
                self.rate = rate
                super().__init__(rate.shape)

            @property
            def _natural_params(self):
                return (-self.rate,)

            def _log_normalizer(self, x):
                return -lib.log(-x)
        rate = lib.tensor([2.0, 0.5], dtype=lib.float64, requires_grad=True)
        other = lib.tensor([1.0, 1.5], dtype=lib.float64)
        kl = lib.distributions.kl_divergence(Rate(other), Rate(rate))
        entropy = Rate(rate).entropy()
        results.append((kl, entropy, *lib.autograd.grad((kl + entropy).sum(), rate)))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("pair", [
    lambda D, lib: (D.Normal(0.0, 1.0), D.Poisson(lib.tensor(2.0))),
    lambda D, lib: (D.Bernoulli(lib.tensor(0.3)), D.Exponential(lib.tensor(2.0))),
])
def test_kl_across_families_is_refused_as_in_pytorch(pair):
    same_error(lambda: gradjit.distributions.kl_divergence(*pair(gradjit.distributions,
                                                                 gradjit)),
               lambda: torch.distributions.kl_divergence(*pair(torch.distributions, torch)))
