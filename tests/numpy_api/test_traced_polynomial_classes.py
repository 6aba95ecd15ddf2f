"""numpy.polynomial's modules and classes on traced values: numpy's own Python fills the arrays
it allocates (np.empty, np.zeros) with traced values, and its value functions give the
coefficients the axes of traced points; values against numpy, gradients against central
differences, one compile per shape, and a traced number stored into a numpy array refused."""
import numpy as np
import pytest
from numpy.polynomial import Legendre, Polynomial
from numpy.polynomial import chebyshev as C
from numpy.polynomial import hermite as H
from numpy.polynomial import hermite_e as HE
from numpy.polynomial import laguerre as LA
from numpy.polynomial import legendre as L
from numpy.polynomial import polynomial as P

import gradjit
from gradjit.tracer import TracerArrayConversionError
from tests.numpy_api.check import check_grad, check_values

rng = np.random.default_rng(11)
COEF = rng.standard_normal(4)
COEF2 = rng.standard_normal((4, 3))  # a column of coefficients per polynomial
X = rng.uniform(-0.9, 0.9, 5)
X2 = rng.uniform(-0.9, 0.9, (2, 3))
Y = rng.standard_normal(8)
XS = np.linspace(-1, 1, 8)
CUBIC = np.array([-8.0, 14.0, -7.0, 1.0]) + rng.uniform(-0.01, 0.01, 4)  # roots near 1, 2, 4

MODULES = {"polynomial": (P, P.polyval, P.polyder, P.polyint, P.polymulx, P.polymul,
                          P.polyfit, P.polyvander),
           "legendre": (L, L.legval, L.legder, L.legint, L.legmulx, L.legmul, L.legfit,
                        L.legvander),
           "chebyshev": (C, C.chebval, C.chebder, C.chebint, C.chebmulx, C.chebmul, C.chebfit,
                         C.chebvander),
           "hermite": (H, H.hermval, H.hermder, H.hermint, H.hermmulx, H.hermmul, H.hermfit,
                       H.hermvander),
           "hermite_e": (HE, HE.hermeval, HE.hermeder, HE.hermeint, HE.hermemulx, HE.hermemul,
                         HE.hermefit, HE.hermevander),
           "laguerre": (LA, LA.lagval, LA.lagder, LA.lagint, LA.lagmulx, LA.lagmul, LA.lagfit,
                        LA.lagvander)}


def module_cases():
    for name, (_, val, der, integ, mulx, mul, fit, vander) in MODULES.items():
        yield f"{name}-val-coef", (lambda c, val=val: val(X, c)), (COEF,)
        yield f"{name}-val-points", (lambda x, val=val: val(x, COEF)), (X,)
        yield f"{name}-val-tensor", (lambda x, c, val=val: val(x, c)), (X2, COEF2)
        yield f"{name}-val-columns", (lambda x, c, val=val: val(x, c, tensor=False)), \
            (X[:3], COEF2)
        yield f"{name}-der", (lambda c, der=der: der(c, 2, scl=1.5)), (COEF,)
        yield f"{name}-int", (lambda c, integ=integ: integ(c, 2, k=[0.5, -1.0], lbnd=0.3)), \
            (COEF,)
        yield f"{name}-mulx", mulx, (COEF,)
        yield f"{name}-mul", mul, (COEF, COEF[:3])
        yield f"{name}-fit", (lambda y, fit=fit: fit(XS, y, 3)), (Y,)
        yield f"{name}-vander", (lambda x, vander=vander: vander(x, 3)), (X,)


CASES = {name: (fn, args) for name, fn, args in module_cases()} | {
    "polyroots": (lambda c: P.polyroots(c), (CUBIC,)),
    "polyvalfromroots-tensor": (lambda x, r: P.polyvalfromroots(x, r), (X2, COEF2)),
    "polyval2d": (lambda x, y, c: P.polyval2d(x, y, c), (X, X[::-1], COEF2)),
    "polygrid2d": (lambda x, y, c: P.polygrid2d(x, y, c), (X, X[:2], COEF2)),
    "leggrid2d": (lambda x, y, c: L.leggrid2d(x, y, c), (X, X[:2], COEF2)),
    "Polynomial-call": (lambda c, x: Polynomial(c)(x), (COEF, X)),
    "Polynomial-deriv": (lambda c: Polynomial(c).deriv(2).coef, (COEF,)),
    "Polynomial-integ": (lambda c: Polynomial(c).integ(1, k=0.5).coef, (COEF,)),
    "Polynomial-mul": (lambda c: (Polynomial(c) * Polynomial(c[::-1])).coef, (COEF,)),
    "Legendre-call": (lambda c, x: Legendre(c)(x), (COEF, X)),
    "Legendre-deriv": (lambda c: Legendre(c).deriv().coef, (COEF,)),
    "Legendre-integ": (lambda c: Legendre(c, domain=[0, 2]).integ(2).coef, (COEF,)),
    "Legendre-fit": (lambda y: Legendre.fit(XS, y, 3).coef, (Y,)),
}


@pytest.mark.parametrize("name", CASES)
def test_values_as_numpy(name):
    fn, args = CASES[name]
    check_values(fn, *args, backends=("cpu",), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("name", CASES)
def test_gradients_against_central_differences(name):
    fn, args = CASES[name]
    for argnums in range(len(args)):
        check_grad(fn, *args, argnums=argnums, backends=("cpu",), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["legendre-mulx", "polynomial-der", "polynomial-int",
                                  "chebyshev-vander", "polyroots", "Polynomial-deriv"])
def test_one_compile_serves_every_value(name):
    """The traced values are written into the allocated arrays, not read into Python under
    guards that another input would fail."""
    fn, args = CASES[name]
    compiled = gradjit.jit(fn)
    for scale in (1.0, 1.01, 0.99):
        np.testing.assert_allclose(compiled(*(a * scale for a in args)),
                                   fn(*(a * scale for a in args)), rtol=1e-9, atol=1e-10)
    assert compiled.cache_info().traces == 1


def test_a_traced_number_stored_into_a_numpy_array_is_refused():
    """numpy reads the number with float(): a guarded value would have a zero derivative."""
    outside = np.zeros(2)

    def f(x):
        outside[0] = x[0] * 2.0
        return outside.sum()
    for transform in (gradjit.grad, gradjit.jit):
        with pytest.raises(ValueError, match="setting an array element") as info:
            transform(f)(np.ones(2))
        assert isinstance(info.value.__cause__, TracerArrayConversionError)


def test_values_from_roots_check_the_rank_as_numpy():
    with pytest.raises(ValueError, match="x.ndim must be < r.ndim when tensor == False"):
        P.polyvalfromroots(X2, COEF2, tensor=False)
    with pytest.raises(ValueError, match="x.ndim must be < r.ndim when tensor == False"):
        gradjit.jit(lambda x: P.polyvalfromroots(x, COEF2, tensor=False))(X2)
