"""HIPS autograd's extension API and differential operators, as autograd documents them:
primitive with defvjp/defjvp rules, make_vjp, make_jvp, make_hvp, grad_and_aux, grad_named,
hessian_tensor_product and tensor_jacobian_product, against analytic derivatives."""
import numpy as np
import pytest

import gradjit
from gradjit import (defjvp, defvjp, deriv, grad_and_aux, grad_named, hessian_tensor_product,
                     make_hvp, make_jvp, make_vjp, primitive, tensor_jacobian_product)

X = np.array([-1.5, 0.25, 2.0])
V = np.array([0.5, -1.0, 3.0])


@primitive
def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


defvjp(logsumexp, lambda ans, x: lambda g: g * np.exp(x - ans))


@primitive
def scaled(x, k, power=2):
    return k * x ** power


defjvp(scaled, lambda g, ans, x, k, power=2: g * k * power * x ** (power - 1))


def test_primitive_with_defvjp_is_differentiated_by_its_rule():
    calls = []

    @primitive
    def clipped_identity(x):
        return x * 1.0
    defvjp(clipped_identity, lambda ans, x: lambda g: calls.append(1) or np.clip(g, -1, 1))
    grad = gradjit.grad(lambda x: np.sum(clipped_identity(x) * 5.0))(X)
    np.testing.assert_array_equal(grad, np.ones(3))  # the rule clips 5 to 1
    assert calls  # the user's rule ran, not the traced identity's derivative
    np.testing.assert_allclose(gradjit.grad(logsumexp)(X), np.exp(X) / np.exp(X).sum(),
                               rtol=1e-12)
    np.testing.assert_allclose(gradjit.jacobian(lambda x: logsumexp(x) * x)(X),
                               np.outer(X, np.exp(X) / np.exp(X).sum()) +
                               logsumexp(X) * np.eye(3), rtol=1e-12)


def test_rules_for_several_arguments_and_constant_arguments():
    @primitive
    def product(a, b):
        return a * b
    defvjp(product, lambda ans, a, b: lambda g: g * b, lambda ans, a, b: lambda g: g * a)
    ga, gb = gradjit.grad(lambda a, b: np.sum(product(a, b)), (0, 1))(X, V)
    np.testing.assert_allclose(ga, V)
    np.testing.assert_allclose(gb, X)
    # a second argument without a rule has no gradient (argnums picks which ones have rules)
    @primitive
    def shifted(a, b):
        return a + b
    defvjp(shifted, lambda ans, a, b: lambda g: 2 * g, argnums=[0])
    ga, gb = gradjit.grad(lambda a, b: np.sum(shifted(a, b)), (0, 1))(X, V)
    np.testing.assert_allclose(ga, 2 * np.ones(3))
    np.testing.assert_allclose(gb, np.zeros(3))


def test_primitive_with_defjvp_in_forward_and_reverse_mode():
    out, tangent = gradjit.jvp(lambda x: scaled(x, 3.0), (X,), (V,))
    np.testing.assert_allclose(out, 3 * X ** 2)
    np.testing.assert_allclose(tangent, 6 * X * V)
    np.testing.assert_allclose(gradjit.grad(lambda x: np.sum(scaled(x, 2.0, power=3)))(X),
                               6 * X ** 2, rtol=1e-12)


def test_differential_operators():
    f = lambda x: np.sum(np.sin(x) * x ** 2)  # noqa: E731
    gradient = lambda x: np.cos(x) * x ** 2 + 2 * x * np.sin(x)  # noqa: E731
    hessian_diag = lambda x: -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)  # noqa

    pull, ans = make_vjp(lambda x: np.sin(x) * x, 0)(X)
    np.testing.assert_allclose(ans, np.sin(X) * X)
    np.testing.assert_allclose(pull(V), V * (np.cos(X) * X + np.sin(X)), rtol=1e-12)
    ans, tangent = make_jvp(f)(X)(V)
    np.testing.assert_allclose(tangent, gradient(X) @ V, rtol=1e-12)
    hvp, g = make_hvp(f)(X)
    np.testing.assert_allclose(g, gradient(X), rtol=1e-12)
    np.testing.assert_allclose(hvp(V), hessian_diag(X) * V, rtol=1e-12)
    np.testing.assert_allclose(hessian_tensor_product(f)(X, V), hessian_diag(X) * V,
                               rtol=1e-12)
    np.testing.assert_allclose(tensor_jacobian_product(lambda x: np.sin(x) * x)(X, V),
                               V * (np.cos(X) * X + np.sin(X)), rtol=1e-12)
    grad, aux = grad_and_aux(lambda x: (f(x), x.shape))(X)
    np.testing.assert_allclose(grad, gradient(X), rtol=1e-12)
    assert aux == (3,)
    np.testing.assert_allclose(grad_named(lambda w, x: np.sum(w * x), "x")(V, X), V)
    np.testing.assert_allclose(deriv(np.tanh)(X), 1 / np.cosh(X) ** 2, rtol=1e-12)


def test_defvjp_takes_a_primitive():
    with pytest.raises(TypeError, match="a function made by @primitive"):
        defvjp(np.sin, lambda ans, x: lambda g: g)


def test_argnum_keyword_as_hips_autograd():
    def f(a, b):
        return np.sum(np.sin(a) * b ** 2)
    a, b = np.linspace(0.1, 1.0, 4), np.linspace(1.0, 2.0, 4)
    np.testing.assert_allclose(gradjit.grad(f, argnum=1)(a, b), 2 * np.sin(a) * b, rtol=1e-12)
    np.testing.assert_allclose(gradjit.value_and_grad(f, argnum=1)(a, b)[1],
                               2 * np.sin(a) * b, rtol=1e-12)
    np.testing.assert_allclose(gradjit.jacobian(lambda a, b: np.sin(a) * b, argnum=1)(a, b),
                               np.diag(np.sin(a)), rtol=1e-12)
    np.testing.assert_allclose(gradjit.jacfwd(lambda a, b: np.sin(a) * b, argnum=1)(a, b),
                               np.diag(np.sin(a)), rtol=1e-12)
    np.testing.assert_allclose(gradjit.hessian(f, argnum=1)(a, b), np.diag(2 * np.sin(a)),
                               rtol=1e-12)
    np.testing.assert_allclose(gradjit.elementwise_grad(lambda a, b: a * b ** 3, argnum=1)(a, b),
                               3 * a * b ** 2, rtol=1e-12)


def _central_jacobian(f, x, eps=1e-6):
    return np.stack([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)], 1)


def test_make_ggnvp_is_the_gauss_newton_matrix_times_a_vector():
    rng = np.random.default_rng(3)
    a, x, v = rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=3)

    def f(w, scale):
        return np.tanh(a @ w) * scale
    jac = _central_jacobian(lambda w: f(w, 2.0), x)
    np.testing.assert_allclose(gradjit.make_ggnvp(f)(x, 2.0)(v), jac.T @ jac @ v, atol=1e-6)

    def g(y):
        return np.sum(np.exp(y))  # Hessian diag(exp(y))
    np.testing.assert_allclose(gradjit.make_ggnvp(f, g)(x, 2.0)(v),
                               jac.T @ (np.exp(f(x, 2.0)) * (jac @ v)), atol=1e-6)
    np.testing.assert_allclose(gradjit.make_ggnvp(lambda s, w: f(w, s), f_argnum=1)(2.0, x)(v),
                               jac.T @ jac @ v, atol=1e-6)


def test_multigrad_dict_names_every_argument_in_signature_order():
    def h(a, b=2.0, *rest, scale=1.0, **kw):
        return scale * np.sum(a * b) + sum(np.sum(r ** 2) for r in rest) + kw["c"] ** 2
    grads = gradjit.multigrad_dict(h)(np.ones(2), 3.0, np.arange(2.0), scale=2.0, c=1.5)
    assert list(grads) == ["a", "b", "rest", "scale", "kw"]
    np.testing.assert_allclose(grads["a"], [6.0, 6.0])
    assert grads["b"] == pytest.approx(4.0) and grads["scale"] == pytest.approx(6.0)
    np.testing.assert_allclose(grads["rest"][0], [0.0, 2.0])
    assert grads["kw"]["c"] == pytest.approx(3.0)
    assert gradjit.multigrad_dict(h)(np.ones(2), c=0.0)["b"] == pytest.approx(2.0)
