"""The `python` stage: generated numpy code imports numpy only, runs, and computes what the
interpreter computes for every primitive (bit for bit, same dtypes and shapes) and what the
compiled program computes for every function of the compiled-vs-eager corpus."""
import ast

import numpy as np
import pytest

from examples import seed
import gradjit
from gradjit.dump.python_source import RULES, python_source
from gradjit.ir import PRIMITIVES, Builder, TensorType, interpret
from gradjit.ir import elementwise as E
from gradjit.ir import fft, linalg, linalg_eig, linalg_lu, linalg_qr, sorting
from gradjit.ir import structural as S
from gradjit.ir.types import dtype as resolve
from tests.dump.lowerings import lowered
from tests.e2e.corpus import CASES

rng = np.random.default_rng(11)


def load(source: str):
    """The function a generated module defines (its last definition)."""
    namespace = {}
    exec(compile(source, "<generated>", "exec"), namespace)
    return [v for k, v in namespace.items() if callable(v) and not k.startswith("_")][-1]


def data(shape, dt):
    if dt == "bool":
        return rng.random(shape) > 0.5
    if dt.startswith("i"):
        return rng.integers(-5, 6, shape).astype(resolve(dt).numpy)
    if dt.startswith("c"):
        return (rng.uniform(0.2, 3.0, shape) + 1j * rng.uniform(-3.0, 3.0, shape)).astype(
            resolve(dt).numpy)
    return rng.uniform(0.2, 3.0, shape).astype(resolve(dt).numpy)


def one_op(prim, types, *extra, **params):
    """A function applying `prim` to parameters of `types` (then `extra` constant operands)."""
    with Builder(prim.name) as b:
        xs = [b.param(TensorType(shape, resolve(dt)), f"x{i}") for i, (shape, dt) in
              enumerate(types)]
        out = prim(*xs, *extra, **params)
    return b.build([out])


UNARY_FLOAT = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh",
               "sigmoid", "erf", "erfc", "floor", "ceil", "round", "stop_gradient",
               "stop_reverse"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "logaddexp", "eq", "ne",
          "lt", "le", "gt", "ge"]
SHAPES = [(), (0,), (3, 4)]


BOUNDS = {"bound": 4, "low": -4, "error": "IndexError",
          "words": "index {index} is out of bounds for axis 0 with size 4"}


def _cases():
    """(id, function) pairs: each primitive on representative types and params."""
    cases = []
    for shape in SHAPES:
        for dt in ["f32", "f64"]:
            cases += [(f"{n}-{dt}{list(shape)}", one_op(PRIMITIVES[n], [(shape, dt)]))
                      for n in UNARY_FLOAT + ["neg", "abs", "sign"]]
            cases += [(f"{n}-{dt}{list(shape)}", one_op(PRIMITIVES[n], [(shape, dt)] * 2))
                      for n in BINARY]
        cases += [(f"{n}-i32{list(shape)}", one_op(PRIMITIVES[n], [(shape, "i32")] * 2))
                  for n in ["add", "sub", "mul", "maximum", "lt"]]
        cases += [(f"{n}-{list(shape)}", one_op(PRIMITIVES[n], [(shape, "bool")] * 2))
                  for n in ["logical_and", "logical_or", "bitwise_xor"]]
        cases += [(f"{n}-{dt}{list(shape)}", one_op(PRIMITIVES[n], [(shape, dt)] * 2))
                  for n in ["fmod", "trunc_div", "bitwise_and", "bitwise_or", "bitwise_xor",
                            "left_shift", "right_shift"] for dt in ["i32", "i64"]]
        cases += [(f"fmod-f64{list(shape)}", one_op(PRIMITIVES["fmod"], [(shape, "f64")] * 2))]
        cases += [(f"logical_not-{list(shape)}", one_op(E.logical_not, [(shape, "bool")])),
                  (f"where-{list(shape)}",
                   one_op(E.where, [(shape, "bool"), (shape, "f32"), (shape, "f32")]))]
    f34 = [((3, 4), "f32")]
    cases += [
        ("cast-f32-f64", one_op(E.cast, f34, dtype="f64")),
        ("cast-f64-i32", one_op(E.cast, [((3,), "f64")], dtype="i32")),
        ("cast-bool-f32", one_op(E.cast, [((3,), "bool")], dtype="f32")),
        ("full-f32", one_op(E.full, [], value=0.1, shape=(2, 3), dtype="f32")),
        ("full-nan", one_op(E.full, [], value=float("nan"), shape=(2,), dtype="f64")),
        ("full-i64", one_op(E.full, [], value=7, shape=(), dtype="i64")),
        ("constant-small", one_op(S.constant, [], value=[[1.5, -np.inf], [0.25, 3.0]],
                                  shape=(2, 2), dtype="f32")),
        ("constant-large", one_op(S.constant, [], value=list(range(12)), shape=(12,),
                                  dtype="i32")),
        ("constant-empty", one_op(S.constant, [], value=[], shape=(0, 3), dtype="f64")),
        ("iota", one_op(S.iota, [], shape=(2, 3, 4), dtype="i32", axis=1)),
        ("broadcast_to", one_op(S.broadcast_to, [((3, 1), "f32")], shape=(2, 3, 4))),
        ("reshape", one_op(S.reshape, f34, shape=(4, 1, 3))),
        ("reshape-scalar", one_op(S.reshape, [((), "f64")], shape=(1, 1))),
        ("transpose", one_op(S.transpose, [((2, 3, 4), "f64")], perm=(2, 0, 1))),
        ("reduce_sum", one_op(S.reduce_sum, [((2, 3, 4), "f32")], axes=(0, 2), keepdims=True)),
        ("reduce_sum-i32", one_op(S.reduce_sum, [((3, 4), "i32")], axes=(1,), keepdims=False)),
        ("reduce_sum-bool", one_op(S.reduce_sum, [((3, 4), "bool")], axes=(0, 1),
                                   keepdims=False)),
        ("reduce_max", one_op(S.reduce_max, f34, axes=(1,), keepdims=False)),
        ("reduce_min", one_op(S.reduce_min, [((3, 4), "i64")], axes=(0,), keepdims=True)),
        ("reduce_prod", one_op(S.reduce_prod, [((3, 4), "i32")], axes=(1,), keepdims=False)),
        ("matmul", one_op(S.matmul, [((2, 3, 4), "f64"), ((2, 4, 5), "f64")])),
        ("slice", one_op(S.slice_, [((5, 6), "f32")], start=(1, 0), stop=(5, 6), step=(2, 3))),
        ("slice-scalar", one_op(S.slice_, [((), "f32")], start=(), stop=(), step=())),
        ("pad", one_op(S.pad, [((2, 3), "f64")], low=(1, 0), high=(0, 2), interior=(1, 2),
                       value=-1.5)),
        ("pad-empty", one_op(S.pad, [((0, 2), "f32")], low=(1, 1), high=(0, 0),
                             interior=(0, 1), value=0.0)),
        ("gather", one_op(S.gather, [((4, 3), "f64"), ((2, 2), "i64")], axis=0)),
        ("scatter_add", one_op(S.scatter_add, [((4, 3), "f64"), ((5,), "i32"),
                                               ((4, 5), "f64")], axis=1)),
        ("gather-two", one_op(S.gather, [((2, 4, 3), "f64"), ((5,), "i64"), ((5,), "i32")],
                              axis=1)),
        ("scatter_add-two", one_op(S.scatter_add, [((4, 3), "f32"), ((2, 2), "i64"),
                                                   ((2, 2), "i64"), ((2, 2), "f32")], axis=0)),
        ("concatenate", one_op(S.concatenate, [((2, 3), "f32"), ((2, 1), "f32")], axis=1)),
        ("argsort", one_op(sorting.argsort, [((4, 3), "f64")], axis=0)),
        ("solve", one_op(linalg.solve, [((2, 3, 3), "f64"), ((2, 3, 2), "f64")])),
        *[(f"triangular_solve-{lower}-{unit}", one_op(linalg.triangular_solve,
                                                     [((3, 3), "f32"), ((3, 2), "f32")],
                                                     lower=lower, unit=unit))
          for lower in (True, False) for unit in (True, False)],
        ("cholesky", one_op(linalg.cholesky, [((2, 3, 3), "f64")])),
        ("slogdet", one_op(linalg.slogdet, [((2, 3, 3), "f32")])),
        ("det", one_op(linalg.det, [((2, 3, 3), "f64")])),
        ("eigh", one_op(linalg.eigh, [((2, 3, 3), "f64")], upper=True)),
        ("svd", one_op(linalg.svd, [((4, 3), "f64")], full_matrices=True)),
        ("qr", one_op(linalg_qr.qr, [((2, 4, 3), "f32")], complete=False)),
        *[(f"lu_factor-{list(shape)}", one_op(linalg_lu.lu_factor, [(shape, "f64")]))
          for shape in [(2, 3, 3), (3, 5), (4, 2), (0, 0)]],
        *[(f"{n}-{dt}", one_op(PRIMITIVES[n], [((3, 4), dt)]))
          for n in ["conj", "real", "imag", "abs", "exp"] for dt in ["c64", "c128"]],
        ("complex", one_op(E.complex_, [((3, 4), "f32"), ((3, 4), "f32")])),
        ("full-complex", one_op(E.full, [], value=1.5 - 2j, shape=(2,), dtype="c128")),
        ("constant-complex", one_op(S.constant, [], value=[1j, -2.5], shape=(2,),
                                    dtype="c64")),
        *[(f"fft-{axes}-{inverse}", one_op(fft.fft, [((3, 4, 5), "c128")], axes=axes,
                                           inverse=inverse))
          for axes in [(), (2,), (0, 2)] for inverse in (False, True)],
        ("rfft", one_op(fft.rfft, [((3, 7), "f32")], axis=1)),
        ("irfft", one_op(fft.irfft, [((3, 4), "c128")], axis=0, n=5)),
        ("eig", one_op(linalg_eig.eig, [((2, 3, 3), "f64")])),
        ("check_index", one_op(S.check_index, [((2, 2), "i64")], **BOUNDS)),
    ]
    return cases


CASES_BY_PRIMITIVE = _cases()


def test_every_primitive_has_a_python_form_and_a_case():
    assert set(RULES) == set(PRIMITIVES)
    covered = {op.prim.name for _, fn in CASES_BY_PRIMITIVE for op in fn.ops}
    assert covered >= set(PRIMITIVES) - {"guard"}  # guards: test_guards_raise_off_the_path


def _inputs(fn):
    arrays = []
    for p in fn.params:
        array = data(p.type.shape, p.type.dtype.name)
        if p.type.dtype.is_int and fn.ops[-1].prim.name in ("gather", "scatter_add",
                                                            "check_index"):
            array = array % 4 - 2  # in range for the indexed axis, negatives included
        if fn.ops[-1].prim.name == "cholesky":  # positive definite
            array = array @ np.swapaxes(array, -1, -2) + 3 * np.eye(3, dtype=array.dtype)
        arrays.append(array)
    return arrays


@pytest.mark.parametrize("fn", [fn for _, fn in CASES_BY_PRIMITIVE],
                         ids=[name for name, _ in CASES_BY_PRIMITIVE])
def test_one_primitive_matches_the_interpreter_exactly(fn):
    arrays = _inputs(fn)
    (want,) = interpret(fn, *arrays)
    (got,) = load(python_source(fn))(*arrays)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_index_checks_raise_the_owning_librarys_error():
    run = load(python_source(one_op(S.check_index, [((3,), "i64")], **BOUNDS)))
    np.testing.assert_array_equal(run(np.array([3, -4, 0]))[0], [3, -4, 0])
    with pytest.raises(IndexError, match=r"^index -5 is out of bounds for axis 0 with size 4$"):
        run(np.array([1, -5, 7]))


def test_fills_become_scalars_of_the_array_dtype():
    """x + 2 in f32 and i32 keeps the dtype (a Python 2.0 next to a numpy scalar would not,
    under numpy 1's promotion); a fill that is a result or only meets fills stays an array."""
    for dt in ["f32", "i32", "f64"]:
        with Builder("f") as b:
            x = b.param(TensorType((), resolve(dt)), "x")
            two = E.full(value=2, shape=(), dtype=dt)
            out = E.add(x, two)
            alone = E.mul(E.full(value=3, shape=(2,), dtype=dt), E.full(value=4, shape=(2,),
                                                                         dtype=dt))
        fn = b.build([out, alone, two])
        arrays = [np.asarray(5, resolve(dt).numpy)]
        got = load(python_source(fn))(*arrays)
        for g, w in zip(got, interpret(fn, *arrays)):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def test_source_is_standalone_readable_and_maps_ops_to_source_lines():
    lowered = gradjit.grad(seed.f).lower(np.ones((2, 2), np.float32))
    source = lowered.python_source(with_source=True)
    tree = ast.parse(source)
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [(a.name, a.asname) for n in imports for a in n.names] == [("numpy", "np")]
    assert "def f_gradient(x):" in source and "return value, d_x" in source
    assert "# examples/seed.py" in source and "y = x + 2" in source
    assert "np.float32(0.75) * add1" in source  # one statement per op, named by its IR number
    assert "seed.py" not in lowered.python_source()
    value, grad = load(source)(np.ones((2, 2), np.float32))
    assert value == 27.0 and grad.dtype == np.float32
    np.testing.assert_array_equal(grad, np.full((2, 2), 4.5, np.float32))


def test_guards_raise_off_the_path():
    def f(a):
        return (a * 3).sum() if a.sum() > 0 else (a * -1).sum()

    lowered = gradjit.grad(f).lower(np.array([1.0, 2.0]))
    run = load(lowered.python_source())
    np.testing.assert_array_equal(run(np.array([1.0, -0.5]))[1], [3.0, 3.0])
    with pytest.raises(RuntimeError, match="leave the path traced"):
        run(np.array([-1.0, -2.0]))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_corpus_python_stage_matches_the_compiled_gradient(case):
    for index in range(len(case.inputs)):
        lowering, program, arrays = lowered(case.name, index)
        want = program(*arrays)
        got = load(lowering.python_source())(*arrays)
        assert len(got) == len(want) == len(lowering.result_names)
        for g, w, name in zip(got, want, lowering.result_names):
            assert g.dtype == w.dtype and g.shape == w.shape, name
            rtol = 1e-5 if g.dtype == np.float32 else 1e-10
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, err_msg=name)
