"""A compiled function called from 8 threads at once, on different inputs: right answers,
one trace per signature and path, and a cache that still works afterwards."""
import threading

import numpy as np

import gradjit

THREADS = 8


def in_threads(work, count=THREADS):
    """Run work(i) for i in range(count) on `count` threads released together; re-raise the
    first error any of them hit."""
    start = threading.Barrier(count)
    errors, results = [], [None] * count

    def run(i):
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as error:  # reported in the main thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def tanh_loss_gradient(x):
    t = np.tanh(x)
    return t + x * (1 - t * t)


def test_first_calls_from_eight_threads_trace_once_and_agree():
    f = gradjit.grad(lambda x: np.sum(np.tanh(x) * x))
    inputs = [np.random.default_rng(i).normal(size=33) for i in range(THREADS)]

    def work(i):
        return [f(inputs[i] * (1 + k / 10)) for k in range(20)]

    for i, grads in enumerate(in_threads(work)):
        for k, g in enumerate(grads):
            np.testing.assert_allclose(g, tanh_loss_gradient(inputs[i] * (1 + k / 10)),
                                       rtol=1e-12, atol=1e-12)
    assert f.cache_info().traces == 1
    np.testing.assert_allclose(f(inputs[0]), tanh_loss_gradient(inputs[0]), rtol=1e-12)


def test_threads_on_two_signatures_and_two_paths_trace_each_once():
    def branchy(x):
        return np.sum(x * x) if np.sum(x) > 0 else np.sum(-x)
    f = gradjit.grad(branchy)

    def work(i):
        shape = (5,) if i % 2 else (2, 3)
        sign = 1.0 if i % 4 < 2 else -1.0
        x = sign * (np.abs(np.random.default_rng(i).normal(size=shape)) + 0.1)
        for _ in range(10):
            np.testing.assert_array_equal(f(x), 2 * x if sign > 0 else -np.ones(shape))
        return True

    assert all(in_threads(work))
    assert f.cache_info().traces == 4
    assert len(f.cache.by_key) == 2


def test_large_threaded_kernels_and_matmuls_from_eight_threads():
    """Programs too large for the one-call entry point share a workspace; a thread that finds
    it in use must take memory of its own."""
    f = gradjit.value_and_grad(lambda w, x: np.sum(np.tanh(x @ w) ** 2))
    g = gradjit.jit(lambda x: np.exp(x) * 2.0)
    rng = np.random.default_rng(0)
    ws = [rng.normal(size=(16, 4)) for _ in range(THREADS)]
    x = rng.normal(size=(64, 16))
    bigs = [rng.normal(size=1 << 18) * 0.1 for _ in range(THREADS)]

    def work(i):
        out = []
        for _ in range(5):
            out.append((f(ws[i], x), g(bigs[i])))
        return out

    for i, runs in enumerate(in_threads(work)):
        t = np.tanh(x @ ws[i])
        for (value, dw), big in runs:
            np.testing.assert_allclose(value, np.sum(t * t), rtol=1e-12)
            np.testing.assert_allclose(dw, x.T @ (2 * t * (1 - t * t)), rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(big, np.exp(bigs[i]) * 2.0, rtol=1e-14)
    assert f.cache_info().traces == 1 and g.cache_info().traces == 1


def test_tensor_arguments_from_eight_threads():
    """Tensor arguments take the general call path (flatten, signature, unpack into Tensors)."""
    f = gradjit.grad(lambda x: (x * x).sum())

    def work(i):
        x = gradjit.full((3,), float(i), dtype=gradjit.float64)
        return [f(x).numpy() for _ in range(10)]

    for i, grads in enumerate(in_threads(work)):
        for g in grads:
            np.testing.assert_array_equal(g, np.full(3, 2.0 * i))
    assert f.cache_info().traces == 1
