"""gradjit.random's counting samplers (poisson, binomial, multinomial) and the gamma-made
generalized_normal and ball against jax.random: the same draws for the same key, eagerly,
under jit and under vmap."""
import numpy as np
import pytest

import gradjit
import gradjit.random as grandom

jax = pytest.importorskip("jax")
jrandom = jax.random

RATES = np.array([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 1000.0])
COUNTS = np.array([5.0, 20.0, 100.0, 1000.0, -1.0, np.inf, np.nan, 7.0])
PROBABILITIES = np.array([0.1, 0.5, 0.9, 0.3, 0.5, 0.2, 0.5, 1.5])
# name: the sampler as a function of the library and the key
SAMPLERS = {
    "poisson": lambda r, k: r.poisson(k, RATES, (3, 7)),
    "poisson-int16": lambda r, k: r.poisson(k, RATES[:4], dtype=np.int16),
    "binomial": lambda r, k: r.binomial(k, COUNTS, PROBABILITIES, (2, 8)),
    "binomial-float32": lambda r, k: r.binomial(k, 40.0, np.float32(0.7), (5,),
                                                dtype=np.float32),
    "multinomial": lambda r, k: r.multinomial(k, np.array([20.0, 300.0]),
                                              np.array([0.2, 0.3, 0.0, 0.5]), shape=(2, 4)),
    "generalized_normal": lambda r, k: r.generalized_normal(k, 1.5, (4, 3)),
    "ball": lambda r, k: r.ball(k, 3, 1.5, (4,)),
    "ball-float32": lambda r, k: r.ball(k, 2, dtype=np.float32),
}


@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3])
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_draws_are_jax_draws(name, seed):
    expected = np.asarray(SAMPLERS[name](jrandom, jrandom.PRNGKey(seed)))
    with np.errstate(all="ignore"):
        got = SAMPLERS[name](grandom, grandom.PRNGKey(seed))
    assert np.result_type(got) == expected.dtype and np.shape(got) == expected.shape
    ulp = np.finfo(expected.dtype if expected.dtype.kind == "f" else np.float64).eps
    np.testing.assert_allclose(got, expected, rtol=64 * ulp)


@pytest.mark.parametrize("name", ["poisson", "binomial-float32", "multinomial", "ball"])
def test_under_jit_and_vmap(name):
    sample = SAMPLERS[name]
    key, jkey = grandom.PRNGKey(4), jrandom.PRNGKey(4)
    np.testing.assert_allclose(gradjit.jit(lambda k: sample(grandom, k))(key),
                               sample(jrandom, jkey), rtol=1e-13)
    expected = jax.vmap(lambda k: sample(jrandom, k))(jrandom.split(jkey, 3))
    np.testing.assert_allclose(gradjit.vmap(lambda k: sample(grandom, k))(
        grandom.split(key, 3)), expected, rtol=1e-13)


def test_gradients_as_jax_grad():
    """Counts are constant in their parameters; the ball's draws are not in p."""
    def loss(random, key, n, p):
        return random.binomial(key, n, p, (4,)).sum() + \
            (random.ball(key, 3, p + 1.0, (2,)) ** 2).sum()

    expected = jax.grad(lambda n, p: loss(jrandom, jrandom.PRNGKey(1), n, p),
                        argnums=(0, 1))(30.0, 0.4)
    got = gradjit.grad(lambda n, p: loss(grandom, grandom.PRNGKey(1), n, p),
                       argnums=(0, 1))(30.0, 0.4)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_binomial_dtype_error_as_jax():
    for random in (jrandom, grandom):
        with pytest.raises(ValueError):
            random.binomial(random.PRNGKey(0), 3.0, 0.5, dtype=np.int32)
