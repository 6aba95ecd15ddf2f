"""Higher derivatives through custom_jvp, custom_vjp and checkpoint, as JAX takes them: the
rules are differentiated again (custom_jvp's rule, custom_vjp's fwd and bwd in reverse mode,
checkpoint's function in either mode), checked against central differences of the first
derivative in float64 and against the analytic derivatives."""
import numpy as np
import pytest

import gradjit
from tests.transforms.test_custom_vjp import safe_norm

rng = np.random.default_rng(3)
X = rng.standard_normal(4)


def _differences(first, x, eps=1e-6):
    """The Jacobian of `first` (an array function of a vector) by central differences."""
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step[j] = eps
        columns.append((np.asarray(first(x + step)) - np.asarray(first(x - step))) / (2 * eps))
    return np.stack(columns, axis=-1)


@gradjit.custom_jvp
def softplus(x):
    return np.logaddexp(0.0, x)


# the derivative written stably (sigmoid of -x would overflow), differentiated again
softplus.defjvp(lambda primals, tangents: (softplus(primals[0]),
                                           tangents[0] * np.exp(-softplus(-primals[0]))))


SECOND_ORDER = {
    "hessian": gradjit.hessian,
    "jacfwd(jacrev)": lambda f: gradjit.jacfwd(gradjit.jacrev(f)),
    "jacrev(jacrev)": lambda f: gradjit.jacrev(gradjit.jacrev(f)),
    "jacfwd(jacfwd)": lambda f: gradjit.jacfwd(gradjit.jacfwd(f)),
    "jacrev(jacfwd)": lambda f: gradjit.jacrev(gradjit.jacfwd(f)),
}


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _cubed_norm(x):
    return safe_norm(x) ** 3 + np.sum(softplus(x) * x)


@pytest.mark.parametrize("order", sorted(SECOND_ORDER))
def test_custom_jvp_second_derivatives_in_every_order(order):
    got = SECOND_ORDER[order](_cubed_norm)(X)
    np.testing.assert_allclose(got, _differences(gradjit.grad(_cubed_norm), X), rtol=1e-6,
                               atol=1e-7)
    n, s = np.linalg.norm(X), _sigmoid(X)
    want = 3 * n * np.eye(4) + 3 * np.outer(X, X) / n + np.diag(2 * s + X * s * (1 - s))
    np.testing.assert_allclose(got, want, rtol=1e-12)


@gradjit.custom_jvp
def doubled_sine(x):
    return np.sin(x)


# A rule that is not the function's derivative: the derivatives JAX's semantics give
# (differentiate the rule) differ from those of the function's values (-sin x, not -2 sin x).
doubled_sine.defjvp(lambda primals, tangents: (doubled_sine(primals[0]),
                                               2 * np.cos(primals[0]) * tangents[0]))


def test_custom_jvp_higher_derivatives_are_the_rules():
    def f(x):
        return np.sum(doubled_sine(x) ** 2)
    second = gradjit.jacrev(gradjit.grad(f))
    # f = sum s^2 with s' = 2 cos by the rule, so s'' = -2 sin and s''' = -2 cos: on the
    # diagonal f'' = 2 s'^2 + 2 s s'' and f''' = 6 s' s'' + 2 s s''' = -28 sin cos
    np.testing.assert_allclose(second(X), np.diag(8 * np.cos(X) ** 2 - 4 * np.sin(X) ** 2),
                               rtol=1e-12, atol=1e-15)
    third = gradjit.jacfwd(second)(X)
    np.testing.assert_allclose(np.einsum("iii->i", third), -28 * np.sin(X) * np.cos(X),
                               rtol=1e-12)
    np.testing.assert_allclose(np.abs(third).sum(), np.abs(np.einsum("iii->i", third)).sum(),
                               rtol=1e-15)
    np.testing.assert_allclose(gradjit.jit(second)(X), second(X), rtol=1e-15)


def test_custom_jvp_third_derivative_matches_differences():
    second = gradjit.hessian(lambda x: np.sum(softplus(x) ** 2))
    third = gradjit.jacrev(second)(X)
    np.testing.assert_allclose(third, _differences(second, X), rtol=1e-6, atol=1e-7)


@gradjit.custom_vjp
def log1pexp(x):
    return np.logaddexp(0.0, x)


log1pexp.defvjp(lambda x: (log1pexp(x), x), lambda x, g: (g / (1 + np.exp(-x)),))


def test_custom_vjp_reverse_over_reverse_differentiates_bwd():
    def f(x):
        return np.sum(log1pexp(x) * x)
    got = gradjit.jacrev(gradjit.jacrev(f))(X)
    np.testing.assert_allclose(got, _differences(gradjit.grad(f), X), rtol=1e-6, atol=1e-7)
    s = _sigmoid(X)
    np.testing.assert_allclose(got, np.diag(2 * s + X * s * (1 - s)), rtol=1e-12)
    hvp = gradjit.grad(lambda x: np.sum(gradjit.grad(f)(x) * X))(X)
    np.testing.assert_allclose(hvp, got @ X, rtol=1e-12)


def test_custom_vjp_refuses_forward_over_reverse_and_says_what_works():
    with pytest.raises(TypeError, match=r"jacrev\(jacrev\(f\)\) rather than hessian"):
        gradjit.hessian(lambda x: np.sum(log1pexp(x)))(X)


@gradjit.custom_vjp
def polar(r, theta):
    return {"x": r * np.cos(theta), "y": r * np.sin(theta)}


polar.defvjp(lambda r, theta: (polar(r, theta), (r, theta)),
             lambda res, g: (g["x"] * np.cos(res[1]) + g["y"] * np.sin(res[1]),
                             -g["x"] * res[0] * np.sin(res[1]) +
                             g["y"] * res[0] * np.cos(res[1])))


def test_custom_vjp_with_a_pytree_result_and_two_arguments():
    def f(z):
        xy = polar(z[:2], z[2:])
        return np.sum(xy["x"] ** 2 * xy["y"])
    z = np.abs(X) + 0.5
    got = gradjit.jacrev(gradjit.jacrev(f))(z)
    np.testing.assert_allclose(got, _differences(gradjit.grad(f), z), rtol=1e-6, atol=1e-7)


def _block(h, w):
    return np.tanh(h * w) * np.exp(w)


@pytest.mark.parametrize("order", sorted(SECOND_ORDER))
def test_checkpoint_is_differentiated_in_both_modes_as_its_function(order):
    kept = gradjit.checkpoint(_block)
    w = rng.standard_normal(4)

    def loss(block):
        return lambda x: np.sum(block(block(x, w), w) ** 2)
    got = SECOND_ORDER[order](loss(kept))(X)
    np.testing.assert_allclose(got, gradjit.hessian(loss(_block))(X), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, _differences(gradjit.grad(loss(kept)), X), rtol=1e-6,
                               atol=1e-7)


def test_checkpoint_forward_mode():
    kept = gradjit.checkpoint(_block)
    w, t = rng.standard_normal(4), rng.standard_normal(4)
    out, tangent = gradjit.jvp(lambda x: kept(x, w), (X,), (t,))
    want = gradjit.jvp(lambda x: _block(x, w), (X,), (t,))
    np.testing.assert_allclose(out, want[0], rtol=1e-15)
    np.testing.assert_allclose(tangent, want[1], rtol=1e-12)


def test_gradients_of_a_vmap_through_custom_functions():
    rows = rng.standard_normal((3, 4))
    got = gradjit.grad(lambda x: np.sum(gradjit.vmap(log1pexp)(x) ** 2))(rows)
    np.testing.assert_allclose(got, 2 * np.logaddexp(0, rows) * _sigmoid(rows), rtol=1e-12)
    got = gradjit.grad(lambda x: np.sum(gradjit.vmap(safe_norm)(x)))(rows)
    np.testing.assert_allclose(got, rows / np.linalg.norm(rows, axis=1, keepdims=True),
                               rtol=1e-12)
    per_example = gradjit.vmap(gradjit.hessian(lambda x: np.sum(doubled_sine(x))))(rows)
    np.testing.assert_allclose(per_example, np.stack([np.diag(-2 * np.sin(r)) for r in rows]),
                               rtol=1e-12)


@pytest.mark.parametrize("backend", ["cpu", "interpreter", "cuda-emulator"])
def test_compiled_second_derivatives_on_every_backend(backend):
    """The rules' derivatives are host ops like the rules: every backend runs them."""
    hessian = gradjit.jit(gradjit.hessian(_cubed_norm), backend=backend)
    np.testing.assert_allclose(hessian(X), gradjit.hessian(_cubed_norm)(X), rtol=1e-14)

    def f(x):
        return np.sum(log1pexp(x) * x)
    twice = gradjit.jit(gradjit.jacrev(gradjit.jacrev(f)), backend=backend)
    np.testing.assert_allclose(twice(X), gradjit.jacrev(gradjit.jacrev(f))(X), rtol=1e-14)


def test_check_grads_to_third_order():
    """HIPS autograd's check: each mode's derivatives of the derivatives against finite
    differences, through a custom_jvp rule (both modes) and a custom_vjp (reverse)."""
    from gradjit.test_util import check_grads
    check_grads(lambda x: np.sum(softplus(x) * np.sin(x)), order=3)(X)
    check_grads(lambda x: np.sum(log1pexp(x) ** 2), modes=["rev"], order=3)(X)
    check_grads(lambda x: gradjit.checkpoint(np.tanh)(x) * x, order=3)(X)


def test_hips_primitive_vjp_is_differentiated_again():
    """HIPS autograd's own example: the Hessian of logsumexp through its defvjp rule."""
    @gradjit.primitive
    def logsumexp(x):
        m = np.max(x)
        return m + np.log(np.sum(np.exp(x - m)))
    gradjit.defvjp(logsumexp, lambda ans, x: lambda g: g * np.exp(x - ans))
    p = np.exp(X) / np.sum(np.exp(X))
    got = gradjit.jacrev(gradjit.grad(logsumexp))(X)
    np.testing.assert_allclose(got, np.diag(p) - np.outer(p, p), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got, _differences(gradjit.grad(logsumexp), X), rtol=1e-6,
                               atol=1e-7)
