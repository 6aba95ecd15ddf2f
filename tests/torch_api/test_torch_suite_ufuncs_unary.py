"""PyTorch's unary-ufunc suite side by side with torch: values just outside each domain, special
values (nan, inf, -0.0, poles), integer and bool inputs, out= of every dtype, in-place casts,
nan_to_num, digamma/polygamma/mvlgamma/igamma/i0, abs/angle/sign/sgn/signbit of every kind,
is* predicates, bitwise_not, memory overlap, activations at their kinks, and gradients there."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
ALL = ("bool",) + INTS + FLOATS + ("complex64", "complex128")
RNG = np.random.default_rng(0)
NORMAL = RNG.standard_normal((5, 7))
COMPLEX = (RNG.standard_normal(12) + 1j * RNG.standard_normal(12)) * 10
SPECIAL = [0.0, -0.0, 1e-3, -1e-3, 0.25, -0.25, 1.0, -1.0, np.pi / 2, -np.pi / 2, 501.0, -501.0,
           1e20, -1e20, np.inf, -np.inf, np.nan]
# values around and at the poles of the gamma family (see torch's _generate_gamma_input)
POLES = [-0.999999994, -1.999999994, -2.0000000111, -100.99999994, 0.000000111, -0.000000111,
         0.0, -0.0, -1.0, -2.0, -931.0, -9.5, -0.5, 1e-4, 3.5, 1e6]


def t(lib, values, dtype="float64", **kw):
    return lib.tensor(values, dtype=getattr(lib, dtype), **kw)


def shown(x):
    """A result comparable across libraries: bfloat16 widened (numpy has none), float results
    with their sign bits so -0.0 and 0.0 differ."""
    if x.dtype.is_floating_point:
        x = x.detach()
        # a nan's sign is the platform's
        return str(x.dtype), x if x.itemsize > 2 else x.float(), x.signbit() & ~x.isnan()
    return x


def outcome_of(fn):
    try:
        return shown(fn())
    except Exception as error:  # noqa: BLE001 - the error is what is compared
        return type(error).__name__, str(error).partition("\n  at ")[0]


def grad_of(lib, fn, values, dtype="float64"):
    """fn's value on a leaf of `values` and the leaf's gradient of the value's weighted sum."""
    x = t(lib, values, dtype, requires_grad=True)
    out = fn(x)
    weights = lib.linspace(0.5, 1.5, out.numel(), dtype=out.dtype).reshape(out.shape)
    (out * weights).sum().backward()
    return out, x.grad


UNARY = ("abs", "acos", "acosh", "angle", "asin", "asinh", "atan", "atanh", "ceil", "cos",
         "cosh", "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "fix",
         "floor", "frac", "i0", "lgamma", "log", "log10", "log1p", "log2", "logit", "nan_to_num",
         "neg", "positive", "rad2deg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sgn",
         "sin", "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "signbit", "isnan",
         "isinf", "isfinite", "isposinf", "isneginf", "isreal", "bitwise_not", "logical_not")
# the op's domain as torch's OpInfo states it: values just outside give nan
DOMAINS = {"acos": (-1, 1), "asin": (-1, 1), "acosh": (1, None), "atanh": (-1, 1),
           "erfinv": (-1, 1), "log": (0, None), "log10": (0, None), "log2": (0, None),
           "log1p": (-1, None), "sqrt": (0, None), "rsqrt": (0, None), "logit": (0, 1)}


def unary_family(name):
    def special_values(lib):
        fn = getattr(lib, name)
        return [outcome_of(lambda: fn(t(lib, SPECIAL, d))) for d in FLOATS]

    def integer_inputs(lib):
        fn = getattr(lib, name)
        outs = [outcome_of(lambda: fn(t(lib, [0, 1, 55, 127], d))) for d in INTS]
        outs.append(outcome_of(lambda: fn(t(lib, [True, False], "bool"))))
        outs.append(outcome_of(lambda: fn(t(lib, [[0, -1], [-128, 3]], "int8").t())))
        return outs

    def empty_and_zero_dim(lib):
        fn = getattr(lib, name)
        return [outcome_of(lambda: fn(lib.zeros(s, dtype=lib.float32)))
                for s in ((0,), (0, 3, 3), (1, 0, 5), ())] + [
            outcome_of(lambda: fn(t(lib, 0.5, "float32")))]

    def out_of_every_dtype(lib):
        fn = getattr(lib, name)
        x = t(lib, [[0.5, 0.25], [0.75, 0.125]], "float32")
        return [outcome_of(lambda: fn(x, out=lib.empty(2, 2, dtype=getattr(lib, d)))) for d in
                ALL]

    def inplace_of_every_dtype(lib):
        method = getattr(lib.Tensor, name + "_", None)
        if method is None:
            return "no in-place variant"
        return [outcome_of(lambda: method(t(lib, [1, 0], d))) for d in ALL]

    def non_contiguous(lib):
        fn = getattr(lib, name)
        x = t(lib, np.abs(NORMAL) * 0.9 if name in DOMAINS else NORMAL * 3)
        return [shown(fn(v)) for v in (x.t(), x[:, ::2], x[1:2].expand(3, 7), x[1::2, 3])]

    for fn in (special_values, integer_inputs, empty_and_zero_dim, out_of_every_dtype,
               inplace_of_every_dtype, non_contiguous):
        fn.__name__ = f"{name}_{fn.__name__}"
        scenario(fn)


for _name in UNARY:
    unary_family(_name)


def outside_domain(name):
    def run(lib):
        low, high = DOMAINS[name]
        fn = getattr(lib, name)
        out = []
        for d in FLOATS:
            for eps in (1e-5, 1e-3, 1e-1, 1, 2, 10, 100):
                if low is not None:
                    out.append(outcome_of(lambda: fn(t(lib, low, d) - eps)))
                if high is not None:
                    out.append(outcome_of(lambda: fn(t(lib, high, d) + eps)))
        return out
    run.__name__ = f"{name}_outside_domain"
    scenario(run)


for _name in DOMAINS:
    outside_domain(_name)


# (sgn's real gradient is torch's ZeroTensor, which has no numpy form: sgn_gradient is complex)
SMOOTH = ("abs", "acos", "asin", "atan", "asinh", "acosh", "atanh", "cos", "cosh", "digamma",
          "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "lgamma", "log", "log10", "log1p",
          "log2", "logit", "reciprocal", "rsqrt", "sigmoid", "sin", "sinc", "sinh", "sqrt",
          "tan", "tanh", "i0", "frac", "ceil", "floor", "round", "trunc", "sign",
          "nan_to_num", "square", "rad2deg", "deg2rad", "neg", "positive")
# the edges: zeros of either sign, domain ends, poles, infinities, nan
EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf, np.nan]


def gradient_at_edges(name):
    def run(lib):
        return grad_of(lib, getattr(lib, name), EDGES)
    run.__name__ = f"{name}_gradient_at_edges"
    scenario(run)


for _name in SMOOTH:
    gradient_at_edges(_name)


@scenario
def neg_bool_raises(lib):
    return lib.neg(t(lib, [False, True], "bool"))


@scenario
def nan_to_num_arguments(lib):
    x = t(lib, [[np.nan, np.inf, -np.inf, 2.5], [1.0, -0.0, np.nan, -np.inf]])
    out = lib.empty(2, 4, dtype=lib.float64)
    lib.nan_to_num(x.t(), nan=0.3, posinf=4.5, out=out.t())
    return [x.nan_to_num(nan=0.3, posinf=4.5), x.nan_to_num(posinf=4.5, neginf=-9.25),
            x.t().nan_to_num(), out, lib.nan_to_num(x.float(), nan=1e40),
            lib.nan_to_num(t(lib, [1, 2], "int32"), nan=3.5),
            lib.nan_to_num(t(lib, [True, False], "bool")), x.clone().nan_to_num_(neginf=-1),
            lib.nan_to_num(x.half()).float(), lib.nan_to_num(x.bfloat16()).float()]


@scenario
def sqrt_complex_edge_values(lib):
    return [lib.sqrt(t(lib, v, d)) for v in (0.0 - 1e20j, -1e20 - 4988429.2j)
            for d in ("complex64", "complex128")]


@scenario
def digamma_special_and_poles(lib):
    euler = 0.57721566490153286
    values = [0.0, -0.0, 1.0, 0.5, 1 / 3, 1 / 4, 1 / 6, 1 / 8, -1.0, -2.0, -931.0] + POLES
    return [lib.digamma(t(lib, values, d)).double() for d in ("float32", "float64")] + [
        lib.digamma(t(lib, [1.0])) + euler]


@scenario
def lgamma_at_poles(lib):
    return [shown(lib.lgamma(t(lib, POLES, d))) for d in ("float32", "float64")]


# torch's values at the poles themselves are its formulas' rounding (1e32 where the pole is)
OFF_POLES = [v for v in POLES if v != round(v) and abs(v) < 1e5] + [0.3, 2.0, -3.7]


@pytest.mark.parametrize("n", range(6))
def test_polygamma_values_and_gradients(n):
    check(lambda lib: grad_of(lib, lambda x: lib.polygamma(n, x), OFF_POLES), rtol=1e-6)
    check(lambda lib: outcome_of(lambda: t(lib, [0.3, 2.0, -3.7, 1e-4, 17.5], "float32")
                                 .polygamma(n)), rtol=1e-5)


@scenario
def polygamma_of_integers_and_inplace(lib):
    return [lib.polygamma(1, t(lib, [1, 2, 3], "int64")), t(lib, [0.5, 2.0]).polygamma_(2),
            lib.special.polygamma(0, t(lib, [0.5], "float32"))]


@scenario
def polygamma_negative_order_raises(lib):
    return lib.polygamma(-1, t(lib, [1.0, 2.0]))


@scenario
def mvlgamma_values_and_gradients(lib):
    x = t(lib, np.linspace(2.0, 10.0, 9), requires_grad=True)
    outs = [lib.mvlgamma(x, p) for p in range(1, 5)]
    sum(o.sum() for o in outs).backward()
    return outs + [x.grad, lib.special.multigammaln(x.detach(), 2)]


@pytest.mark.parametrize("p", [1, 3])
def test_mvlgamma_argcheck(p):
    check(lambda lib: lib.mvlgamma(lib.linspace((p - 2) / 2, 10, 10), p))


@scenario
def invert_operator(lib):
    return [~lib.arange(127, dtype=getattr(lib, d)) for d in INTS] + [
        ~t(lib, [False, True], "bool")]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_invert_float_raises(dtype):
    check(lambda lib: ~lib.zeros(3, dtype=getattr(lib, dtype)))


@scenario
def abs_angle_complex_to_float(lib):
    vals, out = COMPLEX, []
    for d, fd in (("complex64", "float32"), ("complex128", "float64")):
        z = t(lib, vals, d)
        for fn in (lib.abs, lib.angle):
            out += [fn(z), fn(z, out=lib.empty(12, dtype=getattr(lib, fd))),
                    fn(z, out=lib.empty(1, dtype=getattr(lib, fd))),
                    fn(z, out=lib.empty(0, dtype=getattr(lib, d))), fn(t(lib, [], d)),
                    outcome_of(lambda: fn(z, out=lib.empty(0, dtype=lib.int64)))]
    return out


@scenario
def abs_inplace_complex_raises(lib):
    return t(lib, [1 + 1j], "complex64").abs_()


@scenario
def angle_has_no_inplace(lib):
    return hasattr(lib.Tensor, "angle_"), hasattr(lib.Tensor, "absolute_")


@scenario
def angle_of_reals(lib):
    return [lib.angle(t(lib, [-2.0, -0.0, 0.0, 3.0, np.nan, -np.inf], d)) for d in
            ("float32", "float64")] + [lib.angle(t(lib, [-2, 0, 3], "int64")),
                                       lib.angle(t(lib, [True, False], "bool"))]


@scenario
def sign_complex_raises(lib):
    return lib.sign(t(lib, [4j], "complex64"))


@scenario
def abs_big_and_signed_zero(lib):
    z = lib.zeros(129)
    z[::2] = -0.0
    return (t(lib, [2 ** 31 + 1], "int64").abs(), shown(z.abs()), shown(z.double().abs()),
            t(lib, [-128, 127], "int8").abs(), t(lib, [-5, 3], "int16").absolute_())


@scenario
def absolute_alias(lib):
    x = t(lib, NORMAL)
    r1, r2 = lib.empty(5, 7, dtype=lib.float64), lib.empty(5, 7, dtype=lib.float64)
    lib.abs(x, out=r1)
    lib.absolute(x, out=r2)
    return x.absolute(), lib.absolute(x), r1, r2, x.clone().absolute_()


@scenario
def sign_of_every_dtype(lib):
    out = [t(lib, [True, True, False], "bool").sign(), t(lib, [True, False], "bool").sign_()]
    for d in INTS:
        info = lib.iinfo(getattr(lib, d))
        vals = [12, 0, 71, info.min, info.max] + ([] if d == "uint8" else [-12])
        x = t(lib, vals, d)
        o = lib.empty(len(vals), dtype=getattr(lib, d))
        out += [x.sign(), lib.sign(x, out=o), x.clone().sign_()]
    for d in FLOATS:
        info = lib.finfo(getattr(lib, d))
        x = t(lib, [np.nan, -12, 0, -0.0, 71, info.min, info.max, -np.inf], d)
        out += [shown(x.sign()), shown(x.clone().sign_())]
    return out


@scenario
def signbit_of_every_dtype(lib):
    out = [lib.signbit(t(lib, [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0], d))
           for d in FLOATS]
    out += [lib.signbit(t(lib, [-5, 0, 4], d)) for d in INTS[1:]]
    out += [lib.signbit(t(lib, [True, False], "bool")), lib.signbit(t(lib, [3, 0], "uint8"))]
    x = t(lib, NORMAL)
    out.append(lib.signbit(x, out=lib.empty(5, 7, dtype=lib.bool)))
    out += [outcome_of(lambda: lib.signbit(x, out=lib.empty(5, 7, dtype=getattr(lib, d))))
            for d in ALL[1:]]
    return out


@scenario
def signbit_complex_raises(lib):
    return lib.signbit(t(lib, [-1j, -1 + 2j], "complex64"))


@scenario
def sgn_of_complex(lib):
    z = t(lib, [3 + 4j, -1j, 0j, complex(np.inf, 1), complex(np.nan, 0), -2 + 0j], "complex128")
    o = lib.empty(6, dtype=lib.complex128)
    lib.sgn(z, out=o)
    return [z.sgn(), o, z.clone().sgn_(), z.to(lib.complex64).sgn(),
            lib.sgn(t(lib, [-2.0, 0.0, -0.0, 5.0])), lib.sgn(t(lib, [-3, 0, 2], "int32"))]


@scenario
def sgn_gradient(lib):
    z = t(lib, [3 + 4j, -1j, 0j, -2 + 0.5j], "complex128", requires_grad=True)
    w = t(lib, [1 + 0.5j, 2 - 1j, 0.5 + 0.5j, -1j], "complex128")
    (z.sgn() * w).real.sum().backward()
    return z.grad


@scenario
def predicates_of_floats(lib):
    vals = (-np.inf, np.inf, np.nan, -1, 0, 1)
    return [[f(t(lib, vals, d)) for f in (lib.isfinite, lib.isinf, lib.isnan, lib.isposinf,
                                          lib.isneginf, lib.isreal)] for d in FLOATS]


@scenario
def predicates_of_ints_and_bool(lib):
    out = []
    for d in ("bool",) + INTS:
        x = t(lib, [1, 0, 1], d)
        out.append([f(x) for f in (lib.isfinite, lib.isinf, lib.isnan, lib.isposinf,
                                   lib.isneginf, lib.isreal)])
        out.append(lib.isposinf(x, out=lib.empty(3, dtype=lib.bool)))
    return out


@scenario
def predicates_of_complex(lib):
    vals = (complex(-np.inf, np.inf), complex(-np.inf, 0), complex(0, np.inf),
            complex(np.inf, np.nan), complex(np.nan, 0), complex(-1, 0), complex(0, 1), 2 - 0j)
    return [[f(t(lib, vals, d)) for f in (lib.isfinite, lib.isinf, lib.isnan, lib.isreal)]
            for d in ("complex64", "complex128")]


@pytest.mark.parametrize("op", ["isposinf", "isneginf"])
def test_isposinf_isneginf_refusals(op):
    check(lambda lib: outcome_of(lambda: getattr(lib, op)(t(lib, [1j], "complex64"))))
    check(lambda lib: outcome_of(lambda: getattr(lib, op)(
        t(lib, [1j], "complex64"), out=lib.empty(1, dtype=lib.bool))))
    check(lambda lib: [outcome_of(lambda: getattr(lib, op)(
        t(lib, [np.inf, -np.inf, 1.2], "float32"), out=lib.empty(3, dtype=getattr(lib, d))))
        for d in ALL[1:]])


@pytest.mark.parametrize("op", ["isfinite", "isinf", "isnan"])
def test_predicates_of_python_numbers_raise(op):
    check(lambda lib: getattr(lib, op)(1))


@scenario
def bitwise_not_of_every_dtype(lib):
    out = []
    for d in ("bool",) + INTS:
        a = t(lib, [True, False], d) if d == "bool" else lib.arange(127, dtype=getattr(lib, d))
        b = lib.empty(0, dtype=getattr(lib, d))
        lib.bitwise_not(a, out=b)
        out += [a.bitwise_not(), b, a.clone().bitwise_not_()]
    for d in ("float16", "float32", "float64"):
        a = lib.zeros(3, dtype=getattr(lib, d))
        out += [outcome_of(a.bitwise_not), outcome_of(a.bitwise_not_),
                outcome_of(lambda: lib.bitwise_not(a, out=lib.empty(0, dtype=a.dtype)))]
    return out


@scenario
def nonzero_of_empty_and_zero_dim(lib):
    x = lib.zeros(0, 2, 0, 5, 0)
    return (lib.nonzero(x).shape, [v.shape for v in lib.nonzero(x, as_tuple=True)],
            lib.nonzero(t(lib, 0.5)), lib.nonzero(t(lib, 0.5), as_tuple=True),
            lib.nonzero(lib.zeros(())).shape, lib.nonzero(lib.zeros(()), as_tuple=True))


@scenario
def exp_of_complex_special_values(lib):
    vals = [2j * k / 3 * np.pi for k in range(18)] + [
        complex(np.inf, 0), complex(0, np.inf), complex(np.nan, np.inf), complex(-np.inf, 1),
        complex(-np.inf, 0), complex(1, 1) * 4]
    return [lib.exp(t(lib, vals, d)) for d in ("complex64", "complex128")]


@scenario
def acosh_atanh_domain(lib):
    a = [-np.inf, 1.0, -1.23, -0.06, 0.98, np.inf]
    b = [-np.inf, -1.0, 1.0, -1.23, 1.06, np.inf]
    return [(lib.acosh(t(lib, a, d)), t(lib, b, d).atanh()) for d in ("float32", "float64")]


@scenario
def rounding_reference_inputs(lib):
    rows = [list(range(-5, 5)), [x + 1e-6 for x in range(-5, 5)], [x + 1e10 for x in
                                                                    range(-5, 5)],
            [x - 1e10 for x in range(-5, 5)], [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997,
                                               np.inf, -np.inf, np.nan],
            [np.pi * (x / 2) for x in range(-5, 5)]]
    x = t(lib, rows)
    return [shown(f(v)) for f in (lib.rad2deg, lib.deg2rad, lib.frac, lib.trunc, lib.round,
                                  lib.fix, lib.floor, lib.ceil) for v in (x, x.float())] + [
        lib.round(x, decimals=2), lib.round(x.float(), decimals=-1), lib.round(x, decimals=3)]


@scenario
def rounding_of_integers(lib):
    x = t(lib, [-7, 0, 9], "int64")
    return [f(x) for f in (lib.round, lib.floor, lib.ceil, lib.trunc, lib.frac)] + [
        outcome_of(lambda: lib.round(x, decimals=1))]


@scenario
def hardshrink_values_and_edges(lib):
    data = t(lib, [1, 0.5, 0.3, 0.6]).view(2, 2)
    out = [data.hardshrink(0.3), data.hardshrink(0.5), data.hardshrink(), data.t().hardshrink(0.3)]
    for d in ("float32", "float64"):
        fi = lib.finfo(getattr(lib, d))
        vals = t(lib, [0.0, fi.tiny, -fi.tiny, 0.1, -0.1, 1.0, -1.0, fi.max, -fi.max, np.inf,
                       -np.inf], d)
        out += [vals.hardshrink(lam) for lam in (0.0, fi.tiny, 0.1, 1.0, fi.max, np.inf)]
    return out


@scenario
def hard_activations_values_inplace_and_gradients(lib):
    vals = [-1000.0, -4.0, -3.0, -2.0, 0.0, 2.0, 3.0, 4.0, 1000.0, -6.0, 6.0]
    F = lib.nn.functional
    x = t(lib, vals)
    y = x.clone()
    F.hardswish(y, inplace=True)
    z = x.clone()
    F.hardsigmoid(z, inplace=True)
    return [F.hardswish(x), y, F.hardsigmoid(x), z, grad_of(lib, F.hardsigmoid, vals),
            grad_of(lib, F.hardswish, vals), grad_of(lib, F.hardtanh, vals),
            grad_of(lib, F.relu6, vals)]


@scenario
def silu_inplace_and_non_contiguous(lib):
    F = lib.nn.functional
    x = t(lib, np.concatenate([NORMAL, [[-1000, -1, -0.1, 0, 0.5, 1, 1000]]]))
    nc = x.clone().t()
    return [F.silu(x), F.silu(x.clone(), inplace=True), F.silu(nc), F.silu(nc, inplace=True),
            nc, grad_of(lib, F.silu, [-1000.0, -1.0, 0.0, 1000.0, np.inf, -np.inf])]


@scenario
def threshold_of_every_dtype(lib):
    out = []
    for d in ("int8", "int16", "int32", "int64", "float32", "float64", "bfloat16"):
        x = t(lib, [-1, 1, 0, -1, 1], "float32").to(getattr(lib, d))
        out.append(shown(lib.threshold(x, 0, 0)))
    return out + [grad_of(lib, lambda x: lib.threshold(x, 0.5, -2.0), [0.5, 0.2, 1.0, np.nan])]


def igamma_grid(lib, d):
    v = lib.logspace(-4, 4, steps=50, base=np.e, dtype=lib.float64).unsqueeze(-1).to(
        getattr(lib, d))
    return [(v, v.transpose(0, 1)), (v, v), (v, 0.5 * v), (v, 2.0 * v), (v[::2], v[::2]),
            (v[::2], v[:25]), (v[:25], v[::2])]


@pytest.mark.parametrize("op", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_igamma_common(op, dtype):
    rtol = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 2e-5, "float64": 1e-9}[dtype]
    check(lambda lib: [shown(getattr(lib, op)(a, x)) for a, x in igamma_grid(lib, dtype)],
          rtol=rtol)


@pytest.mark.parametrize("op", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_igamma_edge_cases(op, dtype):
    def run(lib):
        def k(v):
            return t(lib, v, dtype)
        inf, zero = k([np.inf] * 3), k([0.0] * 3)
        zero_to_large, small_to_inf = k([0.0, 1.0, 1e3]), k([1e-3, 1.0, np.inf])
        pairs = [(zero, small_to_inf), (small_to_inf, zero), (inf, zero_to_large),
                 (zero_to_large, inf), (zero, zero), (inf, inf), (-small_to_inf, small_to_inf)]
        return [shown(getattr(lib, op)(a, x)) for a, x in pairs]
    check(run)


@scenario
def igamma_gradient_and_refusals(lib):
    a = t(lib, [0.5, 2.0, 3.0])
    x = t(lib, [1.0, 0.0, 4.0], requires_grad=True)
    lib.igamma(a, x).sum().backward()
    return [x.grad, lib.special.gammainc(a, x.detach()), lib.special.gammaincc(a, x.detach()),
            outcome_of(lambda: lib.igamma(a.requires_grad_(), x.detach()).sum().backward()),
            outcome_of(lambda: lib.igamma(t(lib, [1], "int64"), t(lib, [2], "int64"))),
            outcome_of(lambda: lib.igamma(t(lib, [1.0], "float32"), t(lib, [2.0])))]


@scenario
def i0_ranges_and_specials(lib):
    base = lib.linspace(0.0, 1.0, 101, dtype=lib.float64)
    out = []
    for r, dtypes in ((13.25, ("bfloat16", "float32", "float64", "float16")),
                      (88.5, ("bfloat16", "float32", "float64")), (709.75, ("float64",))):
        for d in dtypes:
            out += [shown(lib.i0((base * s).to(getattr(lib, d)))) for s in (r, -r)]
    return out + [lib.i0(t(lib, [], "float32")), lib.i0(t(lib, [np.inf, -np.inf, np.nan])),
                  lib.special.i0(t(lib, [0, 3, -4], "int64"))]


@scenario
def logit_with_eps(lib):
    vals = [-0.5, 0.0, 1e-8, 0.2, 0.5, 0.9, 1.0, 1.5, np.nan]
    return [grad_of(lib, lambda x: lib.logit(x, eps), vals) for eps in (None, 0.0, 1e-6, 0.25)
            ] + [lib.logit(t(lib, vals, "float32"), 1e-3), t(lib, vals).clone().logit_(0.1),
                 lib.logit(t(lib, [0, 1], "int64")), lib.special.logit(t(lib, vals), eps=0.3)]


@scenario
def frexp_values(lib):
    out = []
    for d in ("float16", "float32", "float64"):
        m, e = lib.frexp(t(lib, [0.0, -0.0, 1.0, -3.5, 1e-30, 6e4, np.inf, -np.inf, np.nan], d))
        out += [shown(m), e]
    mo, eo = lib.empty(2), lib.empty(2, dtype=lib.int32)
    lib.frexp(t(lib, [8.0, 0.375], "float32"), out=(mo, eo))
    return out + [mo, eo, outcome_of(lambda: lib.frexp(t(lib, [1, 2], "int64"))),
                  outcome_of(lambda: lib.frexp(t(lib, [1.0], "float32"), out=(
                      lib.empty(1), lib.empty(1, dtype=lib.int64))))]


@scenario
def clamp_with_tensor_bounds(lib):
    x = t(lib, NORMAL)
    lo, hi = t(lib, [-0.5] * 7), t(lib, [[0.3], [0.1], [np.nan], [1.0], [-2.0]])
    return [lib.clamp(x, lo, hi), lib.clamp(x, min=lo), lib.clamp(x, max=hi), x.clamp(1.0, -1.0),
            lib.clamp(x, hi, lo), lib.clamp(t(lib, [1, 5, 9], "int64"), 2.5, 7),
            lib.clamp(t(lib, [1, 5, 9], "int32"), t(lib, [2], "int64")),
            lib.clamp(t(lib, [np.nan, 1.0, -np.inf]), -1, 0.5),
            grad_of(lib, lambda v: v.clamp(-0.5, 0.5), [-1.0, -0.5, 0.0, 0.5, 1.0, np.nan]),
            grad_of(lib, lambda v: v.clamp(0.5, -0.5), [-1.0, 0.0, 1.0]),
            outcome_of(lambda: lib.clamp(x)), lib.clip(x, -0.1, 0.2),
            x.clone().clamp_(min=lo), x.clone().clamp_max_(0.0)]


@scenario
def clamp_gradient_to_tensor_bounds(lib):
    x = t(lib, [-1.0, 0.0, 0.5, 2.0], requires_grad=True)
    lo = t(lib, [-0.5, 0.0, 0.5, 0.0], requires_grad=True)
    hi = t(lib, [0.5, 0.0, 0.5, 1.0], requires_grad=True)
    (lib.clamp(x, lo, hi) * t(lib, [1.0, 2.0, 3.0, 4.0])).sum().backward()
    return x.grad, lo.grad, hi.grad


@scenario
def sinc_and_sqrt_gradients_at_zero(lib):
    return [grad_of(lib, f, [0.0, -0.0, 1e-20, 1.0]) for f in (
        lib.sinc, lib.sqrt, lib.abs, lib.rsqrt, lib.log, lib.reciprocal, lib.special.expit,
        lambda v: lib.special.xlogy(v, v), lambda v: lib.special.entr(v),
        lambda v: lib.pow(v, 0.5), lambda v: lib.pow(v, 2), lambda v: v ** 0)]


SPECIAL_FUNCTIONS = ("entr", "ndtr", "ndtri", "log_ndtr", "erfcx", "i0e", "i1", "i1e", "expit",
                     "exp2", "expm1", "sinc", "erf", "erfc", "erfinv", "digamma", "gammaln",
                     "psi", "log1p", "round", "bessel_j0", "bessel_j1")


SPECIAL_DIFFERENCES = {
    **dict.fromkeys(("entr", "i0e"), "half precision: torch's kernel rounds each step "
                                             "(an ulp or more off), gradjit rounds once"),
    **dict.fromkeys(("i1", "i1e", "bessel_j1"), "the sign of the zero at -0.0"),
}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason=SPECIAL_DIFFERENCES[n], strict=True))
    if n in SPECIAL_DIFFERENCES else n for n in SPECIAL_FUNCTIONS])
def test_special_function_edges_and_gradients(name):
    def run(lib):
        fn = getattr(lib.special, name)
        vals = [0.0, -0.0, 1e-3, -1e-3, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 30.0, -30.0, np.inf,
                -np.inf, np.nan]
        out = [outcome_of(lambda: fn(t(lib, vals, d))) for d in FLOATS]
        out += [outcome_of(lambda: fn(t(lib, [0, 1, -2], "int64"))),
                outcome_of(lambda: fn(t(lib, [True, False], "bool")))]
        if name != "round":
            finite = [v for v in vals if abs(v) < 10 and not (name == "ndtri" and abs(v) >= 1)]
            out.append(outcome_of(lambda: grad_of(lib, fn, finite)))
        return out
    check(run, rtol=1e-6)


@scenario
def internal_overlap_refused(lib):
    x = lib.ones(1, dtype=lib.float64).expand(3, 3)
    return [outcome_of(lambda: getattr(x, m)()) for m in (
        "abs_", "sin_", "exp_", "neg_", "sqrt_", "floor_", "sigmoid_", "tanh_", "trunc_")]


@scenario
def input_output_overlap(lib):
    data = t(lib, [0.5, 1.5, 2.5, 3.5, 4.5, 5.5])
    out = [lib.exp(data[0:3], out=data[0:3]).clone(), lib.sin(data[3:6], out=data[0:3]).clone()]
    return out + [outcome_of(lambda: lib.cos(data[1:4], out=data[0:3]))]


RSQRT_AT_NEGATIVE_ZERO = "rsqrt's gradient at -0.0: torch's +inf (-0.5 (-inf)^3), gradjit's -inf"
DIFFERENCES = {
    "abs_gradient_at_edges": "the gradient at NaN: torch's sgn(NaN) is 0, gradjit's NaN",
    "digamma_gradient_at_edges": "the gradient at 0 and the poles: torch's inf at 0 and its "
                                 "rounding (1e32) at the poles, gradjit's 0",
    "frexp_values": "out= with an int64 exponent: AttributeError, not torch's RuntimeError",
    "igamma_gradient_and_refusals": "igamma of integer tensors: torch has no kernel, gradjit "
                                    "promotes them",
    "logit_special_values": "bfloat16: torch rounds p / (1 - p) to bfloat16 before the log, "
                            "gradjit rounds once",
    "rsqrt_gradient_at_edges": RSQRT_AT_NEGATIVE_ZERO,
    "sinc_and_sqrt_gradients_at_zero": RSQRT_AT_NEGATIVE_ZERO,
    "rsqrt_special_values": "float16: torch's kernel is an ulp off (31.625 for 31.616)",
    "sigmoid_inplace_of_every_dtype": "sigmoid of complex tensors: not in gradjit",
}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_unary_scenario_matches_torch(name):
    check(SCENARIOS[name], rtol=1e-6)
