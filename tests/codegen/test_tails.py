"""Product tails: an elementwise kernel over a split product's output runs on each block of
its rows right after BLAS writes it; any other kernel stays a step of its own."""
import numpy as np
import pytest

import gradjit
from gradjit.codegen import compile_function, get_num_threads, set_num_threads
from gradjit.ir import interpret
from gradjit.runtime import blas
from gradjit.runtime.steps import KernelCall, Matmul


@pytest.fixture
def threads():
    before = get_num_threads()
    yield set_num_threads
    set_num_threads(before)


def _compiled(f, *args):
    fn = gradjit.lower(f, *args).optimized
    return fn, compile_function(fn, cache_dir=False)


def _tails(program):
    return [s for s in program.steps if isinstance(s, Matmul) and (s.tail or s.next)]


def _mlp_loss(w1, w2, x, y):
    return np.mean((np.tanh(x @ w1) @ w2 - y) ** 2)


def _mlp_inputs():
    rng = np.random.default_rng(5)
    # x @ w1 and d @ w2.T sum 2^27 and 2^24 multiply-adds: split into blocks of rows
    return ((rng.standard_normal((256, 256)) / 16).astype(np.float32),
            (rng.standard_normal((256, 32)) / 16).astype(np.float32),
            rng.standard_normal((2048, 256)).astype(np.float32),
            rng.standard_normal((2048, 32)).astype(np.float32))


def test_an_mlp_gradient_runs_tanh_and_its_derivative_as_tails_the_same_on_any_thread_count(
        threads):
    args = _mlp_inputs()
    assert blas.rows_per_block((2048, 256), 32) < 2048
    fn, compiled = _compiled(gradjit.grad(_mlp_loss, argnums=(0, 1)), *args)
    tails = _tails(compiled)
    kernels = {k.name: k for k in compiled.kernels}
    ops = [{i.op for i in kernels[s.tail.symbol].body} for s in tails]
    assert len(tails) == 2 and "tanh" in ops[0] and "tanh" not in ops[1], compiled.text
    # h @ w2 computes each block's rows right after tanh wrote them, and x.T @ dh each
    # block's partial product right after (1 - h*h) * ...: neither is a step of its own
    first, second = tails[0].next, tails[1].next
    assert first.a.buffer == tails[0].out and first.partials is None
    assert second.b.buffer == tails[1].out and second.partials is not None
    assert sum(isinstance(s, Matmul) for s in compiled.steps) == 3
    assert not any(isinstance(s, KernelCall) and s.symbol in {t.tail.symbol for t in tails}
                   for s in compiled.steps)  # each runs once, inside its product
    results = []
    for count in (1, 2, 3):
        threads(count)
        results.append(compiled(*args))
    expected = interpret(fn, *args)
    for got, want in zip(results[0], expected):
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-7)
    for other in results[1:]:
        for got, first in zip(other, results[0]):
            np.testing.assert_array_equal(got, first)


@pytest.mark.parametrize("f", [
    lambda a, b: np.tanh(a @ b) + (a @ b).T,  # read at other elements
    lambda a, b: np.sum(np.tanh(a @ b), 1),  # a reduction, not a store
])
def test_a_kernel_that_is_not_elementwise_on_the_product_is_no_tail(f):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((1024, 256)).astype(np.float32)
    b = rng.standard_normal((256, 1024)).astype(np.float32) / 16
    _, compiled = _compiled(gradjit.jit(f), a, b)
    assert any(isinstance(s, Matmul) for s in compiled.steps) and not _tails(compiled)
    np.testing.assert_allclose(compiled(a, b)[0], f(a, b), rtol=1e-4, atol=1e-4)


def test_a_tail_does_not_move_ahead_of_a_product_that_writes_what_it_reads():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((1024, 256)).astype(np.float32) / 16
    b = rng.standard_normal((256, 256)).astype(np.float32) / 16

    def f(a, b):
        p = a @ b
        q = p @ b  # reads p before the kernel below: the kernel waits for it
        return np.tanh(p) * (q @ b)
    _, compiled = _compiled(gradjit.jit(f), a, b)
    np.testing.assert_allclose(compiled(a, b)[0], f(a, b), rtol=1e-4, atol=1e-6)


def test_tails_and_their_products_come_back_from_the_disk_cache(tmp_path, monkeypatch):
    from gradjit.runtime import cache, programs
    monkeypatch.setattr(programs, "memory", cache.LeastRecentlyUsed())
    args = _mlp_inputs()
    fn = gradjit.lower(gradjit.grad(_mlp_loss, argnums=(0, 1)), *args).optimized
    programs.memory.clear()  # lower compiled it into the default cache
    first = compile_function(fn, cache_dir=tmp_path)
    programs.memory.clear()
    again = compile_function(fn, cache_dir=tmp_path)
    assert again.from_disk and again.planned
    assert [str(s) for s in again.steps] == [str(s) for s in first.steps]
    assert [s.next.partials is not None for s in _tails(again)] == [False, True]
    for got, want in zip(again(*args), first(*args)):
        np.testing.assert_array_equal(got, want)
