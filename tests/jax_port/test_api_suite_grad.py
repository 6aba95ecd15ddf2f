"""JAX's API scenarios for grad, value_and_grad and jit (argnums, has_aux, static
arguments, keyword arguments, namedtuples, complex inputs, error types), each run with jax
and with gradjit and the results compared."""
import collections

import numpy as np
import pytest

from tests.jax_port.api_suite import agree

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def linear(x, y, z, flag=False):
    assert flag
    return 1.0 * x + 2.0 * y + 3.0 * z


@scenario
def grad_argnums(jax, jnp, lax):
    return (jax.grad(linear)(1.0, 1.0, 1.0, flag=True),
            jax.grad(linear, argnums=1)(1.0, 1.0, 1.0, flag=True),
            jax.grad(linear, argnums=(2, 0))(1.0, 1.0, 1.0, flag=True))


@scenario
def value_and_grad_argnums(jax, jnp, lax):
    return (jax.value_and_grad(linear)(1.0, 1.0, 1.0, flag=True),
            jax.value_and_grad(linear, argnums=1)(1.0, 1.0, 1.0, flag=True),
            jax.value_and_grad(linear, argnums=(2, 0))(1.0, 1.0, 1.0, flag=True))


@scenario
def grad_negative_argnums(jax, jnp, lax):
    return jax.grad(lambda x, y: x * y ** 2, argnums=-1)(3.0, 2.0)


@scenario
def jit_static_argnums(jax, jnp, lax):
    side = []

    def f(x, y, z, flag=False, flag2=False):
        assert flag
        side.append(None)
        return 100 * x + 10 * y + z

    f1 = jax.jit(f, static_argnums=(3, 4))
    out = [f1(1, 2, 3, True, False), len(side), f1(2, 1, 3, True, False), len(side),
           f1(2, 1, 3, True, True), len(side)]
    side[:] = []
    f2 = jax.jit(f, static_argnums=(0, 2, 3, 4))
    for args in [(1, 2, 3, True, False), (1, 3, 3, True, False), (2, 2, 3, True, False),
                 (2, 4, 3, True, True)]:
        out += [f2(*args), len(side)]
    return out


@scenario
def jit_static_argnames(jax, jnp, lax):
    side = []

    def f(x, n, scale=1.0):
        side.append(n)
        return x * n * scale

    g = jax.jit(f, static_argnames="n")
    out = [g(2.0, n=3), g(4.0, n=3), len(side), g(2.0, n=5), len(side)]
    h = jax.jit(f, static_argnames=("n", "scale"))
    return out + [h(np.arange(3.0), n=2, scale=0.5), h(np.arange(3.0), 2, scale=0.5)]


@scenario
def jit_static_argnums_given_by_name(jax, jnp, lax):
    # a static positional parameter passed by keyword stays static (jax infers argnames)
    def f(x, n):
        return x * sum(range(n))
    return jax.jit(f, static_argnums=1)(2.0, n=4)


@scenario
def jit_kwargs(jax, jnp, lax):
    side = []

    def f(x, y, z):
        side.append(None)
        return 100 * x + 10 * y + z

    f = jax.jit(f)
    return [f(1, 2, 3), len(side), f(1, 2, 3), len(side), f(1, 2, z=3), f(1, 2, z=3),
            f(1, 2, z=np.zeros(3))]


@scenario
def jit_with_many_args(jax, jnp, lax):
    return jax.jit(lambda args: sum(args))(list(range(500)))


@scenario
def grad_of_jit(jax, jnp, lax):
    # values only: JAX caches the jitted function's trace for later grads, while gradjit
    # runs its Python again inside each new trace (its traces see concrete values)
    f = jax.jit(lambda x: x * x)
    return [jax.grad(f)(1.0), jax.grad(f)(2.0)]


@scenario
def jit_of_grad(jax, jnp, lax):
    g = jax.jit(jax.grad(jax.jit(lambda x: x * x)))
    return [g(1.0), g(2.0)]


@scenario
def grad_python_branch(jax, jnp, lax):
    def f(x):
        return x if x > 0 else -x
    return jax.grad(f)(1.0), jax.grad(f)(-1.0)


@scenario
def grad_tuple_output(jax, jnp, lax):
    return jax.grad(lambda x: (x, x))(1.0)


@scenario
def grad_nonscalar_output(jax, jnp, lax):
    return jax.grad(lambda x: x)(np.zeros(3))


@scenario
def grad_of_int(jax, jnp, lax):
    return jax.grad(lambda x: x ** 2)(3)


@scenario
def grad_complex_output(jax, jnp, lax):
    return jax.grad(lambda x: x ** 2 + 1j)(3.0)


@scenario
def grad_complex_input_needs_holomorphic(jax, jnp, lax):
    return jax.grad(lambda x: jnp.sin(x))(1 + 2j)


@scenario
def holomorphic_grad(jax, jnp, lax):
    return jax.grad(lambda x: jnp.sin(x), holomorphic=True)(1 + 2j)


@scenario
def holomorphic_grad_of_float(jax, jnp, lax):
    return jax.grad(lambda x: x ** 2, holomorphic=True)(3.0)


@scenario
def holomorphic_value_and_grad_argnums(jax, jnp, lax):
    f = jax.value_and_grad(lambda z, w: jnp.sum(z * z * w), argnums=(0, 1), holomorphic=True)
    return f(np.array([1 + 2j, 3 - 1j]), np.array([2 - 1j, 0.5j]))


@scenario
def nonholomorphic_grad(jax, jnp, lax):
    zs = 0.5j * np.arange(5) + np.arange(5)
    return jax.grad(lambda z: jnp.sum(jnp.cos(jnp.abs(z))))(zs)


@scenario
def grad_allow_int(jax, jnp, lax):
    g = jax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    return g[0], np.asarray(g[1]).dtype.name, np.asarray(g[1]).shape


@scenario
def grad_allow_int_value_and_grad(jax, jnp, lax):
    value, g = jax.value_and_grad(lambda x, n: jnp.sum(x) * 2, argnums=(0, 1),
                                  allow_int=True)(np.ones(3), np.arange(2))
    return value, g[0], np.asarray(g[1]).dtype.name, np.asarray(g[1]).shape


@scenario
def grad_reduce_axes_refused(jax, jnp, lax):
    return jax.grad(lambda x: x * 2.0, reduce_axes=("i",))(1.0)


@scenario
def value_and_grad_empty_reduce_axes(jax, jnp, lax):
    return jax.value_and_grad(lambda x: x * 2.0, reduce_axes=())(1.0)


@scenario
def grad_int_argnum_refused(jax, jnp, lax):
    return jax.grad(lambda x, n: x * n, argnums=1)(2.0, 3)


@scenario
def grad_and_aux_basic(jax, jnp, lax):
    return jax.grad(lambda x: (x ** 3, [x ** 2]), has_aux=True)(3.0)


@scenario
def grad_and_aux_nested(jax, jnp, lax):
    def f(x):
        _, aux = jax.grad(lambda x: (x ** 3, [x ** 3]), has_aux=True)(x)
        return aux[0] * jnp.sin(x)
    return jax.grad(f)(4.0), jax.jit(jax.grad(f))(4.0), jax.jit(jax.grad(jax.jit(f)))(4.0)


@scenario
def grad_and_aux_constant(jax, jnp, lax):
    return (jax.grad(lambda x: (x ** 3, [4.0]), has_aux=True)(4.0),
            jax.grad(lambda x: (x ** 3, [x ** 2, 4.0]), has_aux=True)(4.0))


@scenario
def grad_and_aux_dict(jax, jnp, lax):
    _, aux = jax.grad(lambda x: (x ** 2, dict(identity=x, p1=x + 1)), has_aux=True)(3.0)
    return aux, type(aux).__name__


@scenario
def value_and_grad_has_aux_pytree(jax, jnp, lax):
    def loss(p, x):
        r = jnp.tanh(x @ p["w"] + p["b"])
        return jnp.sum(r ** 2), {"mean": jnp.mean(r), "n": x.shape[0]}
    params = {"w": np.linspace(-1, 1, 6).reshape(3, 2), "b": np.array([0.1, -0.2])}
    return jax.value_and_grad(loss, has_aux=True)(params, np.arange(12.0).reshape(4, 3) / 10)


@scenario
def grad_has_aux_not_pair(jax, jnp, lax):
    return jax.grad(lambda x: x ** 2, has_aux=True)(3.0)


Point = collections.namedtuple("Point", ["x", "y"])


@scenario
def namedtuple_transparency(jax, jnp, lax):
    def f(pt):
        return jnp.sqrt(pt.x ** 2 + pt.y ** 2)
    pt = Point(1.0, 2.0)
    g = jax.grad(f)(pt)
    return g, type(g).__name__, jax.jit(f)(pt)


class ZeroPoint(Point):
    def is_zero(self):
        return (self.x == 0) and (self.y == 0)


@scenario
def namedtuple_subclass_transparency(jax, jnp, lax):
    def f(pt):
        return 0.0 if pt.is_zero() else jnp.sqrt(pt.x ** 2 + pt.y ** 2)
    g = jax.grad(f)(ZeroPoint(3.0, 4.0))
    return g, type(g).__name__


@scenario
def grad_none_leaves(jax, jnp, lax):
    def f(p):
        return jnp.sum(p["a"] ** 2) + p["c"][0]
    return jax.grad(f)({"a": np.arange(3.0), "b": None, "c": (2.0, None)})


@scenario
def grad_pytree_argnums_tuple(jax, jnp, lax):
    def f(a, b, c):
        return jnp.sum(a[0] * b["k"]) + c[1] ** 2
    return jax.grad(f, argnums=(0, 2))((np.ones(2), 3.0), {"k": np.arange(2.0)},
                                       [1.0, 5.0])


@scenario
def grad_closure_over_traced(jax, jnp, lax):
    def outer(x):
        def inner(y):
            return jnp.sin(x * y)
        return jax.grad(inner)(x ** 2) * x
    return jax.grad(outer)(0.7), jax.jit(jax.grad(outer))(0.7)


@scenario
def grad_of_grad_of_grad(jax, jnp, lax):
    return jax.grad(jax.grad(jax.grad(lambda x: jnp.exp(jnp.sin(x)))))(0.3)


@scenario
def jvp_jit_cached(jax, jnp, lax):
    def func(x):
        def inner(y):
            return y * x
        return jax.jit(inner)(4.0) + jax.jit(inner)(5.0)
    return jax.jvp(func, (5.0,), (1.0,))


@scenario
def grad_without_enough_args(jax, jnp, lax):
    return jax.grad(lambda x, y: x + y, argnums=0)(x=0.0, y=1.0)


@scenario
def grad_argnums_out_of_range(jax, jnp, lax):
    return jax.grad(lambda x, y: x + y, argnums=2)(1.0, 2.0)


@scenario
def grad_bad_input(jax, jnp, lax):
    return jax.grad(lambda x: x)("foo")


@scenario
def grad_binop_mismatch(jax, jnp, lax):
    return jax.grad(lambda x, y: jnp.sum(x + y))(np.zeros(3), np.zeros(4))


@scenario
def jit_range_of_traced(jax, jnp, lax):
    def f(x, n):
        for i in range(n):
            x = x + i
        return x
    return jax.jit(f, static_argnums=(1,))(0, 5)


@scenario
def disable_jit(jax, jnp, lax):
    effects = []

    @jax.jit
    def f(x):
        effects.append(1)
        return x

    with jax.disable_jit():
        f(2)
        f(2)
    during = len(effects)
    f(2)
    f(2)
    return during, len(effects)


@scenario
def jit_of_noncallable(jax, jnp, lax):
    return jax.jit(3)


@scenario
def jit_shallow_and_deep_copy(jax, jnp, lax):
    import copy
    return jax.jit(lambda x: copy.copy(x) + copy.deepcopy(x))(1.5)


@scenario
def grad_through_dict_output_of_jit(jax, jnp, lax):
    f = jax.jit(lambda x: {"hi": x[0] * 2, "bye": x[1] * x[0]})
    return jax.grad(lambda x: f(x)["bye"] + f(x)["hi"])((1.5, 2.0))


@scenario
def value_and_grad_jit_static(jax, jnp, lax):
    def loss(w, n):
        return jnp.sum(w ** n)
    g = jax.jit(jax.value_and_grad(loss), static_argnums=1)
    return g(np.arange(3.0), 3), g(np.arange(3.0), 2)


@scenario
def grad_eval_shape(jax, jnp, lax):
    out = jax.eval_shape(lambda x, y: {"hi": jnp.tanh(jnp.dot(x, y) + 3.0)},
                         np.ones((2, 3)), np.ones((3, 4)))
    return out["hi"].shape


@scenario
def jacrev_allow_int(jax, jnp, lax):
    """An integer input's Jacobian blocks are zeros of its dtype, per output leaf."""
    def f(x, n):
        return {"a": x * n, "b": x.sum()}
    x, n = np.array([1.0, 2.0], np.float32), np.array([3, 4])
    return (jax.jacrev(f, argnums=(0, 1), allow_int=True)(x, n),
            jax.jacrev(lambda x, n: x * n, argnums=1, allow_int=True)(x, n),
            jax.jacrev(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(np.float32(2.0), 3))


@scenario
def jacrev_int_input_refused(jax, jnp, lax):
    return jax.jacrev(lambda x, n: x * n, argnums=1)(np.ones(2, np.float32), np.array([3, 4]))


@scenario
def jacfwd_takes_no_allow_int(jax, jnp, lax):
    return jax.jacfwd(lambda x: x * 2.0, allow_int=True)(np.array([1, 2]))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    agree(SCENARIOS[name])
