"""One case per user-facing error that no other test triggers: the error type and its message.
docs/errors.md lists every error with the test that triggers it (test_errors_table.py checks
the list against the source)."""
import operator
import re

import numpy as np
import pytest

import gradjit
from gradjit import ops as G
from gradjit.ir import Function, Op, TensorType, Value, interpret, parse, verify
from gradjit.ir import elementwise as E
from gradjit.ir import sorting
from gradjit.ir import integer as I
from gradjit.ir import structural as S
from gradjit.ir.autodiff import differentiate
from gradjit.ir.primitive import PRIMITIVES, ShapeError, register
from gradjit.ir.text import print_function
from gradjit.ir.types import bool_, float64

X = np.ones((2, 3))
OUTSIDE = np.empty((2, 3))  # an array made outside the traced functions: numpy's own
V = Value(TensorType((2,), float64))
B = Value(TensorType((), bool_))


def jit(f, *args):
    return gradjit.jit(f)(*args)


def leak_bool():
    """bool() of a 0-d bool traced value kept past the end of its trace."""
    kept = []
    jit(lambda x: kept.append(x > 0) or x, np.float64(1.0))
    return bool(kept[0])


def leak_and_add():
    kept = []
    jit(lambda x: kept.append(x) or x, np.ones(2))
    return kept[0] + 1


def into_while_tracing():
    g = gradjit.grad(lambda x: np.sum(x * x))
    out = np.empty(2)
    return jit(lambda x: g.into(out, x), np.ones(2))


def fn(text):
    return parse(f"func @f(%x: f64[2]) -> (f64[2]) {{\n{text}\n}}")


CASES = {
    # ---- the IR: shape rules (ShapeError), builder, verifier, interpreter, text ----
    "needs-numbers": (lambda: E.neg(np.array([True])), ShapeError, "needs numbers, not bool"),
    "needs-bools": (lambda: E.logical_and(X, X), ShapeError, "needs bool operands, not f64"),
    "fill-value": (lambda: E.full(value="a", shape=(), dtype="f64"), ShapeError,
                   "a fill value is a number"),
    "where-condition-dtype": (lambda: E.where(X, X, X), ShapeError, "condition must be bool"),
    "where-condition-shape": (lambda: E.where(np.ones(2, bool), X, X), ShapeError,
                              r"condition shape \(2,\) and value shape \(2, 3\) differ"),
    "axes-sorted": (lambda: S.reduce_sum(X, axes=(1, 0), keepdims=False), ShapeError,
                    "must be sorted and distinct"),
    "reshape-target": (lambda: S.reshape(X, shape=(-1,)), ShapeError, "bad target shape"),
    "perm": (lambda: S.transpose(X, perm=(0, 0)), ShapeError, "is no permutation"),
    "matmul-rank": (lambda: S.matmul(np.ones(3), np.ones(3)), ShapeError,
                    "need equal rank >= 2"),
    "matmul-batch": (lambda: S.matmul(np.ones((2, 2, 2)), np.ones((3, 2, 2))), ShapeError,
                     r"batch dims \(2,\) and \(3,\) differ"),
    "matmul-dtypes": (lambda: S.matmul(X, np.ones((3, 2), np.float32)), ShapeError,
                      "dtypes f64 and f32"),
    "slice-entries": (lambda: S.slice_(X, start=(0,), stop=(1,), step=(1,)), ShapeError,
                      "start/stop/step need one entry per axis"),
    "slice-fit": (lambda: S.slice_(X, start=(0, 0), stop=(3, 3), step=(1, 1)), ShapeError,
                  "does not fit an axis of length 2"),
    "pad-entries": (lambda: S.pad(X, low=(0,), high=(0,), interior=(0,), value=0.0),
                    ShapeError, "low/high/interior need one entry per axis"),
    "pad-negative": (lambda: S.pad(X, low=(-1, 0), high=(0, 0), interior=(0, 0), value=0.0),
                     ShapeError, "padding amounts must be >= 0"),
    "gather-axis": (lambda: S.gather(X, np.zeros(1, np.int64), axis=2), ShapeError,
                    "axis 2 out of range for rank 2"),
    "argsort-axis": (lambda: sorting.argsort(X, axis=2), ShapeError,
                     "axis 2 out of range for rank 2"),
    "gather-no-index": (lambda: S.gather(X, axis=0), ShapeError,
                        "needs at least one index array"),
    "gather-index-shapes": (lambda: S.gather(X, np.zeros(2, np.int64), np.zeros(3, np.int64),
                                             axis=0), ShapeError,
                            r"index arrays need one shape: \(2,\), \(3,\)"),
    "scatter-no-updates": (lambda: S.scatter_add(X, np.zeros(1, np.int64), axis=0),
                           ShapeError, "needs index arrays and the updates"),
    "gather-index-dtype": (lambda: S.gather(X, np.zeros(1), axis=0), ShapeError,
                           "indices must be integers, not f64"),
    "scatter-updates": (lambda: S.scatter_add(X, np.zeros(1, np.int64), np.ones(3), axis=0),
                        ShapeError, "updates must be f64"),
    "concat-empty": (lambda: S.concatenate(axis=0), ShapeError,
                     "concatenate takes one or more operands, not 0"),
    "concat-axis": (lambda: S.concatenate(X, X, axis=2), ShapeError,
                    "axis 2 out of range for rank 2"),
    "concat-dtypes": (lambda: S.concatenate(X, X.astype(np.float32), axis=0), ShapeError,
                      "dtypes f64 and f32 differ"),
    "iota-axis": (lambda: S.iota(shape=(2,), dtype="i64", axis=1), ShapeError,
                  r"axis 1 out of range for shape \(2,\)"),
    "constant-shape": (lambda: S.constant(value=[1.0], shape=(2,), dtype="f64"), ShapeError,
                       r"value of shape \(1,\) declared \(2,\)"),
    "guard-predicate": (lambda: S.guard(X, expected=True, site="here"), ShapeError,
                        "a guard tests a bool\\[\\] scalar"),
    "shape-type": (lambda: TensorType((-1,), float64), ValueError,
                   "a shape holds non-negative integers"),
    "primitive-twice": (lambda: register(PRIMITIVES["add"]), ValueError,
                        "primitive add is defined twice"),
    "builder-outside": (lambda: E.neg(V), RuntimeError,
                        "IR values were used outside of a `with Builder\\(\\):` block"),
    "wrt-out-of-range": (lambda: differentiate(
        parse("func @f(%x: f64[]) -> (f64[]) {\n  return %x\n}"), [1]),
        TypeError, "@f has 1 parameters, not 2"),
    "interpret-count": (lambda: interpret(fn("  return %x"), X, X), TypeError,
                        "@f takes 1 arguments, got 2"),
    "interpret-type": (lambda: interpret(fn("  return %x"), np.ones(3)), TypeError,
                       r"argument %x must be f64\[2\], got float64\[3\]"),
    "print-param": (lambda: print_function(Function("f", [V], [Op(E.cast, [V], {
        "dtype": object()}, Value(TensorType((2,), float64)))], [V])), TypeError,
        "cannot print the param value"),
    "parse-param-value": (lambda: fn("  %0 = cast(%x) {dtype=} : f64[2]\n  return %0"),
                          ValueError, "expected a param value"),
    "parse-unnamed-result": (lambda: fn("  neg(%x) : f64[2]\n  return %x"), ValueError,
                             "neg has a result; name it"),
    "verify-param-twice": (lambda: verify(Function("f", [V, V], [], [V])), ValueError,
                           "appears twice"),
    "verify-effect-result": (lambda: verify(Function("f", [B], [Op(
        S.guard, [B], {"expected": True, "site": "s"}, V)], [V])), ValueError,
        "result present/absent against the shape rule"),
    # ---- the array surface (gradjit.ops), eagerly and traced ----
    "repeated-axis": (lambda: G.sum_(X, (0, 0)), ValueError, r"repeated axis in \(0, 0\)"),
    "mean-of-integers": (lambda: G.mean(gradjit.tensor([1, 2])), TypeError,
                         "mean\\(\\): could not infer output dtype"),
    "max-over-empty": (lambda: G.amax(np.zeros((0, 2)), 0), ValueError,
                       "max\\(\\): cannot reduce an empty axis"),
    "reshape-two-unknown": (lambda: G.reshape(X, (-1, -1)), ValueError,
                            "only one dimension can be inferred"),
    "transpose-axes": (lambda: G.transpose(X, (0, 0)), ValueError,
                       r"axes \(0, 0\) do not permute the 2 dimensions"),
    "expand-dims": (lambda: G.expand_dims(X, 5), np.exceptions.AxisError,
                    "axis 5 is out of bounds for array of dimension 3"),
    "concatenate-nothing": (lambda: G.concatenate([], 0), ValueError,
                            "need at least one array to concatenate"),
    "concatenate-scalars": (lambda: G.concatenate([np.float64(1.0)], 0), ValueError,
                            "zero-dimensional arrays cannot be concatenated"),
    "stack-nothing": (lambda: G.stack([], 0), ValueError, "need at least one array to stack"),
    "matmul-scalar": (lambda: G.matmul(np.float64(2.0), X), ShapeError,
                      "both operands need at least one dimension"),
    "two-ellipses": (lambda: G.getitem(X, (Ellipsis, Ellipsis)), IndexError,
                     "an index can only have a single ellipsis"),
    "index-shapes": (lambda: jit(lambda x, i, j: x[i, j], X, np.zeros(2, np.int64),
                                 np.zeros(3, np.int64)), IndexError,
                     r"shape mismatch: indexing arrays could not be broadcast together with "
                     r"shapes \(2,\) \(3,\)"),
    "float-index-array": (lambda: jit(lambda x, i: x[i, np.array([0.5])], X,
                                      np.zeros(1, np.int64)), IndexError,
                          r"arrays used as indices must be of integer \(or boolean\) type"),
    # ---- tracing: conversions, numpy dispatch, escaped values, stages ----
    "traced-len": (lambda: jit(lambda x: len(x), np.float64(1.0)), TypeError,
                   "len\\(\\) of unsized object"),
    "traced-invert": (lambda: jit(lambda x: ~x, X), TypeError,
                      "invert is only defined for integer and bool operands, not float64"),
    "bool-floor-divide": (lambda: jit(lambda x: (x > 0) // (x > 1), X), TypeError,
                          "floor_divide of two bool operands gives int8"),
    "needs-integers": (lambda: I.trunc_div(X, X), ShapeError, "needs integer operands, not f64"),
    "needs-integers-or-bools": (lambda: I.bitwise_or(X, X), ShapeError,
                                "needs integer or bool operands, not f64"),
    "python-int-out-of-bounds": (lambda: jit(lambda x: x.astype(np.int32) + 2**40, X),
                                 OverflowError, "Python integer 1099511627776 out of bounds "
                                 "for int32"),
    "traced-float-index": (lambda: jit(lambda x: operator.index(x), np.float64(1.0)),
                           TypeError, "only integer arrays can be used as an index"),
    "ufunc-out": (lambda: jit(lambda x: np.add(x, x, out=OUTSIDE), X), TypeError,
                  "np.add: the destination is a numpy array"),
    "where-one-branch": (lambda: jit(lambda x: np.where(x > 0, x), X), ValueError,
                         "either both or neither of x and y should be given"),
    "escaped-value": (leak_and_add, gradjit.tracer.TraceError,
                      "a traced value was used after its function returned"),
    "escaped-bool": (leak_bool, gradjit.tracer.TraceError,
                     "a traced value was used after its function returned"),
    "primitive-shape-in-trace": (lambda: jit(lambda x: E.add(x, np.ones(4)), X), ShapeError,
                                 r"(?s)add\(f64\[2,3\], f64\[4\]\).*\n  at .*test_errors\.py"),
    "into-while-tracing": (into_while_tracing, TypeError,
                           "into\\(\\) runs compiled code, so it cannot be called"),
    "unknown-stage": (lambda: gradjit.grad(lambda x: np.sum(x)).ir(X, stage="parsed"),
                      ValueError, "stage 'parsed' is not one of traced, differentiated"),
    # ---- eager tensors (PyTorch's messages) ----
    "autograd-grad-count": (lambda: gradjit.autograd.grad(
        [gradjit.ones(1, requires_grad=True) * 2] * 2, [gradjit.ones(1)],
        grad_outputs=[gradjit.ones(1)]), RuntimeError, "got 2 tensors and 1 gradients"),
    "negate-bool": (lambda: -gradjit.tensor([True]), RuntimeError,
                    "Negation, the `-` operator, on a bool tensor is not supported"),
    "invert-float": (lambda: ~gradjit.tensor([1.5]), TypeError,
                     "only implemented on integer and Boolean-type tensors"),
    "bitwise-float": (lambda: gradjit.tensor([1.5]) | 1, NotImplementedError,
                      "\"bitwise_or_cpu\" not implemented for 'Float'"),
    "integer-division-by-zero": (lambda: gradjit.tensor([1]) // 0, RuntimeError,
                                 "ZeroDivisionError"),
    "rounding-mode": (lambda: gradjit.ones(2).div(2, rounding_mode="up"), RuntimeError,
                      "div expected rounding_mode to be one of"),
    "clamp-nothing": (lambda: gradjit.ones(2).clamp(), RuntimeError,
                      "At least one of 'min' or 'max' must not be None"),
    "dot-1d": (lambda: gradjit.ones(2, 2).dot(gradjit.ones(2)), RuntimeError,
               "1D tensors expected, but got 2D and 1D tensors"),
    "dot-dtypes": (lambda: gradjit.ones(2).dot(gradjit.ones(2, dtype=gradjit.float64)),
                   RuntimeError, "dot : expected both vectors to have same dtype"),
    "mm-vector": (lambda: gradjit.ones(2).mm(gradjit.ones(2, 2)), RuntimeError,
                  "must be a matrix"),
    "assign-grad": (lambda: setattr(gradjit.ones(2, requires_grad=True), "grad",
                                    gradjit.ones(3)), RuntimeError,
                    "attempting to assign a gradient of size"),
    "detach-view": (lambda: (gradjit.ones(2, 2, requires_grad=True) * 1)[0].detach_(),
                    RuntimeError,
                    "Can't detach views in-place"),
    "float-index": (lambda: operator.index(gradjit.tensor(1.5)), TypeError,
                    "only integer tensors of a single element can be converted to an index"),
    "len-0d": (lambda: len(gradjit.tensor(1.0)), TypeError, "len\\(\\) of a 0-d tensor"),
    "iter-0d": (lambda: iter(gradjit.tensor(1.0)), TypeError, "iteration over a 0-d tensor"),
    "retain-grad": (lambda: gradjit.ones(2).retain_grad(), RuntimeError,
                    "can't retain_grad on Tensor that has requires_grad=False"),
    "device-string": (lambda: gradjit.device("cuda:x"), RuntimeError,
                      "Invalid device string: 'cuda:x'"),
    "infer-dtype": (lambda: gradjit.tensor(object()), RuntimeError, "Could not infer dtype of"),
    "infer-dtype-nested": (lambda: gradjit.tensor([object()]), RuntimeError,
                           "Could not infer dtype of"),
    "arange-step": (lambda: gradjit.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    "rand-dtype": (lambda: gradjit.rand(2, dtype=gradjit.int64), RuntimeError,
                   "expected a floating point dtype for random values"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error(case):
    trigger, kind, message = CASES[case]
    with pytest.raises(kind, match=message):
        trigger()


def test_every_case_is_named_in_the_error_table():
    from tests.reliability.test_errors_table import table_rows
    named = {re.search(r"test_error\[(.*)\]", test).group(1)
             for row in table_rows() for test in row.tests if "test_error[" in test}
    assert named == set(CASES)


# ---- errors that need a file, a stand-in program or a fake device ----

SOURCE = "import numpy as np\nK = 3\n\ndef loss(x, y):\n    return np.sum(x * y)\n"


@pytest.mark.parametrize("argv, message", [
    (["{file}:loss", "--arg", "f64[2]"], r"loss\(x, y\) needs one --arg per positional"),
    (["{file}:loss", "--argnums", "x"], "--argnums 'x' should be argument positions"),
    (["{file}"], "should be FILE.py:FUNCTION"),
    (["missing.py:loss"], "missing.py: no such file"),
    (["{file}:K"], "is a int, not a function"),
    (["{file}:lost"], "defines no 'lost'; its functions: loss"),
    (["{file}:loss", "--arg", "q16[2]", "--arg", "f64[2]"], "--arg 'q16\\[2\\]': gradjit has no"),
    (["{file}:loss", "--arg", "1 +", "--arg", "f64[2]"],
     "--arg '1 \\+' is neither a type such as f32\\[2,2\\] nor a Python expression"),
])
def test_dump_command_errors(tmp_path, capsys, argv, message):
    from gradjit.cli import main
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    assert main(["dump"] + [a.format(file=path) for a in argv]) == 1
    assert re.search(message, capsys.readouterr().err)


def test_lower_takes_a_function_and_ptx_needs_the_target(monkeypatch):
    import sys
    with pytest.raises(TypeError, match="lower\\(\\) takes a function, not int"):
        gradjit.lower(5)
    lowered = gradjit.lower(lambda x: np.sum(x * x), np.ones(2))
    monkeypatch.setitem(sys.modules, "gradjit.codegen.ptx", None)
    with pytest.raises(RuntimeError, match="the PTX target cannot be loaded here"):
        assert lowered.ptx is None


def test_graphviz_failures_are_reported(monkeypatch, tmp_path):
    from gradjit.dump import graph
    failing = tmp_path / "dot"
    failing.write_text("#!/bin/sh\necho 'syntax error in line 1' >&2\nexit 1\n")
    failing.chmod(0o755)
    monkeypatch.setattr(graph.shutil, "which", lambda name: str(failing))
    with pytest.raises(RuntimeError, match="dot failed: syntax error in line 1"):
        graph.render_svg("digraph {")


def test_ptxas_missing_or_failing(monkeypatch, tmp_path):
    from gradjit.codegen.ptx import ptxas
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_70\nnot ptx\n")
    if ptxas.ptxas_for("sm_70") is not None:
        with pytest.raises(RuntimeError, match="ptxas -arch=sm_70 failed"):
            ptxas.assemble([bad], "sm_70", tmp_path / "out.cubin")
    monkeypatch.setattr(ptxas, "ptxas_for", lambda arch: None)
    with pytest.raises(FileNotFoundError, match="no ptxas for sm_70"):
        ptxas.assemble([bad], "sm_70", tmp_path / "out.cubin")


def test_a_driver_without_devices_is_unavailable(monkeypatch):
    from gradjit.runtime import cuda_driver

    class NoDevices:
        def device_count(self):
            return 0
    monkeypatch.setattr(cuda_driver, "driver", lambda: NoDevices())
    with pytest.raises(cuda_driver.CudaUnavailable, match="the NVIDIA driver reports no GPU"):
        cuda_driver.default_device.__wrapped__()


def test_debug_nans_reports_compiled_nan_the_interpreter_does_not_make():
    from gradjit.debug import NanError, check_nans

    class Entry:
        stages = {"traced": parse("func @f(%x: f64[2]) -> (f64[2]) {\n  return %x\n}")}
    with pytest.raises(NanError, match="this is a gradjit bug"):
        check_nans(Entry(), [np.ones(2)], [np.array([1.0, np.nan])])


def test_lowering_a_number_from_sympy_needs_a_type():
    import sympy

    from gradjit.ir.symbolic_lower import from_sympy
    with pytest.raises(ValueError, match="numbers need a type"):
        from_sympy([sympy.Integer(2)], None, {})
