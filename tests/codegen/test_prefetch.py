"""Row groups prefetch: the kernel holding a transcendental asks for the next chunk's rows of
the large arrays the group only reads; the results stay the interpreter's at any thread count."""
import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function, set_num_threads
from gradjit.codegen.fuse import fuse
from gradjit.codegen.prefetch import PREFETCH_BYTES, prefetch_rows
from gradjit.codegen.rows import KernelGroup, group_rows
from gradjit.ir import interpret

from tests.codegen.test_rows import picked_logsumexp, softmax_xent

ROWS, COLS = 700, 500  # 1.4 MB of float32 logits: past PREFETCH_BYTES


def centered_square(x):
    return np.sum((x - np.mean(x, axis=1, keepdims=True)) ** 2 * x)


def inputs(fn, rows=ROWS, cols=COLS):
    rng = np.random.default_rng(11)
    z = rng.standard_normal((rows, cols)).astype(np.float32)
    if fn is softmax_xent:
        return z, np.eye(cols, dtype=np.float32)[rng.integers(0, cols, rows)]
    if fn is picked_logsumexp:
        return z, rng.integers(-cols, cols, rows)
    return (z,)


def planned(fn, args):
    ir_fn = gradjit.value_and_grad(fn, backend="interpreter").ir(*args)
    return ir_fn, prefetch_rows(group_rows(fuse(ir_fn)))


def test_the_exp_pass_prefetches_the_logits_one_chunk_ahead():
    args = inputs(picked_logsumexp)
    _, program = planned(picked_logsumexp, args)
    (group,) = [s for s in program.steps if isinstance(s, KernelGroup)]
    fetching = [k for k in group.kernels if k.prefetch]
    assert len(fetching) == 1 and any(i.op == "exp" for i in fetching[0].body)
    (ahead,) = fetching[0].prefetch
    logits = next(b.id for b in program.buffers if b.kind == "param" and b.index == 0)
    assert ahead.attrs.buffer == logits and ahead.attrs.strides == (COLS, 1)
    assert ahead.attrs.offset == group.chunk_rows * COLS


def test_both_arrays_a_softmax_gradient_reads_are_prefetched():
    args = inputs(softmax_xent)
    _, program = planned(softmax_xent, args)
    ahead = [p.attrs.buffer for k in program.kernels for p in k.prefetch]
    params = sorted(b.id for b in program.buffers if b.kind == "param")
    assert sorted(ahead) == params


@pytest.mark.parametrize("fn, shape", [(centered_square, (ROWS, COLS)),
                                       (picked_logsumexp, (300, 400))])
def test_groups_without_transcendentals_or_large_arrays_prefetch_nothing(fn, shape):
    args = inputs(fn, *shape)
    assert args[0].nbytes < PREFETCH_BYTES or fn is centered_square
    _, program = planned(fn, args)
    assert [s for s in program.steps if isinstance(s, KernelGroup)]
    assert not [p for k in program.kernels for p in k.prefetch]


@pytest.mark.parametrize("fn", [picked_logsumexp, softmax_xent])
def test_prefetching_programs_equal_the_interpreter_at_any_thread_count(fn):
    """The last chunk prefetches past the arrays' end: a no-op, never a fault."""
    args = inputs(fn)
    ir_fn, _ = planned(fn, args)
    program = compile_function(ir_fn)
    assert "prefetch" in program.text
    results = []
    for threads in (1, 2):
        set_num_threads(threads)
        try:
            results.append(program(*args))
        finally:
            set_num_threads(2)
    for got, want in zip(results[0], interpret(ir_fn, *args)):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
