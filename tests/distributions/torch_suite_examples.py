"""The parameter sets PyTorch's distributions suite runs its generic checks over, as data that
builds the same distribution in torch and in gradjit (equal values, equal requires_grad)."""
import math

import numpy as np


class P:
    """A tensor parameter: its values, whether it requires grad, and its dtype's name."""

    def __init__(self, values, grad=True, dtype=None):
        self.values, self.grad, self.dtype = np.asarray(values), grad, dtype


class D:
    """A distribution built from other specs, by its class name."""

    def __init__(self, name, *args, **kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs


class T(D):
    """A transform built from other specs, by its class name."""


def detached(spec):
    """The spec with no parameter requiring grad."""
    if isinstance(spec, P):
        return P(spec.values, False, spec.dtype)
    if isinstance(spec, D):
        return type(spec)(spec.name, *map(detached, spec.args),
                          **{k: detached(v) for k, v in spec.kwargs.items()})
    if isinstance(spec, list):
        return [detached(s) for s in spec]
    if isinstance(spec, dict):
        return {k: detached(v) for k, v in spec.items()}
    return spec


def build(lib, spec, leaves=None):
    """The spec as the library's objects; the tensors requiring grad made on the way are
    appended to leaves, in the spec's order."""
    leaves = [] if leaves is None else leaves
    if isinstance(spec, P):
        dtype = getattr(lib, spec.dtype) if spec.dtype else None
        out = lib.tensor(spec.values.tolist(), dtype=dtype)  # floats: the default dtype
        if spec.grad:
            leaves.append(out.requires_grad_())
        return out
    if isinstance(spec, D):
        home = lib.distributions.transforms if isinstance(spec, T) else lib.distributions
        args = [build(lib, a, leaves) for a in spec.args]
        kwargs = {k: build(lib, v, leaves) for k, v in spec.kwargs.items()}
        return getattr(home, spec.name)(*args, **kwargs)
    if isinstance(spec, list):
        return [build(lib, s, leaves) for s in spec]
    return spec


_rng = np.random.RandomState(0)


def randn(*shape):
    return _rng.randn(*shape)


def pos(*shape):
    """exp of standard normals: a positive parameter."""
    return np.exp(randn(*shape))


def absn(*shape):
    return np.abs(randn(*shape))


def unit(*shape, low=0.0, high=1.0):
    return _rng.uniform(low, high, shape)


def normal(*shape):
    return D("Normal", P(randn(*shape)), P(absn(*shape)))


PROBS = [[0.1, 0.2, 0.3], [0.5, 0.3, 0.2]]
EYE2 = [[1.0, 0.0], [0.0, 1.0]]
NB_PROBS = [[0.9, 0.0], [0.0, 0.9]]
COV2 = [[2.0, 0.3], [0.3, 0.25]]
PREC3 = [[2.0, 0.1, 0.0], [0.1, 0.25, 0.0], [0.0, 0.0, 0.3]]
TRIL = [[[2.0, 0.0], [-0.5, 0.25]], [[2.0, 0.0], [0.3, 0.25]], [[5.0, 0.0], [-0.5, 1.5]]]
TINY = dict(loc=P([1.0, 0.0]), scale=P([1e-5, 1e-5]))


def _loc_scale(shapes=((5, 5), (1,)), tiny=True):
    rows = [dict(loc=P(randn(*s)), scale=P(absn(*s))) for s in shapes]
    return rows + ([TINY] if tiny else [])


def _counts(probs_rows):
    return [dict(probs=P(PROBS), total_count=10)] + [
        dict(probs=P(probs_rows), total_count=c)
        for c in (10, P([10], False), P([10, 8], False), P([[10.0, 8.0], [5.0, 3.0]], False),
                  P(0.0, False))]


def _categorical():
    return [dict(probs=P(PROBS)), dict(probs=P(EYE2)), dict(logits=P([[0.0, 0.0], [0.0, 0.0]]))]


def _bernoulli():
    return [dict(probs=P([0.7, 0.2, 0.4])), dict(probs=P([0.3])), dict(probs=0.3),
            dict(logits=P([0.0]))]


def _pair(first, second, shapes=((2, 3), (4,)), draw=pos):
    return [{first: P(draw(*s)), second: P(draw(*s))} for s in shapes]


EXAMPLES = {
    "Bernoulli": _bernoulli(),
    "Geometric": [dict(probs=P([0.7, 0.2, 0.4])), dict(probs=P([0.3])), dict(probs=0.3)],
    "Beta": _pair("concentration1", "concentration0"),
    "Categorical": _categorical(),
    "Binomial": _counts(EYE2),
    "NegativeBinomial": _counts(NB_PROBS),
    "Multinomial": [dict(probs=P(PROBS), total_count=10), dict(probs=P(EYE2), total_count=10)],
    "Cauchy": [dict(loc=0.0, scale=1.0), dict(loc=P([0.0], False), scale=1.0),
               dict(loc=P([[0.0], [0.0]], False), scale=P([[1.0], [1.0]], False))],
    "Chi2": [dict(df=P(pos(2, 3))), dict(df=P(pos(1)))],
    "StudentT": [dict(df=P(pos(2, 3))), dict(df=P(pos(1)))],
    "Dirichlet": [dict(concentration=P(pos(2, 3))), dict(concentration=P(pos(4)))],
    "Exponential": [dict(rate=P(absn(5, 5))), dict(rate=P(absn(1)))],
    "FisherSnedecor": _pair("df1", "df2", ((5, 5), (1,)), absn)
    + [dict(df1=P([1.0], False), df2=1.0)],
    "Gamma": _pair("concentration", "rate", ((2, 3), (1,))),
    "Gumbel": _loc_scale(tiny=False),
    "HalfCauchy": [dict(scale=1.0), dict(scale=P([[1.0], [1.0]], False))],
    "HalfNormal": [dict(scale=P(absn(5, 5))), dict(scale=P(absn(1))),
                   dict(scale=P([1e-5, 1e-5]))],
    "Independent": [dict(base_distribution=normal(*s), reinterpreted_batch_ndims=n)
                    for s, n in [((2, 3), 0), ((2, 3), 1), ((2, 3), 2), ((2, 3, 5), 2),
                                 ((2, 3, 5), 3)]],
    "Kumaraswamy": _pair("concentration1", "concentration0",
                         draw=lambda *s: unit(*s, low=1.0, high=2.0)),
    "LKJCholesky": [dict(dim=2, concentration=0.5),
                    dict(dim=3, concentration=P([0.5, 1.0, 2.0], False)),
                    dict(dim=100, concentration=4.0)],
    "Laplace": _loc_scale(),
    "LogNormal": _loc_scale(),
    "LogisticNormal": _loc_scale(),
    "LowRankMultivariateNormal": [
        dict(loc=P(randn(5, 2)), cov_factor=P(randn(5, 2, 1)), cov_diag=P([2.0, 0.25])),
        dict(loc=P(randn(4, 3)), cov_factor=P(randn(3, 2)), cov_diag=P([5.0, 1.5, 3.0]))],
    "MultivariateNormal": [
        dict(loc=P(randn(5, 2)), covariance_matrix=P(COV2)),
        dict(loc=P(randn(2, 3)), precision_matrix=P(PREC3)),
        dict(loc=P(randn(5, 3, 2)), scale_tril=P(TRIL)),
        dict(loc=P([1.0, -1.0], False), covariance_matrix=P([[5.0, -0.5], [-0.5, 1.5]], False))],
    "Normal": _loc_scale(),
    "OneHotCategorical": _categorical(),
    "OneHotCategoricalStraightThrough": _categorical(),
    "Pareto": [dict(scale=1.0, alpha=1.0),
               dict(scale=P(absn(5, 5) + 0.1), alpha=P(absn(5, 5) + 0.1)),
               dict(scale=P([1.0], False), alpha=1.0)],
    "Poisson": [dict(rate=P(absn(5, 5))), dict(rate=P(absn(3))), dict(rate=0.2),
                dict(rate=P([0.0])), dict(rate=0.0)],
    "RelaxedBernoulli": [
        dict(temperature=P([0.5]), probs=P([0.7, 0.2, 0.4])),
        dict(temperature=P([2.0], False), probs=P([0.3], False)),
        dict(temperature=P([7.2], False), logits=P([-2.0, 2.0, 1.0, 5.0], False))],
    "RelaxedOneHotCategorical": [
        dict(temperature=P([0.5]), probs=P([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]])),
        dict(temperature=P([2.0], False), probs=P(EYE2, False)),
        dict(temperature=P([7.2], False), logits=P([[-2.0, 2.0], [1.0, 5.0]], False))],
    "TransformedDistribution": [
        dict(base_distribution=normal(2, 3), transforms=[]),
        dict(base_distribution=normal(2, 3), transforms=T("ExpTransform")),
        dict(base_distribution=normal(2, 3, 5),
             transforms=[T("AffineTransform", P(randn(3, 5), False), P(randn(3, 5), False)),
                         T("ExpTransform")]),
        dict(base_distribution=normal(2, 3, 5), transforms=T("AffineTransform", 1, 2)),
        dict(base_distribution=D("Uniform", P(math.log(1e8), False), P(math.log(1e10), False)),
             transforms=T("ExpTransform"))],
    "Uniform": [dict(low=P(np.zeros((5, 5))), high=P(np.ones((5, 5)))),
                dict(low=P(np.zeros(1)), high=P(np.ones(1))),
                dict(low=P([1.0, 1.0]), high=P([2.0, 3.0]))],
    "Weibull": [dict(scale=P(absn(5, 5)), concentration=P(absn(1)))],
    "Wishart": [
        dict(covariance_matrix=P(COV2), df=P([3.0])),
        dict(precision_matrix=P(PREC3), df=P([5.0, 4])),
        dict(scale_tril=P(TRIL), df=P([5.0, 3.5, 3])),
        dict(covariance_matrix=P([[5.0, -0.5], [-0.5, 1.5]], False), df=P([3.0], False)),
        dict(covariance_matrix=P([[5.0, -0.5], [-0.5, 1.5]], False), df=3.0)],
    "MixtureSameFamily": [
        dict(mixture_distribution=D("Categorical", P(unit(5))), component_distribution=D(
            "Normal", P(randn(5)), P(unit(5)))),
        dict(mixture_distribution=D("Categorical", P(unit(5))),
             component_distribution=D("MultivariateNormal", loc=P(randn(5, 2)),
                                      covariance_matrix=P(COV2)))],
    "VonMises": [dict(loc=P(1.0), concentration=P(10.0)),
                 dict(loc=P([0.0, math.pi / 2]), concentration=P([1.0, 10.0]))],
    "ContinuousBernoulli": _bernoulli(),
    "InverseGamma": _pair("concentration", "rate", ((2, 3), (1,))),
    "GeneralizedPareto": [dict(loc=P(randn(5, 5) * 10), scale=P(absn(5, 5)),
                               concentration=P(randn(5, 5) / 10))],
}


def _bad_pair(first, second, rows):
    return [{first: P(a), second: P(b)} for a, b in rows]


_SCALE_BAD = _bad_pair("loc", "scale", [([1.0, 1.0], [0.0, 1.0]), ([1.0, 1.0], [1.0, -1.0])])
_PROBS_BAD = [dict(probs=P([1.1, 0.2, 0.4])), dict(probs=P([-0.5])), dict(probs=1.00001)]
_COUNTS_BAD = [dict(probs=P([[-0.0000001, 0.2, 0.3], [0.5, 0.3, 0.2]]), total_count=10),
               dict(probs=P([[1.0, 0.0], [0.0, 2.0]]), total_count=10)]
_ONE_HOT_BAD = [dict(probs=P([[0.1, 0.2, 0.3], [0.1, -10.0, 0.2]])),
                dict(probs=P([[0.0, 0.0], [0.0, 0.0]]))]
_GAMMA_BAD = _bad_pair("concentration", "rate", [([0.0, 0.0], [-1.0, -100.0]),
                                                 ([1.0, 1.0], [0.0, 0.0])])
_DF_BAD = [dict(df=P([0.0])), dict(df=P([-2.0]))]
_WISHART_BAD_COV = [[1.0, 1.0], [1.0, -2.0]]

BAD_EXAMPLES = {
    "Bernoulli": _PROBS_BAD,
    "Beta": _bad_pair("concentration1", "concentration0", [([0.0], [0.0]), ([-1.0], [-2.0])]),
    "Geometric": [dict(probs=P([1.1, 0.2, 0.4])), dict(probs=P([-0.3])),
                  dict(probs=1.00000001)],
    "Categorical": [dict(probs=P([[-0.1, 0.2, 0.3], [0.5, 0.3, 0.2]])),
                    dict(probs=P([[-1.0, 10.0], [0.0, -1.0]]))],
    "Binomial": _COUNTS_BAD,
    "NegativeBinomial": _COUNTS_BAD,
    "Cauchy": [dict(loc=0.0, scale=-1.0), dict(loc=P([0.0], False), scale=0.0),
               dict(loc=P([[0.0], [-2.0]], False), scale=P([[-0.000001], [1.0]], False))],
    "Chi2": _DF_BAD,
    "StudentT": _DF_BAD,
    "Dirichlet": [dict(concentration=P([0.0])), dict(concentration=P([-2.0]))],
    "Exponential": [dict(rate=P([0.0, 0.0])), dict(rate=P([-2.0]))],
    "FisherSnedecor": _bad_pair("df1", "df2", [([0.0, 0.0], [-1.0, -100.0]),
                                               ([1.0, 1.0], [0.0, 0.0])]),
    "Gamma": _GAMMA_BAD,
    "Gumbel": _SCALE_BAD,
    "HalfCauchy": [dict(scale=-1.0), dict(scale=0.0),
                   dict(scale=P([[-0.000001], [1.0]], False))],
    "HalfNormal": [dict(scale=P([0.0, 1.0])), dict(scale=P([1.0, -1.0]))],
    "LKJCholesky": [dict(dim=-2, concentration=0.1), dict(dim=1, concentration=2.0),
                    dict(dim=2, concentration=0.0)],
    "Laplace": _SCALE_BAD,
    "LogNormal": _SCALE_BAD,
    "MultivariateNormal": [dict(loc=P([1.0, 1.0]),
                                covariance_matrix=P([[1.0, 0.0], [0.0, -2.0]]))],
    "Normal": _SCALE_BAD + [dict(loc=P([1.0, 0.0]), scale=P([1e-5, -1e-5]))],
    "OneHotCategorical": _ONE_HOT_BAD,
    "OneHotCategoricalStraightThrough": _ONE_HOT_BAD,
    "Pareto": [dict(scale=0.0, alpha=0.0), dict(scale=P([0.0, 0.0]), alpha=P([-1e-5, 0.0])),
               dict(scale=P([1.0], False), alpha=-1.0)],
    "Poisson": [dict(rate=P([-0.1])), dict(rate=-1.0)],
    "RelaxedBernoulli": [dict(temperature=P([1.5]), probs=P([1.7, 0.2, 0.4])),
                         dict(temperature=P([2.0], False), probs=P([-1.0], False))],
    "RelaxedOneHotCategorical": [
        dict(temperature=P([0.5]), probs=P([[-0.1, 0.2, 0.7], [0.5, 0.3, 0.2]])),
        dict(temperature=P([2.0], False), probs=P([[-1.0, 0.0], [-1.0, 1.1]], False))],
    "Uniform": _bad_pair("low", "high", [([2.0], [2.0]), ([0.0], [0.0]), ([1.0], [0.0])]),
    "Weibull": _bad_pair("scale", "concentration", [([0.0], [0.0]), ([1.0], [-1.0])]),
    "Wishart": [dict(covariance_matrix=P([[1.0, 0.0], [0.0, -2.0]]), df=P([1.5])),
                dict(covariance_matrix=P(_WISHART_BAD_COV), df=P([3.0])),
                dict(covariance_matrix=P(_WISHART_BAD_COV), df=3.0)],
    "ContinuousBernoulli": _PROBS_BAD,
    "InverseGamma": _GAMMA_BAD,
    "GeneralizedPareto": [
        dict(loc=P([0.0, 0.0]), scale=P([-1.0, -100.0]), concentration=P([0.0, 0.0])),
        dict(loc=P([1.0, 1.0]), scale=P([0.0, 0.0]), concentration=P([-1.0, -100.0]))],
}


def cases(table):
    """(id, class name, spec) for every parameter set of the table."""
    return [(f"{name}-{i}", name, spec) for name, specs in table.items()
            for i, spec in enumerate(specs)]
