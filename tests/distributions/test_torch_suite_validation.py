"""PyTorch's distributions suite's validation, laziness, SciPy-reference and transform-functor
checks, with torch and gradjit side by side: log_prob of values outside the support, with
and without validation; a distribution without arg_constraints warning; probs and logits left
uncomputed until asked for; moments, cdf and icdf over double-precision parameter vectors;
CatTransform and StackTransform against their pieces."""
import math
import warnings

import numpy as np
import pytest
import torch

import gradjit
from tests.distributions.test_torch_suite_generic import CASES, outcome, spec_of
from tests.distributions.torch_suite_examples import build


def _as_numpy(x):
    return x.detach().numpy() if hasattr(x, "detach") else x


@pytest.mark.parametrize("case", [c for c in CASES if c[1] != "TransformedDistribution"],
                         ids=[c[0] for c in CASES if c[1] != "TransformedDistribution"])
def test_log_prob_of_invalid_values_as_pytorch(case, set_default_dtype):
    _, name, spec = case
    set_default_dtype(torch.float64)
    libs = {lib: [build(lib, spec_of(name, dict(spec, validate_args=v))) for v in (True, False)]
            for lib in (torch, gradjit)}
    (t_val, t_non), (g_val, g_non) = libs[torch], libs[gradjit]
    for v in [-2.0, -1.0, 0.0, 1.0, 2.0]:
        t_scalar = outcome(lambda: t_val.log_prob(torch.tensor(v)))
        g_scalar = outcome(lambda: g_val.log_prob(gradjit.tensor(v)))
        assert isinstance(g_scalar, tuple) == isinstance(t_scalar, tuple)
        if isinstance(t_scalar, tuple):
            assert g_scalar == t_scalar
        shape = tuple(t_val.batch_shape) + tuple(t_val.event_shape)
        for lib, dist in ((torch, t_val), (gradjit, g_val)):
            kind = outcome(lambda: dist.log_prob(lib.full(shape, v)))
            assert not isinstance(kind, tuple) or kind[0] == "ValueError"
        t_out = outcome(lambda: t_val.log_prob(torch.full(shape, v)))
        g_out = outcome(lambda: g_val.log_prob(gradjit.full(shape, v)))
        assert isinstance(g_out, tuple) == isinstance(t_out, tuple)
        if isinstance(t_out, tuple):
            assert g_out == t_out
        t_raw = outcome(lambda: t_non.log_prob(torch.full(shape, v)))
        g_raw = outcome(lambda: g_non.log_prob(gradjit.full(shape, v)))
        assert isinstance(g_raw, tuple) == isinstance(t_raw, tuple)
        if not isinstance(t_raw, tuple):
            np.testing.assert_allclose(_as_numpy(g_raw), _as_numpy(t_raw), rtol=1e-5,
                                       atol=1e-6, equal_nan=True)
    torch.manual_seed(0)
    valid = t_val.sample()
    g_val.sample()  # as torch's: a lazily computed parameter is now there, and in the repr
    invalid = torch.full_like(valid.double() if valid.dtype == torch.long else valid, math.nan)
    expected = outcome(lambda: t_val.log_prob(invalid))
    assert expected[0] == "ValueError" and "to be within the support" in expected[1]
    assert outcome(lambda: g_val.log_prob(gradjit.tensor(invalid.numpy()))) == expected


def _delta(lib):
    class Delta(lib.distributions.Distribution):
        def __init__(self, validate_args=True):
            super().__init__(validate_args=validate_args)

        def sample(self, sample_shape=()):
            return lib.tensor(0.0).expand(sample_shape)

        def log_prob(self, value):
            if self._validate_args:
                self._validate_sample(value)
            return lib.zeros_like(value)
    return Delta


def test_a_distribution_without_arg_constraints_warns_as_pytorch():
    def caught(lib):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            d = _delta(lib)()
            d.log_prob(d.sample((2,)))
        return [(w.category.__name__, str(w.message)) for w in seen]
    expected = caught(torch)
    assert len(expected) == 2
    assert caught(gradjit) == expected


LAZY = ["Categorical", "OneHotCategorical", "Bernoulli", "Binomial", "Multinomial"]


@pytest.mark.parametrize("name", LAZY)
def test_probs_and_logits_stay_uncomputed_as_pytorch(name):
    from tests.distributions.torch_suite_examples import EXAMPLES
    spec = dict(EXAMPLES[name][0])
    for lib in (torch, gradjit):
        given = build(lib, spec["probs"])
        with_logits = dict(spec, logits=lib.distributions.utils.probs_to_logits(given))
        del with_logits["probs"]
        with_logits = {k: build(lib, v) for k, v in with_logits.items()}
        dist = getattr(lib.distributions, name)(**with_logits)
        dist.log_prob(getattr(lib.distributions, name)(**with_logits).sample())
        outcome(dist.enumerate_support)
        assert "probs" not in dist.__dict__
        dist = getattr(lib.distributions, name)(**{k: build(lib, v) for k, v in spec.items()})
        dist.sample()
        outcome(dist.enumerate_support)
        assert "logits" not in dist.__dict__


def _against_scipy(lib):
    rng = np.random.RandomState(3)
    pos, pos2 = (lib.tensor(np.exp(rng.randn(20))) for _ in range(2))
    real = lib.tensor(rng.randn(20))
    simplex = lib.softmax(lib.tensor(rng.randn(20)), dim=-1)
    cov = lib.tensor(rng.randn(20, 20))
    cov = cov @ cov.mT
    D = lib.distributions
    return {
        "Bernoulli": D.Bernoulli(simplex), "Beta": D.Beta(pos, pos2),
        "Binomial": D.Binomial(10, simplex), "Cauchy": D.Cauchy(real, pos),
        "Dirichlet": D.Dirichlet(pos), "Exponential": D.Exponential(pos),
        "FisherSnedecor": D.FisherSnedecor(pos, 4 + pos2), "Gamma": D.Gamma(pos, pos2),
        "Geometric": D.Geometric(simplex), "Gumbel": D.Gumbel(real, pos2),
        "GeneralizedPareto": D.GeneralizedPareto(real, pos, real / 10),
        "HalfCauchy": D.HalfCauchy(pos), "HalfNormal": D.HalfNormal(pos2),
        "InverseGamma": D.InverseGamma(pos, pos2), "Laplace": D.Laplace(real, pos2),
        "LogNormal": D.LogNormal(real, pos.clamp(max=3)),
        "LowRankMultivariateNormal": D.LowRankMultivariateNormal(
            real, lib.zeros(20, 1, dtype=lib.float64), pos2),
        "Multinomial": D.Multinomial(10, simplex),
        "MultivariateNormalDiag": D.MultivariateNormal(real, lib.diag(pos2)),
        "MultivariateNormal": D.MultivariateNormal(real, cov),
        "Normal": D.Normal(real, pos2), "OneHotCategorical": D.OneHotCategorical(simplex),
        "Pareto": D.Pareto(pos, 2 + pos2), "Poisson": D.Poisson(pos),
        "StudentT": D.StudentT(2 + pos, real, pos2), "Uniform": D.Uniform(real, real + pos),
        "VonMises": D.VonMises(real, pos), "Weibull": D.Weibull(pos[0], pos2[0]),
        "Wishart": D.Wishart(19 + pos[0], cov),
    }


@pytest.mark.parametrize("name", list(_against_scipy(torch)))
def test_double_precision_moments_cdf_and_icdf_as_pytorch(name, set_default_dtype):
    # in double by default, as PyTorch's suite (its GeneralizedPareto.cdf of doubles mixes
    # in a default-dtype tensor)
    set_default_dtype(torch.float64)
    t, g = _against_scipy(torch)[name], _against_scipy(gradjit)[name]
    torch.manual_seed(0)
    samples = t.sample((5,))
    q = torch.rand((5,) + tuple(t.batch_shape), dtype=torch.float64)
    for fn, args in [(lambda d, *a: d.mean, ()), (lambda d, *a: d.variance, ()),
                     (lambda d, *a: d.stddev, ()), (lambda d, x: d.cdf(x), (samples,)),
                     (lambda d, x: d.icdf(x), (q,))]:
        expected = outcome(lambda: fn(t, *args))
        found = outcome(lambda: fn(g, *[gradjit.tensor(a.numpy()) for a in args]))
        if isinstance(expected, tuple):
            assert found == expected
            continue
        assert tuple(found.shape) == tuple(expected.shape)
        np.testing.assert_allclose(found.numpy(), expected.numpy(), rtol=1e-7, atol=1e-9,
                                   equal_nan=True)


def _functor_results(lib, kind):
    T = lib.distributions.transforms
    ramp = lib.arange(1, 101, dtype=lib.float32)
    pieces = [T.ExpTransform(), T.AffineTransform(1, 100), T.identity_transform]
    if kind == "cat":
        xs = [-1 * ramp.view(-1, 100), (ramp.view(-1, 100) - 1) / 100, ramp.view(-1, 100)]
        t, x = T.CatTransform(pieces, dim=0), lib.cat(xs, dim=0)
    elif kind == "stack":
        xs = [-1 * ramp, (ramp - 1) / 100, ramp]
        t, x = T.StackTransform(pieces, dim=0), lib.stack(xs, dim=0)
    elif kind == "cat_lengths":
        inner = T.CatTransform([T.AffineTransform(1, 100), T.identity_transform], dim=0)
        t = T.CatTransform([T.ExpTransform(), inner], dim=0, lengths=[1, 2])
        x = lib.cat([-1 * ramp.view(-1, 100), (ramp.view(-1, 100) - 1) / 100,
                     ramp.view(-1, 100)], dim=0)
    else:
        pieces = [T.AffineTransform(0, 2 * lib.ones(2), event_dim=1)] * 2
        t = T.CatTransform(pieces, dim=1, lengths=[2, 2])
        x = lib.tensor(np.random.RandomState(0).randn(16, 4).astype(np.float32))
    y = t(x)
    results = [y, t.inv(y), t.log_abs_det_jacobian(x, y)]
    if kind == "cat_event_dim":  # the pieces' event dims make both libraries' checks refuse
        return results
    return results + [t.domain.check(x), t.codomain.check(y)]


@pytest.mark.parametrize("kind", ["cat", "stack", "cat_lengths", "cat_event_dim"])
def test_cat_and_stack_transforms_as_pytorch(kind):
    for g, t in zip(_functor_results(gradjit, kind), _functor_results(torch, kind)):
        assert tuple(g.shape) == tuple(t.shape) and str(g.dtype) == str(t.dtype)
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-6)
