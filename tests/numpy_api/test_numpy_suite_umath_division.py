"""After numpy's test_umath and test_scalarmath division, remainder and power tests: integer
floor division and remainder at every integer type's bounds and by zero, the signs of float
quotients and remainders (zeros included), divmod's corner cases, complex division, integer
powers and negative exponents, gcd and lcm, bitwise logic, shifts and comparisons with Python
integers outside an array's range; compiled and on Tensors against numpy."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, check_eager, check_jit

INTS = ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")
FLOATS = ("f2", "f4", "f8")
inf, nan = np.inf, np.nan


def _division(a, b):
    return np.floor_divide(a, b), np.remainder(a, b), np.fmod(a, b), np.divmod(a, b)


def _bounds(dtype):
    """Each integer type's extremes over -1 (signed), 0 and small divisors."""
    info = np.iinfo(dtype)
    a = np.array([info.min, info.min + 1, info.max, 0, 7, 1, info.max - 3], dtype)
    b = np.array([-1 if info.min else 1, 0, 3, 0, 0, 2, 5], dtype)
    return a, b


def _signs(dtype):
    """Every pair of signs of dividend and divisor, remainders of both signs and zero."""
    if dtype[0] == "u":
        return np.arange(40).astype(dtype), np.array([7, 1, 3, 19] * 10, dtype)
    return np.arange(-20, 20).astype(dtype), np.array([7, -7, 1, -1, 3, -3, 19, -19] * 5, dtype)


def _exact_float_pairs():
    """Small integers as floats, numpy's check that float divmod is exact there, with the
    signs of zero quotients and remainders."""
    a, b = np.array(list(np.ndindex(9, 8))).T
    return a - 4.0, np.where(b >= 4, b - 3.0, b - 4.0)


def _integer_powers(a, dt):
    return (np.power(a, 0), np.power(a, 2), np.power(a, np.array(0, dt)),
            np.power(np.array(1, dt), a), np.power(np.array(0, dt), np.abs(a)))


# cases on numpy functions only (eager Tensors give PyTorch's meaning to Python operators)
FUNCTION_CASES = [
    *(case(f"bounds-{d}", _division, *_bounds(d)) for d in INTS),
    *(case(f"signs-{d}", np.divmod, *_signs(d)) for d in INTS),
    *(case(f"by-zero-{d}", lambda a: (np.floor_divide(a, 0), np.remainder(a, 0)),
           np.arange(-3, 4).astype(d) if d[0] == "i" else np.arange(7).astype(d)) for d in INTS),
    *(case(f"exact-{d}", _division, *(x.astype(d) for x in _exact_float_pairs()))
      for d in FLOATS),
    *(case(f"roundoff-{d1}-{d2}", np.divmod, np.array([78, -78, 78, -78]) * np.array(6e-8, d1),
           np.array([1, 1, -1, -1]) * np.array(6e-8, d2)) for d1 in FLOATS for d2 in FLOATS),
    *(case(f"mixed-{d1}-{d2}", np.divmod, np.array([71, -71 if d1[0] != "u" else 71], d1),
           np.array([19, -19 if d2[0] != "u" else 19], d2))
      for d1 in ("i1", "i8", "u1", "f4", "f8") for d2 in ("i2", "u4", "f2", "f8")),
    *(case(f"corners-{d}", _division, np.array([1, 0, inf, inf, nan, 1, nan, -1, 5, -5], d),
           np.array([0, 0, inf, 0, 1, nan, 0, inf, -inf, inf], d)) for d in FLOATS),
    *(case(f"remainder-magnitude-{d}", lambda a, b: (np.remainder(a, b), np.remainder(-a, -b)),
           np.nextafter(np.zeros(1, d), -1), np.ones(1, d)) for d in FLOATS),
    case("divmod-overflow", lambda x: np.divmod(4, x), np.array(np.finfo(np.float64).tiny)),
    case("floor-divide-signed-zero", lambda x: (np.floor_divide(x, 1), np.floor_divide(-x, 1)),
         np.zeros(4)),
    case("complex-floor-divide", lambda x: np.floor_divide(x, 7), np.array([.9 + 1j])),
    case("complex-divmod", lambda x: np.divmod(x, 7), np.array([.9 + 1j])),
    case("complex-remainder", lambda x: np.remainder(x, 7), np.array([.9 + 1j])),
    case("complex-zero-division", lambda x: np.true_divide([1.0, complex(inf, nan),
                                                            complex(nan, inf), 0.0], x),
         np.array([0j])),
    *(case(f"integer-power-{d}", lambda a, d=d: _integer_powers(a, np.dtype(d)),
           np.arange(-3 if d[0] == "i" else 0, 5).astype(d)) for d in INTS),
    *(case(f"negative-power-{d}", lambda a, d=d: np.power(a, np.array(-1, d)),
           np.arange(-3, 5).astype(d)) for d in INTS if d[0] == "i"),
    case("negative-power-array", np.power, np.array([1, 2, 3]), np.array([1, -1, 2])),
    case("power-to-inf", lambda x: (np.power(x, inf), np.power(x, -inf)),
         np.array([0.5, 1.0, 2.0, -0.5, -1.0, -2.0, 0.0])),
    case("power-complex-zero", lambda z: tuple(np.power(z, e) for e in (
        0j, 2 + 0j, 1 + 1j, -1 + 0j, -1 + 1j, 1 - 1j, 0.5 + 0j)), np.array([0j])),
    case("float-power-dtypes", lambda a, b, c: (np.float_power(a, 2), np.float_power(b, 2),
                                                np.float_power(c, 2)),
         np.array([1, 2, 3], "i2"), np.array([1j]), np.array([1j], "c8")),
    *(case(f"gcd-lcm-{d}", lambda a, b: (np.gcd(a, b), np.lcm(a, b), np.gcd(a, 20),
                                         np.lcm(a[:2], 20)),
           np.array([12, 120, 12, 0, 5], d), np.array([20, 100, 20, 20, 0], d))
      for d in ("i1", "i2", "u2", "i4", "i8")),
    *(case(f"gcd-lcm-signs-{d}", lambda a, b: (np.gcd(a, b), np.lcm(a, b)),
           np.array([12, -12, 12, -12], d), np.array([20, 20, -20, -20], d))
      for d in ("i1", "i2", "i8")),
    *(case(f"gcd-of-min-{d}", lambda a, q: (np.gcd(a, q), np.gcd(a, -q), np.gcd(-q, a)),
           np.array(np.iinfo(d).min, d), np.array(-(np.iinfo(d).min // 4) * 3, d))
      for d in ("i1", "i2", "i4", "i8")),
    case("lcm-near-overflow", np.lcm, np.array(2 * (2**31 // 11), "i4"),
         np.array(5 * (2**31 // 11), "i4")),
    case("gcd-reduce", lambda a: (np.gcd.reduce(a), np.lcm.reduce(a[:2])), np.array([15, 25, 35])),
    case("gcd-of-floats", np.gcd, np.array(0.3), np.array(0.4)),
    case("lcm-of-floats", np.lcm, np.array(0.3), np.array(0.4)),
    *(case(f"bitwise-{d}", lambda z, o: (np.bitwise_not(z), np.bitwise_not(o), np.bitwise_or(z, o),
                                         np.bitwise_and(o, z), np.bitwise_xor(o, o),
                                         np.bitwise_and.reduce(o), np.bitwise_xor.reduce(z[:0])),
           np.zeros(1, d), np.array([-1]).astype(d)) for d in ("?",) + INTS),
    case("bitwise-of-floats", np.bitwise_and, np.ones(2), np.ones(2)),
    case("bitwise-count", lambda a: (np.bitwise_count(a), np.bitwise_count(np.negative(a))),
         np.array([0, 1, 3, 255, 2**31 - 1, -1, np.iinfo(np.int64).min])),
    *(case(f"shifts-{d}", lambda x, s: (np.left_shift(x, s), np.right_shift(x, s)),
           np.array([1, 5, 100, 127] if d[0] == "u" else [1, -5, 100, -128], d),
           np.array([0, 1, np.dtype(d).itemsize * 8 - 1, np.dtype(d).itemsize * 8 + 3], d))
      for d in INTS),
    case("shift-by-negative", lambda x: (np.left_shift(x, -1), np.right_shift(x, -1)),
         np.array([4, -4])),
    case("true-divide-bools", lambda a: (np.true_divide(a, a), np.true_divide(~a, a)),
         np.ones((), bool)),
]

# Python operators on traced values: numpy's meaning (compiled only)
OPERATOR_CASES = [
    case("python-division", lambda x: (x / 100, x // 100, x % 100, divmod(x, 7)),
         np.array([5, 10, 90, 100, -5, -10, -90, -100, -120])),
    *(case(f"operators-{d}", lambda a: (a // 3, a % 3, a // 1, a % -1 if d[0] == "i" else a % 1),
           _bounds(d)[0]) for d in INTS),
    case("complex-operator-floor-divide", lambda x: x // 7, np.array([.9 + 1j])),
    case("complex-operator-remainder", lambda x: x % 7, np.array([.9 + 1j])),
    case("complex-division", lambda x: (x ** 2 / x, (x * x / x) / x),
         np.array([1 + 1j, 1 + .5j, 1 + 2j, 1e110 + 0j, 1e-110 + 0j])),
    case("float-powers", lambda x: tuple(x ** e for e in (0, 1, 2, -1, -2, 0.5, -0.5, 3)),
         np.array([1., 2., 3., -0.0, 0.0, inf, -inf, nan, -4.0])),
    case("float32-powers", lambda x: tuple(x ** e for e in (0, 1, 2, -1, -2, 0.5, -0.5, 3)),
         np.array([1., 2., 3., -0.0, 0.0, inf, -inf, nan, -4.0], "f4")),
    case("complex-powers", lambda x: tuple(x ** e for e in (0, 1, 2, 3, 4, -1, -2, -3, 0.5)),
         np.array([1 + 2j, 2 + 3j, 3 + 4j])),
    *(case(f"negative-python-power-{d}", lambda a: a ** -1, np.arange(-3, 5).astype(d))
      for d in INTS if d[0] == "i"),
    case("python-int-beyond-int64", lambda a: (a < 2**63, a == 2**64 - 1, a > -2**63 - 1,
                                               2**70 <= a, a != 2**65),
         np.array([2**63 - 1, 5, 0, -2**63], np.int64)),
    case("negative-python-int-with-uint64", lambda a: (a < -1, a == -1, a > -1, -1 <= a),
         np.array([0, 2**64 - 1], np.uint64)),
    *(case(f"python-int-beyond-{d}", lambda a: (a < 2**40, a >= -2**40, a == 300),
           np.arange(5).astype(d)) for d in ("i1", "u1", "i4", "u4")),
    case("shift-operators", lambda x: (x << 2, x >> 1, 1 << x), np.array([1, 2, 3], np.uint8)),
]


@pytest.mark.parametrize("c", FUNCTION_CASES + OPERATOR_CASES, ids=lambda c: c.id)
def test_compiled(c):
    check_jit(c, signed_zeros=True)


@pytest.mark.parametrize("c", FUNCTION_CASES, ids=lambda c: c.id)
def test_on_tensors(c):
    check_eager(c, signed_zeros=True)


@pytest.mark.parametrize("c", [c for c in FUNCTION_CASES + OPERATOR_CASES
                               if c.name.startswith(("bounds", "signs", "exact", "corners"))],
                         ids=lambda c: c.id)
def test_in_cpu_code(c):
    check_jit(c, backend="cpu", signed_zeros=True)
