"""Gradients where users get burned: a `where` whose untaken branch is nan/inf, logsumexp of
rows that are all -inf, the norm at 0, softmax of large logits."""
import numpy as np
import pytest

import gradjit
from gradjit import ops as G


@pytest.mark.parametrize("f", [lambda np_, x: np_.sum(np_.where(x > 0, np_.sqrt(x), 0.0)),
                               lambda np_, x: np_.sum(np_.where(x > 0, np_.log(x), x)),
                               lambda np_, x: np_.sum(np_.where(x != 0, 1.0 / x, 0.0))],
                         ids=["sqrt", "log", "reciprocal"])
def test_where_with_nan_in_the_untaken_branch_gives_jax_gradient(f):
    """The untaken branch's zero cotangent times its infinite or NaN derivative is NaN, as
    in JAX (and PyTorch); the safe form is a where on the branch's input."""
    jax = pytest.importorskip("jax")
    x = np.array([-1.0, 0.0, 4.0])
    ours = gradjit.grad(lambda x: f(np, x))(x)
    theirs = jax.grad(lambda x: f(jax.numpy, x))(x.astype(np.float32))
    np.testing.assert_allclose(ours, np.asarray(theirs, np.float64), rtol=1e-7)
    assert np.isnan(ours[1])
    safe = gradjit.grad(lambda x: np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)),
                                                  0.0)))(x)
    np.testing.assert_array_equal(safe, [0.0, 0.0, 0.25])


def test_logsumexp_of_all_minus_inf_rows_has_a_zero_gradient():
    x = np.array([[-np.inf, -np.inf], [0.0, np.log(3.0)]])
    value, g = gradjit.value_and_grad(lambda x: np.sum(np.where(
        np.isfinite(G.logsumexp(x, 1)), G.logsumexp(x, 1), 0.0)))(x)
    np.testing.assert_allclose(value, np.log(4.0))
    np.testing.assert_allclose(g, [[0.0, 0.0], [0.25, 0.75]])


def test_norm_at_zero_has_a_finite_subgradient():
    g = gradjit.grad(lambda x: G.norm(x))(np.zeros(3))
    np.testing.assert_array_equal(g, np.zeros(3))
    g = gradjit.grad(lambda x: np.linalg.norm(x))(np.zeros((2, 2)))
    np.testing.assert_array_equal(g, np.zeros((2, 2)))
    g = gradjit.grad(lambda x: np.sum(G.vector_norm(x, 2, 1)))(np.array([[0.0, 0.0], [3.0, 4.0]]))
    np.testing.assert_allclose(g, [[0.0, 0.0], [0.6, 0.8]])


def test_softmax_and_logsumexp_of_large_logits_are_stable():
    x = np.array([1000.0, 1000.0, -1000.0])
    value, g = gradjit.value_and_grad(lambda x: G.logsumexp(x))(x)
    np.testing.assert_allclose(value, 1000 + np.log(2.0))
    np.testing.assert_allclose(g, [0.5, 0.5, 0.0])
    g32 = gradjit.grad(lambda x: np.sum(G.softmax(x) * np.arange(3.0, dtype=np.float32)))(
        x.astype(np.float32))
    assert g32.dtype == np.float32 and np.all(np.isfinite(g32))


def test_second_derivative_of_a_guarded_where_is_finite():
    d2 = gradjit.grad(gradjit.grad(lambda x: np.where(x > 0, x ** 3, 0.0)))
    assert d2(2.0) == 12.0 and d2(-1.0) == 0.0
