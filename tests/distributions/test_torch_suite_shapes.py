"""PyTorch's distributions suite's shape checks, side by side with torch: parameters that
broadcast (and those that cannot), entropy shapes, and log_prob's shape, or its error, for
values of several shapes against scalar and batched parameters."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import message

def _t(lib, x):
    return lib.tensor(x) if isinstance(x, list) else x


MAKERS = {
    "Normal": ("loc", "scale"), "FisherSnedecor": ("df1", "df2"),
    "Gamma": ("concentration", "rate"), "Gumbel": ("loc", "scale"),
    "Kumaraswamy": ("concentration1", "concentration0"), "Laplace": ("loc", "scale"),
    "Pareto": ("scale", "alpha"),
}
BROADCASTS = [([1.0, 1.0], 1), (1, [1.0, 1.0]), ([1.0, 1.0], [1.0]), ([1.0, 1.0], [[1.0], [1.0]]),
              ([1.0, 1.0], [[1.0]]), ([1.0], [[1.0]]), ([1.0, 1.0], [[1.0], [1.0], [1.0]])]
VALID = [(name, a, b) for name in MAKERS for a, b in BROADCASTS]
VALID += [("StudentT", {"df": [1.0, 1.0], "loc": 1}, None),
          ("StudentT", {"df": 1, "scale": [1.0, 1.0]}, None),
          ("StudentT", {"df": [1.0, 1.0], "scale": [[1.0], [1.0]]}, None),
          ("StudentT", {"df": 1.0, "loc": [[0.0]] * 5, "scale": [1.0] * 3}, None)]
INVALID = [("Normal", [[0, 0]], [1, 1, 1, 1]), ("Normal", [[[0, 0, 0], [0, 0, 0]]], [1, 1]),
           ("FisherSnedecor", [1, 1], [1, 1, 1]), ("Gumbel", [[0, 0]], [1, 1, 1, 1]),
           ("Gamma", [0, 0], [1, 1, 1]), ("Kumaraswamy", [[1, 1]], [1, 1, 1, 1]),
           ("Laplace", [0, 0], [1, 1, 1]), ("Pareto", [1, 1], [1, 1, 1]),
           ("StudentT", {"df": [1.0, 1.0], "scale": [1.0, 1.0, 1.0]}, None),
           ("StudentT", {"df": [1.0, 1.0], "loc": [1.0, 1.0, 1.0]}, None)]


def _make(lib, name, a, b):
    cls = getattr(lib.distributions, name)
    if isinstance(a, dict):
        return cls(**{k: _t(lib, v) for k, v in a.items()})
    first, second = MAKERS[name]
    return cls(**{first: _t(lib, a), second: _t(lib, b)})


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the comparison is the test
        return type(e).__name__, message(e)


@pytest.mark.parametrize("name,a,b", VALID)
def test_parameters_broadcast_as_pytorch(name, a, b):
    t, g = _make(torch, name, a, b), _make(gradjit, name, a, b)
    for shape in [(), (2,)]:
        assert tuple(g.sample(shape).shape) == tuple(t.sample(shape).shape)


@pytest.mark.parametrize("name,a,b", INVALID)
def test_parameters_that_cannot_broadcast_raise_as_pytorch(name, a, b):
    expected = _outcome(lambda: _make(torch, name, a, b))
    assert isinstance(expected, tuple) and expected[0] == "RuntimeError"
    assert _outcome(lambda: _make(gradjit, name, a, b)) == expected


def _dists(lib):
    t, D = lib.tensor, lib.distributions
    p32 = [[0.6, 0.3], [0.6, 0.3], [0.6, 0.3]]
    return {
        "Bernoulli": D.Bernoulli(0.3), "BernoulliBatch": D.Bernoulli(t(p32)),
        "Geometric": D.Geometric(0.3), "GeometricBatch": D.Geometric(t(p32)),
        "Beta": D.Beta(0.1, 0.1), "BetaBatch": D.Beta(t(p32), t(p32)),
        "Binomial": D.Binomial(10, t([0.6, 0.3])),
        "BinomialCounts": D.Binomial(t([[10, 3, 1], [4, 8, 4]]), t([0.6, 0.3, 0.1])),
        "Multinomial": D.Multinomial(10, t(p32)),
        "Categorical": D.Categorical(t([0.6, 0.3, 0.1])),
        "CategoricalBatch": D.Categorical(t(p32)),
        "OneHotCategorical": D.OneHotCategorical(t([0.6, 0.3, 0.1])),
        "OneHotCategoricalBatch": D.OneHotCategorical(t(p32)),
        "Cauchy": D.Cauchy(0, 1), "CauchyBatch": D.Cauchy(t([0.0, 0.0]), t([1.0, 1.0])),
        "HalfCauchy": D.HalfCauchy(1), "HalfCauchyBatch": D.HalfCauchy(t([1.0, 1.0])),
        "Dirichlet": D.Dirichlet(t([[0.6, 0.3], [1.6, 1.3], [2.6, 2.3]])),
        "MixtureSameFamily": D.MixtureSameFamily(D.Categorical(t([0.1, 0.5, 0.4])),
                                                 D.Normal(t([0.0, 1.0, 2.0]), t([1.0] * 3))),
        "Gamma": D.Gamma(1, 1), "GammaBatch": D.Gamma(t([1.0, 1.0]), t([1.0, 1.0])),
        "Chi2": D.Chi2(1), "Chi2Batch": D.Chi2(t([1.0, 1.0])),
        "StudentT": D.StudentT(1), "StudentTBatch": D.StudentT(t([1.0, 1.0])),
        "Pareto": D.Pareto(1, 1), "PareteBatch": D.Pareto(t([1.0, 1.0]), t([1.0, 1.0])),
        "Gumbel": D.Gumbel(1, 1), "GumbelBatch": D.Gumbel(t([1.0, 1.0]), t([1.0, 1.0])),
        "Normal": D.Normal(0, 1), "NormalBatch": D.Normal(t([0.0, 0.0]), t([1.0, 1.0])),
        "Uniform": D.Uniform(0, 1), "UniformBatch": D.Uniform(t([0.0, 0.0]), t([1.0, 2.0])),
        "Exponential": D.Exponential(1), "ExponentialBatch": D.Exponential(t([1.0, 2.0])),
        "Laplace": D.Laplace(0, 1), "LaplaceBatch": D.Laplace(t([0.0, 0.0]), t([1.0, 1.0])),
        "Weibull": D.Weibull(1, 1), "Kumaraswamy": D.Kumaraswamy(1, 1),
        "LogNormal": D.LogNormal(0, 1), "HalfNormal": D.HalfNormal(1),
        "FisherSnedecor": D.FisherSnedecor(1, 1), "Poisson": D.Poisson(1.0),
        "ContinuousBernoulli": D.ContinuousBernoulli(0.3), "VonMises": D.VonMises(0.0, 1.0),
    }


VALUES = {"number": lambda lib: 1, "ones32": lambda lib: lib.ones(3, 2),
          "ones323": lambda lib: lib.ones(3, 2, 3), "ones311": lambda lib: lib.ones(3, 1, 1),
          "ones21": lambda lib: lib.ones(2, 1), "ones31": lambda lib: lib.ones(3, 1),
          "ones312": lambda lib: lib.ones(3, 1, 2) / 2,
          "one_hot": lambda lib: lib.tensor([0.0, 1.0, 0.0]).expand(3, 2, 3),
          "eye3": lambda lib: lib.eye(3)}


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("name", list(_dists(torch)))
def test_log_prob_shape_or_error_as_pytorch(name, value):
    def shape(lib):
        return _outcome(lambda: tuple(_dists(lib)[name].log_prob(VALUES[value](lib)).shape))
    assert shape(gradjit) == shape(torch)


@pytest.mark.parametrize("name", list(_dists(torch)))
def test_entropy_and_enumerate_support_shapes_as_pytorch(name):
    t, g = _dists(torch)[name], _dists(gradjit)[name]
    for fn in (lambda d: d.entropy(), lambda d: d.enumerate_support(),
               lambda d: d.log_prob(d.enumerate_support())):
        expected, found = _outcome(lambda: fn(t)), _outcome(lambda: fn(g))
        if isinstance(expected, tuple):
            assert found == expected
        else:
            assert tuple(found.shape) == tuple(expected.shape)
            np.testing.assert_allclose(found.detach().numpy(), expected.detach().numpy(),
                                       rtol=1e-5, atol=1e-6)
