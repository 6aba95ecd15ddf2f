"""PyTorch's binary-ufunc suite side by side with torch: broadcasting (and its refusals),
division's rounding modes and its signs, integer division by zero, fmod/remainder, pow over
every scalar/tensor/dtype pairing, float_power, bitwise and shift ops, comparisons with
scalars and their overflow, maximum/minimum/fmax/fmin with nan, copysign, nextafter, ldexp,
hypot, gcd/lcm, heaviside, logical ops, lerp, logaddexp, xlogy/xlog1py/zeta, add/sub alpha,
in-place casts, out= resizing, and gradients at the edges."""
import itertools
import operator
import warnings

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
INTS = ("uint8", "int8", "int16", "int32", "int64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
REALS = ("bool",) + INTS + FLOATS
ALL = REALS + ("complex64", "complex128")
RNG = np.random.default_rng(1)
A, B = RNG.standard_normal((2, 10, 10))
SPECIAL = [1.0, -1.0, 0.0, -0.0, 0.1, -0.1, np.pi, -np.pi, np.inf, -np.inf, np.nan]


def t(lib, values, dtype="float64", **kw):
    return lib.tensor(values, dtype=getattr(lib, dtype), **kw)


def shown(x):
    """A result comparable across libraries: half precision widened, float results with their
    sign bits (a nan's aside: the platform's)."""
    if hasattr(x, "dtype") and x.dtype.is_floating_point:
        x = x.detach()
        return str(x.dtype), x if x.itemsize > 2 else x.float(), x.signbit() & ~x.isnan()
    return x


def outcome_of(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return shown(fn())
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).partition("\n  at ")[0]


def grads(lib, fn, *arrays, dtype="float64"):
    """fn's value on leaves of the arrays and their gradients of its weighted sum."""
    xs = [t(lib, a, dtype, requires_grad=True) for a in arrays]
    out = fn(*xs)
    weights = lib.linspace(0.5, 1.5, out.numel(), dtype=out.dtype).reshape(out.shape)
    (out * weights).sum().backward()
    return [out] + [x.grad for x in xs]


BROADCASTS = [((1,), ()), ((2,), ()), ((1,), (2,)), ((2, 1), (2,)), ((3, 2), (2,)),
              ((1, 3, 2), (3, 2)), ((3, 1, 2), (1, 3, 2)), ((2, 3, 2), ())]
NOT_BROADCASTABLE = [((2,), (3,)), ((3, 1), (2, 1)), ((1, 3, 2), (3,)), ((3, 1, 2), (2, 1, 2))]
BINARY = ("add", "sub", "mul", "div", "pow", "atan2", "hypot", "fmod", "remainder",
          "maximum", "minimum", "fmax", "fmin", "copysign", "nextafter", "logaddexp",
          "logaddexp2", "xlogy", "igamma", "igammac", "eq", "lt", "ge", "float_power",
          "floor_divide", "ldexp", "heaviside", "logical_and", "logical_xor")


@pytest.mark.parametrize("op", BINARY)
def test_broadcasting_and_refusals(op):
    def run(lib):
        fn = getattr(lib, op)
        out = [outcome_of(lambda: fn(lib.ones(a) * 0.5, lib.ones(b) * 1.5).shape)
               for a, b in BROADCASTS]
        out += [outcome_of(lambda: fn(lib.ones(a), lib.ones(b))) for a, b in NOT_BROADCASTABLE]
        out += [outcome_of(lambda: fn(lib.ones(2, 3) * 0.5, 1.5)),
                outcome_of(lambda: fn(lib.ones(0, 3), lib.ones(3))),
                outcome_of(lambda: fn(t(lib, A).t(), t(lib, B)[::2].repeat(2, 1)))]
        return out
    check(run, rtol=1e-6)


@scenario
def add_broadcast_empty(lib):
    return [outcome_of(lambda: (lib.ones(5, 0) + lib.ones(0, 5)).shape),
            (lib.ones(0) + lib.ones(5, 0)).shape, (lib.ones(0) + lib.ones(5, 0, 1)).shape,
            (lib.ones(()) + lib.ones(5, 0, 6)).shape, (lib.ones(0) + lib.ones(1)).shape,
            (lib.ones(0, 7, 0, 6, 5, 0, 1) + lib.ones(1, 1, 5, 1, 7)).shape,
            outcome_of(lambda: lib.ones(7, 0) + lib.ones(2, 1))]


@scenario
def addcmul_zero_dim_value(lib):
    y = t(lib, 3.0)
    return [y.addcmul(y, y, value=t(lib, 2.0)),
            outcome_of(lambda: y.addcmul(y, y, value=t(lib, 2.0, requires_grad=True)))]


@scenario
def comparisons_of_bools_and_scalars(lib):
    a = t(lib, [True, False, True, False], "bool")
    b = t(lib, [True, False, True, True], "bool")
    x = t(lib, [1, 2, 3, 4], "int32")
    return [a == b, a != b, a < b, a > b, a >= b, a <= b, a > False, a == t(lib, True, "bool"),
            a.equal(b), x.lt(2), x.le(2.5), x.ge(t(lib, [2], "int32")), x.eq(2), x.ne(2.0),
            a.lt(True), a.ge(True)] + [getattr(lib, op)(a, b).dtype for op in (
                "lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_xor")]


@scenario
def inplace_comparisons_of_other_dtype(lib):
    return [outcome_of(lambda: getattr(t(lib, [1, 5], "int32"), op)(t(lib, [2, 3], "int64")))
            for op in ("lt_", "le_", "gt_", "ge_", "eq_", "ne_", "logical_xor_",
                       "logical_and_", "logical_or_")] + [
        outcome_of(lambda: t(lib, [1.5, 2.0]).lt_(2)), outcome_of(lambda: t(lib, [1, 2],
                                                                          "uint8").eq_(1.5))]


@scenario
def comparisons_overflowing_scalars(lib):
    u = t(lib, [1 << 5], "uint8")
    big = t(lib, [1 << 30], "int32")
    out = []
    for op in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
        out += [outcome_of(lambda: op(u, 1 << 20)), outcome_of(lambda: op(1 << 20, u)),
                outcome_of(lambda: op(u, t(lib, 1 << 20, "int32"))),
                outcome_of(lambda: op(t(lib, 1 << 40, "int64"), big)),
                outcome_of(lambda: op(u, -1)), outcome_of(lambda: op(u, 255.5))]
    return out


@pytest.mark.parametrize("dtype", ("bool",) + INTS)
def test_bitwise_ops_tensor_and_scalar(dtype):
    def run(lib):
        info = (0, 1) if dtype == "bool" else (-9, 9) if dtype != "uint8" else (0, 200)
        a = t(lib, np.linspace(*info, 12).round().astype(int).tolist(), dtype)
        b = t(lib, np.linspace(*info, 12)[::-1].round().astype(int).tolist(), dtype)
        s = True if dtype == "bool" else 5
        out = []
        for op in (operator.and_, operator.or_, operator.xor):
            out += [op(a, b), op(a, s), op(s, a), outcome_of(lambda: op(a, 2.5))]
        for op in (operator.iand, operator.ior, operator.ixor):
            c = a.clone()
            op(c, b)
            d = a.clone()
            op(d, s)
            out += [c, d]
        for fn in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            o = lib.empty(0, dtype=getattr(lib, dtype))
            getattr(lib, fn)(a, b, out=o)
            out += [o, getattr(a.clone(), fn + "_")(s),
                    outcome_of(lambda: getattr(lib, fn)(t(lib, [1.0]), t(lib, [2.0])))]
        return out
    check(run)


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_div_rounding_modes(dtype):
    def run(lib):
        is_float = dtype in FLOATS
        a = t(lib, (A.ravel() * (10 if is_float else 1e3)).tolist()[:60]).to(getattr(lib, dtype))
        b = t(lib, (B.ravel() * (10 if is_float else 50)).tolist()[:60]).to(getattr(lib, dtype))
        b = lib.where(b == 0, t(lib, 1.0).to(b.dtype), b)
        return [shown(lib.divide(a, b, rounding_mode=m)) for m in (None, "trunc", "floor")] + [
            shown(lib.remainder(a, b)), shown(lib.fmod(a, b)), shown(a // b),
            shown(lib.floor_divide(a, 3)),
            shown(lib.divide(a[::2], b[::2], rounding_mode="floor")),
            shown(lib.div(a, 7, rounding_mode="trunc")),
            shown(lib.div(7, b, rounding_mode="floor"))]
    check(run, rtol=1e-6 if dtype in ("float32", "float64") else 1e-2)


@pytest.mark.parametrize("dtype", FLOATS)
def test_div_rounding_nonfinite_and_by_zero(dtype):
    def run(lib):
        num = t(lib, SPECIAL, dtype)
        a, b = num[None, :], num[num != 0][:, None]
        zero = lib.zeros_like(num)
        return [shown(lib.divide(a, b, rounding_mode=m)) for m in (None, "trunc", "floor")] + [
            shown(lib.divide(num, 0, rounding_mode=m)) for m in (None, "trunc", "floor")] + [
            shown(lib.divide(num, zero, rounding_mode=m)) for m in (None, "trunc", "floor")] + [
            shown(lib.remainder(num, zero)), shown(lib.fmod(num, 0.0)),
            shown(lib.remainder(a, b)), shown(lib.fmod(a, b)), shown(lib.remainder(-0.0, b)),
            shown(lib.floor_divide(a, b))]
    check(run, rtol=1e-6 if dtype in ("float32", "float64") else 1e-2)


@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_by_zero(dtype):
    def run(lib):
        x = t(lib, [5, 0, 7], dtype)
        zero = lib.zeros_like(x)
        return [outcome_of(lambda: f(x, zero)) for f in (
            lib.fmod, lib.remainder, lib.floor_divide, operator.floordiv, operator.mod,
            lambda a, b: lib.div(a, b, rounding_mode="trunc"),
            lambda a, b: lib.div(a, b, rounding_mode="floor"), lambda a, b: a / b,
            lambda a, b: lib.fmod(a, 0), lambda a, b: lib.remainder(a, 0),
            lambda a, b: a // 0, lambda a, b: lib.div(a, 0, rounding_mode="floor"))]
    check(run)


@scenario
def division_signs_vs_python(lib):
    vals = [v * 0.5 for v in range(-6, 6) if v] + [float(v) for v in range(-4, 4) if v]
    out = []
    for a, b in itertools.product(vals[::3], vals[::2]):
        ta, tb = t(lib, a), t(lib, b)
        out += [ta / tb, ta // tb, ta % tb, a // tb, a % tb, ta // b, lib.fmod(ta, b),
                lib.true_divide(a, tb)]
    ints = [t(lib, v, "int64") for v in (-7, -2, 3, 8)]
    for x, y in itertools.product(ints, ints):
        out += [x // y, x % y, lib.fmod(x, y), x / y, lib.div(x, y, rounding_mode="trunc")]
    return out


@scenario
def inplace_division_casts(lib):
    i = t(lib, [7, -7], "int64")
    f = t(lib, [7.5, -7.5])
    return [outcome_of(lambda: i.clone().__itruediv__(2)), outcome_of(lambda: i.clone().div_(2)),
            outcome_of(lambda: i.clone().true_divide_(t(lib, [2], "int64"))),
            outcome_of(lambda: i.clone().floor_divide_(t(lib, [2.0]))),
            outcome_of(lambda: i.clone().__ifloordiv__(t(lib, [2.0]))),
            i.clone().floor_divide_(t(lib, [2, -3], "int64")),
            i.clone().div_(2, rounding_mode="floor"), f.clone().__ifloordiv__(2),
            f.clone().__imod__(-2), outcome_of(lambda: i.clone().__imod__(2.5)),
            outcome_of(lambda: i.clone().fmod_(1.5)), outcome_of(lambda: i.clone().mul_(1.5)),
            outcome_of(lambda: t(lib, 3, "int32").__imul__(t(lib, 1.5))),
            t(lib, 1.5).__imul__(t(lib, 3, "int32")), t(lib, 1.5) * t(lib, 3, "int32")]


@scenario
def inplace_dunders_stay_in_place(lib):
    x = t(lib, [1.5, -2.5])
    before = x.data_ptr()
    for op in (operator.iadd, operator.isub, operator.imul, operator.itruediv,
               operator.ifloordiv, operator.imod, operator.ipow):
        x = op(x, 1)
    return x, x.data_ptr() == before


@scenario
def out_resize_warnings(lib):
    a, b = t(lib, [1.0, 2.0, 3.0], "float32"), t(lib, [4.0, 5.0, 6.0], "float32")
    counts = []
    for fn, args in ((lib.ceil, (a,)), (lib.exp, (a,)), (lib.add, (a, b)), (lib.sub, (a, b)),
                     (lib.atan2, (a, b)), (lib.pow, (a, 2)), (lib.remainder, (a, b))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn(*args, out=lib.empty(3))
            fn(*args, out=lib.empty(0))
            quiet = len(w)
            out = fn(*args, out=lib.empty(2))
            counts.append((quiet, len(w) - quiet, out.shape))
    return counts


@pytest.mark.parametrize("dtype", INTS + ("float16", "float32", "float64", "complex128"))
def test_pow_tensor_and_scalar_exponents(dtype):
    def run(lib):
        if dtype in INTS:
            base = t(lib, [1, 2, 3, 2, 1, 3], dtype)
        else:
            base = t(lib, [0.5, 1.25, 1.5, 0.75, 1.0, 1.4], dtype)
        out = []
        for e in (-2.8, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4, 3.3, -2.5j, 1j, 1 + 1j, 0j):
            out += [outcome_of(lambda: lib.pow(base, e)), outcome_of(lambda: e ** base),
                    outcome_of(lambda: lib.pow(base.reshape(2, 3).t(), e)),
                    outcome_of(lambda: base.clone().pow_(e)),
                    outcome_of(lambda: lib.pow(base, e, out=lib.empty(6, dtype=base.dtype)))]
        out += [outcome_of(lambda: lib.pow(3, base)), outcome_of(lambda: lib.pow(3, base[::2]))]
        return out
    check(run, rtol=1e-6 if dtype not in ("float16",) else 1e-3)


@scenario
def pow_integer_negative_exponents(lib):
    ints = t(lib, [-2 ** 31, -3, -2, -1, 0, 1, 2, 3, 2 ** 31 - 1], "int32")
    out = []
    for e in (-2 ** 31, -3, -2, -1):
        out += [outcome_of(lambda: ints.pow(e)), outcome_of(lambda: ints.clone().pow_(e)),
                outcome_of(lambda: lib.pow(ints, e, out=lib.empty_like(ints))),
                outcome_of(lambda: ints.pow(t(lib, [e] * 9, "int32")))]
    return out


@scenario
def pow_long_tensor_float_exponents(lib):
    x = t(lib, [0, 1, 23, 4567], "int64")
    return [outcome_of(lambda: f(x, e)) for e in (0.0, 1 / 3, 1 / 2, 1.0, 3 / 2, 2.0) for f in (
        lib.pow, lambda a, b: a.clone().pow_(b), lambda a, b: lib.pow(a, b, out=a.clone()))]


@scenario
def pow_float_scalar_base_and_tensor_pairs(lib):
    floats = [2.0, -3 / 2, -1.0, -1 / 2, -1 / 3, 0.0, 1 / 3, 1 / 2, 1.0, 3 / 2]
    out = []
    for d in ("float32", "float64"):
        ft = t(lib, floats, d)
        out += [lib.pow(b, ft) for b in floats] + [b ** ft for b in (-2, 0, 3)]
        out += [lib.pow(ft, ft.roll(i)) for i in range(0, 10, 3)]
    for d in INTS:
        it = t(lib, [0, 1, 2, 3], d)
        out += [lib.pow(it, it.roll(i)) for i in range(4)]
    return out


@scenario
def pow_complex_scalar_base(lib):
    exps = [t(lib, [0, -2, 1, 2, 0], d) for d in ("int64", "float32", "float64", "complex64")]
    return [lib.pow(b, e) for b in (0.5j, 1 + 1j, -1.5j, 2.2 - 1.6j, 1 + 0j) for e in exps]


@scenario
def pow_out_computes_in_input_dtype(lib):
    out = []
    for inp in (17, [17]):
        a = lib.pow(2, t(lib, inp, "uint8"), out=t(lib, 0, "int64"))
        b = lib.pow(2, t(lib, inp, "int64"), out=t(lib, 0, "int64"))
        out += [a, b]
    return out


@scenario
def pow_inplace_resize_refused(lib):
    return [outcome_of(lambda: lib.ones(a).pow_(lib.ones(b) * 2)) for a, b in (
        ((), (3,)), ((2,), (2, 1)), ((2, 1), (2, 2)), ((2, 2), (2, 1, 1)))]


@scenario
def pow_gradients_at_edges(lib):
    base = [0.0, -0.0, 2.0, -2.0, 0.5, -0.5, 1.0, np.inf, np.nan]
    exp = [0.0, 2.0, -1.0, 0.5, 3.0, 2.5, np.inf, 2.0, 0.0]
    return [grads(lib, lib.pow, base, exp), grads(lib, lambda x: x ** 2, base),
            grads(lib, lambda x: x ** 0, base), grads(lib, lambda x: x ** 0.5, base),
            grads(lib, lambda x: x ** -1, base), grads(lib, lambda x: 2.0 ** x, base),
            grads(lib, lambda x: 0.0 ** x, exp), grads(lib, lambda x: (-2.0) ** x, exp),
            grads(lib, lambda x: lib.float_power(x, 2), base)]


@scenario
def maximum_minimum_nan_inf_and_dtypes(lib):
    a = [np.inf, -np.inf, np.nan, np.inf, np.nan, np.nan, 1, np.nan, 0.0, -0.0]
    b = [-np.inf, np.inf, np.inf, np.nan, np.nan, 0, np.nan, -5, -0.0, 0.0]
    out = []
    for d in FLOATS:
        x, y = t(lib, a, d), t(lib, b, d)
        for fn in (lib.maximum, lib.minimum, lib.max, lib.min, lib.fmax, lib.fmin):
            out += [shown(fn(x, y)), shown(fn(x, y, out=lib.empty_like(x)))]
    for d in ("bool",) + INTS:
        x, y = t(lib, [0, 1, 1, 0], d), t(lib, [1, 0, 1, 0], d)
        out += [fn(x, y) for fn in (lib.maximum, lib.minimum, lib.fmax, lib.fmin)]
    for d1, d2 in itertools.product(REALS, REALS):
        out.append(lib.maximum(t(lib, [0, 1], d1), t(lib, [1, 0], d2)).dtype)
    return out + [grads(lib, lib.maximum, [1.0, 2.0, np.nan, 0.0], [1.0, 1.0, 0.0, np.nan]),
                  grads(lib, lib.fmin, [1.0, 2.0, np.nan, 0.0], [1.0, 1.0, 0.0, np.nan])]


@scenario
def maximum_minimum_complex_refused(lib):
    z, r = t(lib, [1j], "complex64"), t(lib, [1.0])
    fns = (lib.maximum, lib.minimum, lib.max, lib.min, lib.fmax, lib.fmin)
    return [outcome_of(lambda: fn(a, b)) for fn in fns for a, b in ((z, r), (r, z))]


@scenario
def sub_bool_and_alpha_refusals(lib):
    m1 = t(lib, [True, False], "bool")
    i1, i2 = t(lib, [1], "int8"), t(lib, [2], "int8")
    f = t(lib, [3.0, 4.0], "float32")
    z = t(lib, [2 + 3j, 4 + 5j], "complex64")
    return [outcome_of(lambda: m1 - m1), outcome_of(lambda: 1 - m1), outcome_of(lambda: m1 - 1),
            outcome_of(lambda: lib.sub(i1, i2, alpha=True)),
            outcome_of(lambda: lib.sub(i1, i2, alpha=1.0)),
            outcome_of(lambda: lib.add(i1, i2, alpha=True)),
            outcome_of(lambda: lib.add(i1, i2, alpha=1.0)),
            outcome_of(lambda: lib.add(f, f, alpha=0.1j)),
            outcome_of(lambda: lib.add(z, z, out=t(lib, 4.0))),
            lib.add(z, z.flip(0), alpha=0.1), lib.add(z, z, alpha=0.1 + 0.2j),
            lib.add(z, z, alpha=2), lib.add(m1, m1, alpha=0), m1 + m1, m1 * m1,
            lib.add(t(lib, 1, "uint8"), 1), lib.sub(f, 2.5, alpha=2), lib.rsub(f, 1, alpha=3),
            outcome_of(lambda: lib.rsub(m1, m1)), lib.add(f, f, alpha=-1)]


@pytest.mark.parametrize("pair", [("float32", "int64"), ("int32", "float64"),
                                  ("float16", "float32"), ("bool", "float64"),
                                  ("float64", "bfloat16"), ("uint8", "int8"),
                                  ("float32", "float32")])
def test_copysign_pairs_and_signed_zeros(pair):
    def run(lib):
        a = t(lib, [-9, -3, 0, 2, 7, 1], "int64").to(getattr(lib, pair[0]))
        b = t(lib, [4, -1, -5, 0, 3, -8], "int64").to(getattr(lib, pair[1]))
        out = [shown(lib.copysign(a, b)), shown(lib.copysign(a[:, None], b)),
               shown(lib.copysign(a, b[:, None]))]
        if pair[0] in FLOATS:
            out += [shown(lib.copysign(t(lib, [c], pair[0]), b)) for c in SPECIAL]
        if pair[1] in FLOATS:
            out += [shown(lib.copysign(a, t(lib, [c], pair[1]))) for c in SPECIAL]
        return out
    check(run)


@scenario
def copysign_gradients(lib):
    return [grads(lib, lib.copysign, [1.0, -2.0, 0.0, -0.0, 3.0], [-1.0, 2.0, -0.0, 0.0, np.nan]),
            grads(lib, lambda x: lib.copysign(x, -0.0), [1.0, 0.0, -2.0])]


@pytest.mark.parametrize("dtype", ("float32", "float64") + INTS[1:])
def test_fmod_remainder_with_every_mod(dtype):
    def run(lib):
        x = t(lib, (A[:4, :4] * 9).round().tolist()).to(getattr(lib, dtype))
        mod = t(lib, (B[:4, :4] * 9).round().tolist()).to(getattr(lib, dtype))
        mod = lib.where(mod == 0, t(lib, 1).to(mod.dtype), mod)
        out = []
        for dividend, m in itertools.product((x, x.t()), (3, 2.3, -3, mod, mod.t(),
                                                         mod.float())):
            for fn in ("fmod", "remainder"):
                out += [outcome_of(lambda: getattr(lib, fn)(dividend, m)),
                        outcome_of(lambda: getattr(lib, fn)(dividend, m, out=lib.empty(0))),
                        outcome_of(lambda: getattr(dividend.clone(), fn + "_")(m))]
        for dividend in (5, 3.14, -5):
            out += [outcome_of(lambda: lib.remainder(dividend, mod)),
                    outcome_of(lambda: dividend % mod)]
        return out
    check(run, rtol=1e-5)


@scenario
def remainder_fmod_large_dividend_and_overflow(lib):
    out = []
    for d in ("float32", "float64"):
        for a, b in itertools.product((1e9, -1e9), (3.14159265358979, -3.14159265358979)):
            out += [lib.remainder(t(lib, [a], d), t(lib, [b], d)),
                    lib.fmod(t(lib, [a], d), t(lib, [b], d))]
    x, q = t(lib, 23500, "int64"), 392486996410368
    return out + [x % q, -x % q, x % -q, -x % -q]


@scenario
def fmod_remainder_gradients(lib):
    a, b = [5.5, -5.5, 5.5, -5.5, 3.0, 1.0], [2.0, 2.0, -2.0, -2.0, 3.0, np.inf]
    return [grads(lib, lib.fmod, a, b), grads(lib, lib.remainder, a, b),
            grads(lib, lambda x, y: lib.div(x, y, rounding_mode="floor"), a, b),
            grads(lib, lambda x, y: lib.div(x, y, rounding_mode="trunc"), a, b),
            grads(lib, lambda x, y: x / y, a, [2.0, 0.0, -0.0, 1.0, np.inf, 1e-300])]


@pytest.mark.parametrize("dtype", ("bfloat16", "float32", "float64"))
def test_hypot_values_and_gradients(dtype):
    def run(lib):
        x, y = t(lib, A[0], dtype), t(lib, B[0], dtype)
        out = [shown(lib.hypot(x, y)), shown(lib.hypot(x[:, None], y[None])),
               shown(lib.hypot(t(lib, [3, 0, 7], "int64").to(x.dtype), t(lib, [4.0, 0, 1], dtype))),
               shown(lib.hypot(t(lib, [np.inf, np.nan, 0.0, -0.0], dtype),
                               t(lib, [np.nan, np.inf, 0.0, -0.0], dtype))),
               outcome_of(lambda: lib.hypot(t(lib, [3], "int64"), t(lib, [4], "int64")))]
        if dtype == "float64":
            out.append(grads(lib, lib.hypot, [3.0, 0.0, -4.0, np.inf], [4.0, 0.0, 3.0, 1.0]))
        return out
    check(run, rtol=1e-6 if dtype != "bfloat16" else 1e-2)


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm(dtype):
    def run(lib):
        low = 0 if dtype == "uint8" else -20
        a = t(lib, np.linspace(low, 20, 41).round().astype(int).tolist(), dtype)
        b = a.flip(0).roll(7)
        out = [lib.gcd(t(lib, [0, 10, 0], dtype), t(lib, [0, 0, 10], dtype)), lib.gcd(a, b),
               outcome_of(lambda: lib.lcm(a, b)),
               outcome_of(lambda: lib.lcm(t(lib, [0, 10, 0], dtype), t(lib, [0, 0, 10], dtype))),
               a.clone().gcd_(b)]
        if dtype == "uint8":
            out.append(lib.gcd(t(lib, [190, 210], dtype), t(lib, [190, 220], dtype)))
        return out
    check(run)


@scenario
def gcd_refuses_floats(lib):
    return [outcome_of(lambda: lib.gcd(t(lib, [4.0]), t(lib, [2.0]))),
            outcome_of(lambda: lib.lcm(t(lib, [4], "int64"), t(lib, [2.0])))]


@scenario
def nextafter_values(lib):
    out = []
    for d in ("float32", "float64"):
        t1, t2 = t(lib, [0, 0, 10, 0, np.nan, 1, -0.0], d), t(lib, [np.inf, -np.inf, 10, np.nan,
                                                                     0, 1, 0.0], d)
        out += [shown(lib.nextafter(t1, t2)), shown(lib.nextafter(t2, t1)),
                shown(lib.nextafter(t(lib, A[0], d), t(lib, B[0], d)))]
    return out + [outcome_of(lambda: lib.nextafter(t(lib, [1], "int64"), t(lib, [2], "int64"))),
                  outcome_of(lambda: lib.nextafter(t(lib, [1.0], "float32"), t(lib, [2.0])))]


@scenario
def ldexp_values(lib):
    m = t(lib, A[0], "float32")
    e = t(lib, [-31, 30, 0, 5, -5, 12, -12, 1, 2, 3], "int32")
    return [lib.ldexp(m, e), m.ldexp(e), m.clone().ldexp_(e),
            lib.ldexp(t(lib, [np.inf, -np.inf, np.inf, np.nan], "float32"),
                      t(lib, [3, 20, 0, 1], "int32")),
            lib.ldexp(t(lib, [1, 3], "int64"), t(lib, [2, -1], "int64")),
            lib.ldexp(t(lib, [1.0]), t(lib, [1030], "int64")),
            grads(lib, lambda x: lib.ldexp(x, t(lib, [2, -1], "int64")), [1.5, -3.0])]


@pytest.mark.parametrize("pair", [("int64", "int64"), ("float32", "float32"),
                                  ("float64", "float64"), ("bool", "bool"),
                                  ("int32", "int64"), ("float32", "float64")])
def test_heaviside_dtypes(pair):
    def run(lib):
        x = t(lib, [-9, 5, 0, 6, 0, -2, 2, 0], "int64").to(getattr(lib, pair[0]))
        v = t(lib, [3, -1, 7, 0, -4, 2, 5, 1], "int64").to(getattr(lib, pair[1]))
        return [outcome_of(lambda: lib.heaviside(x, v)), outcome_of(lambda: x.heaviside(v)),
                outcome_of(lambda: lib.heaviside(x, v, out=lib.empty_like(x))),
                outcome_of(lambda: x.clone().heaviside_(v))]
    check(run)


@scenario
def heaviside_complex_refused(lib):
    z = t(lib, [-6j, -1 + 3j, 1 + 1j], "complex64")
    return [outcome_of(lambda: lib.heaviside(z, z.real)), outcome_of(lambda: z.real.heaviside(z)),
            outcome_of(lambda: z.clone().heaviside_(z)), outcome_of(lambda: lib.heaviside(z, z))]


@pytest.mark.parametrize("op", ["logical_and", "logical_or", "logical_xor"])
def test_logical_ops_over_dtype_pairs(op):
    def run(lib):
        out = []
        for d1, d2 in itertools.product(ALL, ALL):
            a, b = t(lib, [10, 0, 1, 0], d1), t(lib, [1, 0, 0, 10], d2)
            c = lib.empty(0, dtype=lib.bool)
            getattr(lib, op)(a, b, out=c)
            out += [getattr(a, op)(b), c, outcome_of(lambda: getattr(a.clone(), op + "_")(b))]
        return out
    check(run)


@pytest.mark.parametrize("dtype", ("int8", "int16", "int32", "int64", "uint8"))
def test_shifts(dtype):
    def run(lib):
        a = t(lib, [19, -20, -21, 22, -10, 10], "int64").to(getattr(lib, dtype))
        b = t(lib, [2, 1, 3, 1, 0, 7], dtype)
        out = []
        for fn in (lib.bitwise_left_shift, operator.lshift, lib.bitwise_right_shift,
                   operator.rshift):
            out += [fn(a, b), fn(a, 2), outcome_of(lambda: fn(a, 1.8)),
                    outcome_of(lambda: fn(a, 70)), outcome_of(lambda: fn(a, -1)),
                    outcome_of(lambda: fn(3, b))]
        c = a.clone()
        c <<= 1
        d = a.clone()
        d >>= b
        return out + [c, d, a.clone().bitwise_left_shift_(2)]
    check(run)


@scenario
def shifts_of_floats(lib):
    out = []
    for fn in (lib.bitwise_left_shift, operator.lshift, lib.bitwise_right_shift,
               operator.rshift):
        out += [outcome_of(lambda: fn(t(lib, [19, -20, -21, 22], "int64"), 1.8)),
                outcome_of(lambda: fn(t(lib, [19.1, -20.2], "float32"), 2)),
                outcome_of(lambda: fn(t(lib, [19.1, -20.2], "float32"), 2.2))]
    return out


@pytest.mark.parametrize("dtype", ["float32", pytest.param("float64", marks=pytest.mark.xfail(
    reason="the sign of a zero result (0.0 where torch gives -0.0)", strict=True)),
    "complex64", "complex128"])
def test_lerp_weights(dtype):
    def run(lib):
        shapes = [(), (5,), (5, 5)]
        vals = np.linspace(-2, 3, 25)
        out = []
        for s1, s2, s3 in itertools.product(shapes, shapes, shapes):
            start = t(lib, vals[:int(np.prod(s1))].reshape(s1), dtype)
            end = t(lib, vals[::-1][:int(np.prod(s2))].reshape(s2).copy(), dtype)
            weights = [t(lib, np.linspace(-0.5, 1.5, 25)[:int(np.prod(s3))].reshape(s3), dtype),
                       0.3, 0.7] + ([0.4 + 1.2j] if dtype.startswith("complex") else [])
            for w in weights:
                out += [outcome_of(lambda: lib.lerp(start, end, w)),
                        outcome_of(lambda: lib.lerp(start, end, w, out=t(lib, 1.0, dtype)))]
        return out
    check(run, rtol=1e-5)


@scenario
def lerp_refusals_and_gradients(lib):
    s, e = t(lib, [0.0, 1.0]), t(lib, [2.0, -1.0], "float32")
    return [outcome_of(lambda: lib.lerp(s, e, 0.5)),
            outcome_of(lambda: lib.lerp(s, s, t(lib, [0.5], "float32"))),
            outcome_of(lambda: lib.lerp(t(lib, [1], "int64"), t(lib, [2], "int64"), 0.5)),
            outcome_of(lambda: s.clone().lerp_(t(lib, [[1.0, 2.0]] * 2), 0.5)),
            grads(lib, lib.lerp, [0.0, 1.0, -2.0, 4.0], [2.0, -1.0, 3.0, 4.0],
                  [0.25, 0.5, 0.75, 1.5])]


@scenario
def logaddexp_special_and_large(lib):
    a = [np.inf, -np.inf, np.inf, np.nan, 1e4, -1e4, 0.0]
    b = [np.inf, -np.inf, -np.inf, np.nan, 1e4 + 1, -1e4, -0.0]
    out = []
    for d in ("float32", "float64"):
        out += [shown(lib.logaddexp(t(lib, a, d), t(lib, b, d))),
                shown(lib.logaddexp2(t(lib, a, d), t(lib, b, d))),
                shown(lib.logaddexp(t(lib, A * 1e4, d), t(lib, B * 1e4, d)))]
    return out + [grads(lib, lib.logaddexp, a, b), grads(lib, lib.logaddexp2, a, b)]


@pytest.mark.parametrize("op", ["xlogy", pytest.param("xlog1py", marks=pytest.mark.xfail(
    reason="the gradient in y at x = 0, y = -1: torch's NaN (0/0), gradjit's 0", strict=True))])
def test_xlogy_special_values_and_dtypes(op):
    def run(lib):
        fn = lib.xlogy if op == "xlogy" else lib.special.xlog1py
        special = t(lib, [-1.0, 0.0, 1.0, 2.0, np.inf, -np.inf, np.nan], "float32")
        out = []
        for d in ("bool", "int64", "float32", "float64"):
            zeros = lib.zeros(7, dtype=getattr(lib, d))
            ones = lib.ones(7, dtype=getattr(lib, d))
            out += [shown(fn(zeros, special)), shown(fn(special, zeros)), shown(fn(ones, special)),
                    shown(fn(0, special)), shown(fn(special, 0)), shown(fn(3.14, ones)),
                    outcome_of(lambda: fn(zeros, special, out=lib.empty(7)))]
            if op == "xlogy":
                out += [outcome_of(lambda: zeros.clone().xlogy_(special)),
                        outcome_of(lambda: ones.clone().xlogy_(2))]
        x0 = t(lib, 0.5, "float32")
        out += [fn(x0, 5).dtype, fn(x0, 5.0).dtype, fn(5, x0).dtype, fn(5.0, x0).dtype,
                shown(fn(t(lib, [0.0, 1.5, 3.0], "bfloat16"), t(lib, [0.0, 2.0, -0.5],
                                                                  "bfloat16")))]
        return out + [grads(lib, fn, [0.0, 0.0, 1.0, 2.0, 0.0, 3.0], [0.0, -1.0, 0.0, 3.0, 2.0,
                                                                     np.nan])]
    check(run)


@scenario
def zeta_values(lib):
    x = [1.0, 1.5, 2.0, 3.0, -1.0, 0.5, 4.0]
    q = [1.0, 2.0, 0.5, -1.5, 2.0, 1.0, -2.0]
    return [lib.special.zeta(t(lib, x), t(lib, q)), lib.special.zeta(t(lib, x)[:, None],
                                                                    t(lib, q)[None]),
            lib.special.zeta(2.0, t(lib, q)), lib.special.zeta(t(lib, x), 1.0),
            lib.special.zeta(t(lib, [2, 3], "int64"), t(lib, [1, 2], "int64")),
            lib.special.zeta(t(lib, x, "float32"), t(lib, q, "float32"))]


@scenario
def float_power_dtypes(lib):
    base = t(lib, [1.5, 2.0, 3.0, 4.5, 2.5], "float32")
    out = []
    for d in ("int64", "float32", "complex64", "bool", "uint8"):
        b = base.to(getattr(lib, d))
        e = t(lib, [0, 2, -1, 0, 1], "int64").to(getattr(lib, d)) if d != "bool" else b
        out += [outcome_of(lambda: lib.float_power(b, e)),
                outcome_of(lambda: b.clone().float_power_(e)),
                outcome_of(lambda: lib.float_power(b, e, out=lib.empty(5, dtype=lib.float64)))]
        for s in (-2.8, -2, -0.5, 1, 2, 1j, 1 + 1j):
            out += [outcome_of(lambda: lib.float_power(b, s)),
                    outcome_of(lambda: b.clone().float_power_(s)),
                    outcome_of(lambda: lib.float_power(s, e)),
                    outcome_of(lambda: lib.float_power(s, e, out=lib.empty(
                        5, dtype=lib.complex128 if isinstance(s, complex) else lib.float64)))]
    return out


@scenario
def float_power_out_and_inplace_refusals(lib):
    out = []
    for base, e in ((t(lib, [-2, -1, 0, 1, 2], "int64"), -0.25),
                    (t(lib, [-1j, 0j, 1j, 1 + 1j, -1 - 1.5j], "complex128"), 2.0)):
        for od in ("int64", "float32", "float64", "complex128"):
            out += [outcome_of(lambda: lib.float_power(base, e, out=lib.empty(
                1, dtype=getattr(lib, od)))), outcome_of(lambda: base.clone().float_power_(e))]
    return out


@scenario
def atan2_edge_cases(lib):
    pts = [(0, 0), (0, 1), (0, -1), (-1, 0), (1, 0), (-1, -1), (1, 1), (1, -1), (-1, 1),
           (0.0, -0.0), (-0.0, -0.0), (-0.0, 0.0), (np.inf, np.inf), (-np.inf, np.inf),
           (np.inf, -np.inf), (np.nan, 1.0), (1.0, np.inf), (1.0, -np.inf)]
    ys, xs = [p[0] for p in pts], [p[1] for p in pts]
    return [shown(lib.atan2(t(lib, ys, d), t(lib, xs, d))) for d in FLOATS] + [
        lib.atan2(t(lib, [1, -1], "int64"), t(lib, [0, 2], "int64")),
        grads(lib, lib.atan2, ys[:9], xs[:9])]


@scenario
def muldiv_by_scalars(lib):
    out = []
    for d in REALS + ("complex64",):
        x = t(lib, [[3, 1], [2, 5]], d)
        for s in (2, 0.5, True, 1j):
            out += [outcome_of(lambda: x * s), outcome_of(lambda: s * x),
                    outcome_of(lambda: x / s), outcome_of(lambda: s / x),
                    outcome_of(lambda: x * lib.full_like(x, s) if not isinstance(s, complex)
                               else x)]
    return out


@scenario
def comparisons_promote_and_broadcast(lib):
    out = []
    for d1, d2 in itertools.combinations_with_replacement(
            ("bool", "uint8", "int64", "float16", "bfloat16", "float64", "complex128"), 2):
        a = t(lib, [[0, 3, 1.5, -2]], "float64").to(getattr(lib, d1))
        b = t(lib, [[1], [3], [-2]], "float64").to(getattr(lib, d2))
        for op in ("lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or"):
            o = lib.zeros(1, dtype=lib.complex128)
            out += [outcome_of(lambda: getattr(lib, op)(a, b)),
                    outcome_of(lambda: getattr(lib, op)(a, b, out=o))]
    return out


@scenario
def unknown_operand_types(lib):
    class Unknown:
        pass
    x = lib.ones(2)
    return [getattr(x, op)(Unknown()) is NotImplemented for op in (
        "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__add__", "__radd__",
        "__sub__", "__rsub__", "__mul__", "__rmul__", "__matmul__", "__rmatmul__",
        "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__",
        "__pow__", "__rpow__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__",
        "__and__", "__rand__", "__xor__", "__rxor__", "__or__", "__ror__")]


@scenario
def binary_with_empty_and_zero_dim(lib):
    e = lib.zeros(0, 3)
    s = t(lib, 2.5)
    return [shown(f(e, s)) for f in (lib.add, lib.mul, lib.pow, lib.atan2, lib.remainder,
                                     lib.maximum, lib.hypot, lib.xlogy)] + [
        shown(f(s, s)) for f in (lib.add, lib.mul, lib.pow, lib.atan2, lib.remainder,
                                 lib.maximum, lib.hypot, lib.xlogy)]


DIFFERENCES = {
    "addcmul_zero_dim_value": "value= as a 0-d tensor: torch 2.13 refuses it (TypeError), "
                              "gradjit takes its number",
    "copysign_gradients": "the gradient for `other`: torch's zeros, gradjit's None",
    "heaviside_complex_refused": "complex with another dtype: torch names complex first, "
                                 "gradjit the dtypes' difference",
    "ldexp_values": "the gradient: torch's 2 ** other in integer arithmetic (0 for negative "
                    "exponents), gradjit's real 2 ** other",
    "maximum_minimum_complex_refused": "torch.max(complex, real): gradjit words it as the "
                                       "reduction's refusal",
    "maximum_minimum_nan_inf_and_dtypes": "maximum/minimum of 0.0 and -0.0: torch returns the "
                                          "first operand, gradjit numpy's second",
}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_binary_scenario_matches_torch(name):
    check(SCENARIOS[name], rtol=1e-6)
