"""JAX's lax_control_flow scenarios (cond, switch, while_loop, fori_loop, scan, map,
associative_scan, the cumulative family, select_n) with their gradients, jvp, vmap and jit,
and the errors for mismatched branch and carry types, run with jax and with gradjit."""
import numpy as np
import pytest

from tests.jax_port.api_suite import agree

SCENARIOS = {}
R = np.random.RandomState(3)
X = R.randn(6, 3)
V = R.randn(5)
W = R.randn(3, 3) * 0.5
M = R.randn(5, 2, 2)


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


@scenario
def while_tuple_carry_and_jit(jax, jnp, lax):
    def count(limit):
        return lax.while_loop(lambda c: c[0] < limit, lambda c: (c[0] + 1, c[1] + c[0]), (0, 0))
    return count(6), jax.jit(count)(6), jax.jit(count)(0)


@scenario
def nested_while_loops(jax, jnp, lax):
    def outer(n):
        def body(c):
            i, total = c
            inner = lax.while_loop(lambda d: d[0] < i, lambda d: (d[0] + 1, d[1] + d[0]), (0, 0))
            return i + 1, total + inner[1]
        return lax.while_loop(lambda c: c[0] < n, body, (0, 0))[1]
    return outer(5), jax.jit(outer)(7)


@scenario
def while_loop_batched_predicate(jax, jnp, lax):
    def f(x, n):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * x), (0, 1.0))
    return (jax.vmap(f)(np.array([2.0, 3.0, 0.5]), np.array([1, 4, 2])),
            jax.vmap(f, (None, 0))(1.5, np.array([0, 3])))


@scenario
def while_loop_jvp(jax, jnp, lax):
    f = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, jnp.sin(c[1]) * 2),
                                 (0, x))[1]
    return jax.jvp(f, (0.4,), (1.0,)), jax.jacfwd(jax.jacfwd(f))(0.4)


@scenario
def while_loop_body_changes_type(jax, jnp, lax):
    return lax.while_loop(lambda c: c < 3, lambda c: (c + 1.0), 0)


@scenario
def while_loop_body_changes_shape(jax, jnp, lax):
    return lax.while_loop(lambda c: c.sum() < 3, lambda c: jnp.ones(3), np.zeros(2))


@scenario
def while_loop_nonscalar_predicate(jax, jnp, lax):
    return lax.while_loop(lambda c: c < 3, lambda c: c + 1, np.zeros(2))


@scenario
def fori_loop_pytree_and_traced_bounds(jax, jnp, lax):
    def f(x, n):
        return lax.fori_loop(0, n, lambda i, c: {"a": c["a"] * x, "i": c["i"] + i},
                             {"a": 1.0, "i": 0})
    return f(1.5, 4), jax.jit(f)(1.5, 4), jax.jit(f)(2.0, 0), f(2.0, -3)


@scenario
def fori_loop_batched_bounds(jax, jnp, lax):
    f = lambda lo, hi: lax.fori_loop(lo, hi, lambda i, c: c + i * i, 0)
    return jax.vmap(f)(np.array([0, 2, 5]), np.array([4, 3, 5]))


@scenario
def fori_loop_reverse_grad(jax, jnp, lax):
    f = lambda x: lax.fori_loop(0, 4, lambda i, c: jnp.cos(c) * (i + 1.0), x)
    return jax.grad(f)(0.3), jax.grad(jax.grad(f))(0.3), jax.vmap(jax.grad(f))(V)


@scenario
def fori_loop_unroll(jax, jnp, lax):
    return lax.fori_loop(1, 7, lambda i, c: c * i, 1, unroll=2)


@scenario
def cond_pytree_branches_and_jit(jax, jnp, lax):
    def f(p, x):
        return lax.cond(p, lambda v: (v * 2, {"s": v.sum()}), lambda v: (-v, {"s": v.max()}), x)
    return f(True, V), f(False, V), jax.jit(f)(False, V), jax.jit(f)(np.bool_(True), V)


@scenario
def cond_no_operands_and_several(jax, jnp, lax):
    return (lax.cond(True, lambda: 3.0, lambda: 4.0),
            lax.cond(1 > 2, lambda a, b: a + b, lambda a, b: a * b, 3.0, 5.0))


@scenario
def cond_integer_predicate(jax, jnp, lax):
    return [lax.cond(p, lambda: 1, lambda: 0) for p in (0, 3, np.int32(-1))]


@scenario
def cond_batched_predicate_becomes_select(jax, jnp, lax):
    def f(x):
        return lax.cond(x > 0, lambda v: (jnp.sin(v), v * 2), lambda v: (jnp.cos(v), v - 1), x)
    return jax.vmap(f)(V), jax.vmap(jax.grad(lambda v: f(v)[0] + f(v)[1]))(V)


@scenario
def cond_batched_operand_shared_predicate(jax, jnp, lax):
    f = lambda p, x: lax.cond(p, lambda v: v @ v, lambda v: v.sum(), x)
    return jax.vmap(f, (None, 0))(True, X), jax.vmap(f, (None, 0))(False, X)


@scenario
def cond_grad_jvp_both_branches(jax, jnp, lax):
    f = lambda x: lax.cond(x > 0.5, lambda v: v ** 3, lambda v: jnp.exp(-v), x)
    return ([jax.grad(f)(x) for x in (0.2, 0.9)], [jax.jvp(f, (x,), (2.0,)) for x in (0.2, 0.9)],
            jax.jit(jax.grad(jax.grad(f)))(0.9))


@scenario
def cond_closure_gradient(jax, jnp, lax):
    def f(x, y):
        return lax.cond(x > y, lambda: x * y, lambda: y - x)
    return jax.grad(f, (0, 1))(2.0, 1.0), jax.grad(f, (0, 1))(1.0, 2.0)


@scenario
def cond_branch_output_mismatch(jax, jnp, lax):
    return lax.cond(True, lambda: 1.0, lambda: (1.0, 2.0))


@scenario
def cond_branch_shape_mismatch(jax, jnp, lax):
    return lax.cond(True, lambda x: x, lambda x: x[:2], np.ones(3))


@scenario
def cond_branch_dtype_mismatch(jax, jnp, lax):
    return lax.cond(True, lambda x: x, lambda x: x.astype(np.int32), np.ones(3))


@scenario
def cond_branch_not_callable(jax, jnp, lax):
    return lax.cond(True, 1.0, lambda: 2.0)


@scenario
def switch_pytree_jit_and_clamp(jax, jnp, lax):
    branches = [lambda x: {"v": x + 1}, lambda x: {"v": x * 3}, lambda x: {"v": -x}]
    f = lambda i, x: lax.switch(i, branches, x)
    return [jax.jit(f)(i, V) for i in (-5, 0, 1, 2, 9)]


@scenario
def switch_batched_index_grad(jax, jnp, lax):
    branches = [jnp.sin, jnp.cos, lambda x: x * x]
    f = lambda i, x: lax.switch(i, branches, x)
    i = np.array([0, 1, 2, 1, 0])
    return (jax.vmap(f)(i, V), jax.vmap(jax.grad(f, 1))(i, V),
            jax.jvp(lambda x: jax.vmap(f)(i, x), (V,), (np.ones(5),)))


@scenario
def switch_branch_output_mismatch(jax, jnp, lax):
    return lax.switch(0, [lambda: 1.0, lambda: np.ones(2)])


@scenario
def switch_float_index(jax, jnp, lax):
    return lax.switch(1.0, [lambda: 1.0, lambda: 2.0])


@scenario
def scan_rnn_gradients(jax, jnp, lax):
    def loss(w, xs):
        def step(h, x):
            h = jnp.tanh(w @ h + x)
            return h, h.sum()
        h, ys = lax.scan(step, np.zeros(3), xs)
        return (ys ** 2).sum() + h.sum()
    w = W
    return (jax.grad(loss, (0, 1))(w, X), jax.jit(jax.grad(loss))(w, X),
            jax.jvp(lambda w: loss(w, X), (w,), (np.ones((3, 3)),)))


@scenario
def scan_reverse_unroll_jit(jax, jnp, lax):
    def f(xs, reverse, unroll):
        return lax.scan(lambda c, x: (c * 0.5 + x, c), np.zeros(3), xs, reverse=reverse,
                        unroll=unroll)
    return [jax.jit(f, static_argnums=(1, 2))(X, r, u) for r in (False, True) for u in (1, 3)]


@scenario
def scan_xs_none_length(jax, jnp, lax):
    f = lambda x: lax.scan(lambda c, _: (c + 1.0, c * c), x, None, length=4)
    return f(0.5), jax.grad(lambda x: f(x)[1].sum())(0.5)


@scenario
def scan_pytree_xs_and_no_ys(jax, jnp, lax):
    def f(xs):
        return lax.scan(lambda c, x: (c + x["a"] * x["b"][0], None), 0.0,
                        {"a": xs[:, 0], "b": (xs[:, 1], xs[:, 2])})
    return f(X), jax.grad(lambda xs: f(xs)[0])(X)


@scenario
def scan_vmap_carry_and_xs(jax, jnp, lax):
    f = lambda c0, xs: lax.scan(lambda c, x: (c * x, c + x), c0, xs)
    return (jax.vmap(f)(V[:3], X.T), jax.vmap(f, (None, 1))(1.0, X),
            jax.vmap(f, (0, None), out_axes=1)(V[:3], X[:, 0]))


@scenario
def scan_hessian(jax, jnp, lax):
    f = lambda x: lax.scan(lambda c, a: (jnp.sin(c * a), c), x[0], x)[1].sum()
    return jax.hessian(f)(V[:3]), jax.jacrev(jax.jacfwd(f))(V[:3])


@scenario
def scan_carry_shape_mismatch(jax, jnp, lax):
    return lax.scan(lambda c, x: (np.ones(2) * x, x), np.ones(3), V)


@scenario
def scan_carry_dtype_mismatch(jax, jnp, lax):
    return lax.scan(lambda c, x: (c + x, x), 0, V)


@scenario
def scan_body_not_pair(jax, jnp, lax):
    return lax.scan(lambda c, x: c, 0.0, V)


@scenario
def scan_inconsistent_lengths(jax, jnp, lax):
    return lax.scan(lambda c, x: (c, x), 0.0, (V, np.ones(3)))


@scenario
def scan_length_disagrees(jax, jnp, lax):
    return lax.scan(lambda c, x: (c, x), 0.0, V, length=2)


@scenario
def scan_no_length(jax, jnp, lax):
    return lax.scan(lambda c, x: (c, x), 0.0, None)


@scenario
def map_tree_batch_size_grad(jax, jnp, lax):
    f = lambda xs: lax.map(lambda r: (r["p"] * r["q"]).sum(), {"p": xs, "q": xs + 1})
    g = lambda xs: lax.map(lambda r: jnp.sin(r).prod(), xs, batch_size=4)
    return f(X), jax.grad(lambda x: f(x).sum())(X), g(X), jax.grad(lambda x: g(x).sum())(X)


@scenario
def associative_scan_add_and_reverse(jax, jnp, lax):
    x = np.arange(1.0, 8.0)
    return (lax.associative_scan(jnp.add, x), lax.associative_scan(jnp.multiply, x, reverse=True),
            lax.associative_scan(jnp.maximum, X, axis=1),
            jax.jit(lambda v: lax.associative_scan(jnp.add, v, axis=0))(X),
            [lax.associative_scan(jnp.matmul, M, reverse=r) for r in (False, True)],
            jax.grad(lambda m: lax.associative_scan(jnp.matmul, m, reverse=True).sum())(M))


@scenario
def associative_scan_length_mismatch(jax, jnp, lax):
    return lax.associative_scan(lambda a, b: a + b, (np.ones(3), np.ones(4)))


@scenario
def associative_scan_pytree_grad_vmap(jax, jnp, lax):
    def affine(a, b):  # composition of x -> a x + b maps, a linear recurrence
        return a[0] * b[0], a[1] * b[0] + b[1]
    f = lambda a, b: lax.associative_scan(affine, (a, b))[1]
    return (f(V, V * 2), jax.grad(lambda a: f(a, V).sum())(V),
            jax.vmap(f)(X, X + 1), jax.jvp(lambda a: f(a, V), (V,), (np.ones(5),)))


@scenario
def cumulative_family_reverse_grad(jax, jnp, lax):
    ops = (lax.cumsum, lax.cumprod, lax.cummax, lax.cummin, lax.cumlogsumexp)
    return ([op(X, axis=a, reverse=r) for op in ops for a in (0, 1) for r in (False, True)],
            [jax.grad(lambda x, op=op: (op(x, axis=1, reverse=True) ** 2).sum())(X)
             for op in ops],
            [jax.vmap(lambda x, op=op: op(x, axis=0), 1, 1)(X) for op in ops])


@scenario
def cumsum_integer_and_jit(jax, jnp, lax):
    x = np.arange(12).reshape(3, 4)
    return lax.cumsum(x, 1), jax.jit(lambda v: lax.cumprod(v + 1, 0))(x)


@scenario
def select_n_cases(jax, jnp, lax):
    a, b, c = X, X * 2, -X
    which = np.arange(18).reshape(6, 3) % 3
    return (lax.select_n(X > 0, a, b), lax.select_n(which, a, b, c),
            lax.select_n(True, a, b), lax.select_n(np.int32(1), a, b, c),
            jax.grad(lambda v: lax.select_n(which, v, v ** 2, jnp.sin(v)).sum())(X),
            jax.vmap(lambda p, v: lax.select_n(p, v, -v))(X[:, 0] > 0, X))


@scenario
def select_n_mismatched_cases(jax, jnp, lax):
    return lax.select_n(True, np.ones(3), np.ones(2))


@scenario
def select_n_no_cases(jax, jnp, lax):
    return lax.select_n(True)


@scenario
def select_n_dtype_mismatch(jax, jnp, lax):
    return lax.select_n(True, np.ones(3), np.ones(3, np.float32))


@scenario
def select_n_float_which(jax, jnp, lax):
    return lax.select_n(1.0, np.ones(3), np.ones(3))


@scenario
def select_n_which_shape(jax, jnp, lax):
    return lax.select_n(np.array([True, False]), np.ones(3), np.ones(3))


@scenario
def select_n_boolean_three_cases(jax, jnp, lax):
    return lax.select_n(True, np.ones(3), np.ones(3), np.ones(3))


@scenario
def scan_carry_structure_mismatch(jax, jnp, lax):
    return lax.scan(lambda c, x: ((c, c), x), 0.0, V)


@scenario
def fori_loop_carry_structure_mismatch(jax, jnp, lax):
    return lax.fori_loop(0, 3, lambda i, c: (c, c), 0.0)


MESSAGES = {
    "cond_branch_output_mismatch": "cond branch outputs must have the same pytree structure",
    "cond_branch_shape_mismatch": "cond branches must have equal output types.*shapes do not",
    "cond_branch_dtype_mismatch": "cond branches must have equal output types.*dtypes do not",
    "switch_branch_output_mismatch": "switch branches must have equal output types",
    "switch_float_index": "Index type must be an integer",
    "while_loop_body_changes_shape": "while_loop body function carry input and carry output "
                                     "must have equal types.*shapes do not match",
    "while_loop_nonscalar_predicate": "cond_fun must return a boolean scalar",
    "scan_carry_shape_mismatch": "scan body function carry input and carry output must have "
                                 "equal types",
    "scan_carry_structure_mismatch": "carry input and carry output must have the same pytree",
    "fori_loop_carry_structure_mismatch": "carry output must have the same pytree",
    "associative_scan_length_mismatch": "must have the same first dimension",
    "select_n_mismatched_cases": "select cases must have the same shapes",
    "select_n_no_cases": "must have at least one case",
    "select_n_dtype_mismatch": "requires arguments to have the same dtypes",
    "select_n_float_which": "must be boolean or integer type",
    "select_n_which_shape": "must be scalar or have the same shape as cases",
    "select_n_boolean_three_cases": "cannot have > 2 cases",
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario(name):
    message = MESSAGES.get(name)
    agree(SCENARIOS[name], message=message and "(?s)" + message)
