"""NaN, +-inf, -0.0, subnormals and huge and tiny magnitudes flow through compiled code as
through the interpreter (numpy) and eager Tensors: the same NaN positions, the same
infinities, the same signs (zeros included), finite values within a few ulps."""
import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function
from gradjit.ir import PRIMITIVES, Builder, TensorType, interpret
from gradjit.ir import dtype as resolve

DTYPES = [np.float32, np.float64]
UNARY = ["neg", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos",
         "tan", "tanh", "sigmoid", "erf", "erfc", "floor", "ceil", "round", "stop_gradient",
         "stop_reverse"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "eq", "ne", "lt", "le",
          "gt", "ge"]


def specials(dt):
    info = np.finfo(dt)
    values = [0.0, -0.0, np.nan, np.inf, -np.inf, info.tiny, -info.tiny,
              info.smallest_subnormal, -info.smallest_subnormal, info.smallest_subnormal * 3,
              info.max, -info.max, info.max / 2, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, -3.0, 1e-30,
              -1e-30, 1e30, 88.7, -87.3, 709.7, -745.1, 710.0, 1e10, -1e10, 0.1, 2.5, -2.5]
    with np.errstate(over="ignore"):
        return np.array(values, dt)


def program(name, *arrays):
    with Builder(name) as b:
        args = [b.param(TensorType(a.shape, resolve(a.dtype))) for a in arrays]
        out = PRIMITIVES[name](*args)
    return b.build([out])


def assert_same_special_values(got, want, ulps=4):
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg="NaN positions")
    number = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[number]), np.signbit(want[number]),
                                  err_msg="signs")
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want), err_msg="infinities")
    finite = np.isfinite(want)
    largest = np.finfo(want.dtype).max
    magnitude = np.minimum(np.maximum(np.abs(want[finite]), np.abs(got[finite])), largest)
    spacing = np.spacing(np.minimum(magnitude, np.nextafter(largest, 0)))  # finite at max
    off = np.abs(got[finite] - want[finite]) / spacing
    assert off.max(initial=0) <= ulps, f"{off.max()} ulps apart"


def assert_bitwise_equal(got, want):
    """The same bits, NaN payloads aside (a NaN's sign included: numpy and compiled code may
    differ in it, and no operation gradjit documents depends on it)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg="NaN positions")
    bits = want.dtype.newbyteorder("=").str.replace("f", "u")
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits),
                                  err_msg="bits (signs of zeros included)")


def run_both(name, arrays, target="cpu"):
    fn = program(name, *arrays)
    with np.errstate(all="ignore"):
        return compile_function(fn, target=target)(*arrays)[0], interpret(fn, *arrays)[0]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_primitives_on_special_values(name, dt):
    got, want = run_both(name, [specials(dt)])
    assert_same_special_values(got, want)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_primitives_on_every_pair_of_special_values(name, dt):
    s = specials(dt)
    a, b = np.repeat(s, len(s)), np.tile(s, len(s))
    got, want = run_both(name, [a, b])
    assert_same_special_values(got, want)


@pytest.mark.parametrize("dt", DTYPES)
def test_where_and_casts_keep_special_values(dt):
    s = specials(dt)
    cond = np.arange(len(s)) % 2 == 0
    got, want = run_both("where", [cond, s, -s])
    assert_same_special_values(got, want)
    other = np.float64 if dt == np.float32 else np.float32
    for target in (other, np.int32, np.int64, np.bool_):
        fn = Builder("cast")
        with fn as b:
            out = PRIMITIVES["cast"](b.param(TensorType(s.shape, resolve(dt))),
                                     dtype=resolve(target).name)
        fn = b.build([out])
        with np.errstate(all="ignore"):
            assert_same_special_values(compile_function(fn)(s)[0], interpret(fn, s)[0])


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", ["reduce_sum", "reduce_max", "reduce_min"])
def test_reductions_over_special_values(name, dt):
    s = specials(dt)
    rows = np.stack([s, s[::-1], np.full_like(s, -0.0), np.where(np.isnan(s), 0, s)])
    for axes in [(0,), (1,), (0, 1)]:
        fn = Builder(name)
        with fn as b:
            out = PRIMITIVES[name](b.param(TensorType(rows.shape, resolve(dt))), axes=axes,
                                   keepdims=False)
        fn = b.build([out])
        with np.errstate(all="ignore"):
            got, want = compile_function(fn)(rows)[0], interpret(fn, rows)[0]
        # a sum of huge values may overflow in one order and not in another: compare the rest
        finite_terms = np.all(np.abs(np.where(np.isnan(rows), 0, rows)) < 1e30, axis=axes)
        keep = finite_terms | (name != "reduce_sum")
        assert_same_special_values(got[keep], want[keep], ulps=64)


@pytest.mark.parametrize("name", ["add", "mul", "div", "maximum", "exp", "sqrt", "tanh"])
def test_the_grid_emulator_on_special_values(name):
    s = specials(np.float64)
    arrays = [s] if name in UNARY else [np.repeat(s, len(s)), np.tile(s, len(s))]
    got, want = run_both(name, arrays, target="cuda-emulator")
    assert_same_special_values(got, want)


def test_subnormals_are_not_flushed_to_zero():
    tiny = np.finfo(np.float64).smallest_subnormal
    f = gradjit.jit(lambda x, y: (x * 0.5 + y, x / 4.0, x - y))
    x, y = np.array([tiny * 4, tiny * 1000]), np.array([tiny, -tiny])
    for got, want in zip(f(x, y), (x * 0.5 + y, x / 4.0, x - y)):
        np.testing.assert_array_equal(got, want)
        assert np.all(got != 0)


@pytest.mark.parametrize("dt", DTYPES)
def test_compiled_gradients_at_special_values_match_eager_autograd(dt):
    def loss(x):
        return (x.exp() * x.sin() + x.abs().sqrt() + (x * x).tanh()).sum()

    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 30.0, -2.0], dt)
    with np.errstate(all="ignore"):
        compiled = gradjit.grad(loss)(gradjit.from_numpy(x.copy())).numpy()
        t = gradjit.from_numpy(x.copy()).requires_grad_()
        loss(t).backward()
    assert_same_special_values(compiled, t.grad.numpy())
