"""gradjit's matrix products: numpy's values whether split into blocks of rows or not, on any
thread count, and numpy's OpenBLAS thread count held at one only while they run."""
import threading

import numpy as np
import pytest

import gradjit
from gradjit.codegen import get_num_threads, set_num_threads
from gradjit.runtime import blas
from gradjit.runtime.steps import Matmul

openblas = pytest.mark.skipif(blas._controls is None, reason="numpy does not use OpenBLAS")


@pytest.fixture
def threads():
    """Sets gradjit's thread count for a test, restoring it after."""
    before = get_num_threads()
    yield set_num_threads
    set_num_threads(before)


@pytest.fixture
def openblas_threads():
    """Sets numpy's OpenBLAS thread count for a test, restoring it after."""
    get, set_ = blas._controls
    before = get()
    yield set_
    set_(before)


@pytest.fixture
def counts_seen_by_products(monkeypatch):
    """The OpenBLAS thread counts in force at each numpy product runtime.blas makes."""
    get, seen = blas._controls[0], []

    class Recording:
        def __getattr__(self, name):
            return getattr(np, name)

        def matmul(self, *args, **kwargs):
            seen.append(get())
            return np.matmul(*args, **kwargs)

    monkeypatch.setattr(blas, "np", Recording())
    return seen


@pytest.mark.parametrize("shape, depth", [((4096, 512), 512), ((1, 4096, 10), 512),
                                          ((784, 512), 256), ((3, 600, 100), 100),
                                          ((300, 100), 100), ((1000, 16), 16), ((0, 5), 7)])
def test_blocks_are_even_whole_row_tiles_and_cover_the_product(shape, depth):
    rows = blas.rows_per_block(shape, depth)
    m = shape[-2]
    blocks = -(-m // rows)
    split = np.prod(shape) * depth >= blas.SPLIT_MIN and m >= 2 * blas.BLOCK_ROWS
    assert (blocks > 1) == split
    if split:
        assert rows % blas.ROW_ALIGN == 0 and rows >= blas.BLOCK_ROWS
        assert blocks == min(blas.MAX_ROW_BLOCKS, m // blas.BLOCK_ROWS)
        assert m - (blocks - 1) * rows > 0  # no empty block
    else:
        assert rows == max(m, 1)


@pytest.mark.parametrize("a_shape, b_shape, transposed", [
    ((1100, 300), (300, 64), True), ((2, 600, 200), (200, 80), False),
    ((700, 128), (128, 10), False), ((50, 20), (20, 30), True)])
def test_products_equal_numpys_on_any_thread_count(threads, a_shape, b_shape, transposed):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    if transposed:  # a strided operand, read through BLAS's transposed layout
        fn = gradjit.jit(lambda a_t, b: np.swapaxes(a_t, -1, -2) @ b)
        operand = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    else:
        fn = gradjit.jit(lambda a, b: a @ b)
        operand = a
    results = []
    for count in (1, 2, 3):
        threads(count)
        results.append(fn(operand, b))
    exact = a.astype(np.float64) @ b
    bound = 1e-6 * np.abs(a).astype(np.float64) @ np.abs(b)  # float32 rounding of the sums
    assert np.all(np.abs(results[0] - exact) <= bound)
    for other in results[1:]:  # the blocks depend on the shapes alone
        np.testing.assert_array_equal(other, results[0])


@openblas
def test_openblas_runs_on_one_thread_during_a_product_and_keeps_the_callers_count(
        openblas_threads, counts_seen_by_products):
    seen = counts_seen_by_products
    get = blas._controls[0]
    a = np.ones((600, 300), np.float32)
    fn = gradjit.jit(lambda a, b: a @ b)
    for count in (3, 1, 2):
        openblas_threads(count)
        np.testing.assert_array_equal(fn(a, a.T.copy()), np.full((600, 600), 300, np.float32))
        assert get() == count
    assert len(seen) >= 3 and set(seen) == {1}  # one call or more per product
    seen.clear()
    small = np.ones((64, 64), np.float32)  # OpenBLAS keeps it on one thread by itself
    fn(small, small)
    assert seen == [2]


@openblas
def test_overlapping_calls_restore_the_count_when_the_last_ends(openblas_threads):
    get = blas._controls[0]
    openblas_threads(2)
    inside, leave = threading.Barrier(2), threading.Event()
    counts = []

    def hold():
        with blas.one_thread:
            inside.wait()
            leave.wait()
            counts.append(get())

    other = threading.Thread(target=hold)
    other.start()
    with blas.one_thread:
        inside.wait()  # both open: the other closes after this one
        counts.append(get())
    counts.append(get())  # the other still holds it
    leave.set()
    other.join()
    assert counts == [1, 1, 1] and get() == 2


@openblas
def test_a_product_that_raises_still_restores_the_count(openblas_threads):
    get = blas._controls[0]
    openblas_threads(2)
    with pytest.raises(ValueError):
        blas.product(np.ones((3, 4)), np.ones((5, 6)))
    assert get() == 2


@openblas
def test_eager_products_and_linear_algebra_evaluate_on_one_thread(openblas_threads):
    from gradjit.ir import linalg, structural
    get = blas._controls[0]
    openblas_threads(2)
    assert structural.matmul.evaluate is blas.product
    assert linalg.solve.evaluate.__wrapped__ is np.linalg.solve
    b = np.ones((30, 20), np.float32)
    eager = gradjit.tensor(b) @ gradjit.tensor(b.T.copy())
    np.testing.assert_array_equal(eager.numpy(), np.full((30, 30), 20, np.float32))
    assert blas.single_threaded(get)() == 1 and get() == 2
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    solve = gradjit.jit(lambda a, b: np.linalg.solve(a, b))  # a compiled library call
    np.testing.assert_allclose(solve(a, np.ones(2)), np.linalg.solve(a, np.ones(2)))
    eager = gradjit.linalg.solve(gradjit.tensor(a), gradjit.tensor(np.ones(2)))
    np.testing.assert_allclose(eager.numpy(), np.linalg.solve(a, np.ones(2)))
    assert get() == 2


@openblas
def test_concurrent_split_products_are_right_and_restore_the_count(openblas_threads):
    from concurrent.futures import ThreadPoolExecutor
    get = blas._controls[0]
    openblas_threads(2)
    fn = gradjit.jit(lambda a, b: a @ b)
    rng = np.random.default_rng(4)
    b = rng.standard_normal((128, 256)).astype(np.float32)
    inputs = [rng.standard_normal((1100, 128)).astype(np.float32) for _ in range(8)]
    expected = [fn(a, b) for a in inputs]  # 36M multiply-adds: split into blocks
    assert blas.rows_per_block((1100, 256), 128) < 1100
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda a: fn(a, b), inputs))
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    assert get() == 2


@openblas
def test_linear_layers_fused_product_runs_on_one_thread(openblas_threads,
                                                        counts_seen_by_products):
    """nn.Linear's eager addmm (one tape record) evaluates its product as matmul does."""
    seen = counts_seen_by_products
    get = blas._controls[0]
    openblas_threads(2)
    x = gradjit.ones(64, 1000)
    layer = gradjit.nn.Linear(1000, 100)
    out = layer(x)
    assert out.grad_fn.name() == "AddmmBackward0"
    np.testing.assert_allclose(out.detach().numpy(),
                               x.numpy() @ layer.weight.detach().numpy().T +
                               layer.bias.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert seen == [1] and get() == 2


def test_a_product_of_few_rows_sums_slices_of_its_depth_the_same_on_any_thread_count(threads):
    rng = np.random.default_rng(6)
    a_t = rng.standard_normal((2048, 300)).astype(np.float32)  # a = a_t.T: 300 rows
    b = rng.standard_normal((2048, 120)).astype(np.float32)
    assert blas.depth_parts((300, 120), 2048) == 4
    fn = gradjit.jit(lambda a_t, b: np.swapaxes(a_t, -1, -2) @ b)
    results = []
    for count in (1, 2, 3):
        threads(count)
        results.append(fn(a_t, b))
    steps = fn.cache.last.program.steps
    assert [s.partials is not None for s in steps if isinstance(s, Matmul)] == [True]
    a = a_t.T.astype(np.float64)
    bound = 1e-6 * np.abs(a) @ np.abs(b)
    assert np.all(np.abs(results[0] - a @ b) <= bound)
    for other in results[1:]:
        np.testing.assert_array_equal(other, results[0])


@pytest.mark.parametrize("shape, depth, parts", [
    ((512, 512), 4096, 4), ((512, 10), 4096, 4), ((600, 200), 1100, 2), ((4096, 512), 512, 1),
    ((1100, 64), 300, 1), ((2, 600, 80), 200, 1), ((64, 64), 64, 1),
    ((300, 4096), 4096, 3), ((512, 16384), 4096, 1)])  # partials of 16 MB at most
def test_only_large_products_of_few_row_blocks_split_their_depth(shape, depth, parts):
    assert blas.depth_parts(shape, depth) == parts
