"""JAX's API scenarios for custom_jvp, custom_vjp (nondiff_argnums, defjvps, pytrees,
keyword arguments, Python control flow, composition with jit, vmap and scan) and
checkpoint/remat, each run with jax and with gradjit and the results compared."""
from functools import partial

import numpy as np
import pytest

import gradjit
from tests.jax_port.api_suite import agree

SCENARIOS = {}
X3 = np.arange(3.0)
XX = np.arange(6.0).reshape(2, 3)


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def sin_with_jvp(jax, jnp):
    """sin, whose JVP rule says 2 cos(x): a rule that differs from the true derivative shows
    whether it was used."""
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (g,) = primals, tangents
        return f(x), 2 * jnp.cos(x) * g
    return f


def sin_with_vjp(jax, jnp):
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    def fwd(x):
        return f(x), jnp.cos(x)

    def bwd(cos_x, g):
        return (2 * cos_x * g,)
    f.defvjp(fwd, bwd)
    return f


@scenario
def custom_jvp_basic(jax, jnp, lax):
    f = sin_with_jvp(jax, jnp)
    return f(3.0), jax.jvp(f, (3.0,), (1.0,)), jax.grad(f)(3.0)


@scenario
def custom_jvp_invariance(jax, jnp, lax):
    @jax.custom_jvp
    def f(x):
        return jnp.cos(2 * x) / 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), 3 * tangents[0]

    def f2(x):
        return jax.jvp(f, (x,), (x,))[0]

    def f3(x):
        return jax.jvp(f2, (x,), (x,))[0]
    return jax.jvp(f, (1.0,), (1.0,)), jax.jvp(f2, (1.0,), (1.0,)), jax.jvp(f3, (1.0,), (1.0,))


@scenario
def custom_jvp_python_control_flow(jax, jnp, lax):
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x) if x > 0 else jnp.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (g,) = primals, tangents
        return f(x), (2 * g if x > 0 else 3 * g)
    return (f(2.0), f(-2.0), jax.jvp(f, (2.0,), (1.0,)), jax.jvp(f, (-2.0,), (1.0,)),
            jax.grad(f)(2.0), jax.grad(f)(-2.0))


@scenario
def custom_jvp_vmap(jax, jnp, lax):
    f = sin_with_jvp(jax, jnp)
    return (jax.vmap(f)(X3), jax.vmap(jax.vmap(f))(XX),
            jax.vmap(lambda x: jax.jvp(f, (x,), (x,)))(X3),
            jax.jvp(jax.vmap(f), (X3,), (X3,)),
            jax.vmap(lambda x: jax.jvp(jax.vmap(f), (x,), (x,)))(XX))


@scenario
def custom_jvp_jit(jax, jnp, lax):
    f = sin_with_jvp(jax, jnp)
    return (jax.jit(f)(3.0), jax.jit(jax.jit(f))(3.0),
            jax.jit(lambda x: jax.jvp(f, (x,), (x,)))(3.0), jax.jvp(jax.jit(f), (3.0,), (3.0,)),
            jax.jit(jax.grad(f))(3.0))


@scenario
def custom_jvp_pytrees(jax, jnp, lax):
    @jax.custom_jvp
    def f(x):
        return {"b": jnp.sin(x["a"])}

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (g,) = primals, tangents
        return f(x), {"b": 2 * jnp.cos(x["a"]) * g["a"]}
    x = {"a": 3.0}
    return f(x), jax.jvp(f, (x,), (x,)), jax.grad(lambda x: f(x)["b"])(x)


@scenario
def custom_jvp_kwargs(jax, jnp, lax):
    @jax.custom_jvp
    def my_fun(x, y, c=1.0):
        return c * (x + y)

    @my_fun.defjvp
    def my_jvp(primals, tangents):
        x, y, c = primals
        t_x, t_y, t_c = tangents
        return my_fun(x, y, c), t_c + 2 * t_x

    f = lambda x, y: jnp.square(my_fun(x, y, c=2.0)).sum()  # noqa: E731
    return f(10.0, 5.0), jax.jvp(f, (10.0, 5.0), (1.0, 1.0))


@scenario
def custom_jvp_in_scan(jax, jnp, lax):
    @jax.custom_jvp
    def f(x):
        return 3 * x

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), 2 * tangents[0]

    def foo(x):
        return lax.scan(lambda c, _: (f(c), None), x, None, length=1)[0]
    return (jax.grad(foo)(3.0), jax.grad(jax.grad(foo))(3.0), jax.vmap(foo)(np.ones(3)),
            jax.grad(lambda x: jax.vmap(foo)(x).sum())(np.ones(3)))


@scenario
def custom_jvp_nondiff_function_argument(jax, jnp, lax):
    @partial(jax.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,), (t,) = primals, tangents
        return app(f, x), 3 * t
    return app(lambda x: 2 * x, 1.0), jax.jvp(lambda x: app(lambda y: 2 * y, x), (1.0,), (1.0,))


def test_custom_jvp_nondiff_argument_traced_by_jit_is_its_value_under_a_guard():
    """JAX refuses a nondiff argument that jit traced ("No constant handler"); a traced
    number in gradjit holds its value, so the rule gets the value and the trace a guard: a
    call with another value traces again, as for jit's static arguments."""
    @partial(gradjit.custom_jvp, nondiff_argnums=(0,))
    def f(x, y):
        return x * y

    @f.defjvp
    def f_jvp(x, primals, tangents):
        (y,), (t_y,) = primals, tangents
        return f(x, y), x * 5 * t_y

    g = gradjit.jit(lambda x, y: f(x, y))
    assert gradjit.jvp(lambda y: g(2.0, y), (3.0,), (1.0,)) == (6.0, 10.0)
    assert gradjit.jvp(lambda y: g(4.0, y), (3.0,), (1.0,)) == (12.0, 20.0)
    twice = gradjit.jit(gradjit.grad(f, 1))  # compiled once per value of x, by its guard
    assert [twice(x, 3.0) for x in (2.0, 4.0, 2.0)] == [10.0, 20.0, 10.0]
    assert twice.cache_info().traces == 2


@scenario
def custom_jvp_missing_rule(jax, jnp, lax):
    @jax.custom_jvp
    def foo(x):
        return x ** 2
    return foo(2.0)


@scenario
def custom_jvp_rule_inconsistent_structures(jax, jnp, lax):
    @jax.custom_jvp
    def f(x):
        return (x ** 2,)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, t = primals[0], tangents[0]
        return f(x), [2 * x * t, x]
    return jax.jvp(f, (2.0,), (1.0,))


@scenario
def custom_jvp_rule_not_a_pair(jax, jnp, lax):
    @jax.custom_jvp
    def f(x):
        return x ** 2

    @f.defjvp
    def f_jvp(primals, tangents):
        return tangents[0]
    return jax.jvp(f, (2.0,), (1.0,))


@scenario
def custom_jvp_expit_in_scan(jax, jnp, lax):
    @jax.custom_jvp
    def expit(x):
        return 1 / (1 + lax.exp(-x))

    @expit.defjvp
    def expit_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        ans = expit(x)
        return ans, t * ans * (1 - ans)

    def scanned(c, _):
        return [expit(c[0])] + [c[i - 1] + c[i] for i in range(1, len(c))], None

    def foo(x):
        return lax.scan(scanned, [x, 0.0, 0.0, 0.0, 0.0], None, length=10)[0][-1]
    return (foo(3.0), jax.grad(foo)(3.0),
            jax.grad(lambda x: jax.vmap(foo)(x).sum())(np.arange(3.0)))


@scenario
def custom_jvp_relu_select(jax, jnp, lax):
    @jax.custom_jvp
    def relu(x):
        return jnp.maximum(x, 0)

    @relu.defjvp
    def relu_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return relu(x), lax.select(x > 0, t, lax.full_like(t, 0))

    def f(x):
        return jnp.sum(relu(x - 1.0) ** 2)
    x = np.arange(4.0)
    return (jax.jit(jax.vmap(relu))(x - 1.5), jax.jit(jax.grad(f))(x),
            jax.jvp(jax.jit(jax.vmap(relu)), (x - 1.5,), (np.ones(4),)))


@scenario
def custom_jvp_linear_in_scan(jax, jnp, lax):
    @jax.custom_jvp
    def f(x):
        return -x

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), f(tangents[0])
    return jax.grad(lambda x: lax.scan(lambda c, _: (f(c), None), x, None, length=1)[0])(3.0)


@scenario
def custom_jvps_first_rule_none(jax, jnp, lax):
    @jax.custom_jvp
    def f(x, y):
        return x ** 2 * y
    f.defjvps(None, lambda y_dot, primal_out, x, y: 2 * x * y * y_dot)
    return (jax.grad(f, 1)(2.0, 3.0), jax.grad(f, 0)(2.0, 3.0),
            jax.jvp(f, (2.0, 3.0), (1.0, 1.0)))


@scenario
def custom_jvps_both_rules(jax, jnp, lax):
    @jax.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y
    f.defjvps(lambda x_dot, out, x, y: jnp.cos(x) * x_dot * y,
              lambda y_dot, out, x, y: jnp.sin(x) * y_dot)
    x, y = np.array([0.3, 1.2]), np.array([2.0, -1.0])
    return (jax.jvp(f, (x, y), (np.ones(2), np.ones(2))),
            jax.grad(lambda x, y: f(x, y).sum(), (0, 1))(x, y))


@scenario
def custom_jvps_with_nondiff_argnums(jax, jnp, lax):
    f = jax.custom_jvp(lambda n, x: x * n, nondiff_argnums=(0,))
    f.defjvps(lambda x_dot, out, n, x: x_dot * n)


@scenario
def custom_vjp_basic(jax, jnp, lax):
    f = sin_with_vjp(jax, jnp)
    return f(3.0), jax.grad(f)(3.0), jax.value_and_grad(f)(3.0)


@scenario
def custom_vjp_invariance(jax, jnp, lax):
    @jax.custom_vjp
    def f(x):
        return jnp.cos(2 * x) / 2.0
    f.defvjp(lambda x: (f(x), x), lambda x, g: (g * 3,))

    def f2(x):
        return jax.value_and_grad(f)(x)[0]

    def f3(x):
        return jax.value_and_grad(f2)(x)[0]
    return f(1.0), f2(1.0), f3(1.0), jax.grad(f)(1.0), jax.grad(f2)(1.0), jax.grad(f3)(1.0)


@scenario
def custom_vjp_python_control_flow(jax, jnp, lax):
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x) if x > 0 else jnp.cos(x)
    f.defvjp(lambda x: (f(x), x), lambda x, g: ((2 * g if x > 0 else 3 * g),))
    return jax.value_and_grad(f)(2.0), jax.value_and_grad(f)(-2.0)


@scenario
def custom_vjp_vmap(jax, jnp, lax):
    f = sin_with_vjp(jax, jnp)
    return (jax.vmap(f)(X3), jax.vmap(jax.vmap(f))(XX), jax.vmap(jax.grad(f))(X3),
            jax.vmap(jax.value_and_grad(f))(X3), jax.vmap(jax.vmap(jax.grad(f)))(XX),
            jax.grad(lambda x: jax.vmap(f)(x).sum())(X3),
            jax.vmap(jax.grad(lambda x: jax.vmap(f)(x).sum()))(XX))


@scenario
def custom_vjp_jit(jax, jnp, lax):
    f = sin_with_vjp(jax, jnp)
    return (jax.jit(f)(3.0), jax.jit(jax.jit(f))(3.0), jax.jit(jax.grad(f))(3.0),
            jax.grad(jax.jit(f))(3.0))


@scenario
def custom_vjp_pytrees(jax, jnp, lax):
    @jax.custom_vjp
    def f(x):
        return {"b": jnp.sin(x["a"])}
    f.defvjp(lambda x: (f(x), {"r": jnp.cos(x["a"])}),
             lambda res, g: ({"a": 2 * res["r"] * g["b"]},))
    return f({"a": 3.0}), jax.grad(lambda x: f(x)["b"])({"a": 3.0})


@scenario
def custom_vjp_jvp_refused(jax, jnp, lax):
    return jax.jvp(sin_with_vjp(jax, jnp), (3.0,), (1.0,))


@scenario
def custom_vjp_kwargs(jax, jnp, lax):
    @jax.custom_vjp
    def my_fun(x, y, c=1.0):
        return c * (x + y)
    my_fun.defvjp(lambda x, y, c=1.0: (my_fun(x, y, c), None), lambda _, g: (g, 2 * g, g))
    f = lambda x, y: jnp.square(my_fun(x, y, c=2.0)).sum()  # noqa: E731
    return f(10.0, 5.0), jax.grad(f, (0, 1))(10.0, 5.0)


@scenario
def custom_vjp_in_scan(jax, jnp, lax):
    f = sin_with_vjp(jax, jnp)

    def foo(x):
        return lax.scan(lambda c, _: (f(c), None), x, None, length=1)[0]
    return (jax.grad(foo)(3.0), jax.grad(jax.grad(foo))(3.0), jax.vmap(foo)(X3),
            jax.grad(lambda x: jax.vmap(foo)(x).sum())(X3))


@scenario
def custom_vjp_nondiff_function_argument(jax, jnp, lax):
    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)
    app.defvjp(lambda f, x: (app(f, x), jnp.cos(x)), lambda f, cos_x, g: (cos_x * g,))
    return app(lambda x: 2 * x, 1.0), jax.value_and_grad(lambda x: app(lambda y: 2 * y, x))(1.0)


@scenario
def custom_vjp_nondiff_argnums_clip_gradient(jax, jnp, lax):
    @partial(jax.custom_vjp, nondiff_argnums=(0, 1))
    def clip_gradient(lo, hi, x):
        return x
    clip_gradient.defvjp(lambda lo, hi, x: (x, None),
                         lambda lo, hi, _, g: (jnp.clip(g, lo, hi),))
    return jax.grad(lambda x: jnp.sum(clip_gradient(-0.5, 0.25, x) * np.array([2.0, 0.1, -3.0])))(
        np.ones(3))


@scenario
def custom_vjp_missing_rule(jax, jnp, lax):
    @jax.custom_vjp
    def foo(x):
        return x ** 2
    return foo(2.0)


@scenario
def custom_vjp_rule_inconsistent_structure(jax, jnp, lax):
    @jax.custom_vjp
    def f(x):
        return x
    f.defvjp(lambda x: (x, None), lambda _, g: g)
    return jax.grad(f)(2.0)


@scenario
def custom_vjp_pytree_argument(jax, jnp, lax):
    @jax.custom_vjp
    def f(p, s):
        return p["a"] * p["b"] * s
    f.defvjp(lambda p, s: (f(p, s), (p, s)),
             lambda r, g: ({"a": 2 * g * r[0]["b"], "b": None}, g * r[1]))
    p = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, -1.0])}
    return f(p, 2.0), jax.grad(lambda p, s: f(p, s).sum(), (0, 1))(p, 2.0)


@scenario
def custom_vjp_pytree_cotangent_of_another_structure(jax, jnp, lax):
    @jax.custom_vjp
    def f(p):
        return p["a"] * p["b"]
    f.defvjp(lambda p: (f(p), p), lambda p, g: ([g * p["b"], g * p["a"]],))
    return jax.grad(f)({"a": 1.0, "b": 2.0})


@scenario
def custom_jvp_pytree_arguments(jax, jnp, lax):
    @jax.custom_jvp
    def f(p, xs):
        return jnp.sin(p["w"]) * xs[0] + xs[1]

    @f.defjvp
    def f_jvp(primals, tangents):
        (p, xs), (tp, txs) = primals, tangents
        return f(p, xs), 2 * jnp.cos(p["w"]) * tp["w"] * xs[0] + txs[1]
    p, xs = {"w": np.array([0.2, 0.9])}, (np.array([1.0, 2.0]), np.array([0.5, 0.5]))
    return (jax.jvp(f, (p, xs), ({"w": np.ones(2)}, (np.ones(2), np.ones(2)))),
            jax.grad(lambda p, xs: f(p, xs).sum(), (0, 1))(p, xs))


@scenario
def custom_vjp_closure_over_traced(jax, jnp, lax):
    def outer(x):
        @jax.custom_vjp
        def g(y):
            return y * 2.0
        g.defvjp(lambda y: (g(y), None), lambda _, ct: (ct * 5.0,))
        return g(x) * x
    return jax.grad(outer)(1.5)


@scenario
def remat_basic(jax, jnp, lax):
    @jax.remat
    def g(x):
        return lax.sin(lax.sin(x)), 3.0

    def f(x):
        return g(x)[0]
    ans, f_lin = jax.linearize(f, 2.0)
    return f(2.0), ans, f_lin(3.0)


@scenario
def remat_freevars(jax, jnp, lax):
    def f2(x):
        y = 2 * jnp.sin(x)
        return jax.remat(lambda x: jnp.cos(x) * jnp.sin(y))(x)
    ans, f_lin = jax.linearize(f2, 2.0)
    return ans, f_lin(3.0), jax.grad(f2)(2.0)


@scenario
def remat_jit(jax, jnp, lax):
    g = jax.remat(lambda x: lax.sin(lax.sin(x)))
    f = jax.jit(lambda x: g(x))
    return f(2.0), jax.grad(f)(2.0), jax.jit(jax.grad(lambda x: g(x)))(2.0)


@scenario
def remat_vmap(jax, jnp, lax):
    g = jax.remat(lambda x: lax.sin(lax.sin(x)))
    return jax.vmap(g)(X3), jax.jacfwd(g)(X3), jax.jacrev(g)(X3)


@scenario
def remat_higher_order(jax, jnp, lax):
    return jax.grad(jax.grad(jax.remat(lambda x: lax.cos(lax.sin(x)))))(3.0)


@scenario
def remat_scan(jax, jnp, lax):
    to_scan = lambda c, x: (jnp.sin(c) * x, None)  # noqa: E731

    def f(x):
        return lax.scan(jax.remat(to_scan), x, np.arange(1.0, 4.0))[0]
    return f(4.0), jax.grad(f)(4.0)


@scenario
def remat_binomial_checkpointing(jax, jnp, lax):
    def binom(funs):
        if len(funs) == 1:
            return funs[0]
        f1, f2 = binom(funs[:len(funs) // 2]), binom(funs[len(funs) // 2:])
        return jax.remat(lambda x: f1(f2(x)))
    f = binom([jnp.sin, jnp.cos, jnp.sin, jnp.tanh])
    return f(4.0), jax.grad(f)(4.0)


@scenario
def remat_static_argnums(jax, jnp, lax):
    def f(flag, y):
        return jnp.sin(y) + 1 if flag else y ** 2
    g = jax.checkpoint(f, static_argnums=(0,))
    return jax.grad(g, 1)(True, 2.0), jax.grad(g, 1)(False, 2.0)


@scenario
def remat_policy(jax, jnp, lax):
    g = jax.checkpoint(lambda x: jnp.sin(x @ x.T).sum(),
                       policy=lambda prim, *avals, **params: False)
    return jax.grad(g)(XX)


@scenario
def remat_pytree_and_kwargs(jax, jnp, lax):
    @jax.checkpoint
    def g(p, scale=2.0):
        return {"o": jnp.tanh(p["a"]) * scale, "n": None}
    return jax.grad(lambda p: g(p, scale=3.0)["o"].sum())({"a": X3, "b": None})


@scenario
def custom_jvp_calling_itself_on_tangents(jax, jnp, lax):
    """The rule applies f to the tangent: grad transposes that call as f's own (linear) code,
    twice over for the second derivative."""
    @jax.custom_jvp
    def f(x):
        return 3.0 * x

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), f(tangents[0])

    def g(x):
        return jnp.sin(f(x)) * f(x * x)
    return jax.grad(g)(0.7), jax.grad(jax.grad(g))(0.7), jax.jvp(g, (0.7,), (1.0,))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    agree(SCENARIOS[name])
