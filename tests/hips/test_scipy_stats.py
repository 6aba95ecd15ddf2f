"""gradjit.scipy.stats as autograd.scipy.stats: scipy's values, and derivatives that agree with
finite differences (HIPS autograd's tests/test_scipy.py checks, ported)."""
import numpy
import pytest
import scipy.stats

from gradjit.scipy import stats
from gradjit.test_util import check_grads, combo_check

RNG = numpy.random.default_rng(1)


def R(*shape):
    return RNG.standard_normal(shape)


def U(low, high, *shape):
    return RNG.uniform(low, high, shape)


POSITIVE = R(4) ** 2 + 1.1
# (distribution, method, arguments, argnums checked): HIPS's choices of points and arguments
CASES = [
    ("norm", "pdf", (R(4), R(4), POSITIVE), [0, 1, 2]),
    ("norm", "logpdf", (R(4), R(4), POSITIVE), [0, 1, 2]),
    ("norm", "cdf", (R(4), R(4), POSITIVE), [0, 1, 2]),
    ("norm", "logcdf", (R(4), R(4), POSITIVE), [0, 1, 2]),
    ("norm", "sf", (R(4), R(4), POSITIVE), [0, 1, 2]),
    ("norm", "logsf", (R(4), R(4), POSITIVE), [0, 1, 2]),
    ("norm", "logpdf", (R(4, 3), R(1, 3), R(4, 1) ** 2 + 1.1), [0, 1, 2]),
    ("norm", "logcdf", (R(4, 3), R(1, 3), R(4, 1) ** 2 + 1.1), [0, 1, 2]),
    ("t", "pdf", (R(4), R(4) ** 2 + 2.1, R(4), R(4) ** 2 + 2.1), [0, 1, 2, 3]),
    ("t", "logpdf", (R(4, 3), R(1, 3) ** 2 + 2.1, R(4, 3), R(4, 1) ** 2 + 2.1), [0, 1, 2, 3]),
    ("t", "cdf", (R(4), R(4) ** 2 + 2.1, R(4), R(4) ** 2 + 2.1), [0, 2, 3]),
    ("t", "logcdf", (R(4, 3), R(1, 3) ** 2 + 2.1, R(4, 3), R(4, 1) ** 2 + 2.1), [0, 2]),
    ("gamma", "pdf", (POSITIVE, R(4) ** 2 + 1.1), [0, 1]),
    ("gamma", "logpdf", (POSITIVE, R(4) ** 2 + 1.1), [0, 1]),
    ("gamma", "cdf", (POSITIVE, R(4) ** 2 + 1.1), [0]),
    ("beta", "pdf", (U(0, 1, 4), POSITIVE, R(4) ** 2 + 1.1), [0, 1, 2]),
    ("beta", "logpdf", (U(0, 1, 4), POSITIVE, R(4) ** 2 + 1.1), [0, 1, 2]),
    ("beta", "cdf", (U(0, 1, 4), POSITIVE, R(4) ** 2 + 1.1), [0]),
    ("chi2", "pdf", (POSITIVE, 3), [0]),
    ("chi2", "logpdf", (POSITIVE, 2), [0]),
    ("chi2", "cdf", (POSITIVE, 1), [0]),
    ("poisson", "pmf", (numpy.round(R(4, 3) ** 2), R(4, 1) ** 2 + 1.1), [1]),
    ("poisson", "logpmf", (numpy.round(R(4) ** 2), POSITIVE), [1]),
    ("poisson", "cdf", (numpy.round(R(4) ** 2), POSITIVE), [1]),
]


@pytest.mark.parametrize("name, method, args, argnums", CASES,
                         ids=[f"{c[0]}.{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_values_are_scipys_and_gradients_finite_differences(name, method, args, argnums):
    fun = getattr(getattr(stats, name), method)
    numpy.testing.assert_allclose(fun(*args), getattr(getattr(scipy.stats, name), method)(*args),
                                  rtol=1e-10, atol=1e-300)
    check_grads(fun, tuple(argnums), modes=["fwd", "rev"])(*args)


def make_psd(mat):
    return mat.T @ mat + numpy.eye(len(mat))


def symmetrized(fun, argnum):
    """fun of a symmetric matrix at argnum, so that finite differences stay symmetric."""
    def symmetric(*args, **kwargs):
        args = list(args)
        args[argnum] = 0.5 * (args[argnum] + args[argnum].T)
        return fun(*args, **kwargs)
    return symmetric


COV = make_psd(R(4, 4))


@pytest.mark.parametrize("method, x", [("pdf", R(4)), ("logpdf", R(4)), ("logpdf", R(5, 4)),
                                       ("pdf", R(5, 4))])
def test_multivariate_normal(method, x):
    fun, mean = getattr(stats.multivariate_normal, method), R(4)
    numpy.testing.assert_allclose(fun(x, mean, COV),
                                  getattr(scipy.stats.multivariate_normal, method)(x, mean, COV))
    check_grads(symmetrized(fun, 2), (0, 1, 2), modes=["rev"])(x, mean, COV)


def test_multivariate_normal_entropy():
    mean = 10 * R(4)
    numpy.testing.assert_allclose(stats.multivariate_normal.entropy(mean, COV),
                                  scipy.stats.multivariate_normal.entropy(mean, COV))
    check_grads(symmetrized(stats.multivariate_normal.entropy, 1), 1)(mean, COV)


def test_multivariate_normal_singular_covariance():
    cov = numpy.zeros((4, 4))
    cov[0, 0] = cov[1, 1] = 1
    x, mean = numpy.concatenate((R(2), numpy.zeros(2))), numpy.concatenate((R(2), numpy.zeros(2)))
    for method in ("pdf", "logpdf"):
        fun = getattr(stats.multivariate_normal, method)
        numpy.testing.assert_allclose(
            fun(x, mean, cov, allow_singular=True),
            getattr(scipy.stats.multivariate_normal, method)(x, mean, cov, allow_singular=True))

        def along_support(x, mean):  # x varies only where the covariance does
            x = numpy.concatenate([x[:2], mean[2:]])
            return fun(x, mean, cov, allow_singular=True)
        combo_check(along_support, (0, 1), modes=["rev"])([x], [mean])


ALPHA = RNG.random(4) ** 2 + 1.2
POINT = scipy.stats.dirichlet.rvs(ALPHA, size=1, random_state=1)[0]


@pytest.mark.parametrize("method", ["pdf", "logpdf"])
def test_dirichlet(method):
    fun = getattr(stats.dirichlet, method)
    numpy.testing.assert_allclose(fun(POINT, ALPHA),
                                  getattr(scipy.stats.dirichlet, method)(POINT, ALPHA))
    # x normalized, so that the perturbed points still sum to one
    check_grads(lambda x, alpha: fun(x / numpy.sum(x), alpha), (0, 1), modes=["rev"])(POINT, ALPHA)


@pytest.mark.parametrize("call,pointer", [
    (lambda x: scipy.stats.norm.logpdf(x, 0.5, 2.0), "use gradjit.scipy.stats.norm.logpdf"),
    (lambda x: scipy.stats.norm(0.5, 2.0).cdf(x), "use gradjit.scipy.stats.norm.cdf, which "
     "takes x and the frozen parameters"),
    (lambda x: scipy.stats.laplace.logpdf(x), "gradjit.scipy.stats has no laplace.logpdf"),
])
def test_scipy_stats_on_a_traced_value_names_the_line_and_gradjit_stats(call, pointer):
    import gradjit
    from gradjit.tracer import TracerArrayConversionError
    with pytest.raises(TracerArrayConversionError) as info:
        gradjit.grad(lambda x: call(x).sum())(numpy.array([0.1, 0.4]))
    message = str(info.value)
    assert "test_scipy_stats.py:" in message and "lambda x: scipy.stats." in message
    assert pointer in message
    # the function it points to gives scipy's value, with a derivative that traces
    if "use " in pointer:
        own = gradjit.grad(lambda x: stats.norm.logpdf(x, 0.5, 2.0).sum())(numpy.array([0.1]))
        numpy.testing.assert_allclose(own, -(0.1 - 0.5) / 4.0)
