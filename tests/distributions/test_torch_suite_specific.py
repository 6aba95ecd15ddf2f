"""PyTorch's distributions suite's per-distribution checks, with torch and gradjit side by
side: edge values, gradients at the edges of the support, subclassing, and errors."""
import math

import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import message, same_error


def _custom_init_subclass(lib):
    D = lib.distributions

    class Wrapped(D.Independent):
        def __init__(self, base):
            super().__init__(base, 1)
    return Wrapped(D.Normal(lib.zeros(2), 1.0))


def test_expand_of_a_subclass_with_its_own_init_asks_for_its_own_expand():
    same_error(lambda: _custom_init_subclass(gradjit).expand((3,)),
               lambda: _custom_init_subclass(torch).expand((3,)))


@pytest.mark.parametrize("name", ["Independent", "MixtureSameFamily"])
def test_expand_keeps_a_subclass_and_the_validation_switch(name):
    def make(lib):
        D = lib.distributions
        sub = type("Sub", (getattr(D, name),), {})
        if name == "Independent":
            return sub(D.Normal(lib.zeros(2), 1.0), 1, validate_args=False)
        return sub(D.Categorical(lib.ones(3)), D.Normal(lib.zeros(3), 1.0),
                   validate_args=False)
    t, g = make(torch).expand((4,)), make(gradjit).expand((4,))
    assert type(g).__name__ == type(t).__name__ == "Sub"
    assert g._validate_args == t._validate_args is False
    assert tuple(g.batch_shape) == tuple(t.batch_shape)


def _seeded(seed, fn):
    def run(lib):
        lib.manual_seed(seed)
        return fn(lib)
    return run


def _grads(make, *values):
    """The gradients of make(lib, *leaves).sum() in the leaves built from values."""
    def run(lib):
        leaves = [lib.tensor(v, requires_grad=True) for v in values]
        return lib.autograd.grad(make(lib, *leaves).sum(), leaves)
    return run


def _rsample_grads(seed, make, *values):
    """The gradients of a seeded rsample's sum in its parameters."""
    return _grads(lambda lib, *p: _seeded(seed, lambda lib: make(lib.distributions, *p)
                                          .rsample())(lib), *values)


P3 = [0.7, 0.2, 0.4]
PROBS2 = [[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]
EXPRESSIONS = {
    # edges of the discrete families
    "geometric_certain_sample": lambda lib: lib.distributions.Geometric(1).sample(),
    "geometric_certain_log_prob": lambda lib: lib.distributions.Geometric(1).log_prob(
        lib.tensor([1.0, 0.0])),
    "geometric_impossible": lambda lib: lib.distributions.Geometric(0),
    "geometric_entropy": lambda lib: lib.distributions.Geometric(lib.tensor(P3)).entropy(),
    "bernoulli_entropy": lambda lib: lib.distributions.Bernoulli(lib.tensor(P3)).entropy(),
    "bernoulli_entropy_at_0": lambda lib: lib.distributions.Bernoulli(
        lib.tensor([0.0])).entropy(),
    "binomial_stable_log_prob": lambda lib: lib.distributions.Binomial(
        1.0, logits=lib.tensor([-100.0, 100.0])).log_prob(lib.tensor([0.0, 0.0])),
    "binomial_stable_grad": _grads(lambda lib, x: lib.distributions.Binomial(
        1.0, logits=x).log_prob(lib.tensor(0.0)), 0.0),
    "binomial_vectorized_count": lambda lib: lib.distributions.Binomial(
        lib.tensor([1, 2, 10]), lib.tensor([0.2, 0.7, 0.9])).log_prob(
        lib.tensor([0.0, 1.0, 9.0])),
    "binomial_probs_0": lambda lib: lib.distributions.Binomial(100, 0).log_prob(
        lib.tensor([0.0, 1.0])),
    "binomial_probs_1": lambda lib: lib.distributions.Binomial(100, 1).log_prob(
        lib.tensor([100.0, 99.0])),
    "binomial_count_0": lambda lib: lib.distributions.Binomial(lib.zeros(2, 2), 1).log_prob(
        lib.zeros(2, 2)),
    "binomial_certain_samples": lambda lib: (
        lib.distributions.Binomial(100, 0).sample(), lib.distributions.Binomial(100, 1).sample(),
        lib.distributions.Binomial(lib.tensor([[4.0, 7.0], [3.0, 8.0]]), lib.tensor(1.0))
        .sample()),
    "binomial_entropy": lambda lib: lib.distributions.Binomial(
        10, logits=lib.tensor([-1.0, 0.5, 2.0])).entropy(),
    "binomial_int_count_errors": lambda lib: lib.binomial(
        lib.tensor([10, 10]), lib.tensor([0.5, 0.5])),
    "binomial_int_prob_errors": lambda lib: lib.binomial(
        lib.tensor([10.0, 10.0]), lib.tensor([1, 0])),
    "negative_binomial_entropy": lambda lib: lib.distributions.NegativeBinomial(
        10, lib.tensor([0.5])).entropy(),
    "negative_binomial_vectorized": lambda lib: lib.distributions.NegativeBinomial(
        lib.tensor([1, 2, 10]), lib.tensor([0.2, 0.7, 0.9])).log_prob(
        lib.tensor([0.0, 1.0, 9.0])),
    "multinomial_certain_sample": lambda lib: lib.distributions.Multinomial(
        10, lib.tensor([[1.0, 0.0], [0.0, 1.0]])).sample(),
    "multinomial_entropy": lambda lib: lib.distributions.Multinomial(
        10, lib.tensor([0.1, 0.2, 0.3])).entropy(),
    "categorical_moments": lambda lib: (lib.distributions.Categorical(lib.tensor(P3)).mean,
                                        lib.distributions.Categorical(lib.tensor(P3)).variance),
    "categorical_entropy": lambda lib: lib.distributions.Categorical(
        lib.tensor(PROBS2)).entropy(),
    "categorical_entropy_neg_inf_logits": lambda lib: lib.distributions.Categorical(
        logits=lib.tensor([[0.0, 1.0, -math.inf], [0.5, -math.inf, 1.0]])).entropy(),
    "categorical_certain_sample": _seeded(0, lambda lib: lib.distributions.Categorical(
        lib.tensor([[1.0, 0.0], [0.0, 1.0]])).sample((2,))),
    "one_hot_log_prob": lambda lib: lib.distributions.OneHotCategorical(
        lib.tensor(PROBS2)).log_prob(lib.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])),
    "poisson_zero_rate_grad": _grads(lambda lib, r: lib.distributions.Poisson(r).log_prob(
        lib.ones(())), 0.0),
    "poisson_log_prob": lambda lib: lib.distributions.Poisson(
        lib.tensor([0.5, 3.0, 0.0])).log_prob(lib.tensor([2.0, 0.0, 0.0])),
    # relaxed families at the temperature limit
    "relaxed_bernoulli_hot": _seeded(0, lambda lib: lib.distributions.RelaxedBernoulli(
        1e10, 0.2).rsample()),
    "relaxed_one_hot_hot": _seeded(0, lambda lib: lib.distributions.RelaxedOneHotCategorical(
        1e10, lib.tensor([0.2, 0.2, 0.6])).rsample()),
    "relaxed_one_hot_log_prob": lambda lib: lib.distributions.RelaxedOneHotCategorical(
        lib.tensor([0.25]), lib.tensor(PROBS2), validate_args=False).log_prob(
        lib.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    # continuous families' edges
    "uniform_outside": lambda lib: (
        lambda d: (d.log_prob(lib.tensor([4.0, -1.0])), d.cdf(lib.tensor([4.0, -1.0]))))(
        lib.distributions.Uniform(lib.zeros(1), 3 * lib.ones(1), validate_args=False)),
    "cauchy_moments": lambda lib: (lambda d: (d.mean, d.variance))(
        lib.distributions.Cauchy(lib.zeros(1), lib.ones(1))),
    "half_cauchy_moments": lambda lib: (lambda d: (d.mean, d.variance))(
        lib.distributions.HalfCauchy(lib.ones(1))),
    "half_normal_broadcast": lambda lib: lib.distributions.HalfNormal(
        lib.ones(2, 1, 4)).log_prob(lib.ones(3, 1)),
    "inverse_gamma_broadcast": lambda lib: lib.distributions.InverseGamma(
        lib.ones(4), lib.ones(2, 1, 1)).log_prob(lib.ones(3, 1)),
    "log_normal_broadcast": lambda lib: lib.distributions.LogNormal(
        lib.zeros(4), lib.ones(2, 1, 1)).log_prob(lib.ones(3, 1)),
    "pareto_moments": lambda lib: (lambda d: (d.mean, d.variance))(
        lib.distributions.Pareto(lib.ones(1), 0.5)),
    "fisher_moments": lambda lib: (lib.distributions.FisherSnedecor(1, 2).mean,
                                   lib.distributions.FisherSnedecor(1, 4).variance),
    "student_moments": lambda lib: (lib.distributions.StudentT(1).mean,
                                    lib.distributions.StudentT(1).variance,
                                    lib.distributions.StudentT(2).variance),
    "gamma_log_prob_at_0": lambda lib: [lib.distributions.Gamma(c, 1).log_prob(0)
                                        for c in (0.5, 1, 2)],
    "half_cauchy_log_prob_of_a_number": lambda lib: lib.distributions.HalfCauchy(
        lib.ones(2), validate_args=False).log_prob(0.5),
    "gumbel_cdf_tails": lambda lib: [
        lib.distributions.Gumbel(lib.tensor(0.0, dtype=dt), lib.tensor(1.0, dtype=dt),
                                 validate_args=False).cdf(x)
        for dt in (lib.float32, lib.float64) for x in (20.0, -5.0, 50.0, -10.0)],
    "dirichlet_modes": lambda lib: [lib.distributions.Dirichlet(lib.tensor(c)).mode for c in (
        [2.0, 2.0, 1.0], [3.0, 2.0, 1.0], [0.5, 0.2, 0.2], [1.0, 1.0, 1.0])],
    "dirichlet_log_prob_at_0": lambda lib: lib.distributions.Dirichlet(
        lib.tensor([1.0, 2.0])).log_prob(lib.tensor([0.0, 1.0])),
    "continuous_bernoulli_entropy": lambda lib: (
        lib.distributions.ContinuousBernoulli(lib.tensor(P3, dtype=lib.float64)).entropy(),
        lib.distributions.ContinuousBernoulli(lib.tensor([0.0], dtype=lib.float64)).entropy(),
        lib.distributions.ContinuousBernoulli(0.3).entropy()),
    "von_mises_normalized": lambda lib: [lib.distributions.VonMises(0.0, c).log_prob(
        lib.arange(0.0, 2 * math.pi, 1e-2)).exp().mean() for c in (0.01, 1.0, 100.0)],
    "lkj_invalid_sample": lambda lib: lib.distributions.LKJCholesky(
        3, 1.0, validate_args=True).log_prob(lib.eye(4, 3)),
    "lkj_log_prob": lambda lib: lib.distributions.LKJCholesky(3, 0.5).log_prob(
        lib.linalg.cholesky(lib.tensor([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]]))),
    # reparameterized gradients of seeded draws
    "normal_rsample_grads": _rsample_grads(3, lambda D, m, s: D.Normal(m, s),
                                           [0.5, -1.0], [1.0, 2.0]),
    "uniform_rsample_grads": _rsample_grads(3, lambda D, a, b: D.Uniform(a, b),
                                            [0.0, 1.0], [3.0, 2.0]),
    "cauchy_rsample_grads": _rsample_grads(3, lambda D, m, s: D.Cauchy(m, s),
                                           [0.0, 1.0], [1.0, 2.0]),
    "half_cauchy_rsample_grads": _rsample_grads(3, lambda D, s: D.HalfCauchy(s), [1.0, 2.0]),
    "exponential_rsample_grads": _rsample_grads(3, lambda D, r: D.Exponential(r), [0.5, 2.0]),
    "laplace_rsample_grads": _rsample_grads(3, lambda D, m, s: D.Laplace(m, s),
                                            [0.0, 1.0], [1.0, 2.0]),
    "tiny_scale_samples": _seeded(1, lambda lib: [
        getattr(lib.distributions, n)(lib.tensor([1.0, 0.0]), lib.tensor([1e-5, 1e-5]))
        .sample((1, 2)) for n in ("Normal", "LogNormal", "Laplace")]),
    "half_normal_tiny_sample": _seeded(1, lambda lib: lib.distributions.HalfNormal(
        lib.tensor([1e-5, 1e-5])).sample((1, 2))),
    "logistic_normal_tiny_sample": _seeded(1, lambda lib: lib.distributions.LogisticNormal(
        lib.tensor([1.0, 0.0]), lib.tensor([1e-5, 1e-5])).sample()),
    # numerical stability at the edges of the parameters
    **{f"bernoulli_score_{dt}_{i}": _grads(
        lambda lib, p, kind=kind, x=x, dt=dt: lib.distributions.Bernoulli(**{kind: p.to(
            getattr(lib, dt))}).log_prob(lib.tensor([x], dtype=getattr(lib, dt))), [v])
       for dt in ("float32", "float64")
       for i, (kind, v, x) in enumerate([
           ("probs", 0.0, 0.0), ("probs", 0.0, 1.0), ("probs", 1e-4, 1.0),
           ("probs", 1 - 1e-4, 0.0), ("logits", math.log(9999), 0.0), ("logits", -1e38, 0.0),
           ("logits", 1e38, 1.0)])},
    "bernoulli_log_prob_edges": lambda lib: [lib.distributions.Bernoulli(**{k: lib.tensor(
        [v], dtype=lib.float64)}).log_prob(lib.tensor([x], dtype=lib.float64)) for k, v, x in [
        ("probs", 0.0, 1.0), ("logits", -1e308, 0.0), ("logits", 1e308, 1.0)]],
    "one_hot_log_prob_edges": lambda lib: [
        lib.distributions.OneHotCategorical(lib.tensor([0.0, 1.0])).log_prob(
            lib.tensor([0.0, 1.0])),
        lib.distributions.OneHotCategorical(logits=lib.tensor([-math.inf, 0.0])).log_prob(
            lib.tensor([[0.0, 1.0], [1.0, 0.0]]))],
    "multinomial_log_prob_edges": lambda lib: [
        lib.distributions.Multinomial(10, lib.tensor([0.0, 1.0])).log_prob(
            lib.tensor([0.0, 10.0])),
        lib.distributions.Multinomial(10, logits=lib.tensor([-math.inf, 0.0])).log_prob(
            lib.tensor([[0.0, 10.0], [10.0, 0.0]]))],
    **{f"continuous_bernoulli_score_{dt}_{i}": _grads(
        lambda lib, p, kind=kind, x=x, dt=dt: lib.distributions.ContinuousBernoulli(
            **{kind: p.to(getattr(lib, dt))}).log_prob(lib.tensor([x], dtype=getattr(lib, dt))),
        [v])
       for dt in ("float32", "float64")
       for i, (kind, v, x) in enumerate([
           ("probs", 0.1, 0.1), ("probs", 0.1, 1.0), ("probs", 0.4999, 0.9),
           ("probs", 1e-4, 1.0), ("probs", 1 - 1e-4, 0.1), ("logits", math.log(9999), 0.0),
           ("logits", -0.001, 0.5), ("logits", 0.0, 0.3)])},
    # structured families
    "lowrank_equals_mvn": lambda lib: (lambda lo, full: [
        (getattr(lo, a), getattr(full, a)) for a in (
            "mean", "variance", "covariance_matrix", "scale_tril", "precision_matrix")] +
        [(lo.entropy(), full.entropy())])(
        lib.distributions.LowRankMultivariateNormal(
            lib.tensor([0.0, 1.0, 2.0]), lib.tensor([[1.0], [0.5], [-1.0]]),
            lib.tensor([1.0, 2.0, 0.5])),
        lib.distributions.MultivariateNormal(
            lib.tensor([0.0, 1.0, 2.0]),
            lib.tensor([[1.0], [0.5], [-1.0]]) @ lib.tensor([[1.0, 0.5, -1.0]]) +
            lib.diag(lib.tensor([1.0, 2.0, 0.5])))),
    "mvn_rbf_precision": lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(10, dtype=lib.float64), precision_matrix=lib.exp(
            -(lib.linspace(0, 3, 10, dtype=lib.float64)
              - lib.linspace(0, 3, 10, dtype=lib.float64).unsqueeze(-1)) ** 2)).scale_tril,
    "wishart_rbf_precision": lambda lib: lib.distributions.Wishart(
        lib.tensor(10.0, dtype=lib.float64), precision_matrix=lib.exp(
            -(lib.linspace(0, 3, 10, dtype=lib.float64)
              - lib.linspace(0, 3, 10, dtype=lib.float64).unsqueeze(-1)) ** 2)).scale_tril,
    "wishart_log_prob": lambda lib: lib.distributions.Wishart(
        lib.tensor([3.5, 4.0]), lib.tensor([[2.0, 0.3], [0.3, 0.5]])).log_prob(
        lib.tensor([[[1.0, 0.2], [0.2, 0.8]], [[3.0, -0.5], [-0.5, 1.0]]])),
    "mixture_log_prob": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.tensor([[0.2, 0.8], [0.5, 0.5]])),
        lib.distributions.Binomial(20, lib.tensor([[0.3, 0.6], [0.1, 0.9]]))).log_prob(
        lib.tensor([[3.0], [12.0]])),
}


def _flat(x):
    """A nested result as a list of (shape, dtype, values) and errors."""
    if isinstance(x, (list, tuple)) and not (x and isinstance(x[0], str)):
        return [item for v in x for item in _flat(v)]
    if isinstance(x, tuple):
        return [x]
    return [(tuple(x.shape), str(x.dtype), x.detach().double().numpy())]


def _outcome(fn, lib):
    try:
        return _flat(fn(lib))
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return _flat((type(e).__name__, message(e)))


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_expression_matches_pytorch(name):
    fn = EXPRESSIONS[name]
    expected, found = _outcome(fn, torch), _outcome(fn, gradjit)
    assert len(found) == len(expected)
    for f, e in zip(found, expected):
        if isinstance(e[0], str) and len(e) == 2 and isinstance(e[1], str):  # an error
            assert f == e
            continue
        assert f[:2] == e[:2]
        np.testing.assert_allclose(f[2], e[2], rtol=1e-5, atol=1e-6, equal_nan=True)
