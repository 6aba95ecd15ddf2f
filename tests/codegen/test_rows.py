"""Row groups: kernels over the same rows run chunk by chunk only when each reads just the
rows the others write; grouped programs equal the interpreter at any thread count."""
import numpy as np
import pytest

import gradjit
from gradjit import ops as G
from gradjit.codegen import compile_function, set_num_threads
from gradjit.codegen.fuse import fuse
from gradjit.codegen.rows import CHUNK_BYTES, KernelGroup, group_rows
from gradjit.ir import interpret

ROWS, COLS = 300, 400  # large enough to be cut into chunks


def softmax_xent(z, onehot):
    return -np.sum(G.log_softmax(z, -1) * onehot) / z.shape[0]


def picked_logsumexp(z, labels):
    return np.mean(G.logsumexp(z, 1) - z[np.arange(z.shape[0]), labels])


def layer_norm(x):
    mu = np.mean(x, axis=1, keepdims=True)
    centered = x - mu
    return np.sum(np.tanh(centered / np.sqrt(np.mean(centered ** 2, axis=1, keepdims=True))))


def column_centered(x):
    return np.sum((x - np.mean(x, axis=0)) ** 2 * x)


def row_then_transposed(x):
    return np.sum(np.exp(x - np.max(x, axis=1, keepdims=True)).T[:, :ROWS // 2] * 2.0)


def inputs(fn):
    rng = np.random.default_rng(7)
    z = rng.standard_normal((ROWS, COLS)).astype(np.float32)
    if fn is softmax_xent:
        return z, np.eye(COLS, dtype=np.float32)[rng.integers(0, COLS, ROWS)]
    if fn is picked_logsumexp:
        return z, rng.integers(0, COLS, ROWS)
    return (z,)


def compiled_function(fn, args):
    traced = gradjit.value_and_grad(fn, backend="interpreter")
    return traced.ir(*args)


@pytest.mark.parametrize("fn, grouped", [(softmax_xent, True), (picked_logsumexp, True),
                                         (layer_norm, True),
                                         (column_centered, False),
                                         (row_then_transposed, None)])
def test_grouped_programs_equal_the_interpreter_at_any_thread_count(fn, grouped):
    args = inputs(fn)
    ir_fn = compiled_function(fn, args)
    program = compile_function(ir_fn)
    has_group = "group @" in program.text
    if grouped is not None:
        assert has_group == grouped
    expected = interpret(ir_fn, *args)
    results = []
    for threads in (1, 2):
        set_num_threads(threads)
        try:
            results.append(program(*args))
        finally:
            set_num_threads(2)
    for got in results:
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-5)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_a_group_covers_only_consecutive_row_kernels():
    args = inputs(softmax_xent)
    program = group_rows(fuse(compiled_function(softmax_xent, args)))
    groups = [s for s in program.steps if isinstance(s, KernelGroup)]
    assert len(groups) == 1
    (group,) = groups
    assert len(group.kernels) >= 3
    assert all(k.extents[0] == ROWS and (k.chunk_rows, k.n_chunks)
               == (group.chunk_rows, group.n_chunks) for k in group.kernels)


@pytest.mark.parametrize("fn", [picked_logsumexp, softmax_xent])
def test_a_group_takes_chunks_that_stay_in_cache(fn):
    args = inputs(fn)
    program = group_rows(fuse(compiled_function(fn, args)))
    (group,) = [s for s in program.steps if isinstance(s, KernelGroup)]
    sizes = [program.buffers[b].size for b in group.buffers() if program.buffers[b].size >= ROWS]
    row_bytes = sum(4 * size // ROWS for size in sizes)  # float32 rows of matrices and vectors
    assert sizes.count(ROWS * COLS) >= 2
    assert group.chunk_rows == CHUNK_BYTES // row_bytes
    assert group.n_chunks == -(-ROWS // group.chunk_rows)


def test_a_sum_over_a_groups_chunks_keeps_one_partial_per_chunk():
    args = inputs(softmax_xent)
    program = group_rows(fuse(compiled_function(softmax_xent, args)))
    (group,) = [s for s in program.steps if isinstance(s, KernelGroup)]
    partials = {o.access.buffer for k in group.kernels for o in k.outputs if o.access.chunk_stride}
    assert len(partials) == 1
    (partial,) = partials
    assert program.buffers[partial].size == group.n_chunks
    (fold,) = [k for k in program.kernels if any(i.op == "load" and i.attrs.buffer == partial
                                                  for i in k.body)]
    assert fold.extents == (group.n_chunks,)
