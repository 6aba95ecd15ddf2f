"""gradjit.scipy.special as autograd.scipy.special: scipy's values, derivatives that agree
with finite differences in both modes to second order (HIPS autograd's checks, ported)."""
import numpy
import pytest
import scipy.special

import gradjit
from gradjit.scipy import special
from gradjit.test_util import check_grads, combo_check

RNG = numpy.random.default_rng(2)


def R(*shape):
    return RNG.standard_normal(shape)


def between(low, high):
    return numpy.linspace(low, high, 5)


# (name, fixed leading arguments, points): HIPS's ranges
UNARY = [("gamma", (), between(0.3, 2.0)), ("gammaln", (), between(0.3, 2.0)),
         ("digamma", (), between(0.3, 2.0)), ("psi", (), between(0.3, 2.0)),
         ("rgamma", (), between(0.3, 2.0)), ("erf", (), between(-3.0, 3.0)),
         ("erfc", (), between(-3.0, 3.0)), ("erfinv", (), between(-0.95, 0.95)),
         ("erfcinv", (), between(0.05, 1.95)), ("logit", (), between(0.1, 0.9)),
         ("expit", (), between(-4.05, 4.95)), ("i0", (), between(0.2, 20.0)),
         ("i1", (), between(0.2, 20.0)), ("j0", (), between(0.2, 20.0)),
         ("j1", (), between(0.2, 20.0)), ("y0", (), between(0.2, 20.0)),
         ("y1", (), between(0.2, 20.0)), ("polygamma", (0,), R(4) ** 2 + 1.3),
         ("polygamma", (2,), R(4) ** 2 + 1.3), ("jn", (2,), R(4) ** 2 + 1.3),
         ("yn", (2,), R(4) ** 2 + 1.3), ("iv", (3.5,), R(4) ** 2 + 1.3),
         ("ive", (3.5,), R(4) ** 2 + 1.3), ("gammainc", (1.7,), R(4) ** 2 + 1.3),
         ("gammaincc", (1.7,), R(4) ** 2 + 1.3), ("betainc", (2.2, 3.1), RNG.uniform(0, 1, 4))]


@pytest.mark.parametrize("name, fixed, x", UNARY, ids=[f"{c[0]}-{i}" for i, c in enumerate(UNARY)])
def test_values_are_scipys_and_gradients_finite_differences(name, fixed, x):
    fun, reference = getattr(special, name), getattr(scipy.special, name)
    numpy.testing.assert_allclose(fun(*fixed, x), reference(*fixed, x), rtol=1e-12)
    check_grads(lambda x: fun(*fixed, x))(x)


def test_beta_and_betaln():
    a, b = R(4) ** 2 + 1.1, R(4) ** 2 + 1.1
    for name in ("beta", "betaln"):
        numpy.testing.assert_allclose(getattr(special, name)(a, b),
                                      getattr(scipy.special, name)(a, b), rtol=1e-12)
        check_grads(getattr(special, name), (0, 1))(a, b)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_multigammaln(d):
    a = RNG.uniform(4.0, 5.0, (2, 3))
    numpy.testing.assert_allclose(special.multigammaln(a, d), scipy.special.multigammaln(a, d))
    check_grads(special.multigammaln, modes=["rev"])(a, d)


def test_gamma_family_at_negative_points():
    x = numpy.array([-0.5, -1.5, -2.5, -3.2])
    for name in ("gamma", "rgamma", "gammasgn", "gammaln", "digamma"):
        numpy.testing.assert_allclose(getattr(special, name)(x), getattr(scipy.special, name)(x),
                                      rtol=1e-11)


@pytest.mark.parametrize("x", [numpy.array([1.1]), R(4), R(3, 4)])
def test_logsumexp(x):
    for axis in (None, 0, -1):
        for keepdims in (True, False):
            numpy.testing.assert_allclose(special.logsumexp(x, axis=axis, keepdims=keepdims),
                                          scipy.special.logsumexp(x, axis=axis,
                                                                  keepdims=keepdims))
    combo_check(special.logsumexp, 0)([x], axis=[None, 0], keepdims=[True, False])


def test_logsumexp_weights_and_sign():
    x, b = R(2, 3, 4), R(2, 3, 4)
    for axis in (None, 0, 1):
        got = special.logsumexp(x, axis=axis, b=b, return_sign=True)
        want = scipy.special.logsumexp(x, axis=axis, b=b, return_sign=True)
        numpy.testing.assert_allclose(got[0], want[0])
        numpy.testing.assert_array_equal(got[1], want[1])
    combo_check(special.logsumexp, 0)([x], b=[numpy.exp(b)], axis=[None, 1], keepdims=[False])


def test_logsumexp_of_minus_infinity_rows():
    x = numpy.array([[-numpy.inf, -numpy.inf], [0.0, 1.0]])
    numpy.testing.assert_array_equal(special.logsumexp(x, axis=1),
                                     scipy.special.logsumexp(x, axis=1))


def test_grad_of_grad_and_jit_compile_the_scipy_primitives():
    x = R(4) ** 2 + 1.3
    second = gradjit.elementwise_grad(gradjit.elementwise_grad(special.j0))(x)
    numpy.testing.assert_allclose(second, -(scipy.special.j0(x) - scipy.special.jn(2, x)) / 2)
    numpy.testing.assert_allclose(gradjit.jit(lambda x: special.j1(x) * special.gamma(x))(x),
                                  scipy.special.j1(x) * scipy.special.gamma(x))


def test_erfinv_gradient_at_and_near_zero_is_torchs():
    import torch
    points = [0.0, 1e-8, -1e-8, 0.3]
    mine = gradjit.tensor(points, dtype=gradjit.float64, requires_grad=True)
    gradjit.erfinv(mine).sum().backward()
    theirs = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    torch.erfinv(theirs).sum().backward()
    numpy.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-14)
