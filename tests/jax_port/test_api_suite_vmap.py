"""JAX's API scenarios for vmap (in_axes/out_axes trees, errors for mismatched sizes and bad
specifications, composition with grad, jit and jacobians) and for lax control flow under
the transformations (cond, switch, fori_loop, while_loop, scan, map), each run with jax and
with gradjit and the results compared."""
import collections

import numpy as np
import pytest

from tests.jax_port.api_suite import agree

SCENARIOS = {}
X = np.random.RandomState(1).randn(10, 4)
U = np.random.RandomState(2).randn(10, 2)
Point = collections.namedtuple("Point", ["x", "y"])


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def vmap_in_axes_list(jax, jnp, lax):
    dictionary = {"a": 5.0, "b": np.ones(2)}

    def f(dct, x, y):
        return dct["a"] + dct["b"] + x + y
    x, y = np.zeros(3), np.arange(3.0)
    return (jax.vmap(f, (None, 0, 0))(dictionary, x[:, None], y[:, None]),
            jax.vmap(f, [None, 0, 0])(dictionary, x[:, None], y[:, None]))


@scenario
def vmap_in_axes_not_a_prefix(jax, jnp, lax):
    return jax.vmap(lambda x: x, in_axes=(0, 0))(np.ones(3))


@scenario
def vmap_in_axes_leaf_types(jax, jnp, lax):
    return jax.vmap(lambda x: x, in_axes=(np.array([1.0, 2.0]),))(np.array([1.0, 2.0]))


@scenario
def vmap_out_axes_leaf_types(jax, jnp, lax):
    return jax.vmap(lambda x: x, out_axes=(np.array([1.0, 2.0]),))(np.array([1.0, 2.0]))


@scenario
def vmap_unbatched_object_passthrough(jax, jnp, lax):
    return jax.vmap(lambda f, x: f(x), (None, 0))(lambda x: x + 1, np.arange(3.0))


@scenario
def vmap_mismatched_axis_sizes(jax, jnp, lax):
    return jax.vmap(lambda a, b: jnp.sum(a) + jnp.sum(b), in_axes=(0, 1))(X, U)


@scenario
def vmap_mismatched_sizes_in_a_tree(jax, jnp, lax):
    return jax.vmap(lambda a, b: jnp.sum(a) + jnp.sum(b[0]), in_axes=(0, 1))(X, [U, U])


@scenario
def vmap_scalar_argument(jax, jnp, lax):
    return jax.vmap(lambda x: x)(1.0)


@scenario
def vmap_all_in_axes_none(jax, jnp, lax):
    return jax.vmap(lambda x: x, in_axes=None)(np.array([1.0, 2.0]))


@scenario
def vmap_axis_out_of_rank(jax, jnp, lax):
    return jax.vmap(lambda x: x, in_axes=1)(np.array([1.0, 2.0]))


@scenario
def vmap_out_axes_not_a_prefix(jax, jnp, lax):
    return jax.vmap(lambda x: x, in_axes=0, out_axes=(2, 3))(np.array([1.0, 2.0]))


@scenario
def vmap_mapped_output_with_out_axes_none(jax, jnp, lax):
    return jax.vmap(lambda x: x, out_axes=None)(np.array([1.0, 2.0]))


@scenario
def vmap_unmapped_output_with_out_axes_none(jax, jnp, lax):
    return jax.vmap(lambda x, y: (x * 2, jnp.sum(y)), in_axes=(0, None),
                    out_axes=(0, None))(np.arange(3.0), np.ones(2))


@scenario
def vmap_axis_size_without_mapped_inputs(jax, jnp, lax):
    return jax.vmap(lambda x: x * 2, in_axes=None, axis_size=3)(np.arange(2.0))


@scenario
def vmap_structured_in_axes(jax, jnp, lax):
    x, y, z = np.ones((6, 2, 3)), np.ones((3, 6, 4)), np.arange(120.0).reshape(4, 5, 6)

    def foo(tree):
        x, (y, z) = tree
        return jnp.dot(x, jnp.dot(y, z))

    def bar(tree):
        x, dct = tree
        return jnp.dot(x, jnp.dot(dct["a"], dct["b"]))
    return (jax.vmap(foo, in_axes=((0, (1, 2)),))((x, (y, z))),
            jax.vmap(foo, in_axes=((0, Point(1, 2)),))((x, Point(y, z))),
            jax.vmap(bar, in_axes=((0, {"a": 1, "b": 2}),))((x, {"a": y, "b": z})))


@scenario
def vmap_negative_and_out_axes(jax, jnp, lax):
    a = np.arange(24.0).reshape(2, 3, 4)
    return (jax.vmap(lambda r: r * 2, in_axes=-1, out_axes=-1)(a),
            jax.vmap(lambda r: {"s": r.sum(), "r": r}, in_axes=1,
                     out_axes={"s": 0, "r": 1})(a))


@scenario
def vmap_of_grad_per_example(jax, jnp, lax):
    def loss(w, x, y):
        return (jnp.tanh(x @ w["k"]) - y) ** 2
    w = {"k": np.linspace(-1, 1, 4)}
    return jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, X, U[:, 0])


@scenario
def grad_of_vmap(jax, jnp, lax):
    return jax.grad(lambda w: jnp.sum(jax.vmap(lambda x: jnp.sin(x @ w))(X)))(np.ones(4))


@scenario
def vmap_of_value_and_grad_has_aux(jax, jnp, lax):
    def f(x):
        return jnp.sum(x ** 2), {"max": jnp.max(x)}
    return jax.vmap(jax.value_and_grad(f, has_aux=True))(X)


@scenario
def jit_of_vmap_of_jacrev(jax, jnp, lax):
    return jax.jit(jax.vmap(jax.jacrev(lambda x: jnp.tanh(x) * x.sum())))(X[:3])


@scenario
def vmap_of_jvp(jax, jnp, lax):
    return jax.vmap(lambda x, t: jax.jvp(jnp.sin, (x,), (t,)))(X, np.ones_like(X))


@scenario
def vmap_nested_in_axes(jax, jnp, lax):
    return jax.vmap(jax.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(None, 0))(
        np.arange(3.0), np.arange(4.0))


@scenario
def vmap_closure_over_traced(jax, jnp, lax):
    def f(w):
        return jnp.sum(jax.vmap(lambda x: jnp.dot(x, w))(X))
    return jax.grad(f)(np.ones(4)), jax.jit(f)(np.ones(4))


@scenario
def vmap_none_leaves(jax, jnp, lax):
    return jax.vmap(lambda p: p["a"] * 2 if p["b"] is None else p["a"])({"a": X[0], "b": None})


@scenario
def cond_grad_vmap(jax, jnp, lax):
    def f(x):
        return lax.cond(x.sum() > 0, lambda a: jnp.sin(a) * 2, lambda a: a ** 2, x)
    return jax.vmap(jax.grad(lambda x: f(x).sum()))(X), jax.jit(jax.vmap(f))(X)


@scenario
def cond_operands_and_pytrees(jax, jnp, lax):
    def f(x, y):
        return lax.cond(x > 0, lambda a, b: {"o": a * b}, lambda a, b: {"o": a - b}, x, y)
    return jax.grad(lambda x, y: f(x, y)["o"], (0, 1))(2.0, 3.0), jax.vmap(f)(X[:, 0], X[:, 1])


@scenario
def switch_vmap_of_index(jax, jnp, lax):
    branches = [lambda x: jnp.sin(x), lambda x: jnp.cos(x) * 2, lambda x: x ** 3]
    f = lambda i, x: lax.switch(i, branches, x)  # noqa: E731
    x = np.linspace(-1, 1, 5)
    return (jax.vmap(f)(np.array([-1, 0, 1, 2, 7]), x),
            jax.vmap(jax.grad(f, 1))(np.array([0, 1, 2, 2, 0]), x))


@scenario
def cond_under_jacobians_takes_one_branch(jax, jnp, lax):
    # the predicate is shared by the basis vectors: only the taken branch is differentiated
    def f(x):
        return lax.cond(x[0] > 0, lambda a: jnp.sqrt(a), lambda a: a * 0.0, x)
    x = np.array([4.0, 1.0])
    return jax.jacrev(f)(x), jax.jacfwd(f)(x), jax.hessian(lambda x: f(x).sum())(x)


@scenario
def cond_in_vmap_reads_mapped_closure(jax, jnp, lax):
    def per_example(x):
        def inner(w):
            return lax.cond(x.sum() > 0, lambda: jnp.sum(w * x), lambda: jnp.sum(w / (1 + x ** 2)))
        return jax.grad(inner)(np.ones(4))
    return jax.vmap(per_example)(X)


@scenario
def switch_grad(jax, jnp, lax):
    branches = [lambda x: jnp.sin(x), lambda x: jnp.cos(x) * 2, lambda x: x ** 3]
    return [jax.grad(lambda x, i=i: lax.switch(i, branches, x))(0.7) for i in (-1, 0, 1, 2, 5)]


@scenario
def fori_loop_grad_jit(jax, jnp, lax):
    def f(x):
        return lax.fori_loop(0, 5, lambda i, c: c * jnp.sin(c) + i, x)
    return jax.grad(f)(1.3), jax.jit(jax.grad(f))(1.3), jax.vmap(f)(X[:, 0])


@scenario
def while_loop_values_vmap(jax, jnp, lax):
    def f(x):
        return lax.while_loop(lambda c: c[0] < 10.0, lambda c: (c[0] * 2, c[1] + 1), (x, 0))
    return jax.jit(f)(1.5), jax.vmap(f)(np.array([0.5, 3.0, 20.0]))


@scenario
def scan_grad_pytree_carry(jax, jnp, lax):
    def f(w, xs):
        def step(c, x):
            h = jnp.tanh(c["h"] * w + x)
            return {"h": h, "n": c["n"] + 1}, h.sum()
        carry, ys = lax.scan(step, {"h": np.zeros(4), "n": 0}, xs)
        return jnp.sum(ys) + carry["h"].sum()
    return jax.value_and_grad(f, (0, 1))(0.5, X[:5])


@scenario
def scan_reverse_length_and_vmap(jax, jnp, lax):
    def f(x):
        return lax.scan(lambda c, _: (c * 0.9 + 1.0, c), x, None, length=4, reverse=True)
    return f(2.0), jax.vmap(f)(np.arange(3.0)), jax.jacfwd(lambda x: f(x)[1])(2.0)


@scenario
def lax_map_grad(jax, jnp, lax):
    return jax.grad(lambda w: lax.map(lambda r: jnp.sin(r @ w), X).sum())(np.ones(4))


@scenario
def hessian_through_scan(jax, jnp, lax):
    def f(x):
        return lax.scan(lambda c, a: (c * jnp.sin(a * c), None), x[0], x)[0]
    return jax.hessian(f)(np.array([0.3, 0.5, 0.7]))


@scenario
def while_loop_vmap_closures(jax, jnp, lax):
    """The loop closes over a shared and a mapped value; it becomes batched part way."""
    def f(x, y):
        return lax.while_loop(lambda c: c[0] < y, lambda c: (c[0] + x, c[1] * 2.0), (x, y))
    def g(x):
        return lax.while_loop(lambda c: c < 10, lambda c: c * x, 2.0)
    xs = np.array([1.0, 2.0, 3.5])
    return (jax.vmap(f, in_axes=(0, None))(xs, 7.0), jax.vmap(f)(xs, np.array([7.0, 1.0, 9.0])),
            jax.jit(jax.vmap(g))(np.array([1.5, 3.0, 11.0])))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    agree(SCENARIOS[name])
