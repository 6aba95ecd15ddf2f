"""Integer semantics, compiled: floor division, remainder, fmod and divmod exact on int32/int64
(zero divisors, INT_MIN // -1, large values), numpy's float division with remainder at inf,
nan, signed zeros and huge ratios, bitwise logic and shifts, gcd/lcm, float_power, and the
OverflowError for Python integers out of an array's range. Each compiled result must equal
numpy's bit for bit (CPU and the PTX grid emulator)."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import BACKENDS, check_grad, check_values

UFUNCS = [np.floor_divide, np.remainder, np.fmod, np.divmod, np.bitwise_and, np.bitwise_or,
          np.bitwise_xor, np.invert, np.left_shift, np.right_shift, np.gcd, np.lcm,
          np.float_power]
rng = np.random.default_rng(11)


def _same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(got, want, err_msg=what)  # nan matches nan
        numbers = ~np.isnan(want)  # a NaN's sign bit means nothing
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]),
                                      err_msg=what + " sign")
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_exact(fn, *args):
    """jit(fn) gives numpy's results bit for bit (dtypes, nan, the sign of zeros)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = fn(*args)
    for backend in BACKENDS:
        got = gradjit.jit(fn, backend=backend)(*args)
        for i, (g, w) in enumerate(zip(got, want)):
            _same_bits(g, w, f"{backend}, result {i}")


def _pairs(values, dt):
    values = np.array(values, dt)
    return np.repeat(values, len(values)), np.tile(values, len(values))


def _int_edges(dt):
    info = np.iinfo(dt)
    return [0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 33, 63, 64, 100, -100, info.min, info.max,
            info.min + 1, info.max - 1, info.min // 3, info.max // 7]


def _divisions(a, b):
    q, r = divmod(a, b)
    return (a // b, a % b, np.floor_divide(a, b), np.remainder(a, b), np.mod(a, b),
            np.fmod(a, b), q, r, *np.divmod(a, b))


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_integer_division_at_every_pair_of_edge_values(dt):
    check_exact(_divisions, *_pairs(_int_edges(dt), dt))


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_integer_division_of_random_large_values_is_exact(dt):
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, 300, dtype=dt, endpoint=True)
    b = rng.integers(info.min, info.max, 300, dtype=dt, endpoint=True)
    b[::3] = rng.integers(-50, 50, 100)  # small divisors: large quotients
    b[::11] = 0
    check_exact(_divisions, a, b)


def test_int64_division_beyond_float_precision():
    """Through float64 these would round: 2**62 + 1 is not a float64."""
    a = np.array([2**62 + 1, -(2**62) - 1, 2**63 - 1, 9007199254740993])
    b = np.array([3, 3, -2, 1])
    check_exact(_divisions, a, b)


def test_python_ints_and_bools_mix_with_integer_arrays():
    a32 = np.array([7, -7, 0, 2**31 - 1, -(2**31)], np.int32)
    a64 = np.array([7, -7, 0, 2**40, -(2**40)])
    flags = np.array([True, False, True, True, False])

    def f(x, y, m):
        return (x // 3, x % -3, 7 // x, -7 % x, np.fmod(x, -3), divmod(x, 2)[1], x // True,
                x % m, m // x, y // 2**35, y % -(2**35), y // x, x % y, m % 3, 5 // m,
                *divmod(-9, x))
    check_exact(f, a32, a64, flags)


def test_bool_division_gives_numpy_int8_which_is_refused():
    flags = np.array([True, False])
    with pytest.raises(TypeError, match="floor_divide of two bool operands gives int8"):
        gradjit.jit(lambda m: m // m)(flags)


# ---- floats ----

# 1.0 % 0.1: 1.0 / 0.1 rounds up to 10, so a - trunc(a / b) * b would be negative.
SPECIAL = [5.0, -5.0, 0.0, -0.0, 3.0, -3.0, 0.5, 7.5, np.inf, -np.inf, np.nan, 1e300, 1e-300,
           -1e-20, 1.0, 0.1, 2.0**60, 5e-324, 3e-310]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_float_division_with_remainder_at_special_values(dt):
    with np.errstate(over="ignore", under="ignore"):
        a, b = _pairs(SPECIAL, dt)
    check_exact(_divisions, a, b)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_float_division_of_random_values_and_huge_ratios(dt):
    a = (rng.standard_normal(400) * 10.0 ** rng.integers(-20, 20, 400)).astype(dt)
    b = (rng.standard_normal(400) * 10.0 ** rng.integers(-20, 20, 400)).astype(dt)
    b[::7] = rng.integers(-3, 4, len(b[::7]))  # small integers: exact multiples and zeros
    a[::5] = rng.integers(-9, 10, len(a[::5]))
    check_exact(_divisions, a, b)


def test_float_division_mixed_with_python_numbers_and_integer_arrays():
    x = np.array([5.5, -5.5, -0.0, 0.0, np.inf, 1e300])
    n = np.array([2, -3, 0, 5, 7, -1], np.int32)

    def f(x, n):
        return x // 2, x % -2.5, 7.0 // x, -7 % x, n // 2.5, n % 0.75, x // n, x % n, n % x
    check_exact(f, x, n)


def test_remainder_and_fmod_gradients_follow_pytorch():
    """d(a % b)/da = 1, d/db = -floor(a/b); fmod: d/db = -trunc(a/b). At the quotient's
    steps (a measure-zero set) the derivative is the one-sided one; points avoid them."""
    a = np.array([[5.3, -5.3, 7.9], [0.4, -0.45, 12.2]])
    b = np.array([[2.1, 2.1, -2.2], [-0.7, 0.7, 1.3]])
    for fn in (np.remainder, np.fmod, lambda x, y: x % y, lambda x, y: divmod(x, y)[1]):
        check_grad(fn, a, b, argnums=(0, 1))
        check_grad(lambda x: fn(x, 0.75), a)
        check_grad(lambda y: fn(7.3, y), b)


def test_remainder_gradient_is_one_at_an_exact_multiple():
    a, b = np.array([6.0, -6.0, 0.0]), np.array([3.0, 3.0, -2.0])
    for backend in BACKENDS:
        ga, gb = gradjit.grad(lambda x, y: (x % y).sum(), argnums=(0, 1), backend=backend)(a, b)
        np.testing.assert_array_equal(ga, [1.0, 1.0, 1.0])
        np.testing.assert_array_equal(gb, -np.floor(a / b))


def test_floor_division_has_zero_gradient():
    a, b = np.array([5.3, -5.3, 1.0]), np.array([2.1, 2.1, 0.0])
    for backend in BACKENDS:
        ga, gb = gradjit.grad(lambda x, y: (x // y).sum() + np.floor_divide(x, 3.0).sum()
                              + divmod(x, y)[0].sum(), argnums=(0, 1), backend=backend)(a, b)
        np.testing.assert_array_equal(ga, np.zeros(3))
        np.testing.assert_array_equal(gb, np.zeros(3))


# ---- bitwise logic and shifts ----

def _bitwise(a, b):
    return (a & b, a | b, a ^ b, ~a, np.bitwise_and(a, b), np.bitwise_or(a, b),
            np.bitwise_xor(a, b), np.invert(a), np.bitwise_not(b), np.bitwise_invert(a))


def _shifts(a, b):
    return (a << b, a >> b, np.left_shift(a, b), np.right_shift(a, b),
            np.bitwise_left_shift(a, b), np.bitwise_right_shift(a, b))


@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_bitwise_and_shifts_at_every_pair_of_edge_values(dt):
    """Shift counts of the width and beyond give 0 (-1 for a negative number shifted right);
    so do negative counts, as numpy's."""
    a, b = _pairs(_int_edges(dt) + [-31, -32, -64, -65], dt)
    check_exact(lambda a, b: _bitwise(a, b) + _shifts(a, b), a, b)


def test_bitwise_on_bools_is_logical_and_mixes_with_ints_and_python_numbers():
    m = np.array([True, False, True, False])
    n = np.array([True, True, False, False])
    k = np.array([5, -6, 0, 2**40])

    def f(m, n, k):
        return (_bitwise(m, n) + (m & True, m | False, True ^ m, m & k, k | m, k ^ 3, 12 & k,
                                  ~k, k << 2, 1 << k % 8, k >> 1, -1024 >> (k % 5), m << 1,
                                  k << m, 3 >> m))
    check_exact(f, m, n, k)


def test_bitwise_of_floats_raises_type_error():
    x = np.array([1.5])
    for fn in (lambda x: x & 1, lambda x: ~x, lambda x: x << 1):
        with pytest.raises(TypeError, match="only defined for integer"):
            gradjit.jit(fn)(x)
    with pytest.raises(TypeError, match="ufunc 'bitwise_or' not supported for the input types"):
        np.bitwise_or(x, x)  # numpy's own error, which the traced call gives
    with pytest.raises(TypeError, match="ufunc 'bitwise_or' not supported for the input types"):
        gradjit.jit(lambda x: np.bitwise_or(x, x))(x)


# ---- gcd, lcm, powers ----

@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_gcd_and_lcm(dt):
    edges = _int_edges(dt) + [12, -18, 1836311903, 1134903170]
    if dt == np.int64:
        edges += [7540113804746346429, 4660046610375530309]  # consecutive Fibonacci numbers
    a, b = _pairs(edges, dt)
    check_exact(lambda a, b: (np.gcd(a, b), np.lcm(a, b), np.gcd(a, 12), np.lcm(-4, b)), a, b)


def test_float_power_computes_in_float64():
    """float64 results whatever the operands (values to the math library's pow accuracy)."""
    x = np.array([1.5, 2.0, 0.1, 3.0], np.float32)
    n = np.array([2, 3, -1, 4])
    check_values(lambda x, n: (np.float_power(x, 3), np.float_power(x, x), np.float_power(n, -1),
                              np.float_power(2, n)), x, n)
    check_grad(lambda x: np.float_power(x, 2.5), np.array([0.5, 1.5]))


def test_integer_power_with_negative_exponent_raises_numpy_value_error():
    n = np.array([2, 3])
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        gradjit.jit(lambda n: n ** -1)(n)
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        gradjit.jit(lambda n, e: n ** e)(n, np.array([1, -2]))


# ---- Python integers out of range ----

def test_python_int_out_of_an_arrays_range_raises_numpy_overflow_error():
    n32 = np.array([1, 2], np.int32)
    for fn in (lambda n: n + 2**40, lambda n: 2**31 * n, lambda n: n // 2**31,
               lambda n: np.maximum(n, 2**40), lambda n: n & 2**32):
        with pytest.raises(OverflowError, match="out of bounds for int32"):
            fn(n32)  # numpy itself
        with pytest.raises(OverflowError, match="out of bounds for int32"):
            gradjit.jit(fn)(n32)
    with pytest.raises(OverflowError, match="Python integer 1099511627776 out of bounds for "
                                            "int32"):
        gradjit.jit(lambda n: n + 2**40)(n32)
    with pytest.raises(OverflowError):
        gradjit.jit(lambda n: n + 2**63)(np.array([1]))


def test_python_ints_at_the_edge_of_the_range_and_in_comparisons_are_accepted():
    n32 = np.array([1, -2, 2**31 - 1], np.int32)
    check_exact(lambda n: (n + (-(2**31)), n - (2**31 - 1), n == 2**40, n < 2**40,
                           n >= -(2**40), n != -(2**35), n + (2**40 + 0.5)), n32)


@pytest.mark.parametrize("shapes", [((), ()), ((0,), (0,)), ((3, 1), (1, 4)), ((), (2, 3)),
                                    ((2, 0), (1,))], ids=str)
@pytest.mark.parametrize("dt", [np.int32, np.float32])
def test_zero_dimensional_empty_and_broadcast_operands(shapes, dt):
    a = np.asarray(rng.integers(-20, 20, shapes[0])).astype(dt)
    b = np.asarray(rng.integers(1, 9, shapes[1]) * rng.choice([-1, 1], shapes[1])).astype(dt)
    if dt == np.float32:
        check_exact(lambda a, b: (a // b, a % b, np.fmod(a, b), *divmod(a, b)), a, b)
    else:
        check_exact(lambda a, b: _divisions(a, b) + _bitwise(a, b) + _shifts(a, b % 40), a, b)


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_])
def test_bitwise_count_counts_the_bits_of_the_magnitude(dt):
    """numpy's uint8 result: the compiled backends do not lower uint8, so the interpreter
    and eager Tensors compute it."""
    info = np.iinfo(dt) if dt is not np.bool_ else None
    edges = [0, 1, 5, -1, -5] + ([] if info is None else [info.min, info.max, info.min + 1])
    x = np.array(edges).astype(dt) if dt is not np.bool_ else np.array([True, False])
    x = np.concatenate([x, rng.integers(-1000, 1000, 20).astype(dt)]).reshape(2, -1)
    want = np.bitwise_count(x)
    got = gradjit.jit(lambda a: np.bitwise_count(a), backend="interpreter")(x)
    _same_bits(got, want, "interpreter")
    _same_bits(np.bitwise_count(gradjit.tensor(x)).numpy(), want, "eager")


def test_bitwise_count_of_floats_raises_numpy_type_error():
    x = np.array([1.5, 2.0])
    with pytest.raises(TypeError) as want:
        np.bitwise_count(x)
    with pytest.raises(TypeError) as got:
        gradjit.jit(lambda a: np.bitwise_count(a))(x)
    assert str(want.value) in str(got.value)
