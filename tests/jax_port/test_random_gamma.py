"""gradjit.random's gamma family against jax.random: JAX's rejection loop reproduced draw for
draw, and the draws' gradients in their shape parameters (implicit reparameterization) as
jax.grad's."""
import numpy as np
import pytest

import gradjit
import gradjit.random as grandom
from gradjit.prng.gamma_draws import draw_derivative

jax = pytest.importorskip("jax")
jrandom = jax.random

ALPHAS = np.array([0.01, 0.3, 1.0, 2.5, 7.0, 40.0])
RTOL = {np.float32: 1e-5, np.float64: 1e-11}
# (name, arguments after the key as a function of the shape parameters)
FAMILY = {
    "gamma": lambda a: (a, (4, 6)),
    "loggamma": lambda a: (a, (4, 6)),
    "beta": lambda a: (a, 2.0, (3, 6)),
    "dirichlet": lambda a: (a, (3,)),
    "chisquare": lambda a: (a, (3, 6)),
    "t": lambda a: (a, (3, 6)),
    "f": lambda a: (a, a[::-1], (6,)),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(FAMILY))
def test_draws_are_jax_draws(name, dtype):
    for seed in (0, 2**40 + 1):
        args = FAMILY[name](ALPHAS.astype(dtype))
        expected = np.asarray(getattr(jrandom, name)(jrandom.PRNGKey(seed), *args, dtype=dtype))
        got = getattr(grandom, name)(grandom.PRNGKey(seed), *args, dtype=dtype)
        assert np.result_type(got) == expected.dtype and np.shape(got) == expected.shape
        # exp of a log-space draw near -100 (a = 0.01) carries its rounding 100-fold; XLA
        # flushes subnormal results to zero
        np.testing.assert_allclose(got, expected, rtol=RTOL[dtype],
                                   atol=np.finfo(dtype).tiny)


@pytest.mark.parametrize("name", list(FAMILY))
def test_gradients_in_the_shape_parameters_are_jax_grad(name):
    def loss(random, key, a):
        return (getattr(random, name)(key, *FAMILY[name](a)) ** 2).sum()

    expected = jax.grad(lambda a: loss(jrandom, jrandom.PRNGKey(3), a))(ALPHAS)
    gkey = grandom.PRNGKey(3)
    grad = gradjit.grad(lambda a: loss(grandom, gkey, a))
    np.testing.assert_allclose(grad(ALPHAS), expected, rtol=1e-10)
    if name == "gamma":
        np.testing.assert_allclose(gradjit.jit(grad)(ALPHAS), expected, rtol=1e-10)


def test_draw_derivative_is_jax_random_gamma_grad():
    """Both sides of the split between the series and the continued fraction, integer shapes
    (where the fraction's first partial numerator vanishes) and tiny ones."""
    alpha, x = np.meshgrid([1e-3, 0.3, 1.0, 2.0, 2.5, 40.0], [1e-5, 0.5, 0.99, 1.01, 2.0, 20.0])
    expected = jax.lax.random_gamma_grad(alpha, x)
    np.testing.assert_allclose(draw_derivative(alpha, x), expected, rtol=1e-11)


def test_gamma_under_jit_and_vmap():
    keys = grandom.split(grandom.PRNGKey(5), 3)
    expected = jax.vmap(lambda k: jrandom.gamma(k, ALPHAS))(jrandom.split(jrandom.PRNGKey(5), 3))
    for fn in (gradjit.vmap, lambda f: gradjit.jit(gradjit.vmap(f))):
        np.testing.assert_allclose(fn(lambda k: grandom.gamma(k, ALPHAS))(keys), expected,
                                   rtol=1e-13)


def test_gradients_through_vmap():
    a = np.array([0.5, 2.0])
    jkeys, gkeys = jrandom.split(jrandom.PRNGKey(1), 3), grandom.split(grandom.PRNGKey(1), 3)
    expected = jax.vmap(jax.grad(lambda a, k: jrandom.gamma(k, a).sum()), (None, 0))(a, jkeys)
    got = gradjit.vmap(gradjit.grad(lambda a, k: grandom.gamma(k, a).sum()), (None, 0))(a, gkeys)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    expected = jax.grad(lambda a: jax.vmap(lambda k: jrandom.beta(k, a, 1.5))(jkeys).sum())(a)
    got = gradjit.grad(lambda a: gradjit.vmap(lambda k: grandom.beta(k, a, 1.5))(gkeys).sum())(a)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_float32_gradients():
    a = ALPHAS.astype(np.float32)

    def loss(random, key, a):
        return (random.gamma(key, a, (4, 6), np.float32) ** 2).sum()

    expected = jax.grad(lambda a: loss(jrandom, jrandom.PRNGKey(1), a))(a)
    got = gradjit.grad(lambda a: loss(grandom, grandom.PRNGKey(1), a))(a)
    assert np.result_type(got) == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5)
