"""torch.special's numpy-evaluated functions (Bessel, Airy, orthogonal polynomials, Hurwitz
zeta, incomplete gamma) inside compiled functions: host steps with eager's values and
PyTorch's gradients, the gradient a function lacks raising only when it is asked for."""
import numpy as np
import pytest

import gradjit
import gradjit.special as special

torch = pytest.importorskip("torch")

X = np.array([0.3, 1.7, 4.2, 9.5])
A = np.array([0.5, 2.0, 3.5, 7.0])

UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
         "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
         "airy_ai"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
               "shifted_chebyshev_polynomial_w"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_compiled_equal_torch(name):
    got = gradjit.jit(lambda x: getattr(special, name)(x) * 2.0)(X)
    eager = getattr(special, name)(gradjit.tensor(X)).numpy() * 2.0
    np.testing.assert_array_equal(got, eager)
    # torch's Cephes kernels are accurate to a few ulps of float64 less than mpmath's
    np.testing.assert_allclose(got, getattr(torch.special, name)(torch.tensor(X)).numpy() * 2.0,
                               rtol=1e-6)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_compiled_equal_torch(name):
    x = X / 10
    got = gradjit.jit(lambda x, n: getattr(special, name)(x, n))(x, np.array([0.0, 1.0, 3.0, 5.0]))
    want = getattr(torch.special, name)(torch.tensor(x), torch.tensor([0.0, 1.0, 3.0, 5.0]))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_gradient_in_x_equals_torch(name):
    value, grad = gradjit.value_and_grad(lambda x, a: getattr(special, name)(a, x).sum())(X, A)
    x = torch.tensor(X, requires_grad=True)
    want = getattr(torch.special, name)(torch.tensor(A), x).sum()
    want.backward()
    np.testing.assert_allclose(value, want.item(), rtol=1e-12)
    np.testing.assert_allclose(grad, x.grad.numpy(), rtol=1e-10)


def test_zeta_gradient_in_q_equals_torch_and_tensors_stay_tensors():
    q = gradjit.tensor(X)
    got = gradjit.compile(lambda q: special.zeta(3.0, q))(q)
    assert isinstance(got, gradjit.Tensor)
    grad = gradjit.grad(lambda q: special.zeta(np.full(4, 3.0), q).sum())(X)
    tq = torch.tensor(X, requires_grad=True)
    torch.special.zeta(torch.full((4,), 3.0, dtype=torch.float64), tq).sum().backward()
    np.testing.assert_allclose(got.numpy(), torch.special.zeta(3.0, torch.tensor(X)).numpy())
    np.testing.assert_allclose(grad, tq.grad.numpy(), rtol=1e-10)


def test_a_missing_derivative_raises_only_when_asked_for():
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input'"):
        gradjit.grad(lambda a, x: special.gammainc(a, x).sum())(A, X)


def test_eager_values_of_traced_tensors_cannot_be_read_as_numpy():
    def f(t):
        return t.numpy()
    with pytest.raises(TypeError, match="was converted to a numpy array"):
        gradjit.jit(f)(gradjit.tensor(X))


def test_vmap_runs_the_host_step_per_example():
    got = gradjit.vmap(lambda x: special.bessel_j1(x))(X.reshape(2, 2))
    np.testing.assert_allclose(got, torch.special.bessel_j1(torch.tensor(X)).numpy().reshape(2, 2))
