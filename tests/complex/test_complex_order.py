"""Complex values in numpy's order (real part, then imaginary part; a NaN part wins as NaN
does among reals) under tracing: max/min/argmax/argmin/maximum/minimum/fmax/fmin/ptp/nanmax/
median/sort/clip against numpy, gradients against jax; PyTorch's refusals on complex Tensors."""
import numpy as np
import pytest
import torch as T

import gradjit
import gradjit as torch
from tests.torch_reference import same_error
from tests.torch_reference import message

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

# ties in both parts, in the real part only, a negative zero and NaN in either part
Z = np.array([[1 + 2j, 1 - 1j, -3 + 0j, 1 + 2j, 0.5 + 5j],
              [complex(np.nan, 1), 2, 3, complex(1, np.nan), complex(-0.0, -0.0)]])
FINITE = Z[0]

FUNCTIONS = {
    "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin,
    "max-axis": lambda z: np.max(z, 1), "min-keepdims": lambda z: np.min(z, 0, keepdims=True),
    "argmin-axis": lambda z: np.argmin(z, axis=0), "argmax-keepdims":
        lambda z: np.argmax(z, 1, keepdims=True),
    "max-axes": lambda z: np.max(z[None], axis=(0, 2)), "method": lambda z: z.max(0),
    "max-initial": lambda z: np.max(z, axis=1, initial=2 + 0j),
    "maximum": lambda z: np.maximum(z, z[::-1]), "minimum": lambda z: np.minimum(z, 1 + 0j),
    "fmax": lambda z: np.fmax(z, z[::-1]), "fmin": lambda z: np.fmin(z, z[:, ::-1]),
    "reduce": lambda z: np.maximum.reduce(z, 1), "ptp": lambda z: np.ptp(z, 1),
    "nanmax": lambda z: np.nanmax(z, 1), "nanmin": lambda z: np.nanmin(z, 1),
    "median": lambda z: np.median(z[0]), "median-even": lambda z: np.median(z[0, :4]),
    "sort": lambda z: np.sort(z, 1), "argsort": lambda z: np.argsort(z, 1),
    "empty": lambda z: np.max(z[:, :0], 0),
    "clip": lambda z: np.clip(z, 0, 1 + 1j), "clip-method": lambda z: z.clip(0.5, 1.5),
    "clip-upper": lambda z: np.clip(z, None, 1), "clip-real": lambda z: np.clip(z.real, 0, 1j),
}


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    for part in (np.real, np.imag):
        np.testing.assert_array_equal(part(got), part(want))
        np.testing.assert_array_equal(np.signbit(part(got)), np.signbit(part(want)))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_values_as_numpy(name):
    fn = FUNCTIONS[name]
    with np.errstate(invalid="ignore"):
        want = fn(Z)
    for backend in ("cpu", "interpreter"):
        _same(gradjit.jit(fn, backend=backend)(Z), want)


def test_a_reduction_over_an_empty_axis_raises_numpys_error():
    empty = np.ones((2, 0)) * 1j
    with pytest.raises(ValueError) as want:
        np.max(empty, 1)
    with pytest.raises(ValueError) as got:
        gradjit.jit(lambda z: np.max(z, 1))(empty)
    assert message(got.value) == str(want.value)


WEIGHT = np.array([1 + 2j, -1 + 0.5j, 0.5 - 1j, 2 + 0j, 1j])
GRADIENTS = {  # (ours, jax's): real losses; ties share the gradient as jax's do
    "max": (lambda z: np.real(np.max(z) * WEIGHT[0]), lambda z: jnp.real(jnp.max(z) * WEIGHT[0])),
    "min": (lambda z: np.imag(np.min(z)), lambda z: jnp.imag(jnp.min(z))),
    "maximum": (lambda z: np.real(np.sum(np.maximum(z, z[::-1]) * WEIGHT)),
                lambda z: jnp.real(jnp.sum(jnp.maximum(z, z[::-1]) * WEIGHT))),
    "minimum": (lambda z: np.imag(np.sum(np.minimum(z, 1 + 1j) * WEIGHT)),
                lambda z: jnp.imag(jnp.sum(jnp.minimum(z, 1 + 1j) * WEIGHT))),
    "clip": (lambda z: np.real(np.sum(np.clip(z, 0.5, 1 + 1j) * WEIGHT)),
             lambda z: jnp.real(jnp.sum(jnp.minimum(jnp.maximum(z, 0.5), 1 + 1j) * WEIGHT))),
    "sort": (lambda z: np.real(np.sum(np.sort(z) * WEIGHT)),
             lambda z: jnp.real(jnp.sum(jnp.sort(z) * WEIGHT))),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_jax(name):
    ours, theirs = GRADIENTS[name]
    want = jax.grad(theirs)(FINITE)
    for backend in ("cpu", "interpreter"):
        np.testing.assert_allclose(gradjit.grad(ours, backend=backend)(FINITE), want,
                                   rtol=1e-12)


def test_fmax_gradient_goes_to_the_number_beside_a_nan():
    z = np.array([complex(np.nan, 1), 1 + 1j])
    g = gradjit.grad(lambda z: np.real(np.sum(np.fmax(z, z[::-1]))))(z)
    np.testing.assert_array_equal(g, [0, 2])


@pytest.mark.parametrize("call", [
    lambda t, z: t.max(z), lambda t, z: t.min(z), lambda t, z: t.argmax(z),
    lambda t, z: t.amax(z, 0), lambda t, z: t.sort(z), lambda t, z: t.argsort(z),
    lambda t, z: t.maximum(z, z), lambda t, z: t.topk(z, 2), lambda t, z: t.clamp(z, 0, 1),
    lambda t, z: z.max(0)])
def test_torch_refuses_to_order_complex_tensors(call):
    same_error(lambda: call(torch, torch.tensor(FINITE)), lambda: call(T, T.tensor(FINITE)))
