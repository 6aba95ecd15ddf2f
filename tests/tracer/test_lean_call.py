"""The lean cached call (C-contiguous arrays matched by shape, dtype and strides): same results
as the general path for any layout, values never lost to scratch memory, threads."""
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import gradjit


def test_layouts_share_one_trace_and_agree():
    f = gradjit.grad(lambda x: np.sum(np.sin(x) * x))
    base = np.linspace(-2, 2, 24).reshape(4, 6)
    expected = np.cos(base) * base + np.sin(base)
    for x in (base, np.asfortranarray(base), base.T.copy().T, base[:, ::-1][:, ::-1]):
        np.testing.assert_allclose(f(x), expected, rtol=1e-12)
    np.testing.assert_allclose(f(base.T.T), expected, rtol=1e-12)
    assert f.cache_info().traces == 1


def test_a_first_call_with_a_strided_argument_then_contiguous_ones():
    f = gradjit.grad(lambda x: np.sum(x ** 3))
    x = np.arange(12.0)
    np.testing.assert_allclose(f(x[::2]), 3 * x[::2] ** 2)
    np.testing.assert_allclose(f(x[:6].copy()), 3 * x[:6] ** 2)
    assert f.cache_info().traces == 1


def test_value_and_grad_values_are_new_arrays_each_call():
    f = gradjit.value_and_grad(lambda x: np.sum(x * x))
    values = [f(np.full(3, float(k)))[0] for k in range(5)]
    assert values == [3.0 * k * k for k in range(5)]


def test_threads_on_the_lean_path():
    f = gradjit.grad(lambda x: np.sum(np.exp(x) * x))
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(16).astype(np.float32) for _ in range(64)]
    alone = [f(x) for x in xs]
    for g, x in zip(alone, xs):
        np.testing.assert_allclose(g, np.exp(x) * (x + 1), rtol=1e-5, atol=1e-6)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(f, xs * 8))
    for g, a in zip(got, alone * 8):
        np.testing.assert_array_equal(g, a)


def test_a_call_on_one_thread_while_another_traces_runs_compiled_code():
    """A trace on one thread sends the others' calls down the general path, which must not
    inline them into that trace: they still run their cached program and count a hit."""
    f = gradjit.grad(lambda x: np.sum(x * x))
    x = np.arange(4.0)
    f(x)
    inside, release = threading.Event(), threading.Event()

    def slow(y):
        inside.set()
        release.wait(10)
        return np.sum(y * 3.0)
    g = gradjit.grad(slow)
    with ThreadPoolExecutor(1) as pool:
        traced = pool.submit(g, x)
        assert inside.wait(10)
        try:
            np.testing.assert_array_equal(f(x), 2 * x)
        finally:
            release.set()
        np.testing.assert_array_equal(traced.result(), np.full(4, 3.0))
    assert f.cache_info() == (1, 1, 1)


def test_the_latest_signature_is_tried_first_and_others_still_find_theirs():
    f = gradjit.grad(lambda x: np.sum(x ** 3))
    small, large = np.arange(4.0), np.arange(6.0)
    for _ in range(3):
        np.testing.assert_array_equal(f(small), 3 * small ** 2)
        np.testing.assert_array_equal(f(large), 3 * large ** 2)
    assert f.cache_info() == (2, 4, 2)
    as_f32 = np.arange(4, dtype=np.float32)
    equal_dtype = np.array(small, dtype=np.dtype(np.float64).newbyteorder("="))
    for x in (small[::-1].copy()[::-1], equal_dtype, as_f32, small.reshape(2, 2)):
        np.testing.assert_allclose(f(x), 3 * np.asarray(x, float) ** 2)
        np.testing.assert_allclose(f(small), 3 * small ** 2)  # and back to the latest
    with pytest.raises(TypeError):
        f(small, small)
    np.testing.assert_array_equal(f(small), 3 * small ** 2)


def test_paths_that_alternate_under_one_signature_each_run_their_own_trace():
    def g(x):
        return np.sum(x * x) if np.sum(x) > 0 else np.sum(x * x * x)
    f = gradjit.grad(g)
    up, down = np.arange(1.0, 4.0), -np.arange(1.0, 4.0)
    for _ in range(3):
        np.testing.assert_array_equal(f(up), 2 * up)
        np.testing.assert_array_equal(f(down), 3 * down ** 2)
    assert f.cache_info().traces == 2
