"""More of JAX's API side by side with jax: static arguments (negative, unhashable, traced
by an outer grad), argnums lists, reduce_axes, linear_transpose, closure_convert,
named_call, custom_gradient, keyword arguments to vmap, allow_int with bools, pytree
outputs' axes and orders."""
import numpy as np
import pytest

from tests.jax_port.api_suite import agree

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def jit_negative_static(jax, jnp, lax):
    return jax.jit(lambda x, n: x * n, static_argnums=-1)(2.0, 3)


@scenario
def jit_unhashable_static(jax, jnp, lax):
    return jax.jit(lambda x, n: x, static_argnums=1)(2.0, np.ones(2))


@scenario
def grad_argnums_list(jax, jnp, lax):
    return jax.grad(lambda x, y: x * y, argnums=[0, 1])(2.0, 3.0)


@scenario
def vjp_reduce_axes_refused(jax, jnp, lax):
    return jax.vjp(lambda x: x * 2, 1.0, reduce_axes=("i",))


@scenario
def vjp_reduce_axes(jax, jnp, lax):
    return jax.vjp(lambda x: x * 2, 1.0, reduce_axes=())[1](1.0)


@scenario
def linear_transpose(jax, jnp, lax):
    f = lambda x: {"a": 2 * x[0], "b": x[1] - x[0]}
    return jax.linear_transpose(f, (1.0, 1.0))({"a": 1.0, "b": 3.0})


@scenario
def closure_convert(jax, jnp, lax):
    def g(x):
        fun, consts = jax.closure_convert(lambda y: y * x, 1.0)
        return fun(2.0, *consts)
    return jax.grad(g)(3.0)


@scenario
def named_call(jax, jnp, lax):
    return jax.grad(jax.named_call(lambda x: x ** 3, name="cube"))(2.0)


@scenario
def vmap_kwargs(jax, jnp, lax):
    return jax.vmap(lambda x, y: x * y)(np.arange(3.0), y=np.arange(3.0))


@scenario
def jit_inline(jax, jnp, lax):
    return jax.jit(lambda x: x + 1, inline=True)(1.0)


@scenario
def value_and_grad_int_output(jax, jnp, lax):
    return jax.grad(lambda x: (x > 0).astype(int))(1.0)


@scenario
def grad_dict_keys_order(jax, jnp, lax):
    return jax.grad(lambda d: d["b"] * 2 + d["a"])({"b": 1.0, "a": 2.0})


@scenario
def hessian_pytree_in_out(jax, jnp, lax):
    return jax.hessian(lambda p: p["x"][0] ** 2 * p["y"])({"x": np.array([1.0, 2.0]), "y": 3.0})


@scenario
def checkpoint_name(jax, jnp, lax):
    return jax.grad(lambda x: jax.checkpoint(lambda y: jnp.sin(y) * 2)(x))(1.0)


@scenario
def stop_gradient_tree(jax, jnp, lax):
    return jax.grad(lambda x: jnp.sum(lax.stop_gradient({"a": x})["a"] * x))(np.ones(2))


@scenario
def custom_gradient(jax, jnp, lax):
    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)
    return f(3.0), jax.grad(f)(3.0)


@scenario
def jit_trace_jaxpr(jax, jnp, lax):
    return str(jax.make_jaxpr(lambda x: x)(1.0)).count("lambda") >= 1


@scenario
def grad_of_jit_static(jax, jnp, lax):
    f = jax.jit(lambda x, n: x ** n, static_argnums=1)
    return jax.grad(f)(2.0, 3)


@scenario
def vmap_grad_static(jax, jnp, lax):
    return jax.vmap(jax.grad(lambda x, n: x ** n), in_axes=(0, None))(np.arange(3.0), 2.0)


@scenario
def jacfwd_int(jax, jnp, lax):
    return jax.jacfwd(lambda x: x * 2)(3)


@scenario
def grad_bool_allow_int(jax, jnp, lax):
    g = jax.grad(lambda x, b: x * 2, argnums=1, allow_int=True)(1.0, True)
    return np.asarray(g).dtype.name


@scenario
def tree_map_none(jax, jnp, lax):
    return jax.tree_util.tree_map(lambda x: x * 2, {"a": 1.0, "b": None})


@scenario
def jvp_closure_traced(jax, jnp, lax):
    def f(x):
        return jax.jvp(lambda y: y * x, (x,), (1.0,))[1]
    return jax.grad(f)(3.0)


@scenario
def vmap_out_axes_dict_prefix(jax, jnp, lax):
    return jax.vmap(lambda x: {"a": x, "b": (x, x)}, out_axes={"a": 0, "b": 1})(np.ones((2, 3)))


@scenario
def jvp_float0_tangent_of_integer_primal(jax, jnp, lax):
    float0 = np.dtype([("float0", np.void, 0)])
    out = jax.jvp(lambda x, n: (x * n, n * 2.5), (2.0, 3), (1.0, np.zeros((), float0)))
    _, f_jvp = jax.linearize(lambda x, n: x * n, np.ones(2), np.arange(2))
    return out, f_jvp(np.ones(2), np.zeros(2, float0))


@scenario
def jit_lower_compile_call(jax, jnp, lax):
    def f(x, y):
        return {"s": jnp.sin(x) * y, "t": (x @ x.T).sum()}
    x = np.arange(6.0).reshape(2, 3)
    compiled = jax.jit(f).lower(x, 2.0).compile()
    lowered = jax.jit(f).lower(x, 2.0)
    return (compiled(x, 2.0), compiled(x + 1, 3.0), type(lowered.as_text()).__name__,
            type(compiled.as_text()).__name__)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    agree(SCENARIOS[name])
