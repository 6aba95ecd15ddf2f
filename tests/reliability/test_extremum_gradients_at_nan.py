"""Gradients of max and min over arrays holding NaN, compared with PyTorch's and JAX's: the
even share over the elements equal to the result gave 0 everywhere, since no element equals a
NaN result. JAX's max and PyTorch's amax divide by that count of 0 (NaN everywhere); PyTorch's
max(), min() and median() send the gradient to the NaNs."""
import math

import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")

NAN, INF = math.nan, math.inf
VALUES = [[1.0, NAN, 3.0, 0.0], [1.0, 3.0, 3.0], [NAN, NAN, 1.0], [INF, 1.0, NAN],
          [-INF, -INF], [NAN]]


def _torch_gradient(t, name, values):
    x = t.tensor(values, dtype=t.float64, requires_grad=True)
    getattr(x, name)().backward()
    return x.grad.numpy()


@pytest.mark.parametrize("values", VALUES)
@pytest.mark.parametrize("name", ["max", "min", "amax", "amin", "median", "nanmedian"])
def test_eager_gradients_are_pytorchs(name, values):
    np.testing.assert_array_equal(_torch_gradient(gradjit, name, values),
                                  _torch_gradient(torch, name, values))


@pytest.mark.parametrize("values", VALUES + [[[1.0, NAN, 3.0], [2.0, 2.0, 0.0]]])
@pytest.mark.parametrize("name", ["max", "min"])
def test_traced_gradients_are_jaxs(name, values):
    values = np.array(values, np.float32)  # (JAX's default precision; the shares are exact)

    def reduced(lib):
        return lambda a: getattr(lib, name)(a, axis=-1).sum()
    want = jax.grad(reduced(jax.numpy))(values)
    tangent = jax.jvp(reduced(jax.numpy), (values,), (np.ones_like(values),))[1]
    np.testing.assert_array_equal(gradjit.grad(reduced(np))(values), np.asarray(want))
    forward = gradjit.jvp(reduced(np), (values,), (np.ones_like(values),))[1]
    np.testing.assert_array_equal(forward, np.asarray(tangent))
