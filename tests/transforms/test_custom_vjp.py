"""gradjit.custom_vjp on JAX's classic cases, against the analytic derivatives, through grad,
jit, value_and_grad, the eager tape and the grid emulator, and its refusals."""
import functools
import pickle

import cloudpickle
import numpy as np
import pytest

import gradjit


@gradjit.custom_vjp
def log1pexp(x):
    return np.logaddexp(0.0, x)


def _log1pexp_fwd(x):
    return log1pexp(x), x


def _log1pexp_bwd(x, g):
    return (g / (1 + np.exp(-x)),)


log1pexp.defvjp(_log1pexp_fwd, _log1pexp_bwd)


@functools.partial(gradjit.custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x * 1.0


clip_gradient.defvjp(lambda lo, hi, x: (x * 1.0, None),
                     lambda lo, hi, residuals, g: (np.clip(g, lo, hi),))

X = np.array([-3.0, 0.0, 2.0, 1000.0])


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_the_rule_gives_a_finite_gradient_where_the_plain_one_overflows():
    with np.errstate(over="ignore", invalid="ignore"):
        plain = gradjit.grad(lambda x: np.sum(np.log1p(np.exp(x))))(X)
    assert np.isnan(plain[-1])
    np.testing.assert_allclose(gradjit.grad(lambda x: np.sum(log1pexp(x)))(X), sigmoid(X),
                               rtol=1e-15)
    np.testing.assert_allclose(log1pexp(X), np.logaddexp(0, X), rtol=1e-15)


@pytest.mark.parametrize("backend", ["cpu", "interpreter", "cuda-emulator"])
def test_compositions_with_jit_and_value_and_grad(backend):
    def loss(x):
        return np.sum(log1pexp(x) * x)
    want = np.logaddexp(0, X) + X * sigmoid(X)
    np.testing.assert_allclose(gradjit.jit(gradjit.grad(loss), backend=backend)(X), want,
                               rtol=1e-14)
    value, gradient = gradjit.value_and_grad(loss, backend=backend)(X)
    np.testing.assert_allclose(value, np.sum(np.logaddexp(0, X) * X), rtol=1e-14)
    np.testing.assert_allclose(gradient, want, rtol=1e-14)


def test_nondiff_arguments_and_a_clipped_gradient():
    x = np.array([1.0, 2.0, 3.0])
    got = gradjit.grad(lambda x: np.sum(clip_gradient(-0.5, 0.5, x) ** 2))(x)
    np.testing.assert_allclose(got, np.clip(2 * x, -0.5, 0.5))
    got = gradjit.grad(lambda x: np.sum(clip_gradient(-10.0, 10.0, x) ** 2))(x)
    np.testing.assert_allclose(got, 2 * x)


def test_eager_tensors_take_the_rule():
    t = gradjit.tensor(X, requires_grad=True)
    log1pexp(t).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), sigmoid(X), rtol=1e-15)


def test_a_transformed_function_using_it_pickles_and_traces_again():
    f = gradjit.grad(lambda x: np.sum(log1pexp(x)))
    f(X)
    np.testing.assert_allclose(pickle.loads(cloudpickle.dumps(f))(X), sigmoid(X), rtol=1e-15)


def test_checkpoint_gives_the_same_gradient_from_a_smaller_buffer_plan():
    """Two blocks of four tanh layers: with each block checkpointed, the program keeps only
    the blocks' inputs (the recomputation runs when the gradient is taken)."""
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=(128, 128)) / 12, rng.normal(size=(256, 128))

    def block(h, w):
        for _ in range(4):
            h = np.tanh(h @ w)
        return h
    kept = gradjit.checkpoint(block)

    def loss(block):
        return lambda w, x: np.sum(block(block(x, w), w) ** 2)
    plain, remat = gradjit.grad(loss(block)), gradjit.grad(loss(kept))
    np.testing.assert_allclose(remat(w, x), plain(w, x), rtol=1e-12)
    plain_bytes = plain.cache.last.program.workspace_bytes
    remat_bytes = remat.cache.last.program.workspace_bytes
    assert remat_bytes < 0.5 * plain_bytes, (remat_bytes, plain_bytes)
    assert gradjit.remat is gradjit.checkpoint
    kept_by_policy = gradjit.checkpoint(block, policy=lambda *a, **k: True)  # recomputed all
    np.testing.assert_allclose(gradjit.grad(loss(kept_by_policy))(w, x), plain(w, x),
                               rtol=1e-12)


@gradjit.custom_vjp
def two_cotangents(x):
    return np.sin(x)


two_cotangents.defvjp(lambda x: (np.sin(x), x), lambda x, g: (g, g))


@gradjit.custom_vjp
def wrong_shape(x):
    return np.sin(x)


wrong_shape.defvjp(lambda x: (np.sin(x), x), lambda x, g: (np.sum(g),))


@gradjit.custom_vjp
def undefined(x):
    return x


@gradjit.custom_vjp
def pair(x):
    return x, x


pair.defvjp(lambda x: ((x, x), None), lambda residuals, g: (g,))


@gradjit.custom_jvp
def flat_tangent(x):
    return np.sin(x)


flat_tangent.defjvp(lambda primals, tangents: (np.sin(primals[0]), np.sum(tangents[0])))

@gradjit.custom_jvp
def listed(x):
    return np.sin(x), np.cos(x)


listed.defjvp(lambda primals, tangents: (listed(primals[0]), [tangents[0], tangents[0]]))

REFUSALS = [
    (lambda: gradjit.jvp(listed, (X,), (X,)), TypeError,
     r"Custom JVP rule <lambda> for function listed must produce primal and tangent outputs "
     r"with equal container \(pytree\) structures"),
    (lambda: gradjit.jvp(flat_tangent, (X,), (X,)), ValueError,
     r"jvp rule \(.*\) returned a tangent of shape\(s\) \(\) for an output of shape\(s\) \(4,\)"),
    (lambda: gradjit.grad(lambda x: np.sum(two_cotangents(x)))(X), TypeError,
     r"bwd rule \(.*test_custom_vjp.py:\d+\) must return a tuple of 1 cotangent"),
    (lambda: gradjit.grad(lambda x: np.sum(wrong_shape(x)))(X), ValueError,
     r"cotangent of shape \(\) for argument 0 of shape \(4,\)"),
    (lambda: undefined(X), AttributeError,
     r"No VJP defined for custom_vjp function undefined using defvjp\."),
    (lambda: gradjit.grad(lambda x: np.sum(pair(x)[0]))(X), ValueError,
     r"cotangent of shape \(2, 4\) for argument 0 of shape \(4,\)"),  # bwd returned g whole
    (lambda: gradjit.jvp(log1pexp, (X,), (X,)), TypeError, "forward-mode autodiff"),
]


@pytest.mark.parametrize("call, error, message", REFUSALS,
                         ids=["structure", "tangent-shape", "cotangent-count", "cotangent-shape",
                              "no-rule", "tuple", "jvp"])
def test_refusals_say_why(call, error, message):
    with pytest.raises(error, match=message):
        call()


@gradjit.custom_jvp
def safe_norm(x):
    return np.sqrt(np.sum(x * x))


def _safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    n = safe_norm(x)
    return n, np.where(n == 0, 0.0, np.sum(x * t) / np.where(n == 0, 1.0, n))


safe_norm.defjvp(_safe_norm_jvp)


def test_custom_jvp_in_forward_and_reverse_mode():
    """Forward mode applies the rule; reverse mode transposes its tangent map, so the
    gradient at 0 is the rule's 0 instead of NaN."""
    x = np.array([3.0, 4.0])
    out, tangent = gradjit.jvp(safe_norm, (x,), (np.array([1.0, 0.0]),))
    assert (out, tangent) == (5.0, 0.6)
    np.testing.assert_allclose(gradjit.grad(safe_norm)(x), x / 5, rtol=1e-15)
    np.testing.assert_array_equal(gradjit.grad(safe_norm)(np.zeros(2)), np.zeros(2))
    with np.errstate(invalid="ignore"):
        assert np.isnan(gradjit.grad(lambda x: np.sqrt(np.sum(x * x)))(np.zeros(2))).all()
    both = gradjit.jit(gradjit.grad(lambda x: safe_norm(x) * np.sum(x)))(x)
    np.testing.assert_allclose(both, x / 5 * 7 + 5, rtol=1e-15)


def test_vmap_runs_the_function_and_its_rules_once_per_example():
    rows = np.array([[-3.0, 0.0, 2.0], [1000.0, -1.0, 0.5]])
    np.testing.assert_allclose(gradjit.vmap(log1pexp)(rows), np.logaddexp(0.0, rows))
    per_example = gradjit.vmap(gradjit.grad(lambda w, x: np.sum(log1pexp(w * x))),
                               in_axes=(None, 0))(np.array([1.0, -2.0, 0.5]), rows)
    w = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(per_example, rows / (1 + np.exp(-w * rows)), rtol=1e-12)
    jac = gradjit.jacrev(lambda x: log1pexp(x) * 2.0)(rows[1])
    np.testing.assert_allclose(jac, np.diag(2 / (1 + np.exp(-rows[1]))), rtol=1e-12)
    clipped = gradjit.vmap(gradjit.grad(lambda x: np.sum(clip_gradient(-0.5, 0.5, x * 3.0))))(
        rows)
    np.testing.assert_allclose(clipped, np.full(rows.shape, 1.5))
    assert gradjit.vmap(log1pexp)(np.zeros((0, 3))).shape == (0, 3)


def test_jacobians_through_custom_jvp_and_per_example_gradients_through_checkpoint():
    x = np.array([3.0, 4.0, 0.0])
    np.testing.assert_allclose(gradjit.jacfwd(lambda x: safe_norm(x) * x)(x),
                               np.outer(x, x / 5) + 5 * np.eye(3), rtol=1e-12)
    np.testing.assert_allclose(gradjit.jacrev(lambda x: safe_norm(x) * x)(x),
                               np.outer(x, x / 5) + 5 * np.eye(3), rtol=1e-12)
    block = gradjit.checkpoint(lambda h, w: np.tanh(h * w))
    w, rows = np.array([0.5, -1.0, 2.0]), np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]])
    per_example = gradjit.vmap(gradjit.grad(lambda w, x: np.sum(block(x, w))),
                               in_axes=(None, 0))(w, rows)
    np.testing.assert_allclose(per_example, rows * (1 - np.tanh(rows * w) ** 2), rtol=1e-10)


@gradjit.custom_vjp
def polar(r, theta):
    return {"x": r * np.cos(theta), "y": r * np.sin(theta)}, r ** 2


polar.defvjp(lambda r, theta: (polar(r, theta), (r, theta)),
             lambda res, g: ((g[0]["x"] * np.cos(res[1]) + g[0]["y"] * np.sin(res[1]) +
                              2 * res[0] * g[1]),
                             (-g[0]["x"] * res[0] * np.sin(res[1]) +
                              g[0]["y"] * res[0] * np.cos(res[1]))))


@gradjit.custom_jvp
def sin_cos(x):
    return np.sin(x), np.cos(x).astype(np.float32)


sin_cos.defjvp(lambda primals, tangents: (sin_cos(primals[0]),
                                          (np.cos(primals[0]) * tangents[0],
                                           (-np.sin(primals[0]) * tangents[0]).astype(
                                               np.float32))))


def _polar_loss(r, theta):
    (xy, square) = polar(r, theta)
    return np.sum(xy["x"] * 2 + xy["y"] * 3) + np.sum(square)


def test_several_results_as_a_pytree():
    """JAX's custom functions return pytrees and bwd takes the cotangent as one: a dict and
    an array from custom_vjp, a float64 and a float32 array from custom_jvp."""
    r, theta = np.abs(X) + 0.5, X * 0.7
    (xy, square) = polar(r, theta)
    np.testing.assert_allclose(xy["y"], r * np.sin(theta), rtol=1e-12)
    want = (2 * np.cos(theta) + 3 * np.sin(theta) + 2 * r,
            -2 * r * np.sin(theta) + 3 * r * np.cos(theta))
    for fn in (gradjit.grad(_polar_loss, argnums=(0, 1)),
               gradjit.jit(gradjit.grad(_polar_loss, argnums=(0, 1)))):
        for got, expected in zip(fn(r, theta), want):
            np.testing.assert_allclose(got, expected, rtol=1e-12)
    per_example = gradjit.vmap(gradjit.grad(_polar_loss))(np.stack([r, r + 1]),
                                                          np.stack([theta, theta]))
    np.testing.assert_allclose(per_example[1], want[0] + 2, rtol=1e-12)
    tr = gradjit.tensor(r, requires_grad=True)
    _polar_loss(tr, gradjit.tensor(theta)).backward()
    np.testing.assert_allclose(tr.grad.numpy(), want[0], rtol=1e-12)

    (s, c), (ts, tc) = gradjit.jvp(sin_cos, (X,), (np.ones_like(X),))
    assert c.dtype == tc.dtype == np.float32
    np.testing.assert_allclose(ts, np.cos(X), rtol=1e-12)
    np.testing.assert_allclose(tc, -np.sin(X), rtol=1e-6)
    g = gradjit.grad(lambda x: np.sum(sin_cos(x)[0] * 2 + sin_cos(x)[1]))(X)
    np.testing.assert_allclose(g, 2 * np.cos(X) - np.sin(X), rtol=1e-6)


def test_checkpoint_of_a_function_with_two_results():
    def block(w, x):
        h = np.tanh(x @ w)
        return h, np.sum(h ** 2)

    def loss(fn, w, x):
        h, energy = fn(w, x)
        return np.sum(h) + energy
    w, x = np.random.default_rng(1).standard_normal((2, 4, 4))
    got = gradjit.grad(lambda w: loss(gradjit.checkpoint(block), w, x))(w)
    want = gradjit.grad(lambda w: loss(block, w, x))(w)
    np.testing.assert_allclose(got, want, rtol=1e-10)
