"""numpy's lib/tests/test_polynomial.py scenarios: np.poly1d with traced coefficients (its
arithmetic, powers, composition, deriv/integ with constants, roots, leading zeros trimmed,
indexing), poly of roots and of matrices, roots, polyfit (weights, cov scaled and unscaled,
2-d y, full), polyval, polyder/polyint, polydiv; and the power-basis functions of
numpy.polynomial.polynomial and its Polynomial class; eager, compiled, differentiated."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning",
                                        "ignore::numpy.exceptions.RankWarning")

P = np.polynomial.polynomial
X = np.linspace(0, 2, 7)
ERR = np.array([1, -1, 1, -1, 1, -1, 1.0])
Y = np.polyval([3.0, 2.0, 1.0], X) + ERR
W = np.arange(8, 1, -1) ** 2 / 7.0


def _poly1d_cases():
    p, q = np.array([1.0, 2, 4]), np.array([4.0, 2, 1])
    return [
        case("poly1d-integ", lambda p: (np.poly1d(p).integ().coeffs,
                                        np.poly1d(p).integ(1).coeffs), p),
        case("poly1d-mul", lambda p, q: (np.poly1d(p) * np.poly1d(q)).coeffs, p, q),
        case("poly1d-add", lambda p, q: (np.poly1d(p) + np.poly1d(q)).coeffs, p, q),
        case("poly1d-sub", lambda p, q: (np.poly1d(p) - np.poly1d(q)).coeffs, p, q),
        case("poly1d-scalar", lambda p: ((2 * np.poly1d(p)).coeffs, (np.poly1d(p) + 1).coeffs,
                                         (np.poly1d(p) / 4).coeffs, (-np.poly1d(p)).coeffs), p),
        case("poly1d-pow", lambda p: (np.poly1d(p) ** 4).coeffs, p),
        case("poly1d-compose", lambda p, q: (np.poly1d(p)(np.poly1d(q)).coeffs,
                                             np.poly1d(q)(np.poly1d(p)).coeffs), p, q),
        case("poly1d-deriv", lambda p: (np.poly1d(p).deriv().coeffs,
                                        np.poly1d(p).deriv(2).coeffs), p),
        case("poly1d-call", lambda p, x: np.poly1d(p)(x), p, X),
        case("poly1d-polyval", lambda p, x: np.polyval(np.poly1d(p), x), p, X),
        case("poly1d-leading-zeros", lambda p: (np.poly1d(p).coeffs, np.poly1d(p).order),
             np.array([0.0, 0.0, 1.0, 2.0])),
        case("poly1d-all-zeros", lambda p: np.poly1d(p).coeffs, np.zeros(3)),
        case("poly1d-zeros-dtype", lambda p: [np.poly1d(p.astype(d)).coeffs
                                              for d in ("i8", "f4", "c8")], np.zeros(3)),
        case("poly1d-roots-arg", lambda r: np.poly1d(r, r=True).coeffs, np.array([1.0, -2, 0.5])),
        case("poly1d-roots", lambda p: np.sort_complex(np.poly1d(p).roots),
             np.array([1.0, -6, 11, -6])),
        case("poly1d-index", lambda p: [np.poly1d(p)[i] for i in (-1, 0, 1, 2, 3)],
             np.array([1.0, 2, 3])),
        case("poly1d-index-int", lambda p: [np.poly1d(p)[i] for i in (0, 2)],
             np.array([1, 2, 3], np.int32)),
        case("poly1d-complex", lambda p: (np.poly1d(p).integ().coeffs,
                                          np.poly1d(p).deriv().coeffs), np.array([3j, 2j, 1j])),
        case("poly1d-integ-constants", lambda p: np.poly1d(p).integ(3, k=[9, 7, 6]).coeffs,
             np.array([3.0, 2, 1])),
        case("poly1d-traced-leading-zero", lambda p: np.poly1d(p * (p > 1)).coeffs,
             np.array([0.5, 2.0, 3.0])),
    ]


def _function_cases():
    return [
        case("poly-roots", np.poly, np.array([3, -np.sqrt(2), np.sqrt(2)])),
        case("poly-matrix", np.poly, np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 0]])),
        case("poly-int-overflow", np.poly, np.arange(1, 21)),
        case("poly-conjugates", np.poly, np.array([1.082j, 2.613j, -2.613j, -1.082j])),
        case("poly-conjugates-2", np.poly, np.array([1j, -1j, 1 + 2j, 1 - 2j, 1 + 3j, 1 - 3j])),
        case("poly-not-conjugate", np.poly, np.array([1j, -1.0000001j])),
        case("poly-empty-matrix", np.poly, np.zeros((0, 0))),
        case("roots-zeros", np.roots, np.array([1.0, 0, 0])),
        case("roots-large", lambda c: np.sort(np.roots(c)), P.polyfromroots(
            [-1, 1.01, 1e3])[::-1]),
        case("polyfit", lambda x, y: np.polyfit(x, y, 2), X, Y),
        case("polyfit-cov", lambda x, y: np.polyfit(x, y, 2, cov=True), X, Y),
        case("polyfit-weights-cov", lambda x, y, w: np.polyfit(x, y, 2, w=w, cov=True), X, Y, W),
        case("polyfit-unscaled", lambda x, y, w: np.polyfit(x, y, 2, w=w, cov="unscaled"),
             X, Y, W),
        case("polyfit-column", lambda x, y: np.polyfit(x, y[:, None], 2), X, Y),
        case("polyfit-two-columns", lambda x, y: np.polyfit(x, np.stack([y, 2 * y], 1), 2,
                                                            cov=True), X, Y),
        case("polyfit-deg-0", lambda x, y: np.polyfit(x, y, 0, cov=True), np.zeros(4),
             np.random.default_rng(123).normal(size=(4, 6))),
        case("polyfit-too-few", lambda x, y: np.polyfit(x, y, 0, cov=True), np.array([1.0]),
             np.array([1.0])),
        case("polyfit-full", lambda x, y: np.polyfit(x, y, 2, full=True)[:4], X, Y),
        case("polyfit-negative-deg", lambda x, y: np.polyfit(x, y, -1), X, Y),
        case("polyfit-bad-w", lambda x, y: np.polyfit(x, y, 1, w=np.ones(3)), X, Y),
        case("polyfit-complex", lambda x, y: np.polyfit(x, y * (1 + 2j), 2), X, Y),
        case("polyval-matrix-x", lambda p, x: np.polyval(p, x), np.array([1.0, -2, 3]),
             np.array([[0.5, 1.0], [2.0, -1.0]])),
        case("polyval-int", lambda p, x: np.polyval(p, x), np.array([1, -2, 3]), np.arange(4)),
        case("polyder", lambda p: [np.polyder(p, m) for m in (0, 1, 2, 5)],
             np.array([1.0, 2, 3, 4])),
        case("polyint", lambda p: (np.polyint(p, 2, k=[1.0, 2.0]), np.polyint(p, 1, k=3.0)),
             np.array([1.0, 2, 3, 4])),
        case("polydiv", np.polydiv, np.array([1.0, 0, -1]), np.array([1.0, 1])),
        case("polydiv-complex", lambda b, a: np.polydiv(b, a), np.array([2.0, 6, 6, 1]),
             np.array([-1j, 1 + 2j, -(2 + 1j), 1])),
        case("polyadd-sub-mul", lambda a, b: (np.polyadd(a, b), np.polysub(a, b),
                                              np.polymul(a, b)), np.array([1.0, 2, 3]),
             np.array([3.0, 2])),
    ]


def _power_basis_cases():
    c = np.array([1.0, 2.0, -0.5, 0.25])
    return [
        case("P-polyval", lambda c, x: P.polyval(x, c), c, X),
        case("P-polyder", lambda c: [P.polyder(c, m, scl=2.0) for m in (1, 2)], c),
        case("P-polyint", lambda c: [P.polyint(c, m, k=[1.0] * m, lbnd=0.5) for m in (1, 2)], c),
        case("P-polyadd", lambda a, b: (P.polyadd(a, b), P.polysub(a, b), P.polymul(a, b)), c,
             c[:2] * 3),
        case("P-polypow", lambda c: P.polypow(c, 3), c[:3]),
        case("P-polyfromroots", P.polyfromroots, np.array([1.0, -2, 0.5])),
        case("P-polyline", lambda a, b: P.polyline(a, b), np.array(1.5), np.array(-2.0)),
        case("Polynomial-call", lambda c, x: np.polynomial.Polynomial(c)(x), c, X),
        case("Polynomial-ops", lambda c: ((np.polynomial.Polynomial(c) * 2 + 1).coef,
                                          np.polynomial.Polynomial(c).deriv(2).coef,
                                          np.polynomial.Polynomial(c).integ().coef), c),
        case("Polynomial-domain", lambda c, x: np.polynomial.Polynomial(c, domain=[0, 2])(x),
             c, X),
        case("chebval", lambda c, x: np.polynomial.chebyshev.chebval(x, c), c, X),
        case("Chebyshev-call", lambda c, x: np.polynomial.Chebyshev(c)(x), c, X),
        case("legval", lambda c, x: np.polynomial.legendre.legval(x, c), c, X),
        case("hermval", lambda c, x: np.polynomial.hermite.hermval(x, c), c, X),
        case("lagval", lambda c, x: np.polynomial.laguerre.lagval(x, c), c, X),
    ]


# roots and eigenvalue-based results of repeated roots have no derivative to compare with; a
# zero polynomial's length is its values'; a root of 1e3 leaves central differences coarse.
# numpy.polynomial's polyder, polyint and the class's deriv/integ fill np.empty arrays, whose
# elements take a traced value through float(): compiled, each call's values are guarded,
# and no gradient reaches the coefficients (numpy's own code, out of gradjit's reach).
NO_GRAD = {"roots-zeros", "poly-matrix", "poly1d-roots", "poly-empty-matrix", "poly1d-all-zeros",
           "roots-large", "P-polyder", "P-polyint", "Polynomial-ops"}
CASES = [c._replace(grad=()) if c.name in NO_GRAD else c
         for c in _poly1d_cases() + _function_cases() + _power_basis_cases()]
# np.poly1d is numpy's class: a Tensor's coefficients are not traced values, so its cases run
# compiled only
EAGER = [c for c in CASES if "poly1d" not in c.name]


@pytest.mark.parametrize("c", EAGER, ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
