"""After numpy's test_scalarmath: Python operators on 0-d values (numpy's scalars, traced):
powers of every integer and float type and their mixtures, integers to negative powers,
floor division and modulus over mixed types and signs, complex division's signed zeros and
division by zero, negation and subtraction, abs at the float limits and shifts by a type's
width or more; compiled against numpy."""
import itertools
import operator

import numpy as np
import pytest

from tests.numpy_api.jax_suite import case, check_jit

inf, nan = np.inf, np.nan
SIGNED_ZERO_DIVISIONS = (((0.0, -1.0), (0.0, 1.0)), ((0.0, -1.0), (0.0, -1.0)),
                         ((0.0, -1.0), (-0.0, -1.0)), ((0.0, -1.0), (-0.0, 1.0)),
                         ((0.0, 1.0), (0.0, -1.0)), ((-0.0, -1.0), (0.0, -1.0)),
                         ((-0.0, 1.0), (0.0, -1.0)), ((2.0, 1.0), (2.0, 1.0)),
                         ((1.0, 2.0), (1.0, 2.0)))
OVER_ZERO = (1.0, complex(inf, inf), complex(inf, nan), complex(nan, inf), complex(nan, nan), 0.0)


def _division(a, b):
    return a // b, a % b, divmod(a, b)


def _shifts(t, value, shift):
    return case(f"shift-{t}-{value}-{shift}", lambda a, s: (a >> s, a << s),
                np.array(value).astype(t), np.array(shift, t))


CASES = [
    *(case(f"power-{t}", lambda a: (a ** 4, a ** 2.5), np.array(3, t)) for t in "bhiqefd"),
    *(case(f"negative-power-{t}-{e}", operator.pow, np.array(b, t), np.array(-1, e))
      for t in "bhilqBHILQ" for e in "bhilq" for b in (1, 2)),
    *(case(f"mixed-power-{t1}-{t2}", operator.pow, np.array(3, t1), np.array(2, t2))
      for t1, t2 in itertools.product("bhefdil", repeat=2)),
    *(case(f"modulus-{t1}-{t2}-{s1}{s2}", _division, np.array(s1 * 71, t1), np.array(s2 * 19, t2))
      for t1, t2 in itertools.product("bBhHfd", repeat=2) for s1 in (1, -1) for s2 in (1, -1)
      if (s1 > 0 or t1.islower()) and (s2 > 0 or t2.islower())),
    *(case(f"modulus-roundoff-{t}-{s1}{s2}", _division, np.array(s1 * 78 * 6e-8, t),
           np.array(s2 * 6e-8, t)) for t in "efd" for s1 in (1, -1) for s2 in (1, -1)),
    *(case(f"modulus-corners-{t}", lambda a, b: (a % b, a // b),
           np.array([1, 0, inf, inf, nan, 1, nan, -0.0, 5, -5], t),
           np.array([0, 0, inf, 0, 1, nan, 0, 3, -inf, inf], t)) for t in "efd"),
    *(case(f"complex-division-{t}-{n}-{d}", operator.truediv, np.array(complex(*n), t),
           np.array(complex(*d), t)) for t in ("c8", "c16") for n, d in SIGNED_ZERO_DIVISIONS),
    *(case(f"complex-over-zero-{t}-{n}", operator.truediv, np.array(n, t), np.array(0.0, t))
      for t in ("c8", "c16") for n in OVER_ZERO),
    *(case(f"negate-{t}", lambda a: (-a, a - a, +a), np.array(1, t))
      for t in "bhilqBHILQefdFD"),
    *(case(f"abs-{t}", lambda a: (abs(a), np.abs(a)), np.array(
        [-1.5, 0.0, -0.0, np.finfo(t).max, np.finfo(t).tiny, np.finfo(t).min], t))
      for t in "efdFD"),
    *(_shifts(t, value, shift) for t in "bhilqBHILQ" for value in (5, -5)
      for shift in (np.dtype(t).itemsize * 8, np.dtype(t).itemsize * 8 + 4)),
    case("compare-uint64-int64", lambda a, b: (a < b, a == b, a >= b), np.array(1, "u8"),
         np.array(-1, "i8")),
    case("python-numbers", lambda a: (a + 2**40, a * 3.5, a + 1j, a + 100), np.array([1, 2], "i1")),
    case("python-int-out-of-range", lambda a: a + 300, np.array([1, 2], "i1")),
    case("negate-bool", operator.neg, np.array(True)),
    case("subtract-bools", operator.sub, np.array(True), np.array(False)),
]


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_compiled(c):
    check_jit(c, signed_zeros=True)


@pytest.mark.parametrize("c", [c for c in CASES if c.name.startswith((
    "modulus-corners", "complex-division", "complex-over-zero", "abs", "shift-l", "shift-Q"))],
    ids=lambda c: c.id)
def test_in_cpu_code(c):
    check_jit(c, backend="cpu", signed_zeros=True)
