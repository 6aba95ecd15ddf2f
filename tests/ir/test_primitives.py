"""Every primitive, run by the interpreter, equals an independent numpy expression."""
import math

import numpy as np
import pytest

from gradjit.ir import PRIMITIVES, Builder, GuardFailed, ShapeError, TensorType, interpret
from gradjit.ir import dtype as resolve
from gradjit.ir.primitive import bind

rng = np.random.default_rng(0)
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]
FLOATS = ["f32", "f64"]


def run(name, *arrays, **params):
    """Build a one-op function and interpret it: the path every backend is compared with."""
    with Builder(name) as b:
        args = [b.param(TensorType(a.shape, resolve(a.dtype)), f"a{i}") for i, a in
                enumerate(arrays)]
        out = PRIMITIVES[name](*args, **params)
    fn = b.build([out] if out is not None else [])
    result = interpret(fn, *arrays)
    return result[0] if result else None


def data(shape, dt, low=-3.0, high=3.0):
    if dt == "bool":
        return rng.random(shape) > 0.5
    if dt in ("i32", "i64"):
        return rng.integers(-5, 6, shape).astype(resolve(dt).numpy)
    return rng.uniform(low, high, shape).astype(resolve(dt).numpy)


UNARY = {
    "neg": (np.negative, None), "abs": (np.abs, None), "sign": (np.sign, None),
    "exp": (np.exp, None), "log": (np.log, (0.1, 5)), "log1p": (np.log1p, (-0.9, 5)),
    "expm1": (np.expm1, None), "sqrt": (np.sqrt, (0, 5)), "rsqrt": (lambda x: 1 / np.sqrt(x),
                                                                     (0.1, 5)),
    "sin": (np.sin, None), "cos": (np.cos, None), "tan": (np.tan, (-1.2, 1.2)),
    "tanh": (np.tanh, None), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), None),
    "floor": (np.floor, None), "ceil": (np.ceil, None), "round": (np.round, None),
    "stop_gradient": (lambda x: x, None),
    "stop_reverse": (lambda x: x, None),
    "erf": (lambda x: np.asarray(np.frompyfunc(math.erf, 1, 1)(x), np.float64), None),
    "erfc": (lambda x: np.asarray(np.frompyfunc(math.erfc, 1, 1)(x), np.float64), None),
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum, "eq": np.equal,
    "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "atan2": np.arctan2, "logaddexp": np.logaddexp,
}


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, shape, dt):
    reference, domain = UNARY[name]
    x = data(shape, dt, *(domain or (-3, 3)))
    out = run(name, x)
    assert out.dtype == x.dtype and out.shape == x.shape
    np.testing.assert_allclose(out, reference(x).astype(x.dtype), rtol=2e-6 if dt == "f32"
                               else 1e-14)


@pytest.mark.parametrize("dt", FLOATS + ["i32", "i64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, shape, dt):
    if name in ("div", "atan2", "logaddexp") and dt.startswith("i"):
        with pytest.raises(ShapeError, match=f"{name}.*floating point"):
            run(name, data(shape, dt), data(shape, dt))
        return
    a = data(shape, dt, 0.5, 3) if name == "pow" else data(shape, dt)
    b = np.abs(data(shape, dt)) if name == "pow" else data(shape, dt)
    if name == "div":
        b = np.where(b == 0, 1, b).astype(b.dtype)
    np.testing.assert_allclose(run(name, a, b), BINARY[name](a, b), rtol=1e-6)


@pytest.mark.parametrize("name,reference", [("logical_and", np.logical_and),
                                            ("logical_or", np.logical_or)])
def test_logic(name, reference):
    a, b = data((4, 3), "bool"), data((4, 3), "bool")
    np.testing.assert_array_equal(run(name, a, b), reference(a, b))
    np.testing.assert_array_equal(run("logical_not", a), ~a)


INT_SPECIAL = [0, 1, -1, 2, -2, 7, -7, 63, 64, -64]


@pytest.mark.parametrize("dt", ["i32", "i64"])
def test_integer_primitives_against_python_integers(dt):
    """Truncating division and fmod against Python's exact integers (C semantics: the
    quotient rounds toward zero), with numpy's 0 for a zero divisor and INT_MIN / -1 wrapping;
    shifts against Python's with every bit shifted out for counts outside [0, bits)."""
    info = np.iinfo(resolve(dt).numpy)
    values = INT_SPECIAL + [info.min, info.max, info.min + 1]
    a, b = (np.array(v, resolve(dt).numpy) for v in zip(*[(x, y) for x in values
                                                            for y in values]))
    bits = info.bits

    def wrap(v):
        return (v - info.min) % (1 << bits) + info.min

    def tdiv(x, y):
        return 0 if y == 0 else wrap(abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1))

    pairs = list(zip(a.tolist(), b.tolist()))
    expected = {
        "trunc_div": [tdiv(x, y) for x, y in pairs],
        "fmod": [0 if y == 0 else x - y * (abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1)
                 for x, y in pairs],
        "left_shift": [wrap(x << y) if 0 <= y < bits else 0 for x, y in pairs],
        "right_shift": [x >> y if 0 <= y < bits else (-1 if x < 0 else 0) for x, y in pairs],
        "bitwise_and": [x & y for x, y in pairs], "bitwise_or": [x | y for x, y in pairs],
        "bitwise_xor": [x ^ y for x, y in pairs],
    }
    for name, want in expected.items():
        got = run(name, a, b)
        assert got.dtype == a.dtype, name
        np.testing.assert_array_equal(got, np.array(want, a.dtype), err_msg=name)


def test_bitwise_primitives_on_bools_and_fmod_on_floats():
    a, b = data((4, 3), "bool"), data((4, 3), "bool")
    for name, reference in [("bitwise_and", a & b), ("bitwise_or", a | b), ("bitwise_xor", a ^ b)]:
        np.testing.assert_array_equal(run(name, a, b), reference)
    x = np.array([5.0, -5.0, -0.0, 1e300, np.inf, 5.0, 3.0])
    y = np.array([np.inf, 3.0, 3.0, 1e-300, 3.0, 0.0, -0.0])
    # C's fmod: exact, the dividend's sign (zeros included), nan for inf % y or x % 0.
    np.testing.assert_array_equal(run("fmod", x, y), [5.0, -2.0, -0.0, np.fmod(1e300, 1e-300),
                                                      np.nan, np.nan, np.nan])
    assert np.signbit(run("fmod", x, y)[2])


def test_where_and_cast():
    c, a, b = data((3, 4), "bool"), data((3, 4), "f32"), data((3, 4), "f32")
    np.testing.assert_array_equal(run("where", c, a, b), np.where(c, a, b))
    x = data((2, 5), "f64")
    for target in ("f32", "i32", "i64", "bool"):
        np.testing.assert_array_equal(run("cast", x, dtype=target), x.astype(resolve(target).numpy))


@pytest.mark.parametrize("source,target", [((3,), (4, 3)), ((1, 3), (2, 5, 3)), ((), (2, 2)),
                                           ((2, 1), (2, 0)), ((4, 1, 3), (4, 5, 3))])
def test_broadcast_to(source, target):
    x = data(source, "f32")
    np.testing.assert_array_equal(run("broadcast_to", x, shape=target),
                                  np.broadcast_to(x, target))


@pytest.mark.parametrize("shape,new", [((2, 3, 4), (6, 4)), ((0, 3), (3, 0)), ((), (1, 1)),
                                       ((5,), (5,))])
def test_reshape(shape, new):
    x = data(shape, "f64")
    np.testing.assert_array_equal(run("reshape", x, shape=new), x.reshape(new))


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)])
def test_transpose(perm):
    x = data((2, 3, 4), "f32")
    np.testing.assert_array_equal(run("transpose", x, perm=perm), x.transpose(perm))


AXES = [(), (0,), (1,), (2,), (0, 2), (0, 1, 2)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("name,reference", [("reduce_sum", np.sum), ("reduce_max", np.max),
                                            ("reduce_min", np.min), ("reduce_prod", np.prod)])
@pytest.mark.parametrize("dt", FLOATS + ["i64"])
def test_reductions(name, reference, axes, keepdims, dt):
    x = data((2, 3, 4), dt)
    np.testing.assert_allclose(run(name, x, axes=axes, keepdims=keepdims),
                               reference(x, axis=axes, keepdims=keepdims), rtol=1e-6)


def test_reduce_sum_of_empty_and_scalar():
    np.testing.assert_array_equal(run("reduce_sum", data((0, 3), "f32"), axes=(0,),
                                      keepdims=False), np.zeros(3, np.float32))
    x = data((), "f64")
    assert run("reduce_sum", x, axes=(), keepdims=False) == x


def test_reduce_prod_of_empty_is_one_and_keeps_the_dtype():
    out = run("reduce_prod", data((0, 3), "i32"), axes=(0,), keepdims=False)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.ones(3, np.int32))


def test_reduce_max_of_empty_axis_raises():
    with pytest.raises(ValueError):
        run("reduce_max", data((0, 3), "f32"), axes=(0,), keepdims=False)


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 1)), ((0, 4), (4, 2)),
                                   ((3, 0), (0, 2))])
def test_matmul(sa, sb, dt):
    a, b = data(sa, dt), data(sb, dt)
    np.testing.assert_allclose(run("matmul", a, b), a @ b, rtol=1e-5)


@pytest.mark.parametrize("start,stop,step", [((0, 0), (5, 7), (1, 1)), ((1, 2), (5, 7), (2, 3)),
                                             ((3, 0), (3, 7), (1, 1)), ((4, 6), (5, 7), (5, 5))])
def test_slice(start, stop, step):
    x = data((5, 7), "f64")
    expected = x[tuple(map(slice, start, stop, step))]
    np.testing.assert_array_equal(run("slice", x, start=start, stop=stop, step=step), expected)


def test_pad():
    x = data((2, 3), "f32")
    out = run("pad", x, low=(1, 0), high=(2, 1), interior=(1, 2), value=-1.0)
    expected = np.full((1 + 2 + 3, 0 + 1 + 3 + 2 * 2), -1.0, np.float32)
    expected[1:4:2, 0:7:3] = x
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_and_scatter_add(axis):
    x = data((4, 5), "f64")
    idx = np.array([[0, 3], [-1, 1], [3, 3]], np.int64)
    np.testing.assert_array_equal(run("gather", x, idx, axis=axis), np.take(x, idx, axis=axis))
    updates = data(x.shape[:axis] + idx.shape + x.shape[axis + 1:], "f64")
    expected = x.copy()
    np.add.at(np.moveaxis(expected, axis, 0), idx.reshape(-1),
              np.moveaxis(updates.reshape(x.shape[:axis] + (6,) + x.shape[axis + 1:]), axis, 0))
    np.testing.assert_allclose(run("scatter_add", x, idx, updates, axis=axis), expected)


def test_gather_and_scatter_add_with_several_index_arrays_index_like_numpy():
    x = data((3, 4, 5), "f64")
    i, j = np.array([[2, -1], [0, 2]]), np.array([[4, 0], [-5, 4]], np.int32)
    np.testing.assert_array_equal(run("gather", x, i, j, axis=1), x[:, i, j])
    updates = data((3, 2, 2), "f64")
    expected = x.copy()
    np.add.at(expected, (slice(None), i, j), updates)
    np.testing.assert_allclose(run("scatter_add", x, i, j, updates, axis=1), expected)
    with pytest.raises(IndexError, match="out of bounds for axis 2 with size 5"):
        run("gather", x, i, j + 5, axis=1)


def test_gather_out_of_range_raises_index_error():
    with pytest.raises(IndexError):
        run("gather", data((4,), "f32"), np.array([4]), axis=0)
    with pytest.raises(IndexError):
        run("scatter_add", data((4,), "f32"), np.array([-5]), data((1,), "f32"), axis=0)


def test_concatenate():
    parts = [data((2, 3), "f32"), data((0, 3), "f32"), data((1, 3), "f32")]
    np.testing.assert_array_equal(run("concatenate", *parts, axis=0), np.concatenate(parts))


def test_sources():
    np.testing.assert_array_equal(bind(PRIMITIVES["iota"], shape=(2, 3), dtype="i32", axis=1),
                                  np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)))
    np.testing.assert_array_equal(bind(PRIMITIVES["full"], value=2.5, shape=(2,), dtype="f64"),
                                  np.full(2, 2.5))
    value = [[1.0, 2.0], [3.0, 4.5]]
    np.testing.assert_array_equal(bind(PRIMITIVES["constant"], value=value, shape=(2, 2),
                                       dtype="f32"), np.array(value, np.float32))


def test_guard():
    assert run("guard", np.array(True), expected=True, site="f.py:1") is None
    with pytest.raises(GuardFailed, match="f.py:1"):
        run("guard", np.array(False), expected=True, site="f.py:1")


def test_check_index():
    """The index passes unchanged inside [low, size); outside, the library's error names the
    first offending value."""
    words = "index {index} is out of bounds for dimension 1 with size 4"
    index = np.array([[0, 3], [2, 1]])
    np.testing.assert_array_equal(run("check_index", index, bound=4, low=0,
                                      error="RuntimeError", words=words), index)
    with pytest.raises(RuntimeError, match="^index -1 is out of bounds for dimension 1 "):
        run("check_index", np.array([0, -1, 9]), bound=4, low=0, error="RuntimeError",
            words=words)
    with pytest.raises(IndexError, match="^index 9 is out of bounds for axis 0 with size 4$"):
        run("check_index", np.array([0, -1, 9]), bound=4, low=-4, error="IndexError",
            words="index {index} is out of bounds for axis 0 with size 4")


@pytest.mark.parametrize("name,args,params,message", [
    ("add", [(3,), (4,)], {}, r"add\(f32\[3\], f32\[4\]\): shapes \(3,\) and \(4,\) differ"),
    ("matmul", [(3, 4), (5, 2)], {}, r"matmul\(f32\[3,4\], f32\[5,2\]\): inner dims 4 and 5"),
    ("broadcast_to", [(3,)], {"shape": (2, 4)}, r"cannot broadcast shape \(3,\) to \(2, 4\)"),
    ("reshape", [(6,)], {"shape": (4,)}, r"cannot reshape \(6,\)"),
    ("check_index", [(3,)], {"bound": 3, "low": 0, "error": "IndexError", "words": "{index}"},
     r"check_index checks an integer index, not f32\[3\]"),
    ("reduce_sum", [(2, 3)], {"axes": (-1,), "keepdims": False}, r"axes \(-1,\) must lie in"),
    ("concatenate", [(2, 3), (2, 4)], {"axis": 0}, r"shapes \(2, 3\) and \(2, 4\) differ off"),
])
def test_shape_errors_name_the_primitive_and_shapes(name, args, params, message):
    with pytest.raises(ShapeError, match=message):
        run(name, *[data(s, "f32") for s in args], **params)


def test_dtype_mismatch_is_an_error():
    with pytest.raises(ShapeError, match="dtypes f32 and f64 differ"):
        run("mul", data((2,), "f32"), data((2,), "f64"))


@pytest.mark.parametrize("dt", ["f32", "f64", "i32", "i64", "bool"])
@pytest.mark.parametrize("axis", [0, 1])
def test_argsort_is_a_stable_sort_with_nan_last(dt, axis):
    x = rng.integers(-2, 3, (6, 5)).astype(resolve(dt).numpy)
    if dt.startswith("f"):
        x[1, 2] = x[4, 0] = np.nan
    order = run("argsort", x, axis=axis)
    assert order.dtype == np.int64
    moved = np.moveaxis(order, axis, -1)
    values = np.take_along_axis(np.moveaxis(x, axis, -1), moved, -1)
    for row, idx in zip(values.reshape(-1, values.shape[-1]), moved.reshape(-1, moved.shape[-1])):
        assert sorted(idx) == list(range(len(idx)))  # a permutation
        keys = [(np.isnan(v) if dt.startswith("f") else False, 0 if v != v else v, i)
                for v, i in zip(row, idx)]
        assert keys == sorted(keys)  # ascending, NaN last, ties in their original order


def _spd(shape, dt):
    x = data(shape, "f64")
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(resolve(dt).numpy)


def _parts(packed, shapes):
    """Split a packed linalg result as gradjit.ir.linalg.unpack does, in numpy."""
    batch, out, start = packed.shape[:-1], [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(packed[..., start:start + size].reshape(batch + shape))
        start += size
    return out


@pytest.mark.parametrize("dt", FLOATS)
def test_linalg_solves(dt):
    tol = {"f32": 1e-4, "f64": 1e-10}[dt]
    a, b = _spd((2, 4, 4), dt), data((2, 4, 3), dt)
    x = run("solve", a, b)
    assert x.dtype == a.dtype
    np.testing.assert_allclose(a @ x, b, rtol=tol, atol=tol)
    for lower in (True, False):
        for unit in (True, False):
            tri = np.tril(a) if lower else np.triu(a)
            if unit:
                tri[..., range(4), range(4)] = 1
            x = run("triangular_solve", a, b, lower=lower, unit=unit)
            np.testing.assert_allclose(tri @ x, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("dt", FLOATS)
def test_linalg_factorizations(dt):
    tol = {"f32": 1e-4, "f64": 1e-10}[dt]
    a, rect = _spd((2, 4, 4), dt), data((2, 5, 3), dt)
    lower = run("cholesky", a + np.triu(np.ones_like(a), 1))  # reads the lower triangle only
    np.testing.assert_array_equal(np.triu(lower, 1), 0)
    np.testing.assert_allclose(lower @ np.swapaxes(lower, -1, -2), a, rtol=tol, atol=tol)
    sign, logabsdet = _parts(run("slogdet", rect[:, :3]), [(), ()])
    lu_free = np.array([np.linalg.eigvals(m).prod().real for m in rect[:, :3]])
    np.testing.assert_allclose(sign * np.exp(logabsdet), lu_free, rtol=tol)
    np.testing.assert_allclose(run("det", rect[:, :3]), lu_free, rtol=tol)
    for upper in (False, True):  # a is symmetric; junk in the other triangle is not read
        junk = np.tril(np.ones_like(a), -1) if upper else np.triu(np.ones_like(a), 1)
        w, v = _parts(run("eigh", a + 3 * junk, upper=upper), [(4,), (4, 4)])
        assert np.all(np.diff(w) >= 0)
        np.testing.assert_allclose(a @ v, v * w[..., None, :], rtol=tol, atol=tol * 10)
    for full in (False, True):
        u, s, vh = _parts(run("svd", rect, full_matrices=full),
                          [(5, 5 if full else 3), (3,), (3, 3)])
        np.testing.assert_allclose((u[..., :3] * s[..., None, :]) @ vh, rect, rtol=tol,
                                   atol=tol)
        identity = np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + u.shape[-1:] * 2)
        np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, identity, rtol=tol, atol=tol)
    for complete in (False, True):
        q, r = _parts(run("qr", rect, complete=complete), [(5, 5 if complete else 3),
                                                          (5 if complete else 3, 3)])
        np.testing.assert_array_equal(np.tril(r, -1), 0)
        np.testing.assert_allclose(q @ r, rect, rtol=tol, atol=tol)
    for m in (rect, np.swapaxes(rect, -1, -2)):  # tall and wide: row swaps then L U
        lu, pivots = _parts(run("lu_factor", m), [m.shape[-2:], (3,)])
        lower = np.tril(lu, -1)[..., :3] + np.eye(*m.shape[-2:])[..., :3]
        swapped = m.copy()
        for b in range(2):
            for j, p in enumerate(pivots[b].astype(int) - 1):
                swapped[b, [j, p]] = swapped[b, [p, j]]
            assert np.all(np.abs(lower[b]) <= 1)  # partial pivoting's bound
        np.testing.assert_allclose(lower @ np.triu(lu)[..., :3, :], swapped, rtol=tol, atol=tol)


def test_linalg_errors_are_numpys():
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        run("solve", np.zeros((2, 2)), np.ones((2, 1)))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        run("cholesky", -np.eye(3))
    x = run("triangular_solve", np.zeros((2, 2)), np.ones((2, 1)), lower=True, unit=False)
    assert not np.isfinite(x).any()  # substitution divides by the zero pivot, as BLAS does
