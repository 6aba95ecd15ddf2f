"""The inverse trigonometric and hyperbolic functions (and sinh) of complex values: numpy's
principal values to a few ulps, also near 0 and far out where textbook formulas cancel, in
both complex dtypes and compiled; gradients in JAX's convention against central differences
(jax.grad of arccosh is off by a sign left of the imaginary axis, so differences are the
reference); eager Tensors against torch. np.var and np.std of complex values: real, as
numpy's."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit.test_util import check_grads

NAMES = ["sinh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"]
TORCH_NAMES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
               "arccosh": "acosh", "arctanh": "atanh", "sinh": "sinh"}
_rng = np.random.default_rng(0)
Z = np.concatenate([_rng.standard_normal(40) * 2 + 1j * _rng.standard_normal(40) * 2,
                    [0.3 + 0.4j, -1.2 + 0.7j, -30 + 2j, 0.5, -0.5, 1e-8 + 1e-8j,
                     1e-12 - 3e-13j, 1e5 + 1e5j, -1e5 - 3j]])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", NAMES)
def test_values_are_numpys(name, dtype):
    f, z = getattr(np, name), Z.astype(dtype)
    got, want = gradjit.jit(f)(z), f(z)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=8 * np.finfo(want.real.dtype).eps, atol=0)


@pytest.mark.parametrize("name", NAMES)
def test_gradients_match_central_differences(name):
    f, z, h = getattr(np, name), Z[:45], 1e-6

    def loss(z):
        return np.sum(np.abs(f(z)) ** 2)

    def each(z):  # the loss's terms, so each element's difference stays in its own scale
        return np.abs(f(z)) ** 2
    # JAX's convention: the conjugate of dL/dx + i dL/dy
    want = ((each(z + h) - each(z - h)) - 1j * (each(z + 1j * h) - each(z - 1j * h))) / (2 * h)
    np.testing.assert_allclose(gradjit.grad(loss)(z), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_eager_tensors_follow_torch(name):
    z = Z[:45]
    ours = getattr(gradjit, TORCH_NAMES[name])(gradjit.tensor(z)).numpy()
    theirs = getattr(torch, TORCH_NAMES[name])(torch.tensor(z)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("fun", [np.var, np.std])
@pytest.mark.parametrize("options", [{}, {"axis": 0}, {"axis": 1, "keepdims": True, "ddof": 1}])
def test_spread_of_complex_values_is_real_as_numpys(fun, options):
    z = Z[:12].reshape(3, 4)
    got, want = gradjit.jit(lambda z: fun(z, **options))(z), fun(z, **options)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-12)
    check_grads(lambda z: fun(z, **options), modes=["fwd", "rev"], order=2)(z)
