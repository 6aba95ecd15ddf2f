"""Calling a compiled program: argument checks before native code, out= buffers, layouts
of the caller's arrays, the thread count setting."""
import os
import queue
import threading
import time

import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function, set_num_threads
from gradjit.ir import parse
from gradjit.runtime import threads

FN = """func @f(%x: f32[4,3], %y: f32[3]) -> (f32[4,3], f32[]) {
  %0 = broadcast_to(%y) {shape=[4,3]} : f32[4,3]
  %1 = mul(%x, %0) : f32[4,3]
  %2 = reduce_sum(%1) {axes=[0,1], keepdims=false} : f32[]
  return %1, %2
}"""


@pytest.fixture(scope="module")
def program():
    return compile_function(parse(FN))


def args():
    rng = np.random.default_rng(1)
    return rng.random((4, 3), np.float32), rng.random(3, np.float32)


def test_results_are_fresh_arrays(program):
    x, y = args()
    prod, total = program(x, y)
    np.testing.assert_array_equal(prod, x * y)
    np.testing.assert_allclose(total, (x * y).sum(), rtol=1e-6)
    assert prod.flags.owndata and total.flags.owndata


@pytest.mark.parametrize("bad,message", [
    ((np.zeros((4, 3)), np.zeros(3, np.float32)), "%x must be f32\\[4,3\\], got float64"),
    ((np.zeros((3, 4), np.float32), np.zeros(3, np.float32)), "%x must be f32\\[4,3\\]"),
    ((np.zeros((4, 3), np.float32), np.zeros(4, np.float32)), "%y must be f32\\[3\\]"),
    ((np.zeros((4, 3), np.float32),), "takes 2 arguments, got 1"),
])
def test_bad_arguments_raise_type_errors_naming_the_parameter(program, bad, message):
    with pytest.raises(TypeError, match=message):
        program(*bad)


def test_non_contiguous_and_list_arguments(program):
    x, y = args()
    xt = np.asfortranarray(x)
    y_strided = np.repeat(y, 2)[::2]
    prod, _ = program(xt, y_strided)
    np.testing.assert_array_equal(prod, x * y)
    with pytest.raises(TypeError, match="got float64"):  # as the interpreter: no casting
        program(x.tolist(), y)


def test_out_buffers_are_filled_and_returned(program):
    x, y = args()
    out = [np.empty((4, 3), np.float32), np.empty((), np.float32)]
    got = program(x, y, out=out)
    assert got[0] is out[0] and got[1] is out[1]
    np.testing.assert_array_equal(out[0], x * y)


@pytest.mark.parametrize("out,error", [
    ([np.empty((4, 3), np.float64), np.empty((), np.float32)], TypeError),
    ([np.empty((3, 4), np.float32).T, np.empty((), np.float32)], TypeError),
    ([np.empty((4, 3), np.float32)], TypeError),
])
def test_bad_out_buffers_are_rejected(program, out, error):
    with pytest.raises(error):
        program(*args(), out=out)


def test_an_out_buffer_may_not_overlap_an_argument(program):
    x, y = args()
    with pytest.raises(ValueError, match="overlaps"):
        program(x, y, out=[x, np.empty((), np.float32)])


def test_thread_count_must_be_positive():
    with pytest.raises(ValueError):
        set_num_threads(0)


def test_concurrent_calls_do_not_share_scratch_memory(program):
    from concurrent.futures import ThreadPoolExecutor
    fn = parse(FN.replace("[4,3]", "[400,300]").replace("f32[3]", "f32[300]")
               .replace("shape=[400,300]", "shape=[400,300]"))
    big = compile_function(fn)
    rng = np.random.default_rng(2)
    inputs = [(rng.random((400, 300), np.float32), rng.random(300, np.float32))
              for _ in range(8)]
    expected = [big(*a)[0] for a in inputs]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda a: big(*a)[0], inputs))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("backend", ["cpu", "cuda-emulator"])
def test_host_steps_read_empty_views_at_any_offset(backend):
    """A matmul (or library call) of a slice of an empty array: its view's offset may lie
    past the empty buffer, and nothing is read."""
    fn = gradjit.jit(lambda x: x[:, :, 1:] @ np.swapaxes(x[:, :, 1:], -1, -2), backend=backend)
    assert fn(np.zeros((0, 3, 4))).shape == (0, 3, 3)
    grad = gradjit.grad(lambda a: np.linalg.eigvalsh(a).sum(), backend=backend)
    assert grad(np.zeros((0, 3, 3))).shape == (0, 3, 3)


def test_chunks_finish_without_a_worker_that_never_wakes():
    """A worker that gets no core (busy machine) takes no range: the call returns once the
    calling thread has done them all, instead of waiting for the worker to wake."""
    before = threads.get_num_threads()
    set_num_threads(2)
    try:
        threads.run_chunks(lambda lo, hi, table: None, 8, None)  # the pool exists
        pool = threads._state["pool"]
        awake, pool.queues[0] = pool.queues[0], queue.SimpleQueue()  # read by no thread
        done = []
        caller = threading.Thread(target=lambda: done.append(threads.run_chunks(
            lambda lo, hi, table: done.extend(range(lo, hi)), 8, None)), daemon=True)
        caller.start()
        caller.join(10)
        pool.queues[0] = awake
        assert sorted(done[:-1]) == list(range(8)) and done[-1] is None
    finally:
        set_num_threads(before)


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="placing threads needs sched_setaffinity and two cores")
def test_pool_workers_run_off_the_callers_core():
    # A worker woken on its waker's core shared it for a whole product (Linux's wake-affine
    # placement when the other cores sleep): each dispatch keeps them off the caller's core.
    before = threads.get_num_threads()
    set_num_threads(2)
    try:
        threads.run_chunks(lambda lo, hi, table: None, 8, None)  # the pool exists
        deadline = time.monotonic() + 10
        pool = threads._state["pool"]
        while not pool.thread_ids and time.monotonic() < deadline:
            time.sleep(0.01)
        pool.placed_away_from = None
        pool.keep_off_callers_core()
        away = pool.placed_away_from
        allowed = os.sched_getaffinity(0)
        assert away in allowed
        for thread_id in pool.thread_ids:
            assert os.sched_getaffinity(thread_id) == allowed - {away}
    finally:
        set_num_threads(before)
