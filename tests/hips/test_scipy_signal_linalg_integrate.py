"""gradjit.scipy.signal.convolve, gradjit.scipy.linalg and gradjit.scipy.integrate.odeint as
autograd's: scipy's values, gradients against finite differences (HIPS autograd's checks)."""
import warnings

import numpy
import pytest
import scipy.integrate
import scipy.linalg
import scipy.signal

import gradjit
from gradjit.scipy import integrate, linalg, signal
from gradjit.test_util import check_grads, combo_check

RNG = numpy.random.default_rng(3)


def R(*shape):
    return RNG.standard_normal(shape)


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize("shapes", [((4,), (2,)), ((3,), (5,)), ((5, 4), (3, 2)),
                                    ((6, 7), (4, 1)), ((2, 3), (3, 4))])
def test_convolve_is_scipys(mode, shapes):
    a, b = R(*shapes[0]), R(*shapes[1])
    mixed = (any(m < n for m, n in zip(*shapes)) and any(m > n for m, n in zip(*shapes)))
    if mode == "valid" and mixed:
        pytest.skip("scipy refuses valid mode where neither array covers the other")
    numpy.testing.assert_allclose(signal.convolve(a, b, mode=mode),
                                  scipy.signal.convolve(a, b, mode))


def test_convolve_generalization():
    a35, a34, a342 = R(3, 5), R(3, 4), R(3, 4, 2)
    a2543, a24232 = R(2, 5, 4, 3), R(2, 4, 2, 3, 2)
    for mode in ("valid", "full"):
        numpy.testing.assert_allclose(
            signal.convolve(a35, a34, axes=([1], [0]), mode=mode)[1, 2],
            scipy.signal.convolve(a35[1, :], a34[:, 2], mode))
        numpy.testing.assert_allclose(
            signal.convolve(a35, a34, axes=([], []), dot_axes=([0], [0]), mode=mode),
            numpy.tensordot(a35, a34, axes=([0], [0])))
        numpy.testing.assert_allclose(
            signal.convolve(a35, a342, axes=([1], [2]), dot_axes=([0], [0]), mode=mode)[2],
            sum(scipy.signal.convolve(a35[i, :], a342[i, 2, :], mode) for i in range(3)))
        numpy.testing.assert_allclose(
            signal.convolve(a2543, a24232, axes=([1, 2], [2, 4]), dot_axes=([0, 3], [0, 3]),
                            mode=mode)[2],
            sum(scipy.signal.convolve(a2543[i, :, :, j], a24232[i, 2, :, j, :], mode)
                for i in range(2) for j in range(3)))


def test_convolve_gradients():
    combo_check(signal.convolve, (0, 1))([R(4), R(5)], [R(2), R(3)], mode=["full", "valid",
                                                                           "same"])
    combo_check(signal.convolve, (0, 1), modes=["rev"])(
        [R(4, 3)], [R(3, 2)], axes=[([0], [0]), ([1], [0]), ([1, 0], [1, 0])],
        mode=["full", "valid", "same"])
    combo_check(signal.convolve, (0, 1), modes=["rev"], order=1)(
        [R(3, 3, 2)], [R(3, 2, 3)], axes=[([1], [1])], dot_axes=[([0], [2]), ([0], [0])],
        mode=["full", "same"])


def test_convolve_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="mode must be one of full, valid, same, not 'wide'"):
        signal.convolve(R(3), R(2), mode="wide")


def _symmetric(fun):
    return lambda x, *rest: fun(0.5 * (x + x.T), *rest)


A = R(4, 4)
SPD = A @ A.T + 4 * numpy.eye(4)


def test_cholesky_and_cho_solve_are_scipys():
    b = R(4, 2)
    for lower in (True, False):
        numpy.testing.assert_allclose(linalg.cholesky(SPD, lower=lower),
                                      scipy.linalg.cholesky(SPD, lower=lower))
        numpy.testing.assert_allclose(linalg.cho_solve(linalg.cho_factor(SPD, lower=lower), b),
                                      scipy.linalg.cho_solve(scipy.linalg.cho_factor(SPD), b))
    check_grads(_symmetric(linalg.cholesky))(SPD)
    check_grads(lambda a, b: linalg.cho_solve(linalg.cho_factor(0.5 * (a + a.T)), b),
                (0, 1), modes=["rev"])(SPD, b)


@pytest.mark.parametrize("trans", [0, 1, "T"])
@pytest.mark.parametrize("lower", [True, False])
def test_solve_triangular(trans, lower):
    a, b = A + 4 * numpy.eye(4), R(4, 2)
    for unit in (False, True):
        numpy.testing.assert_allclose(
            linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit),
            scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit))
    check_grads(lambda a, b: linalg.solve_triangular(a, b, trans=trans, lower=lower),
                (0, 1))(a, b)


def test_sqrtm_and_solve_sylvester():
    numpy.testing.assert_allclose(linalg.sqrtm(SPD), scipy.linalg.sqrtm(SPD))
    check_grads(_symmetric(linalg.sqrtm), order=1)(SPD)
    a, b, q = R(3, 3), R(3, 3), R(3, 3)
    numpy.testing.assert_allclose(linalg.solve_sylvester(a, b, q),
                                  scipy.linalg.solve_sylvester(a, b, q))
    check_grads(linalg.solve_sylvester, (0, 1, 2), order=1)(a, b, q)
    assert linalg.logm is scipy.linalg.logm  # the rest of scipy.linalg, undifferentiated


def test_forward_and_reverse_mode_of_sqrtm_and_solve_sylvester_agree():
    """Forward mode runs the JVP rules, reverse mode the VJP rules: two ways to one Jacobian."""
    a, b, q = R(3, 3), R(3, 3), R(3, 3)
    for fn, x in [(linalg.sqrtm, SPD), (lambda a: linalg.solve_sylvester(a, b, q), a),
                  (lambda b: linalg.solve_sylvester(a, b, q), b),
                  (lambda q: linalg.solve_sylvester(a, b, q), q)]:
        numpy.testing.assert_allclose(gradjit.jacfwd(fn)(x), gradjit.jacrev(fn)(x),
                                      rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("l_and_u, rhs", [((1, 1), (5,)), ((0, 2), (5, 2)), ((2, 0), (5,)),
                                          ((1, 2), (5, 3))])
def test_solve_banded_is_scipys_with_gradients(l_and_u, rhs):
    ab = R(sum(l_and_u) + 1, 5)
    ab[l_and_u[1]] += 5.0  # a dominant diagonal: well conditioned
    b = R(*rhs)
    want = scipy.linalg.solve_banded(l_and_u, ab, b)
    numpy.testing.assert_allclose(linalg.solve_banded(l_and_u, ab, b), want, rtol=1e-12)
    numpy.testing.assert_allclose(
        gradjit.jit(lambda ab, b: linalg.solve_banded(l_and_u, ab, b))(ab, b), want, rtol=1e-12)
    combo_check(linalg.solve_banded, [1, 2], order=1)([l_and_u], [ab], [b])
    # the corners of ab outside the matrix are not read: no gradient reaches them
    g = gradjit.grad(lambda ab: numpy.sum(linalg.solve_banded(l_and_u, ab, b)))(ab)
    for k in range(l_and_u[1]):
        numpy.testing.assert_array_equal(g[k, :l_and_u[1] - k], 0)


def test_solve_banded_checks_the_band_count_as_scipy():
    with pytest.raises(ValueError) as want:
        scipy.linalg.solve_banded((1, 1), R(4, 5), R(5))
    with pytest.raises(ValueError) as got:
        linalg.solve_banded((1, 1), R(4, 5), R(5))
    assert str(got.value) == str(want.value)


def test_the_layout_probe_on_zeros_warns_nothing():
    """A primitive runs once on zeros to learn its result's layout; sqrtm of zeros warns of
    a singular matrix, which is no warning of the caller's."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = gradjit.grad(lambda a: numpy.sum(linalg.sqrtm(a)))(2.0 * numpy.eye(3))
    numpy.testing.assert_allclose(got, numpy.full((3, 3), 0.5 / numpy.sqrt(2.0)))


def _dynamics(y, t, arg1, arg2):
    return -numpy.sqrt(t) - y + arg1 - numpy.mean((y + arg2) ** 2)


def test_odeint_value_and_adjoint_gradient():
    y0, t, args = R(3), numpy.linspace(0.1, 0.2, 4), (R(3), R(3))
    numpy.testing.assert_allclose(integrate.odeint(_dynamics, y0, t, args),
                                  scipy.integrate.odeint(_dynamics, y0, t, args))
    check_grads(lambda y0, t, args: integrate.odeint(_dynamics, y0, t, args), (0, 1, 2),
                modes=["rev"], order=2)(y0, t, args)


def test_odeint_takes_nested_args_and_composes_with_grad():
    def loss(params):
        ys = integrate.odeint(lambda y, t, p: -p["rate"] * y, numpy.ones(2),
                              numpy.array([0.0, 1.0]), (params,), rtol=1e-10, atol=1e-10)
        return numpy.sum(ys[-1])
    rate = numpy.array([0.5, 2.0])
    got = gradjit.grad(loss)({"rate": rate})["rate"]
    numpy.testing.assert_allclose(got, -numpy.exp(-rate), rtol=1e-6)


def test_sqrtm_turning_complex_is_refused_not_truncated():
    """scipy's sqrtm of a symmetric matrix with negative eigenvalues is complex: the op's type,
    found on zeros, is real, and dropping the imaginary part would be a wrong answer."""
    a = numpy.diag([-1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="returned complex values here"):
        gradjit.jit(linalg.sqrtm)(a)
    numpy.testing.assert_allclose(gradjit.jit(linalg.sqrtm)(numpy.abs(a)),
                                  numpy.diag(numpy.sqrt([1.0, 2.0, 3.0])))
