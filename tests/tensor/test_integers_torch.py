"""Eager Tensors against PyTorch itself: floor division, remainder, fmod, rounding divisions,
bitwise logic, shifts, gcd/lcm and float_power on int, bool and float tensors (values,
dtypes, grad_fn names, gradients, errors), and Python integers wrapped into int32."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

rng = np.random.default_rng(5)


def _pair(module, values, dtype):
    return module.tensor(values, dtype=getattr(module, dtype))


def _same(got, want):
    want = want.detach().numpy()
    got = got.detach().numpy()
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":
        numbers = ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


def _both(fn, *specs):
    """fn applied to gradjit tensors and to torch tensors built from the same specs."""
    results = []
    for module in (gradjit, torch):
        args = [_pair(module, v, dt) if isinstance(dt, str) else v for v, dt in specs]
        results.append(fn(module, *args))
    return results


def _int_edges(dt):
    info = np.iinfo(dt)
    return [1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 64, -64, info.min, info.max, info.min + 1]


def _divisions(m, a, b):
    return (a // b, a % b, m.fmod(a, b), m.remainder(a, b), m.floor_divide(a, b),
            m.div(a, b, rounding_mode="floor"), m.div(a, b, rounding_mode="trunc"),
            a // 3, -7 % b, a % -3, m.fmod(a, -3), m.div(a, 4, rounding_mode="trunc"))


@pytest.mark.parametrize("dt", ["int32", "int64"])
def test_integer_divisions_match_torch(dt):
    edges = _int_edges(np.dtype(dt))
    # INT_MIN / -1 traps in PyTorch's CPU kernels (SIGFPE), so it cannot be the reference
    # there; gradjit gives numpy's INT_MIN and 0 (tests/numpy_api/test_integers.py).
    pairs = [(x, y) for x in edges for y in edges if (x, y) != (np.iinfo(dt).min, -1)]
    a, b = (list(v) for v in zip(*pairs))
    got, want = _both(_divisions, (a, dt), (b, dt))
    for g, w in zip(got, want):
        _same(g, w)


def test_integer_division_by_zero_raises_like_torch():
    for module in (gradjit, torch):
        a, zero = module.tensor([7, -7]), module.tensor([1, 0])
        for fn in (lambda: a // zero, lambda: a % 0, lambda: module.fmod(a, zero),
                   lambda: module.div(a, 0, rounding_mode="trunc")):
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                fn()


SPECIAL = [5.0, -5.0, 0.0, -0.0, 3.0, -3.0, 0.5, 7.5, float("inf"), float("-inf"),
           float("nan"), 1e300, 1e-300, -1e-20, 2.0**60]


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_float_divisions_at_special_values_match_torch(dt):
    with np.errstate(all="ignore"):
        a, b = (np.array(v, dt) for v in (np.repeat(SPECIAL, len(SPECIAL)),
                                          np.tile(SPECIAL, len(SPECIAL))))
        # PyTorch's CPU fmod is a - trunc(a / b) * b, nan where a / b overflows (1e300 %
        # 1e-300); gradjit's is C's exact fmod there (numpy's, tested in tests/numpy_api).
        exact = ~(np.isinf(a / b) & np.isfinite(a) & (b != 0))
    a, b = a[exact].tolist(), b[exact].tolist()
    got, want = _both(lambda m, a, b: (a // b, a % b, m.fmod(a, b),
                                       m.div(a, b, rounding_mode="trunc")), (a, dt), (b, dt))
    for g, w in zip(got, want):
        _same(g, w)


def test_remainder_and_fmod_gradients_and_names_match_torch():
    a0 = rng.uniform(-9, 9, 12)
    b0 = rng.choice([-1.0, 1.0], 12) * rng.uniform(0.5, 3, 12)
    for op, name in [(lambda m, a, b: a % b, "RemainderBackward1"),
                     (lambda m, a, b: m.remainder(a, b), "RemainderBackward1"),
                     (lambda m, a, b: m.fmod(a, b), "FmodBackward1"),
                     (lambda m, a, b: m.fmod(a, 1.5) * b, "MulBackward0"),
                     (lambda m, a, b: (a % -2.5) * b, "MulBackward0")]:
        grads = []
        for m in (gradjit, torch):
            a = m.tensor(a0, requires_grad=True)
            b = m.tensor(b0, requires_grad=True)
            out = op(m, a, b)
            assert type(out.grad_fn).__name__ == name
            (out * m.tensor(np.arange(12.0))).sum().backward()
            grads.append((out, a.grad, b.grad))
        for g, w in zip(*grads):
            np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-12)


def test_bitwise_and_shifts_match_torch():
    edges = _int_edges(np.dtype("int64")) + [0, 63, 65, -65]
    a = np.repeat(edges, len(edges)).tolist()
    b = np.tile(edges, len(edges)).tolist()
    flags = [True, False, True, False]
    others = [True, True, False, False]

    def fn(m, a, b, p, q, n32):
        return (a & b, a | b, a ^ b, ~a, a << b, a >> b, m.bitwise_and(a, b),
                m.bitwise_or(a, 3), m.bitwise_xor(a, b), m.bitwise_not(b),
                m.bitwise_left_shift(a, b), m.bitwise_right_shift(a, b), p & q, p | q, p ^ q,
                ~p, p & True, n32 & 5, n32 << 40, n32 >> 40, n32 ^ True, p << 1)
    got, want = _both(fn, (a, "int64"), (b, "int64"), (flags, "bool"), (others, "bool"),
                      ([5, -6, 7, 2**31 - 1], "int32"))
    for g, w in zip(got, want):
        _same(g, w)


def test_bitwise_of_floats_raises_like_torch():
    for module in (gradjit, torch):
        x = module.tensor([1.5])
        with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented "
                                                      "for 'Float'"):
            _ = x & 1
        with pytest.raises(TypeError, match=r"only implemented on integer and Boolean"):
            _ = ~x


def test_gcd_lcm_and_float_power_match_torch():
    a, b = [12, -8, 0, 7, 1836311903], [18, 12, 0, -21, 1134903170]
    got, want = _both(lambda m, a, b, x: (m.gcd(a, b), m.lcm(a, b), m.float_power(x, 2),
                                          m.float_power(a, 2)),
                      (a, "int64"), (b, "int64"), ([1.5, -2.0, 0.5, 3.0, 1.0], "float32"))
    for g, w in zip(got, want):
        _same(g, w)


def test_python_ints_wrap_into_the_tensor_dtype_like_torch():
    got, want = _both(lambda m, n: (n + 2**40, n * 2**35, n - 2**31, n + 2**63, n == 2**40),
                      ([1, -2, 2**31 - 1], "int32"))
    for g, w in zip(got, want):
        _same(g, w)


def test_python_floats_go_straight_to_the_requested_dtype():
    got, want = _both(lambda m, x: (x,), ([1e300, 1e-300, -2.0**1000], "float64"))
    _same(got[0], want[0])


def test_in_place_forms_match_torch():
    def fn(m, n, x, p):
        n2, x2, p2, n3 = n.clone(), x.clone(), p.clone(), n.clone()
        n2 %= 3
        n2 //= -2
        n2 &= 6
        n2 |= 1
        n2 ^= 12
        n2 <<= 2
        n2 >>= 1
        x2 %= -1.5
        x2.fmod_(0.7)
        x2.floor_divide_(0.25)
        p2 &= m.tensor([True, False, True])
        n3.bitwise_not_().remainder_(5).gcd_(m.tensor([4, 6, 8])).bitwise_xor_(3)
        return n2, x2, p2, n3
    got, want = _both(fn, ([7, -8, 2**40], "int64"), ([2.5, -3.75, 10.0], "float32"),
                      ([True, True, False], "bool"))
    for g, w in zip(got, want):
        _same(g, w)
    for module in (gradjit, torch):
        n = module.tensor([1, 2])
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            n %= 2.5
