"""The torch.distributions API surface of each class against PyTorch: support, arg_constraints,
has_rsample, has_enumerate_support and enumerate_support, moments, perplexity, cdf and icdf,
expand, sample shapes for every sample_shape form (also of distributions made of numbers), and
the base class's switches and errors."""
import warnings

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

MAKE = {
    "Normal": lambda D, t: D.Normal(t([0.5, 1.0]), t([1.0, 2.0])),
    "NormalScalar": lambda D, t: D.Normal(0.5, 2.0),
    "Uniform": lambda D, t: D.Uniform(t([0.0, 1.0]), t([2.0, 3.0])),
    "UniformScalar": lambda D, t: D.Uniform(0.0, 3.0),
    "GammaScalar": lambda D, t: D.Gamma(2.0, 3.0),
    "VonMisesScalar": lambda D, t: D.VonMises(0.5, 1.0),
    "PoissonScalar": lambda D, t: D.Poisson(3.0),
    "DirichletOne": lambda D, t: D.Dirichlet(t([2.0, 3.0])),
    "Bernoulli": lambda D, t: D.Bernoulli(t([0.3, 0.6])),
    "BernoulliScalar": lambda D, t: D.Bernoulli(logits=0.3),
    "Categorical": lambda D, t: D.Categorical(t([[0.2, 0.8], [0.5, 0.5]])),
    "Binomial": lambda D, t: D.Binomial(3, t([0.3, 0.6])),
    "Multinomial": lambda D, t: D.Multinomial(3, t([0.2, 0.8])),
    "Geometric": lambda D, t: D.Geometric(t([0.3, 0.6])),
    "Poisson": lambda D, t: D.Poisson(t([0.3, 2.0])),
    "NegativeBinomial": lambda D, t: D.NegativeBinomial(t([3.0, 2.0]), t([0.3, 0.6])),
    "Beta": lambda D, t: D.Beta(t([2.0, 3.0]), t([1.0, 4.0])),
    "Dirichlet": lambda D, t: D.Dirichlet(t([[2.0, 3.0], [1.0, 4.0]])),
    "Gamma": lambda D, t: D.Gamma(t([2.0, 3.0]), t([1.0, 4.0])),
    "Chi2": lambda D, t: D.Chi2(t([2.0, 3.0])),
    "Exponential": lambda D, t: D.Exponential(t([2.0, 3.0])),
    "Laplace": lambda D, t: D.Laplace(t([0.0, 1.0]), t([1.0, 2.0])),
    "Cauchy": lambda D, t: D.Cauchy(t([0.0, 1.0]), t([1.0, 2.0])),
    "Gumbel": lambda D, t: D.Gumbel(t([0.0, 1.0]), t([1.0, 2.0])),
    "HalfNormal": lambda D, t: D.HalfNormal(t([1.0, 2.0])),
    "HalfCauchy": lambda D, t: D.HalfCauchy(t([1.0, 2.0])),
    "LogNormal": lambda D, t: D.LogNormal(t([0.0, 1.0]), t([1.0, 2.0])),
    "Pareto": lambda D, t: D.Pareto(t([1.0, 2.0]), t([3.0, 4.0])),
    "Weibull": lambda D, t: D.Weibull(t([1.0, 2.0]), t([3.0, 4.0])),
    "StudentT": lambda D, t: D.StudentT(t([3.0, 4.0])),
    "FisherSnedecor": lambda D, t: D.FisherSnedecor(t([3.0, 4.0]), t([5.0, 6.0])),
    "InverseGamma": lambda D, t: D.InverseGamma(t([3.0, 4.0]), t([5.0, 6.0])),
    "Kumaraswamy": lambda D, t: D.Kumaraswamy(t([3.0, 4.0]), t([5.0, 6.0])),
    "ContinuousBernoulli": lambda D, t: D.ContinuousBernoulli(t([0.3, 0.6])),
    "OneHotCategorical": lambda D, t: D.OneHotCategorical(t([[0.2, 0.8], [0.5, 0.5]])),
    "RelaxedBernoulli": lambda D, t: D.RelaxedBernoulli(t(0.5), t([0.3, 0.6])),
    "MultivariateNormal": lambda D, t: D.MultivariateNormal(t([[0.0, 1.0]]),
                                                            t([[2.0, 0.5], [0.5, 1.0]])),
    "MultivariateNormalPrecision": lambda D, t: D.MultivariateNormal(
        t([0.0, 1.0]), precision_matrix=t([[2.0, 0.5], [0.5, 1.0]])),
    "LowRankMultivariateNormal": lambda D, t: D.LowRankMultivariateNormal(
        t([0.0, 1.0]), t([[1.0], [0.5]]), t([1.0, 2.0])),
    "Independent": lambda D, t: D.Independent(D.Normal(t([0.5, 1.0]), t([1.0, 2.0])), 1),
    "IndependentBernoulli": lambda D, t: D.Independent(D.Bernoulli(t([0.5, 0.2])), 0),
    "LogisticNormal": lambda D, t: D.LogisticNormal(t([0.0, 1.0]), t([1.0, 2.0])),
    "MixtureSameFamily": lambda D, t: D.MixtureSameFamily(D.Categorical(t([0.3, 0.7])),
                                                          D.Normal(t([0.0, 1.0]),
                                                                   t([1.0, 2.0]))),
    "VonMises": lambda D, t: D.VonMises(t([0.5, -2.0]), t([0.7, 4.0])),
    "LKJCholesky": lambda D, t: D.LKJCholesky(3, t([0.5, 2.0])),
    "Wishart": lambda D, t: D.Wishart(t([4.0, 3.5]), t([[2.0, 0.5], [0.5, 1.0]])),
    "WishartTril": lambda D, t: D.Wishart(3.0, scale_tril=t([[[2.0, 0.0], [0.5, 1.0]]])),
}
FLAGS = ("has_rsample", "has_enumerate_support", "batch_shape", "event_shape")
MOMENTS = ("mean", "mode", "variance", "stddev")


def _make(lib, name):
    params = []

    def t(values):
        params.append(lib.tensor(values, dtype=lib.float64, requires_grad=True))
        return params[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Wishart's "low df" warning is tested elsewhere
        return MAKE[name](lib.distributions, t), params


def _outcome(fn):
    """('value', array) or ('error', type name, message)."""
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return "error", type(e).__name__, str(e).replace("gradjit", "torch")
    return "value", value


def _same_outcome(ours, theirs, what):
    assert ours[0] == theirs[0], (what, ours, theirs)
    if ours[0] == "error":
        assert ours == theirs, what
        return
    a, b = ours[1], theirs[1]
    if torch.is_tensor(b):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype), what
        rtol = 1e-10 if b.dtype == torch.float64 else 1e-6
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol,
                                   atol=1e-12, err_msg=what)
    else:
        assert a == b, what


@pytest.mark.parametrize("name", MAKE)
def test_constraints_flags_and_shapes_equal_pytorch(name):
    ours, theirs = _make(gradjit, name)[0], _make(torch, name)[0]
    for flag in FLAGS:
        assert getattr(ours, flag) == getattr(theirs, flag), flag
    assert repr(ours.support).replace("gradjit", "torch") == repr(theirs.support)
    ours_args = {k: repr(c) for k, c in ours.arg_constraints.items()}
    assert ours_args == {k: repr(c) for k, c in theirs.arg_constraints.items()}
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", MAKE)
def test_moments_perplexity_cdf_and_icdf_equal_pytorch(name):
    (ours, our_params), (theirs, their_params) = _make(gradjit, name), _make(torch, name)
    calls = {m: (lambda d, lib, m=m: getattr(d, m)) for m in MOMENTS}
    calls["perplexity"] = lambda d, lib: d.perplexity()
    if not theirs.event_shape:
        calls["cdf"] = lambda d, lib: d.cdf(lib.tensor([0.7, 1.2], dtype=lib.float64))
        calls["icdf"] = lambda d, lib: d.icdf(lib.tensor([0.3, 0.8], dtype=lib.float64))
    for what, call in calls.items():
        mine, expected = _outcome(lambda: call(ours, gradjit)), _outcome(lambda: call(theirs,
                                                                                    torch))
        _same_outcome(mine, expected, what)
        if what == "perplexity" and expected[0] == "value" and expected[1].requires_grad:
            grads = gradjit.autograd.grad(mine[1].sum(), our_params, allow_unused=True)
            want = torch.autograd.grad(expected[1].sum(), their_params, allow_unused=True)
            for g, w in zip(grads, want):
                if w is not None:
                    np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("name", MAKE)
def test_enumerate_support_equals_pytorch(name):
    ours, theirs = _make(gradjit, name)[0], _make(torch, name)[0]
    for expand in (True, False):
        _same_outcome(_outcome(lambda: ours.enumerate_support(expand)),
                      _outcome(lambda: theirs.enumerate_support(expand)), expand)


@pytest.mark.filterwarnings("ignore:Singular sample detected")  # PyTorch's Wishart, always
@pytest.mark.parametrize("name", MAKE)
def test_expand_and_sample_shapes_equal_pytorch(name):
    ours, theirs = _make(gradjit, name)[0], _make(torch, name)[0]
    expanded = _outcome(lambda: ours.expand((3,) + tuple(ours.batch_shape)))
    expected = _outcome(lambda: theirs.expand((3,) + tuple(theirs.batch_shape)))
    assert expanded[0] == expected[0]
    if expected[0] == "value":
        mine, want = expanded[1], expected[1]
        assert type(mine).__name__ == type(want).__name__
        assert (mine.batch_shape, mine.event_shape) == (want.batch_shape, want.event_shape)
        _same_outcome(_outcome(lambda: mine.mean), _outcome(lambda: want.mean), "mean")
        assert tuple(mine.sample().shape) == tuple(want.sample().shape)
    for shape in ((), (2,), [2, 1]):
        got = ours.sample(gradjit.Size(shape) if isinstance(shape, list) else shape)
        want = theirs.sample(torch.Size(shape) if isinstance(shape, list) else shape)
        assert tuple(got.shape) == tuple(want.shape)
        assert str(got.dtype) == str(want.dtype)


def test_set_default_validate_args_switches_validation_and_wants_a_bool():
    D = gradjit.distributions
    try:
        D.Distribution.set_default_validate_args(False)
        assert gradjit.isnan(D.Normal(0.0, -1.0).log_prob(gradjit.tensor(0.5)))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)
    same_error(lambda: D.Distribution.set_default_validate_args("yes"),
               lambda: torch.distributions.Distribution.set_default_validate_args("yes"))


def test_sample_n_warns_and_draws_n():
    for lib in (gradjit, torch):
        with pytest.warns(FutureWarning, match=r"Use `sample\(\(n,\)\)` instead"):
            assert tuple(lib.distributions.Normal(lib.zeros(2), 1.0).sample_n(3).shape) == (3, 2)


@pytest.mark.parametrize("call", [
    lambda lib, D: D.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
    lambda lib, D: D.Binomial(lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5])).enumerate_support(),
    lambda lib, D: D.Binomial(lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5])).entropy(),
    lambda lib, D: D.Independent(D.Bernoulli(lib.tensor([0.5, 0.2])), 1).enumerate_support(),
    lambda lib, D: D.Poisson(lib.tensor([2.0])).entropy(),
    lambda lib, D: D.LogisticNormal(lib.zeros(2), 1.0).mean,
    lambda lib, D: D.StudentT(2.0).enumerate_support(),
])
def test_errors_equal_pytorch(call):
    same_error(lambda: call(gradjit, gradjit.distributions),
               lambda: call(torch, torch.distributions))


def test_a_missing_mode_names_the_class():
    with pytest.raises(NotImplementedError,
                       match="<class 'gradjit.distributions.multinomial.Multinomial'> does not "
                             "implement mode"):
        assert gradjit.distributions.Multinomial(2, gradjit.ones(2)).mode is None
