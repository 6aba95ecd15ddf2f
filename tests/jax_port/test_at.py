"""x.at[index].set/add/.../get on traced values against JAX's: values, out-of-bounds rules,
modes, gradients, and under vmap."""
import numpy as np
import pytest

import gradjit
from gradjit.tracer import Traced

jax = pytest.importorskip("jax")
jnp = jax.numpy

X = np.arange(12.0).reshape(3, 4) - 4.5


def _sin(x):
    return np.sin if isinstance(x, Traced) else jnp.sin


CASES = {
    "set-row": lambda x: x.at[1].set(7.0),
    "add-element": lambda x: x.at[1, 2].add(7.0),
    "set-out-of-bounds": lambda x: x.at[5].set(7.0),
    "multiply-strided": lambda x: x.at[-1, ::2].multiply(3.0),
    "add-repeated": lambda x: x.at[np.array([0, 0, 2])].add(1.0),
    "set-out-of-bounds-array": lambda x: x.at[np.array([0, 7, -1])].set(-1.0),
    "max-ellipsis": lambda x: x.at[..., 1].max(5.0),
    "min-columns": lambda x: x.at[:, np.array([1, 3])].min(2.0),
    "divide-pairs": lambda x: x.at[np.array([0, 2]), np.array([1, 9])].divide(2.0),
    "power-slice": lambda x: x.at[1:].power(2.0),
    "subtract-reversed": lambda x: x.at[::-1, 1].subtract(np.arange(3.0)),
    "set-mask": lambda x: x.at[np.array([True, False, True])].set(0.0),
    "set-new-axis": lambda x: x.at[None, 0].set(1.0),
    "apply": lambda x: x.at[0].apply(_sin(x)),
    "set-clip": lambda x: x.at[7].set(7.0, mode="clip"),
    "add-drop": lambda x: x.at[np.array([3, -4, 1])].add(1.0, mode="drop"),
    "multiply-repeated": lambda x: x.at[np.array([0, 0, 2])].multiply(x[1]),
    "min-repeated": lambda x: x.at[np.array([0, 0, 2]), 1].min(np.array([1.0, -1.0, 0.0])),
    "set-repeated": lambda x: x.at[np.array([1, 1])].set(np.array([[5.0], [6.0]])),
    "power-repeated": lambda x: x.at[np.array([0, 0, 2]), 3].power(2.0),
    "get-clamped": lambda x: x.at[4].get(),
    "get-array-clamped": lambda x: x.at[np.array([-5, 1, 3])].get(),
    "get-fill": lambda x: x.at[np.array([-5, 1, 3])].get(mode="fill"),
    "get-fill-value": lambda x: x.at[1, np.array([0, 4])].get(mode="fill", fill_value=-1.0),
}


@pytest.mark.parametrize("name", CASES)
def test_like_jax_with_indices_known_when_tracing(name):
    got = gradjit.jit(CASES[name])(X)
    np.testing.assert_allclose(got, CASES[name](jnp.asarray(X)), rtol=1e-15)


RUNTIME = {
    "set": lambda x, i: x.at[i].set(x[0] * 10),
    "add": lambda x, i: x.at[i].add(x[::-1] * 2.0),
    "subtract": lambda x, i: x.at[i].subtract(1.5),
    "multiply": lambda x, i: x.at[i].multiply(x, unique_indices=True),
    "max": lambda x, i: x.at[i].max(x[::-1], unique_indices=True),
    "get": lambda x, i: x.at[i].get() * x[: len(i)],
    "get-fill": lambda x, i: x.at[i].get(mode="fill", fill_value=0.5) * x[: len(i)],
}


@pytest.mark.parametrize("name", RUNTIME)
def test_indices_computed_at_run_time_values_and_gradients(name):
    f = RUNTIME[name]
    x = np.array([1.5, -2.0, 3.0, 0.5])
    index = np.array([3, 0, 7, -1]) if name != "add" else np.array([3, 0, 3, 1])
    if name in ("set", "multiply", "max"):
        index = np.array([3, 0, 9, 1])
    np.testing.assert_allclose(gradjit.jit(f)(x, index), jax.jit(f)(x, index))
    loss = lambda x, i: (f(x, i) ** 2).sum()
    np.testing.assert_allclose(gradjit.grad(loss)(x, index), jax.grad(loss)(x, index))


def test_gradient_through_known_updates():
    def loss(x):
        y = x.at[np.array([0, 2, 0])].add(x[1] ** 2).at[1, ::-2].set(x[2, 0])
        return (np.tanh(y) * y.at[0].multiply(3.0)).sum() if isinstance(x, Traced) else \
            (jnp.tanh(y) * y.at[0].multiply(3.0)).sum()
    np.testing.assert_allclose(gradjit.grad(loss)(X / 4), jax.grad(loss)(X / 4), rtol=1e-12)


@pytest.mark.parametrize("name", ["min-repeated", "set-repeated", "power-repeated",
                                  "max-ellipsis", "divide-pairs"])
def test_gradients_with_indices_known_when_tracing(name):
    loss = lambda x: (CASES[name](x) ** 2).sum()
    np.testing.assert_allclose(gradjit.grad(loss)(X), jax.grad(loss)(X), rtol=1e-12)


def test_under_vmap():
    f = lambda x, i: x.at[i].set(-x[0]).at[i + 1].add(1.0)
    xs, idx = np.arange(12.0).reshape(3, 4), np.array([0, 2, 1])
    np.testing.assert_array_equal(gradjit.vmap(f)(xs, idx), jax.vmap(f)(xs, idx))


def test_the_array_is_not_written():
    def f(x):
        y = x.at[0].set(100.0)
        return x, y
    x, y = gradjit.jit(f)(np.ones(3))
    np.testing.assert_array_equal(x, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(y, [100.0, 1.0, 1.0])


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="mode must be one of"):
        gradjit.jit(lambda x: x.at[0].set(1.0, mode="wrap"))(np.ones(3))


def test_gradjit_numpy_constructors_have_at_inside_a_trace_only():
    import gradjit.numpy as gnp
    assert type(gnp.zeros(3)) is np.ndarray  # numpy's, outside a trace
    f = lambda x, i: gnp.zeros(4).at[i].set(x) + gnp.arange(4.0)
    np.testing.assert_array_equal(gradjit.jit(f)(2.0, np.int64(1)),
                                  jnp.zeros(4).at[1].set(2.0) + jnp.arange(4.0))
