"""Transformed.into: results written into caller buffers, equal to a plain call, with clear
errors for buffers that do not fit."""
import numpy as np
import pytest

import gradjit
from examples.seed import f as seed
from gradjit.runtime.steps import Matmul


def test_grad_into_fills_and_returns_the_buffer():
    f = gradjit.grad(seed)
    x = np.linspace(-1, 1, 7, dtype=np.float32)
    buffer = np.full(7, np.nan, np.float32)
    assert f.into(buffer, x) is buffer
    np.testing.assert_array_equal(buffer, f(x))
    np.testing.assert_allclose(buffer, 6 * (x + 2) / 7, rtol=1e-6)


def test_value_and_grad_into_takes_the_gradients_structure():
    g = gradjit.value_and_grad(lambda a, b: np.sum(a * b), argnums=(0, 1))
    a, b = np.arange(3.0), np.ones(3)
    out = (np.empty(3), np.empty(3))
    value, grads = g.into(out, a, b)
    assert value == 3.0 and grads[0] is out[0] and grads[1] is out[1]
    np.testing.assert_array_equal(out[0], b)
    np.testing.assert_array_equal(out[1], a)


def test_jit_into_and_a_guarded_path_change():
    @gradjit.jit
    def f(x):
        return x * 2 if np.sum(x) > 0 else x - 1
    out = np.empty(4)
    for x in (np.ones(4), -np.ones(4), np.ones(4)):
        assert f.into(out, x) is out
        np.testing.assert_array_equal(out, x * 2 if x.sum() > 0 else x - 1)
    assert f.cache_info().traces == 2


@pytest.mark.parametrize("out, message", [
    (np.empty(5, np.float32), "float32\\[6\\]"),
    (np.empty(6, np.float64), "float32\\[6\\]"),
    (np.empty(12, np.float32)[::2], "C-contiguous"),
    ((np.empty(6, np.float32),) * 3, "out holds 3 arrays"),
    ([1.0], "numpy arrays"),
])
def test_buffers_that_do_not_fit_are_rejected(out, message):
    f = gradjit.grad(lambda x: np.sum(x * x))
    with pytest.raises(TypeError, match=message):
        f.into(out, np.ones(6, np.float32))


def test_a_buffer_overlapping_an_argument_is_rejected():
    f = gradjit.grad(lambda x: np.sum(x * x))
    x = np.ones(6, np.float32)
    with pytest.raises(ValueError, match="overlaps"):
        f.into(x, x)


def test_the_interpreter_backend_says_into_needs_compiled_code():
    f = gradjit.grad(lambda x: np.sum(x * x), backend="interpreter")
    with pytest.raises(TypeError, match="compiled backend"):
        f.into(np.empty(3), np.ones(3))


def test_into_has_the_products_store_the_gradients_in_the_callers_buffers():
    rng = np.random.default_rng(5)
    w1, w2 = rng.standard_normal((64, 64)) / 8, rng.standard_normal((64, 3)) / 8
    x, y = rng.standard_normal((256, 64)), rng.standard_normal((256, 3))  # BLAS products
    f = gradjit.grad(lambda w1, w2, x, y: np.mean((np.tanh(x @ w1) @ w2 - y) ** 2),
                     argnums=(0, 1))
    plain = f(w1, w2, x, y)
    out = (np.full(w1.shape, np.nan), np.full(w2.shape, np.nan))
    got = f.into(out, w1, w2, x, y)
    assert got[0] is out[0] and got[1] is out[1]
    for buffer, expected in zip(out, plain):
        np.testing.assert_array_equal(buffer, expected)
    program = f.cache.last.program
    for result in program.results[1:]:  # no pass after the product copies the gradient
        steps = [s for s in program.steps if result in s.buffers()]
        assert len(steps) == 1 and isinstance(steps[0], Matmul), program.text


def test_into_on_cached_arrays_counts_a_hit_and_writes_the_buffer_in_place():
    f = gradjit.grad(lambda x: np.sum(x * x))
    x = np.arange(6, dtype=np.float32)
    f(x)
    out = np.full(6, np.nan, np.float32)
    before = f.cache_info()
    assert f.into(out, x) is out and f.into(out, 2 * x) is out
    np.testing.assert_array_equal(out, 4 * x)
    after = f.cache_info()
    assert (after.traces, after.hits) == (before.traces, before.hits + 2)
