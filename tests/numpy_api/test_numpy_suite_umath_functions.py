"""After numpy's test_umath per-function tests: arctan2's and hypot's special values,
logaddexp(2) at infinities and NaN, log1p/expm1/exp2/log2/cbrt accuracy and edges, ldexp and
frexp over integer types, heaviside, sign and absolute of complex values, NaN rules of
maximum/minimum/fmax/fmin, rounding half to even and the dtypes of floor/ceil/trunc, truth
tables of bools, comparisons, and complex branch cuts; compiled and on Tensors."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, check_eager, check_jit

inf, nan = np.inf, np.nan
FLOATS = ("f2", "f4", "f8")

ARCTAN2 = np.array([(1, 1), (0., -0.), (-0., -0.), (0., 0.), (-0., 0.), (0., -1), (-0., -1),
                    (0., 1), (-0., 1), (1, 0.), (1, -0.), (-1, 0.), (-1, -0.), (1, -inf),
                    (-1, -inf), (1, inf), (-1, inf), (inf, 1), (-inf, 1), (inf, -inf),
                    (-inf, -inf), (inf, inf), (-inf, inf), (nan, 0), (0, nan), (nan, nan)]).T
HYPOT = np.array([(nan, nan), (nan, 1), (nan, inf), (inf, nan), (-inf, nan), (1, nan), (0, 0),
                  (3, 4), (1e300, 1e300), (1e-320, 1e-320), (-0.0, -0.0)]).T
LOG_ADD = (np.array([inf, -inf, inf, -inf, inf, 1, -inf, 1, nan, inf, nan, -inf, 0, 1]),
           np.array([inf, inf, -inf, -inf, 1, inf, 1, -inf, inf, nan, 0, nan, nan, nan]))
COMPLEX_SIGNS = np.array([inf, -inf, complex(0, inf), complex(0, -inf), complex(inf, inf),
                          complex(inf, -inf), nan, complex(0, nan), complex(nan, nan), 0.0, 3.0,
                          -3.0, -2j, 3.0 + 4.0j, -8.0 + 6.0j, complex(-0.0, 0.0)])
HALVES = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2**52 + 0.5, -0.0, inf, nan, 4.5000001])
MINMAX_NANS = (np.array([0, nan, nan, 1, -inf]), np.array([nan, 0, nan, -inf, 1]))
# numpy's branch cuts: just above and below each cut, and on it with both zeros' signs
CUTS = np.array([complex(-0.5, 1e-20), complex(-0.5, -1e-20), complex(-0.5, 0.0),
                 complex(-0.5, -0.0), complex(2, 0.0), complex(2, -0.0), complex(-2, 0.0),
                 complex(-2, -0.0), complex(0, 2), complex(-0.0, 2), complex(0, -2),
                 complex(-0.0, -2), 1 + 1j, 0.5 + 0j, 1.5 + 0j])


def _minmax(a, b):
    return np.maximum(a, b), np.minimum(a, b), np.fmax(a, b), np.fmin(a, b)


def _minmax_reduce(a):
    return (np.maximum.reduce(a), np.minimum.reduce(a), np.fmax.reduce(a), np.fmin.reduce(a),
            np.max(a), np.nanmax(a), np.nanmin(a))


def _rounding(x):
    return np.rint(x), np.round(x), np.round(x, 1), np.round(x, -1), np.around(x, 2), np.fix(x)


CASES = [
    *(case(f"arctan2-{d}", np.arctan2, *ARCTAN2.astype(d)) for d in FLOATS),
    *(case(f"hypot-{d}", np.hypot, *HYPOT.astype(d)) for d in ("f4", "f8")),
    case("hypot-reduce", lambda x: (np.hypot.reduce(x), np.hypot.reduce(x, axis=1),
                                    np.hypot.reduce(x, axis=None)), np.arange(12.).reshape(3, 4)),
    *(case(f"{f.__name__}-values-{d}", f, np.log(np.arange(1, 6.)).astype(d),
           np.log(np.arange(5, 0, -1.)).astype(d)) for f in (np.logaddexp, np.logaddexp2)
      for d in FLOATS),
    *(case(f"{f.__name__}-range-{d}", f, np.array([1e6, -1e6, 1000200, -1000200], d),
           np.array([1000200, -1000200, 1e6, -1e6], d))
      for f in (np.logaddexp, np.logaddexp2) for d in ("f4", "f8")),
    *(case(f"{f.__name__}-special-{d}", f, *(x.astype(d) for x in LOG_ADD))
      for f in (np.logaddexp, np.logaddexp2) for d in FLOATS),
    case("logaddexp-reduce", lambda x: (np.logaddexp.reduce(x), np.logaddexp2.reduce(x),
                                        np.logaddexp.reduce(x[:2])), np.array([-inf, -inf, 1.0])),
    *(case(f"log1p-{d}", np.log1p, np.array([nan, inf, -1, -2, -inf, 0.0, -0.0, 1e-10, 1e-3], d))
      for d in FLOATS),
    *(case(f"expm1-{d}", np.expm1, np.array([nan, inf, -inf, 0.0, -0.0, 1e-10, 1e-3, 88.], d))
      for d in FLOATS),
    *(case(f"exp2-{d}", np.exp2, np.array([nan, inf, -inf, 0.0, -0.0, 1, 10, -1100, 1100, 127.5,
                                           -149.5, -0.25], d)) for d in FLOATS),
    *(case(f"log2-{d}", np.log2, np.array([1, 2, 4, 8, 16, 2**20, 0.5, nan, inf, -inf, 0.0,
                                           -0.0, -1.0, 3.0], d)) for d in FLOATS),
    case("log2-of-ints", np.log2, 2 ** np.arange(40)),
    case("log-of-max-float", lambda x: (np.log(x), np.log2(x), np.log10(x)),
         np.array([np.finfo(np.float64).max, np.finfo(np.float64).tiny, 5e-324])),
    *(case(f"cbrt-{d}", np.cbrt, np.array([1., 2., -3., inf, -inf, nan, -0.0, 0.0, 27, -8,
                                           1e-300, -1e-30], d)) for d in FLOATS),
    case("expm1-log1p-complex", lambda z: (np.expm1(z), np.log1p(z)),
         np.array([1e-10 + 1e-10j, 1 + 1j, -1 - 1j, 0j, -0.5 + 0j])),
    *(case(f"ldexp-{d}-{m}", np.ldexp, np.array([2., 0.125, -1, 1, 1, -0.0, inf, nan], m),
           np.array([3, 3, 1, -2, 0, 5, 1, 1], d)) for d in ("i1", "i2", "i4", "i8")
      for m in ("f4", "f8")),
    case("ldexp-python-int", lambda m: np.ldexp(m, 3), np.array(2.)),
    case("ldexp-overflow", np.ldexp, np.array([2., 2., 1., 1.]),
         np.array([np.iinfo("l").max, np.iinfo("l").min, 1024, -1075])),
    *(case(f"frexp-{d}", np.frexp, np.array([nan, nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 3.0,
                                             1e-40 if d == "f8" else 1e-5], d)) for d in FLOATS),
    *(case(f"modf-{d}", np.modf, np.array([nan, inf, -inf, 0.0, -0.0, 1.5, -1.5, 2.0, -2.0], d))
      for d in FLOATS),
    *(case(f"heaviside-{d}", lambda x: (np.heaviside(x, 0.5), np.heaviside(x, 1.0),
                                        np.heaviside(x, nan), np.heaviside(x, x)),
           np.array([[-30.0, -0.1, 0.0, 0.2], [7.5, nan, inf, -inf]], d)) for d in ("f4", "f8")),
    case("sign", np.sign, np.array([inf, -inf, nan, 0.0, 3.0, -3.0, -0.0])),
    case("sign-complex", np.sign, COMPLEX_SIGNS),
    case("sign-complex64", np.sign, np.array([3.0 + 4.0j, -8.0 + 6.0j, 0j, -2j, 1e30 + 1e30j],
                                             "c8")),
    case("absolute-complex", np.absolute, np.array([3 + 4j, complex(inf, nan), complex(nan, inf),
                                                    complex(1e300, 1e300), complex(-0.0, 0.0),
                                                    complex(nan, 1)])),
    case("absolute-complex64", np.absolute, np.array([3 + 4j, complex(inf, nan), 1e30 + 1e30j,
                                                      1e-30 + 1e-30j], "c8")),
    case("absolute-negative-of-int-min", lambda a: (np.absolute(a), np.negative(a), np.sign(a)),
         np.array([np.iinfo(np.int8).min, -1, 0, 5], np.int8)),
    case("square-reciprocal", lambda a: (np.square(a), np.reciprocal(a)),
         np.array([-0.0, 0.0, -inf, nan, -1.5, 1e200, 1e-200])),
    case("square-reciprocal-complex", lambda a: (np.square(a), np.reciprocal(a)),
         np.array([1 + 2j, complex(inf, 0), complex(nan, 1), 0j, -3 - 1e-300j, 1e300 + 1e300j])),
    case("reciprocal-int", np.reciprocal, np.array([1, 2, -1, 0])),
    case("minmax-nans", _minmax, *MINMAX_NANS),
    case("minmax-reduce-nans", _minmax_reduce, np.array([0, nan, 2, 1])),
    *(case(f"minmax-complex-nans-{d}", _minmax, np.array([0, complex(nan, 0), nan, 1j], d),
           np.array([nan, 0, nan, 1], d)) for d in ("c8", "c16")),
    *(case(f"minmax-reduce-complex-{d}", lambda a: _minmax_reduce(a)[:5],
           np.array([1j, 1, 1 + 1j, 2 - 1j], d)) for d in ("c8", "c16")),
    case("minmax-precision", _minmax, np.array([5e-324, 1.0, 2**53 + 1.0, -inf]),
         np.array([0.0, np.nextafter(1, 2), 2.0**53, -1e308])),
    case("minmax-int64", _minmax, np.array([2**62, -5, 3], np.int64),
         np.array([2**62 + 1, -6, 3], np.int64)),
    case("rounding-half-even", _rounding, HALVES),
    case("rounding-float32", _rounding, HALVES.astype("f4")),
    case("rounding-float16", lambda x: _rounding(x)[:3], np.array([0.5, 1.5, 2.5, 0.25, 15], "f2")),
    case("round-decimals", lambda x: tuple(np.round(x, d) for d in (0, 1, 2, -1, 3)),
         np.array([0.25, 0.35, 15, 25, 1.005, 123.456, -2.675])),
    case("round-ints", lambda x: tuple(np.round(x, d) for d in (0, 1, -1, -2)),
         np.array([15, 25, -15, 149, 150, 250])),
    case("round-complex", lambda x: (np.round(x), np.round(x, 1)), np.array([0.5 + 1.5j,
                                                                              2.55 - 2.5j])),
    *(case(f"{f.__name__}-keeps-{d}", f, np.array([-2, 0, 4, 8]).astype(d))
      for f in (np.floor, np.ceil, np.trunc) for d in ("?", "f8", "f4", "f2", "i8", "u4", "i1")),
    case("rint-of-ints", lambda a, b, c, d: (np.rint(a), np.rint(b), np.rint(c), np.rint(d)),
         np.array([-2, 0, 4]), np.array([-2, 0, 4], "i1"), np.array([-2, 0, 4], "i2"),
         np.array([True, False])),
    case("degrees-radians", lambda x: (np.degrees(x), np.radians(x), np.rad2deg(x),
                                       np.deg2rad(x)), np.array([180.0, -90.0, 0.0, -0.0, inf])),
    case("bool-tables", lambda a, b: (np.logical_and(a, b), np.logical_or(a, b),
                                      np.logical_xor(a, b), np.logical_not(a),
                                      np.bitwise_and(a, b), np.bitwise_or(a, b),
                                      np.bitwise_xor(a, b), np.invert(a), np.equal(a, b),
                                      np.maximum(a, b), np.minimum(a, b), np.add(a, b),
                                      np.multiply(a, b), np.fmax(a, b), np.absolute(a)),
         np.array([False, False, True, True]), np.array([False, True, False, True])),
    case("bool-subtract", np.subtract, np.array([True]), np.array([False])),
    case("bool-negative", np.negative, np.array([True])),
    case("bool-positive", np.positive, np.array([True])),
    case("bool-reduce", lambda a: (np.logical_or.reduce(a), np.logical_and.reduce(a),
                                   np.add.reduce(a), np.maximum.reduce(a)),
         np.array([False, True, True])),
    case("compare-nan", lambda a: (np.less(a, nan), np.equal(a, nan), np.not_equal(a, nan),
                                   np.greater(nan, a)), np.array([1.0, nan, inf])),
    case("compare-int64-uint64", lambda a, b: (np.less(a, b), np.equal(a, b),
                                               np.greater_equal(a, b)),
         np.array([2**63 - 1, 2**62, 0], np.int64), np.array([2**64 - 1, 2**62, 0], np.uint64)),
    *(case(f"branch-cuts-{f.__name__}", f, CUTS)
      for f in (np.log, np.log2, np.log10, np.log1p, np.sqrt, np.arcsin, np.arccos, np.arctan,
                np.arcsinh, np.arccosh, np.arctanh)),
    *(case(f"complex-{f.__name__}", f, np.array([0.5 + 0j, 1 + 1j, 1.5 - 0.5j], "c8"))
      for f in (np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arctanh, np.sin, np.cos,
                np.tan, np.exp, np.exp2, np.log, np.sqrt, np.log10, np.log2, np.log1p)),
]


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_compiled(c):
    check_jit(c, signed_zeros=True)


# PyTorch promotes no int64 Tensor with a uint64 one, and np.less of Tensors keeps that refusal
ON_TENSORS = [c for c in CASES if c.name != "compare-int64-uint64"]


@pytest.mark.parametrize("c", ON_TENSORS, ids=lambda c: c.id)
def test_on_tensors(c):
    check_eager(c, signed_zeros=True)


@pytest.mark.parametrize("c", [c for c in CASES if c.name.startswith((
    "arctan2", "hypot", "logaddexp", "log1p", "expm1", "exp2", "log2", "cbrt", "ldexp", "frexp",
    "sign", "absolute", "rounding", "branch-cuts"))], ids=lambda c: c.id)
def test_in_cpu_code(c):
    check_jit(c, backend="cpu", signed_zeros=True)
