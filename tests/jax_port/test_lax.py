"""gradjit.lax against jax.lax on the same functions: values eagerly and under jit, gradients,
and vmap; control flow with traced predicates and trip counts."""
import numpy as np
import pytest

import gradjit
from gradjit import lax as glax

jax = pytest.importorskip("jax")
jnp, jlax = jax.numpy, jax.lax

RNG = np.random.default_rng(0)
X4 = RNG.normal(size=(2, 3, 7, 6))
W4 = RNG.normal(size=(4, 3, 3, 2))
V = RNG.normal(size=(5, 6))
LIBS = {"gradjit": (glax, np, gradjit), "jax": (jlax, jnp, jax)}

# name -> (f(lax, numpy module, *args), args, differentiable)
CASES = {
    "conv-valid": (lambda l, n, x, w: l.conv_general_dilated(x, w, (1, 1), "VALID"),
                   (X4, W4), True),
    "conv-same-strided-dilated": (lambda l, n, x, w: l.conv_general_dilated(
        x, w, (2, 1), "SAME", rhs_dilation=(1, 2)), (X4, W4), True),
    "conv-padded-lhs-dilated": (lambda l, n, x, w: l.conv_general_dilated(
        x, w, (1, 2), [(1, 2), (0, 1)], lhs_dilation=(2, 1)), (X4, W4), True),
    "conv-nhwc": (lambda l, n, x, w: l.conv_general_dilated(
        x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), (1, 1), "SAME_LOWER",
        dimension_numbers=("NHWC", "HWIO", "NHWC")), (X4, W4), True),
    "conv-groups": (lambda l, n, x, w: l.conv_general_dilated(
        x, w, (1, 1), "SAME", feature_group_count=2),
        (RNG.normal(size=(2, 2, 5, 5)), RNG.normal(size=(4, 1, 3, 3))), True),
    "conv-1d": (lambda l, n, x, w: l.conv_general_dilated(x, w, (2,), "SAME"),
                (RNG.normal(size=(2, 3, 9)), RNG.normal(size=(2, 3, 4))), True),
    "dot_general": (lambda l, n, a, b: l.dot_general(a, b, (([2], [1]), ([0], [0]))),
                    (RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 4, 5))), True),
    "dot": (lambda l, n, a, b: l.dot(a, b), (V, V.T), True),
    "dynamic_slice": (lambda l, n, v: l.dynamic_slice(v, (3, 2), (3, 2)), (V,), True),
    "dynamic_update_slice": (lambda l, n, v: l.dynamic_update_slice(v, v[:2, :2] * 3, (4, -1)),
                             (V,), True),
    "dynamic_slice_in_dim": (lambda l, n, v: l.dynamic_slice_in_dim(v, -2, 3, axis=1), (V,),
                             True),
    "pad": (lambda l, n, v: l.pad(v, 0.5, [(1, -2, 1), (0, 2, 0)]), (V,), True),
    "broadcast_in_dim": (lambda l, n, v: l.broadcast_in_dim(v[0], (3, 6, 2), (1,)), (V,), True),
    "shapes": (lambda l, n, v: l.concatenate([l.reshape(l.transpose(v, (1, 0)), (3, 10)),
                                              l.squeeze(l.expand_dims(v[:3], (0,)), (0,))
                                              .reshape(3, 6)], 1)
               + l.slice(l.broadcast(v[0], (3,)), (0, 0), (3, 6), (1, 1)).sum(), (V,), True),
    "cumsum-reverse": (lambda l, n, v: l.cumsum(v, axis=1, reverse=True), (V,), True),
    "cummax": (lambda l, n, v: l.cummax(v, axis=0), (V,), True),
    "cumprod": (lambda l, n, v: l.cumprod(v, axis=1), (V,), True),
    "cumlogsumexp": (lambda l, n, v: l.cumlogsumexp(v, axis=1), (V,), True),
    "sort": (lambda l, n, v: l.sort(v, dimension=0), (V,), True),
    "sort-keyed": (lambda l, n, v: l.sort((n.round(v), v), num_keys=1)[1], (V,), True),
    "top_k": (lambda l, n, v: l.top_k(v, 3)[0], (V,), True),
    "top_k-indices": (lambda l, n, v: l.top_k(v, 3)[1], (V,), False),
    "reduce": (lambda l, n, v: l.reduce_max(v, (1,)) + l.reduce_sum(v, (1,))
               + l.reduce_min(v, (1,)) * l.reduce_prod(v, (1,)), (V,), True),
    "argmax": (lambda l, n, v: l.argmax(v, 1, np.int32) + l.argmin(v, 0, np.int32)[:5], (V,),
               False),
    "elementwise": (lambda l, n, v: l.rsqrt(l.abs(v) + 1) + l.logistic(v)
                    + l.erf_inv(l.tanh(v) * 0.5) + l.integer_pow(v, 3) + l.clamp(-0.5, v, 0.5)
                    + l.exp(l.sin(v)) * l.log1p(l.square(v)) - l.atan2(v, 2.0 + v * 0)
                    + l.max(v, 0.0 * v) + l.erf(v) + l.lgamma(l.abs(v) + 1)
                    + l.digamma(l.abs(v) + 1) + l.expm1(v) + l.sign(v) * l.cbrt(v), (V,), True),
    "round": (lambda l, n, v: l.round(v * 2) + l.round(v * 2, 1) + l.floor(v) + l.ceil(v),
              (V,), False),
    "integer-div-rem": (lambda l, n, a, b: (l.div(a, b), l.rem(a, b)),
                        (np.array([-7, 7, 5, -5]), np.array([2, -2, 2, 2])), False),
    "select": (lambda l, n, v: l.select(v > 0, v, -2 * v), (V,), True),
    "cond": (lambda l, n, v: l.cond(v.sum() > 0, lambda a: a * 2, lambda a: -a, v), (V,), True),
    "switch": (lambda l, n, v: l.switch(5, [lambda a: a * 2, lambda a: n.sin(a)], v), (V,),
               True),
    "fori_loop": (lambda l, n, v: l.fori_loop(0, 4, lambda i, c: c * v[i] + n.cos(c), v[4]),
                  (V,), True),
    "while_loop": (lambda l, n, v: l.while_loop(lambda c: c[0] < 5,
                                                lambda c: (c[0] + 1, c[1] * 1.1), (0, v))[1],
                   (V,), False),
    "scan": (lambda l, n, v: l.scan(lambda c, r: (c + r, c * r), n.zeros(6), v)[1], (V,), True),
    "scan-reverse-tree": (lambda l, n, v: l.scan(lambda c, r: (c * r, {"a": c, "b": r.sum()}),
                                                  v[0], v, reverse=True)[1]["a"], (V,), True),
    "scan-length": (lambda l, n, v: l.scan(lambda c, _: (c * 0.5, c), v[0], None,
                                           length=3)[1], (V,), True),
    "map": (lambda l, n, v: l.map(lambda r: r.sum() * r, v), (V,), True),
    "stop_gradient": (lambda l, n, v: v * l.stop_gradient({"k": v})["k"], (V,), True),
}


def _run(name, lib, transform=None):
    f, args, _ = CASES[name]
    l, n, top = LIBS[lib]
    g = lambda *xs: f(l, n, *xs)
    args = args if lib == "gradjit" else tuple(jnp.asarray(a) for a in args)
    return (transform(top, g) if transform else g)(*args)


def _close(a, b):
    for p, q in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        np.testing.assert_allclose(np.asarray(p), np.asarray(q), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", CASES)
def test_values_eager_and_jit(name):
    expected = _run(name, "jax")
    _close(_run(name, "gradjit"), expected)
    _close(_run(name, "gradjit", lambda top, g: top.jit(g)), expected)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[2]])
def test_gradients(name):
    loss = lambda top, g: top.grad(lambda *xs: (g(*xs) ** 2).sum(), argnums=tuple(
        range(len(CASES[name][1]))))
    _close(_run(name, "gradjit", loss), _run(name, "jax", loss))


def test_vmap_of_scan_and_dynamic_slice():
    def f(l, n, row, start):
        carry, ys = l.scan(lambda c, e: (c * e + 1.0, n.tanh(c)), 1.0, row)
        return l.dynamic_slice(ys, (start,), (2,)) * carry
    starts = np.array([0, 3, 5, -1, 2])
    got = gradjit.vmap(lambda r, s: f(glax, np, r, s))(V, starts)
    _close(got, jax.vmap(lambda r, s: f(jlax, jnp, r, s))(V, starts))


def test_traced_predicates_and_trip_counts_retrace_per_path():
    def f(l, x, n):
        y = l.cond(x[0] > 0, lambda v: v * 2, lambda v: v - 1, x)
        return l.fori_loop(0, n, lambda i, c: c + i * y, y)
    jitted = gradjit.jit(lambda x, n: f(glax, x, n))
    for x, n in [(np.array([1.0, 2.0]), 3), (np.array([-1.0, 2.0]), 3), (np.array([1.0, 0]), 5)]:
        _close(jitted(x, n), f(jlax, jnp.asarray(x), n))
    assert jitted.cache_info().traces == 3


def test_dynamic_slice_with_run_time_starts_and_gradient():
    f = lambda l, v, i, j: (l.dynamic_update_slice(v, v[:2, :3] ** 2, (j, i))
                            * l.dynamic_slice(v, (i, j), (5, 6)).sum()).sum()
    for i, j in [(1, 2), (-1, 9), (0, 0)]:
        i, j = np.int64(i), np.int64(j)
        _close(gradjit.jit(lambda *a: f(glax, *a))(V, i, j), f(jlax, V, i, j))
        _close(gradjit.grad(lambda *a: f(glax, *a))(V, i, j), jax.grad(
            lambda *a: f(jlax, *a))(V, i, j))


def test_errors():
    with pytest.raises(ValueError, match="inconsistent lengths"):
        glax.scan(lambda c, x: (c, x), 0.0, np.ones(3), length=4)
    with pytest.raises(ValueError, match="Empty branch sequence"):
        glax.switch(0, [], 1.0)
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        glax.cond(np.array([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(NotImplementedError, match="batch_group_count"):
        glax.conv_general_dilated(X4, W4, (1, 1), "VALID", batch_group_count=2)
