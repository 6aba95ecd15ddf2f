"""Group scratch and streamed results: a row group's own temporaries live in per-thread
scratch, a large result it writes once is stored past the cache; results equal numpy's at any
thread count and for output arrays of any alignment."""
import numpy as np
import pytest

import gradjit
from gradjit import ops as G
from gradjit.codegen import compile_function, set_num_threads
from gradjit.codegen.fuse import fuse
from gradjit.codegen.inplace import store_into_results
from gradjit.codegen.rows import KernelGroup, group_rows
from gradjit.codegen.scratch import STREAM_MIN_BYTES, contract_temporaries
from gradjit.ir import interpret


def picked_logsumexp(z, labels):
    return np.mean(G.logsumexp(z, 1) - z[np.arange(z.shape[0]), labels])


def gradient_by_hand(z, labels):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    out = e / e.sum(axis=1, keepdims=True)
    out[np.arange(z.shape[0]), labels] -= 1
    return out / z.shape[0]


def inputs(rows, cols):
    rng = np.random.default_rng(rows)
    return rng.standard_normal((rows, cols)).astype(np.float32), rng.integers(0, cols, rows)


def compiled(args):
    ir_fn = gradjit.value_and_grad(picked_logsumexp, backend="interpreter").ir(*args)
    return ir_fn, compile_function(ir_fn)


def group_of(program):
    (group,) = [s for s in program.steps if isinstance(s, KernelGroup)]
    return group


def test_a_groups_own_temporaries_become_scratch_and_others_stay():
    args = inputs(300, 400)
    ir_fn, program = compiled(args)
    text = program.text
    assert "scratch=b" in text and "stream=b" not in text  # 480 KB: below STREAM_MIN_BYTES
    grouped = store_into_results(group_rows(fuse(ir_fn)))
    contracted = contract_temporaries(grouped)
    group = group_of(contracted)
    outside = set().union(*(s.buffers() for s in contracted.steps if s is not group))
    assert group.scratch and not set(group.scratch) & outside
    assert all(contracted.buffers[b].kind == "temp" for b in group.scratch)
    for b, row_bytes in group.scratch.items():
        assert contracted.buffers[b].nbytes == group.chunk_rows * row_bytes
    expected = interpret(ir_fn, *args)
    for threads in (1, 2):
        set_num_threads(threads)
        try:
            got = program(*args)
        finally:
            set_num_threads(2)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("shift", [0, 4, 1])  # bytes past a 64-byte boundary
def test_a_large_result_streams_into_arrays_of_any_alignment(shift):
    rows, cols = 4201, 1001  # rows of any alignment
    args = inputs(rows, cols)
    assert rows * cols * 4 >= STREAM_MIN_BYTES
    _, program = compiled(args)
    assert "stream=b" in program.text
    memory = np.empty(rows * cols * 4 + 128, np.uint8)
    start = -memory.ctypes.data % 64 + shift
    gradient = memory[start:start + rows * cols * 4].view(np.float32).reshape(rows, cols)
    value = np.empty((), np.float32)
    program(*args, out=[value, gradient])
    np.testing.assert_allclose(gradient, gradient_by_hand(*args), rtol=1e-5, atol=1e-9)
    np.testing.assert_array_equal(gradient, program(*args)[1])
