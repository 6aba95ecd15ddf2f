"""Beta, Dirichlet, StudentT, FisherSnedecor, InverseGamma, Kumaraswamy, NegativeBinomial,
OneHotCategorical and the relaxed distributions against PyTorch: densities, entropies and
moments with their gradients, shapes, supports, reprs, seeded draws where they are PyTorch's,
errors; gamma-based draws by their law and by the gradient of their mean."""
import numpy as np
import pytest
import torch
from scipy import stats

import gradjit
from tests.torch_reference import same_error

MAKE = {
    "Beta": (lambda D, t: D.Beta(t([2.0, 0.5, 7.0]), t([3.0, 0.4, 1.5])), [0.3, 0.9, 0.6]),
    "Dirichlet": (lambda D, t: D.Dirichlet(t([[2.0, 0.5, 3.0], [0.7, 0.4, 0.9]])),
                  [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]),
    "StudentT": (lambda D, t: D.StudentT(t([0.8, 1.5, 5.0]), t([0.5, -1.0, 2.0]),
                                         t([1.5, 0.3, 2.0])), [0.3, -0.8, 2.5]),
    "FisherSnedecor": (lambda D, t: D.FisherSnedecor(t([3.0, 1.5, 6.0]), t([5.0, 2.5, 9.0])),
                       [0.3, 1.8, 2.5]),
    "InverseGamma": (lambda D, t: D.InverseGamma(t([0.8, 2.5, 4.0]), t([1.5, 0.3, 2.0])),
                     [0.3, 1.8, 2.5]),
    "Kumaraswamy": (lambda D, t: D.Kumaraswamy(t([2.0, 0.5, 3.0]), t([3.0, 1.4, 0.7])),
                    [0.3, 0.9, 0.6]),
    "NegativeBinomial": (lambda D, t: D.NegativeBinomial(t([3.0, 0.5, 6.0]),
                                                         t([0.2, 0.7, 0.5])), [0.0, 2.0, 5.0]),
    "NegativeBinomial-logits": (lambda D, t: D.NegativeBinomial(t([3.0, 0.5, 6.0]),
                                                                logits=t([0.2, -0.7, 1.5])),
                                [0.0, 2.0, 5.0]),
    "ContinuousBernoulli": (lambda D, t: D.ContinuousBernoulli(t([0.2, 0.4995, 0.9])),
                            [0.3, 0.9, 0.6]),
    "ContinuousBernoulli-logits": (lambda D, t: D.ContinuousBernoulli(logits=t([0.5, -1.4])),
                                   [0.3, 0.9]),
    "GeneralizedPareto": (lambda D, t: D.GeneralizedPareto(t([0.1, -1.0, 0.5, 0.0]),
                                                           t([1.5, 0.3, 2.0, 1.0]),
                                                           t([0.3, -0.2, 0.0, 0.7])),
                          [0.4, -0.9, 2.0, 1.5]),
    "OneHotCategorical": (lambda D, t: D.OneHotCategorical(t([[0.2, 0.3, 0.5],
                                                               [0.1, 0.6, 0.3]])),
                          [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    "StraightThrough": (lambda D, t: D.OneHotCategoricalStraightThrough(
        logits=t([[0.2, 0.3, -0.5], [1.1, 0.6, 0.3]])), [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
    "RelaxedBernoulli": (lambda D, t: D.RelaxedBernoulli(t([0.5, 1.5, 0.8]),
                                                         probs=t([0.2, 0.7, 0.5])),
                         [0.3, 0.9, 0.6]),
    "LogitRelaxedBernoulli": (lambda D, t: D.relaxed_bernoulli.LogitRelaxedBernoulli(
        t([0.5, 1.5, 0.8]), logits=t([0.2, -0.7, 1.5])), [0.3, -0.9, 1.6]),
    "RelaxedOneHotCategorical": (lambda D, t: D.RelaxedOneHotCategorical(
        t(0.7), probs=t([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])),
        [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]),
    "ExpRelaxedCategorical": (lambda D, t: D.relaxed_categorical.ExpRelaxedCategorical(
        t([0.5]), logits=t([[0.2, 0.3, -0.5], [1.1, 0.6, 0.3]])),
        [[-1.2, -0.9, -1.3], [-0.2, -2.0, -2.5]]),
}
WITH_CDF = {"ContinuousBernoulli", "ContinuousBernoulli-logits", "Kumaraswamy",
            "GeneralizedPareto"}
SEEDED = WITH_CDF | {"RelaxedBernoulli", "LogitRelaxedBernoulli",
          "RelaxedOneHotCategorical", "ExpRelaxedCategorical", "OneHotCategorical",
          "StraightThrough"}


# PyTorch's GeneralizedPareto compares its concentration with a float32 zero, so only float32
# parameters work there
FLOAT32 = {"GeneralizedPareto"}


def _evaluate(lib, name):
    make, value = MAKE[name]
    params = []
    dtype = lib.float32 if name in FLOAT32 else lib.float64

    def t(values):
        params.append(lib.tensor(values, dtype=dtype, requires_grad=True))
        return params[-1]
    d = make(lib.distributions, t)
    out = [d.log_prob(lib.tensor(value, dtype=dtype))]
    methods = ("entropy", "mean", "mode", "variance", "stddev")
    for method in methods + (("cdf", "icdf") if name in WITH_CDF else ()):
        try:
            attr = getattr(d, method)
            if method in ("cdf", "icdf"):
                attr = attr(lib.tensor(value, dtype=dtype).clamp(0.05, 0.95))
            out.append(attr() if callable(attr) else attr)
        except NotImplementedError:
            pass
    finite = [o for o in out if bool(o.isfinite().all())]
    grads = lib.autograd.grad(sum(o.sum() for o in finite), params, allow_unused=True)
    info = (repr(d), tuple(d.batch_shape), tuple(d.event_shape), repr(d.support),
            d.has_rsample, len(out))
    drawn = []
    if name in SEEDED:
        lib.manual_seed(7)
        drawn = [(d.rsample if d.has_rsample else d.sample)((4,)).detach().numpy()]
    return [o.detach().numpy() for o in out] + \
        [g.numpy() for g in grads if g is not None] + drawn, info


@pytest.mark.parametrize("name", MAKE)
def test_values_gradients_and_attributes_match_torch(name):
    want, want_info = _evaluate(torch, name)
    got, got_info = _evaluate(gradjit, name)
    assert got_info == want_info
    assert len(got) == len(want)
    for g, w in zip(got, want):
        # gradients of lgamma and digamma go through gradjit's digamma/trigamma (~1e-10)
        tol = 1e-5 if name in FLOAT32 else 1e-8
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol / 100)


LAWS = {
    "Beta": (lambda D: D.Beta(gradjit.tensor([2.0, 0.5]), gradjit.tensor([3.0, 0.4])),
             [stats.beta(2.0, 3.0), stats.beta(0.5, 0.4)]),
    "StudentT": (lambda D: D.StudentT(gradjit.tensor([3.5, 6.0]), 1.0, 2.0),
                 [stats.t(3.5, loc=1.0, scale=2.0), stats.t(6.0, loc=1.0, scale=2.0)]),
    "FisherSnedecor": (lambda D: D.FisherSnedecor(gradjit.tensor([3.0, 6.0]),
                                                  gradjit.tensor([5.0, 9.0])),
                       [stats.f(3.0, 5.0), stats.f(6.0, 9.0)]),
    "InverseGamma": (lambda D: D.InverseGamma(gradjit.tensor([2.5, 4.0]),
                                              gradjit.tensor([1.5, 2.0])),
                     [stats.invgamma(2.5, scale=1.5), stats.invgamma(4.0, scale=2.0)]),
}


@pytest.mark.parametrize("name", LAWS)
def test_samples_follow_the_law(name):
    make, laws = LAWS[name]
    gradjit.manual_seed(0)
    x = make(gradjit.distributions).sample((20000,)).double().numpy()
    assert x.shape == (20000, 2)
    for column, law in zip(x.T, laws):
        assert stats.kstest(column, law.cdf).statistic < 0.015


def test_negative_binomial_counts_follow_the_law():
    d = gradjit.distributions.NegativeBinomial(gradjit.tensor([3.0, 0.5]),
                                               gradjit.tensor([0.2, 0.7]))
    gradjit.manual_seed(0)
    x = d.sample((20000,)).numpy()
    # PyTorch counts successes of probability probs before total_count failures
    for column, law in zip(x.T, [stats.nbinom(3.0, 0.8), stats.nbinom(0.5, 0.3)]):
        frequencies = np.bincount(column.astype(int), minlength=10)[:10] / len(column)
        np.testing.assert_allclose(frequencies, law.pmf(np.arange(10)), atol=0.012)


def test_dirichlet_samples_lie_on_the_simplex_with_its_mean_and_variance():
    conc = gradjit.tensor([2.0, 0.5, 3.0], dtype=gradjit.float64)
    d = gradjit.distributions.Dirichlet(conc)
    gradjit.manual_seed(0)
    x = d.sample((20000,)).numpy()
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(0), d.mean.numpy(), atol=0.01)
    np.testing.assert_allclose(x.var(0), d.variance.numpy(), rtol=0.05)


RSAMPLED = {
    "Beta": lambda D, p: D.Beta(p[0], p[1]),
    "Dirichlet": lambda D, p: D.Dirichlet(p),
    "StudentT": lambda D, p: D.StudentT(p[0] * 4, p[1], p[0]),
    "InverseGamma": lambda D, p: D.InverseGamma(p[0] * 3, p[1]),
    "Kumaraswamy": lambda D, p: D.Kumaraswamy(p[0], p[1]),
    "FisherSnedecor": lambda D, p: D.FisherSnedecor(p[0] * 5, p[1] * 8),
}


@pytest.mark.parametrize("name", RSAMPLED)
def test_rsample_gradient_of_the_mean_is_unbiased(name):
    """d/dparams of the sample mean approximates d/dparams of the exact mean."""
    params = gradjit.tensor([1.5, 2.5], dtype=gradjit.float64, requires_grad=True)
    d = RSAMPLED[name](gradjit.distributions, params)
    gradjit.manual_seed(0)
    # the parameters' graph (p[0] * 3 saves its number) serves both: PyTorch frees it too
    (sampled,) = gradjit.autograd.grad(d.rsample((40000,)).mean(0).sum(), [params],
                                       retain_graph=True)
    (exact,) = gradjit.autograd.grad(d.mean.sum(), [params])
    np.testing.assert_allclose(sampled.numpy(), exact.numpy(), rtol=0.05, atol=0.01)


def _error_cases(lib):
    D = lib.distributions
    t = lib.tensor
    return {
        "beta-negative": lambda: D.Beta(t([1.0, -1.0]), 1.0),
        "beta-outside": lambda: D.Beta(2.0, 2.0).log_prob(t(1.5)),
        "dirichlet-scalar": lambda: D.Dirichlet(t(1.0)),
        "dirichlet-off-simplex": lambda: D.Dirichlet(t([1.0, 2.0])).log_prob(t([0.3, 0.3])),
        "studentt-df": lambda: D.StudentT(t([-1.0])),
        "fisher": lambda: D.FisherSnedecor(t([1.0]), t([0.0])),
        "inverse-gamma": lambda: D.InverseGamma(t([1.0]), t([-2.0])),
        "kumaraswamy": lambda: D.Kumaraswamy(t([1.0]), t([-2.0])),
        "negative-binomial-probs": lambda: D.NegativeBinomial(t([2.0]), t([1.0])),
        "negative-binomial-both": lambda: D.NegativeBinomial(2.0, t([0.5]), t([0.5])),
        "one-hot-value": lambda: D.OneHotCategorical(t([0.5, 0.5])).log_prob(t([1.0, 1.0])),
        "relaxed-both": lambda: D.RelaxedBernoulli(t(1.0), t([0.5]), t([0.5])),
        "generalized-pareto-scale": lambda: D.GeneralizedPareto(0.0, t([-1.0]), 0.5),
        "generalized-pareto-outside": lambda: D.GeneralizedPareto(0.0, 1.0, -0.5).log_prob(
            t(3.0)),
        "continuous-bernoulli-probs": lambda: D.ContinuousBernoulli(t([1.5]),
                                                                    validate_args=False),
    }


@pytest.mark.parametrize("name", _error_cases(torch))
def test_errors_match_torch(name):
    same_error(_error_cases(gradjit)[name], _error_cases(torch)[name])


def test_one_hot_enumerate_support_and_straight_through_gradient():
    for lib in (torch, gradjit):
        d = lib.distributions.OneHotCategorical(lib.tensor([[0.2, 0.8], [0.5, 0.5]]))
        assert tuple(d.enumerate_support().shape) == (2, 2, 2)
        assert tuple(d.enumerate_support(expand=False).shape) == (2, 1, 2)
    probs = gradjit.tensor([0.2, 0.3, 0.5], requires_grad=True)
    draw = gradjit.distributions.OneHotCategoricalStraightThrough(probs).rsample()
    (draw * gradjit.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert bool(((draw == 0) | (draw == 1)).all()) and float(draw.detach().sum()) == 1.0
    assert probs.grad is not None and float(probs.grad.abs().sum()) > 0


def test_submodules_import_as_torchs():
    import importlib
    for module in ("normal", "beta", "studentT", "relaxed_categorical", "transforms",
                   "constraint_registry", "kl", "utils", "transformed_distribution"):
        ours = importlib.import_module(f"gradjit.distributions.{module}")
        theirs = importlib.import_module(f"torch.distributions.{module}")
        public = getattr(theirs, "__all__", None) or [
            n for n, v in vars(theirs).items() if isinstance(v, type) and not n.startswith("_")
            and v.__module__ == theirs.__name__]
        assert public and all(hasattr(ours, n) for n in public), (module, public)
    from gradjit.distributions.one_hot_categorical import OneHotCategorical
    assert OneHotCategorical is gradjit.distributions.OneHotCategorical
    from gradjit.distributions.utils import logits_to_probs, probs_to_logits
    p = gradjit.tensor([0.2, 0.7])
    np.testing.assert_allclose(logits_to_probs(probs_to_logits(p, True), True).numpy(),
                               p.numpy(), rtol=1e-6)
