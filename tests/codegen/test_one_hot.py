"""A scatter-add of one update a row (indices arange(n), labels) compiles to an elementwise
select in the loop over the rows; any other scatter keeps its serial loop. Both equal the
interpreter."""
import numpy as np
import pytest

from gradjit.codegen import compile_function
from gradjit.codegen.fuse import fuse
from gradjit.codegen.rows import KernelGroup, group_rows
from gradjit.ir import PRIMITIVES, Builder, TensorType, interpret
from gradjit.ir import dtype as resolve

from tests.codegen.test_rows import COLS, ROWS, compiled_function, inputs, picked_logsumexp

rng = np.random.default_rng(3)


def scatter_program(shape, axis, first, labels_dtype="i64"):
    """scatter_add(x, first, labels, updates) along `axis`; `first`: 'iota' (the one-per-row
    case) or 'array' (an index array read at run time)."""
    n = shape[axis]
    updates_shape = shape[:axis] + (n,) + shape[axis + 2:]
    with Builder("scatter") as b:
        x = b.param(TensorType(shape, resolve("f32")), "x")
        rows = b.param(TensorType((n,), resolve("i64")), "rows")
        labels = b.param(TensorType((n,), resolve(labels_dtype)), "labels")
        updates = b.param(TensorType(updates_shape, resolve("f32")), "updates")
        if first == "iota":
            rows = PRIMITIVES["iota"](shape=(n,), dtype="i64", axis=0)
        out = PRIMITIVES["scatter_add"](x, rows, labels, updates, axis=axis)
    return b.build([out]), updates_shape


def scatter_kinds(program) -> list[str]:
    return [o.kind for k in program.kernels for o in k.outputs if o.kind == "scatter_add"]


@pytest.mark.parametrize("shape, axis", [((6, 5), 0), ((3, 4, 5), 1), ((4, 5, 3), 0)])
@pytest.mark.parametrize("labels_dtype", ["i64", "i32"])
def test_one_update_a_row_is_a_select_equal_to_the_interpreter(shape, axis, labels_dtype):
    fn, updates_shape = scatter_program(shape, axis, "iota", labels_dtype)
    n, m = shape[axis], shape[axis + 1]
    x = rng.standard_normal(shape).astype(np.float32)
    labels = rng.integers(-m, m, n).astype(resolve(labels_dtype).numpy)  # negatives wrap
    updates = rng.standard_normal(updates_shape).astype(np.float32)
    args = (x, np.arange(n), labels, updates)
    program = compile_function(fn)
    assert not scatter_kinds(program)
    (got,), (want,) = program(*args), interpret(fn, *args)
    np.testing.assert_array_equal(got, want)


def test_index_arrays_read_at_run_time_keep_the_scatter_and_add_repeated_indices():
    fn, updates_shape = scatter_program((4, 3), 0, "array")
    x = np.zeros((4, 3), np.float32)
    rows, labels = np.array([1, 1, -1, 0]), np.array([2, 2, 0, 2])
    updates = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    program = compile_function(fn)
    assert scatter_kinds(program) == ["scatter_add"]
    (got,), (want,) = program(x, rows, labels, updates), interpret(fn, x, rows, labels, updates)
    np.testing.assert_array_equal(got, want)
    assert got[1, 2] == 3.0 and got[3, 0] == 4.0


def test_picked_logits_gradient_reads_the_rows_in_one_group_of_three_passes():
    """The tutorial's cross-entropy: the row max, the exp and its sum, and the gradient with
    the labels' terms are the only loops over the logits, chunk by chunk in one group."""
    args = inputs(picked_logsumexp)
    ir_fn = compiled_function(picked_logsumexp, args)
    program = group_rows(fuse(ir_fn))
    groups = [s for s in program.steps if isinstance(s, KernelGroup)]
    assert len(groups) == 1
    passes = [k for k in program.kernels if k.extents == (ROWS, COLS)]
    assert len(passes) == 3 and all(k in groups[0].kernels for k in passes)
    assert not scatter_kinds(program)
    for got, want in zip(compile_function(ir_fn)(*args), interpret(ir_fn, *args)):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)


def test_updates_read_through_a_transposed_view_equal_the_interpreter():
    shape = (4, 5, 3)
    with Builder("scatter_transposed") as b:
        x = b.param(TensorType(shape, resolve("f32")), "x")
        labels = b.param(TensorType((4,), resolve("i64")), "labels")
        stored = b.param(TensorType((3, 4), resolve("f32")), "stored")
        rows = PRIMITIVES["iota"](shape=(4,), dtype="i64", axis=0)
        updates = PRIMITIVES["transpose"](stored, perm=(1, 0))
        out = PRIMITIVES["scatter_add"](x, rows, labels, updates, axis=0)
    fn = b.build([out])
    args = (rng.standard_normal(shape).astype(np.float32), np.array([4, -1, 0, 2]),
            rng.standard_normal((3, 4)).astype(np.float32))
    program = compile_function(fn)
    assert not scatter_kinds(program)
    (got,), (want,) = program(*args), interpret(fn, *args)
    np.testing.assert_array_equal(got, want)
