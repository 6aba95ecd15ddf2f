"""Every primitive compiled alone equals the interpreter: float, int and bool dtypes, empty
and 0-d arrays, vector bodies with scalar tails."""
import itertools

import numpy as np
import pytest

from gradjit.codegen.body import LOWERINGS
from gradjit.codegen.fuse import RULES
from gradjit.ir import PRIMITIVES, GuardFailed

from tests.codegen.helpers import check, data, many_ops, one_op

SHAPES = [(), (0,), (5,), (37,), (3, 4), (2, 0, 3)]
FLOATS = ["f32", "f64"]
INTS = ["i32", "i64"]
DOMAINS = {"log": (0.1, 5), "log1p": (-0.9, 5), "sqrt": (0, 5), "rsqrt": (0.1, 5),
           "tan": (-1.2, 1.2)}
FLOAT_UNARY = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
               "sigmoid", "erf", "erfc", "floor", "ceil", "round"]
NUMERIC_UNARY = ["neg", "abs", "sign", "stop_gradient", "stop_reverse"]
NUMERIC_BINARY = ["add", "sub", "mul", "maximum", "minimum"]
COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]
COMPLEX = ["c64", "c128"]
# primitives of complex values only: compiled programs run them as host steps, not kernels
COMPLEX_PARTS = ["conj", "real", "imag", "complex"]


def _unary(name, dts):
    return [([data(s, dt, *DOMAINS.get(name, (-3, 3)))], {}) for s in SHAPES for dt in dts]


def _binary(dts):
    return [([data(s, dt), data(s, dt)], {}) for s in SHAPES for dt in dts]


def _pow():
    cases = [([data(s, dt, 0.1, 3), data(s, dt)], {}) for s in SHAPES for dt in FLOATS]
    return cases + [([data((40,), dt), np.abs(data((40,), dt))], {}) for dt in INTS]


def _compare():
    cases = _binary(FLOATS + INTS + ["bool"])
    with_nan = np.array([np.nan, 1.0, np.nan, -0.0] * 5)
    return cases + [([with_nan, with_nan[::-1].copy()], {})]


def _cast():
    names = FLOATS + INTS + ["bool"]
    return [([data((13,), a, -100, 100)], {"dtype": b}) for a in names for b in names]


def _positive_definite(shape, dt):
    x = data(shape, dt)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=x.dtype)


def _like(a, columns):
    """Right-hand sides for the matrices a."""
    return data(a.shape[:-1] + (columns,), f"f{a.dtype.itemsize * 8}")


def _linalg():
    """Library primitives run numpy on the host: batched, empty and both float types."""
    square = [(4, 4), (2, 3, 3), (0, 2, 2), (0, 0)]
    spd = [(_positive_definite(s, dt),) for s in square for dt in FLOATS]
    rect = [(data(s, dt),) for s in [(4, 3), (2, 3, 5), (0, 3, 2), (3, 3)] for dt in FLOATS]
    return {
        "solve": lambda: [([a, _like(a, 2)], {}) for (a,) in spd],
        "triangular_solve": lambda: [([a, _like(a, 3)], {"lower": lower, "unit": unit})
                                     for (a,) in spd for lower in (True, False)
                                     for unit in (True, False)],
        "cholesky": lambda: [([a], {}) for (a,) in spd],
        "slogdet": lambda: [([a], {}) for (a,) in spd],
        "det": lambda: [([a], {}) for (a,) in spd],
        "eigh": lambda: [([a], {"upper": upper}) for (a,) in spd for upper in (True, False)],
        "svd": lambda: [([a], {"full_matrices": full}) for (a,) in rect for full in (True, False)],
        "qr": lambda: [([a], {"complete": c}) for (a,) in rect for c in (True, False)],
        "lu_factor": lambda: [([a], {}) for (a,) in rect + spd],
        "eig": lambda: [([data(s, dt)], {}) for s in square for dt in FLOATS + COMPLEX],
    }


def _reductions():
    x = data((3, 4, 5), "f64")
    cases = [([x], {"axes": axes, "keepdims": keep}) for n in range(4)
             for axes in itertools.combinations(range(3), n) for keep in (False, True)]
    return cases + [([data((37,), dt)], {"axes": (0,), "keepdims": False})
                    for dt in FLOATS + INTS + ["bool"]] + [
        ([data((2, 0, 3), "f32")], {"axes": (0,), "keepdims": False}),
        ([data((), "f32")], {"axes": (), "keepdims": False})]


def _integer_pairs(dt):
    """Every pair of edge values: zero divisors, INT_MIN / -1, shift counts outside [0, bits)
    and negative ones; 17 x 17 pairs fill vector bodies and their scalar tails."""
    info = np.iinfo(np.dtype({"i32": "int32", "i64": "int64"}[dt]))
    edges = np.array([0, 1, -1, 2, -2, 7, -7, 31, 32, 63, 64, -64, 1000, info.min, info.max,
                      info.min + 1, -info.max // 3], info.dtype)
    return [np.repeat(edges, len(edges)), np.tile(edges, len(edges))]


def _integer_binary():
    return _binary(INTS) + [(_integer_pairs(dt), {}) for dt in INTS]


def _fmod():
    special = [5.0, -5.0, -0.0, 0.0, 1e30, np.inf, -np.inf, np.nan, 3.0, 1e-30, 7.5, 1e300]
    cases = _integer_binary() + _binary(FLOATS)
    for dt in ("f8", "f4"):
        s = np.array(special[:-1] if dt == "f4" else special, dt)
        cases.append(([np.repeat(s, len(s)), np.tile(s, len(s))], {}))
    return cases


CASES = {
    **{n: (lambda n=n: _unary(n, FLOATS)) for n in FLOAT_UNARY},
    **{n: (lambda n=n: _unary(n, FLOATS + INTS)) for n in NUMERIC_UNARY},
    **{n: (lambda: _binary(FLOATS + INTS)) for n in NUMERIC_BINARY},
    **{n: _compare for n in COMPARE},
    "div": lambda: _binary(FLOATS), "atan2": lambda: _binary(FLOATS),
    "logaddexp": lambda: _binary(FLOATS),
    "pow": _pow,
    "logical_and": lambda: _binary(["bool"]), "logical_or": lambda: _binary(["bool"]),
    "logical_not": lambda: _unary("logical_not", ["bool"]),
    "where": lambda: [([data(s, "bool"), data(s, dt), data(s, dt)], {}) for s in SHAPES
                      for dt in FLOATS + INTS + ["bool"]],
    "cast": _cast,
    **{n: (lambda n=n: _unary(n, COMPLEX)) for n in ["conj", "real", "imag"]},
    "complex": lambda: _binary(FLOATS),
    "fft": lambda: [([data((3, 4, 5), dt)], {"axes": axes, "inverse": inverse})
                    for dt in COMPLEX for axes in [(2,), (0, 2), ()] for inverse in (False, True)],
    "rfft": lambda: [([data((4, s), dt)], {"axis": 1}) for dt in FLOATS for s in (1, 6, 7)],
    "irfft": lambda: [([data((4, n // 2 + 1), dt)], {"axis": 1, "n": n})
                      for dt in COMPLEX for n in (1, 6, 7)],
    "fmod": _fmod, "trunc_div": _integer_binary,
    "left_shift": _integer_binary, "right_shift": _integer_binary,
    **{n: (lambda: _binary(INTS + ["bool"]) + _integer_binary())
       for n in ["bitwise_and", "bitwise_or", "bitwise_xor"]},
    "broadcast_to": lambda: [([data((3, 1), "f32")], {"shape": (2, 3, 4)}),
                             ([data((), "i64")], {"shape": (5,)}),
                             ([data((4,), "bool")], {"shape": (0, 4)})],
    "reshape": lambda: [([data((3, 4), "f64")], {"shape": (2, 6)}),
                        ([data((1,), "f32")], {"shape": ()}),
                        ([data((0, 3), "i32")], {"shape": (3, 0)})],
    "transpose": lambda: [([data((3, 4, 5), "f32")], {"perm": (2, 0, 1)}),
                          ([data((3, 4), "bool")], {"perm": (1, 0)})],
    "reduce_sum": _reductions, "reduce_max": _reductions, "reduce_min": _reductions,
    "reduce_prod": _reductions,
    "matmul": lambda: [([data((3, 4), dt), data((4, 5), dt)], {}) for dt in FLOATS + INTS]
    + [([data((2, 3, 4), "f32"), data((2, 4, 0), "f32")], {})],
    "slice": lambda: [([data((7, 5), "f32")], {"start": (1, 0), "stop": (7, 5),
                                               "step": (2, 3)}),
                      ([data((4,), "i64")], {"start": (2,), "stop": (2,), "step": (1,)})],
    "pad": lambda: [([data((3, 2), "f64")], {"low": (1, 0), "high": (0, 2),
                                             "interior": (1, 2), "value": -1.5}),
                    ([data((0,), "f32")], {"low": (2,), "high": (1,), "interior": (0,),
                                           "value": 7.0}),
                    ([data((2,), "i32")], {"low": (0,), "high": (0,), "interior": (0,),
                                           "value": 0})],
    "gather": lambda: [([data((5, 3), "f32"), np.array([[4, -1], [0, 2]])], {"axis": 0}),
                       ([data((2, 6), "i64"), np.array([5, -6, 1], np.int32)], {"axis": 1}),
                       ([data((3,), "f64"), np.zeros((0,), np.int64)], {"axis": 0}),
                       ([data((2, 4, 3), "f32"), np.array([[3, -1], [0, 2]]),
                         np.array([[2, -3], [1, 0]], np.int32)], {"axis": 1})],
    "scatter_add": lambda: [
        ([data((5, 3), "f64"), np.array([4, -1, 4, 0]), data((4, 3), "f64")], {"axis": 0}),
        ([data((2, 4), "i32"), np.array([[1, 1], [3, -4]], np.int32), data((2, 2, 2), "i32")],
         {"axis": 1}),
        ([data((4, 3), "f64"), np.array([3, -1, 3]), np.array([0, 2, 0]), data((3,), "f64")],
         {"axis": 0})],
    "concatenate": lambda: [([data((2, 3), "f32"), data((2, 0), "f32"), data((2, 2), "f32")],
                             {"axis": 1}),
                            ([data((1,), "bool"), data((3,), "bool")], {"axis": 0})],
    "iota": lambda: [([], {"shape": (3, 4), "dtype": dt, "axis": 1})
                     for dt in FLOATS + INTS] + [([], {"shape": (37,), "dtype": "f32",
                                                       "axis": 0})],
    "constant": lambda: [([], {"value": [[1.5, 2.0], [3.0, -4.0]], "shape": (2, 2),
                               "dtype": "f64"}),
                         ([], {"value": 3, "shape": (), "dtype": "i32"})],
    "full": lambda: [([], {"value": v, "shape": (9,), "dtype": dt})
                     for v, dt in [(2.5, "f32"), (-3, "i64"), (True, "bool")]],
    "guard": lambda: [([np.array(True)], {"expected": True, "site": "f.py:1"})],
    "check_index": lambda: [([np.array([[3, -4], [0, 1]])], {
        "bound": 4, "low": -4, "error": "IndexError", "words": "index {index} is out"})],
    "argsort": lambda: [([data((4, 37), dt)], {"axis": axis}) for dt in FLOATS + INTS + ["bool"]
                        for axis in (0, 1)] + [([data((0, 3), "f32")], {"axis": 0})],
    **_linalg(),
}


def test_every_primitive_has_a_lowering_and_a_test():
    missing = sorted(set(PRIMITIVES) - set(RULES))
    assert not missing, f"no CPU lowering for {missing}"
    untested = sorted(set(PRIMITIVES) - set(CASES))
    assert not untested, f"no CPU test for {untested}"
    elementwise = {n for n, p in PRIMITIVES.items() if p.kind == "elementwise"}
    unlowered = elementwise - set(LOWERINGS) - set(COMPLEX_PARTS)
    assert not unlowered, f"no body lowering for {unlowered}"


@pytest.mark.parametrize("name", sorted(PRIMITIVES))
def test_primitive_matches_interpreter(name):
    assert name in CASES, f"no CPU test for primitive {name}"
    ulps = 64 if name == "reduce_sum" else 4  # summation order differs from numpy's
    fn, arrays = many_ops(name, CASES[name]())
    check(fn, *arrays, ulps=ulps)


def test_guard_raises_exactly_when_the_interpreter_does():
    fn = one_op("guard", [np.array(True)], expected=True, site="f.py:7")
    program = check(fn, np.array(True))
    with pytest.raises(GuardFailed, match="f.py:7"):
        program(np.array(False))


@pytest.mark.parametrize("name,arrays,params", [
    ("gather", [np.zeros((5, 3)), np.array([5])], {"axis": 0}),
    ("gather", [np.zeros((5, 3)), np.array([[0, -6]])], {"axis": 0}),
    ("scatter_add", [np.zeros((2, 3)), np.array([0, 3]), np.ones((2, 2))], {"axis": 1}),
    ("gather", [np.zeros((5, 3)), np.array([4, 0]), np.array([1, 3])], {"axis": 0}),
    ("scatter_add", [np.zeros((5, 3)), np.array([-6]), np.array([0]), np.ones(1)], {"axis": 0}),
])
def test_out_of_range_indices_raise_before_native_code(name, arrays, params):
    program = check(one_op(name, [a * 0 + (a.dtype.kind == "i") for a in arrays], **params),
                    *[a * 0 + (a.dtype.kind == "i") for a in arrays])
    with pytest.raises(IndexError):
        program(*arrays)


def test_index_check_raises_the_error_and_words_it_is_given():
    params = {"bound": 4, "low": 0, "error": "RuntimeError",
              "words": "index {index} is out of bounds for dimension 1 with size 4"}
    program = check(one_op("check_index", [np.array([0, 3])], **params), np.array([0, 3]))
    with pytest.raises(RuntimeError, match="^index -1 is out of bounds for dimension 1 with "
                                           "size 4$"):
        program(np.array([-1, 7]))


def test_max_over_no_elements_raises_like_numpy():
    fn = one_op("reduce_max", [np.zeros((0, 3))], axes=(0,), keepdims=False)
    with pytest.raises(ValueError, match="zero-size"):
        from gradjit.codegen import compile_function
        compile_function(fn)(np.zeros((0, 3)))
