"""JAX's collectives inside vmap(..., axis_name=): psum, pmean, pmax, pmin, all_gather and
axis_index, nested, under jit and grad, each run with jax and with gradjit and compared."""
import numpy as np
import pytest

from tests.jax_port.api_suite import agree

SCENARIOS = {}
X = np.arange(6.0).reshape(3, 2)


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def normalized_by_psum(jax, jnp, lax):
    return jax.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i")(X)


@scenario
def reductions(jax, jnp, lax):
    return jax.vmap(lambda x: (lax.pmean(x, "i"), lax.pmax(x, "i"), lax.pmin(x.sum(), "i")),
                    axis_name="i")(X)


@scenario
def gathers(jax, jnp, lax):
    return (jax.vmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(X),
            jax.vmap(lambda x: lax.all_gather(x, "i", tiled=True), axis_name="i")(X),
            jax.vmap(lambda x: lax.all_gather(x, "i", axis=1), axis_name="i")(X))


@scenario
def index_and_shared_operand(jax, jnp, lax):
    return (jax.vmap(lambda x: x * lax.axis_index("i"), axis_name="i")(X),
            jax.vmap(lambda x: lax.psum(2.0, "i") + x, axis_name="i")(X))


@scenario
def nested_axes(jax, jnp, lax):
    inner = jax.vmap(lambda x: x - lax.pmean(x, "i") + lax.axis_index("j") * lax.psum(x, "j"),
                     axis_name="j")
    return jax.vmap(inner, axis_name="i")(X)


@scenario
def under_jit_and_grad(jax, jnp, lax):
    def loss(w):
        return jax.vmap(lambda x: (x * lax.psum(x * w, "i")).sum(), axis_name="i")(X).sum()
    return (jax.jit(jax.vmap(lambda x: x / lax.psum(x, "i"), axis_name="i"))(X),
            jax.grad(loss)(1.5),
            jax.vmap(jax.grad(lambda x: (x * lax.pmean(x, "i")).sum()), axis_name="i")(X))


@scenario
def unbound_axis_name(jax, jnp, lax):
    return lax.psum(np.ones(2), "i")


@scenario
def axis_name_of_another_vmap(jax, jnp, lax):
    return jax.vmap(lambda x: lax.psum(x, "j"), axis_name="i")(X)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    agree(SCENARIOS[name])
