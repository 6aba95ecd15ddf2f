"""vjp, elementwise_grad, jacrev/jacfwd/jacobian and hessian against torch.autograd.functional,
torch.func and central differences, on pytrees, composed with jit and grad."""
import numpy as np
import pytest
import torch

import gradjit

rng = np.random.default_rng(5)


def f_np(x):
    return np.sum(np.sin(x[:-1] * x[1:])) + np.sum(x ** 3) * np.exp(-np.sum(x * x) / 8)


def f_torch(x):
    return torch.sum(torch.sin(x[:-1] * x[1:])) + torch.sum(x ** 3) * torch.exp(
        -torch.sum(x * x) / 8)


def g_np(a, b):
    return {"u": np.tanh(a @ b), "v": np.sum(a) * b[0]}


def g_torch(a, b):
    return {"u": torch.tanh(a @ b), "v": torch.sum(a) * b[0]}


def test_vjp_against_torch_and_reusable():
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    out, vjp_fn = gradjit.vjp(g_np, a, b)
    np.testing.assert_allclose(out["u"], np.tanh(a @ b))
    _, torch_vjp = torch.func.vjp(g_torch, torch.tensor(a), torch.tensor(b))
    for _ in range(3):
        ct = {"u": rng.standard_normal((2, 2)), "v": rng.standard_normal(2)}
        got = vjp_fn(ct)
        expected = torch_vjp({k: torch.tensor(v) for k, v in ct.items()})
        assert isinstance(got, tuple) and len(got) == 2
        for x, y in zip(got, expected):
            np.testing.assert_allclose(x, y.numpy(), rtol=1e-12)


def test_vjp_has_aux_and_structure_error():
    x = rng.standard_normal(3)
    out, vjp_fn, aux = gradjit.vjp(lambda x: (np.exp(x), {"n": np.sum(x)}), x, has_aux=True)
    np.testing.assert_allclose(aux["n"], np.sum(x))
    np.testing.assert_allclose(vjp_fn(np.ones(3))[0], np.exp(x))
    with pytest.raises(ValueError, match="structure of the function's output"):
        vjp_fn((np.ones(3), np.ones(3)))


def test_elementwise_grad():
    x = rng.standard_normal((2, 3))
    np.testing.assert_allclose(gradjit.elementwise_grad(np.tanh)(x), 1 / np.cosh(x) ** 2,
                               rtol=1e-12)


def test_jacrev_and_jacfwd_against_torch_on_pytrees():
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    expected = torch.func.jacrev(g_torch, argnums=(0, 1))(torch.tensor(a), torch.tensor(b))
    for jac in (gradjit.jacrev, gradjit.jacfwd, gradjit.jacobian):
        got = jac(g_np, argnums=(0, 1))(a, b)
        assert set(got) == {"u", "v"}
        for key in got:
            for i in range(2):
                np.testing.assert_allclose(got[key][i], expected[key][i].numpy(), rtol=1e-10,
                                           atol=1e-14, err_msg=f"{jac.__name__} {key} {i}")
    single = gradjit.jacfwd(g_np)(a, b)["u"]
    assert single.shape == (2, 2, 2, 3)


def test_jacfwd_gives_no_tangent_to_the_other_arguments():
    """Only argnums are pushed forward, as torch.func's and JAX's: a zero tangent for y
    would meet y's infinite factor (0 * inf) and turn the Jacobian into nan."""
    def f(x, y):
        return x * 2.0 + y * float("inf")

    x, y = rng.standard_normal(3), rng.standard_normal(3)
    expected = torch.func.jacfwd(f)(torch.tensor(x), torch.tensor(y)).numpy()
    np.testing.assert_array_equal(gradjit.jacfwd(f)(x, y), expected)
    np.testing.assert_array_equal(gradjit.jit(gradjit.jacfwd(f))(x, y), expected)


def test_argument_pytrees_and_has_aux():
    params = {"w": rng.standard_normal(3), "c": rng.standard_normal(())}

    def f(p, x):
        return np.sin(p["w"] * x) + p["c"], x.sum()

    x = rng.standard_normal(3)
    for jac in (gradjit.jacrev, gradjit.jacfwd):
        got, aux = jac(f, has_aux=True)(params, x)
        np.testing.assert_allclose(aux, x.sum())
        np.testing.assert_allclose(got["w"], np.diag(np.cos(params["w"] * x) * x), rtol=1e-12)
        np.testing.assert_allclose(got["c"], np.ones(3))


def test_hessian_against_torch_and_finite_differences():
    x = rng.standard_normal(5)
    h = gradjit.hessian(f_np)(x)
    expected = torch.autograd.functional.hessian(f_torch, torch.tensor(x)).numpy()
    np.testing.assert_allclose(h, expected, rtol=1e-10, atol=1e-12)
    grad = gradjit.grad(f_np)
    eps = 1e-6
    numeric = np.stack([(grad(x + eps * e) - grad(x - eps * e)) / (2 * eps) for e in np.eye(5)])
    np.testing.assert_allclose(h, numeric, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gradjit.jacfwd(gradjit.grad(f_np))(x), expected, rtol=1e-10)
    np.testing.assert_allclose(gradjit.jacrev(gradjit.jacrev(f_np))(x), expected, rtol=1e-10)


def test_jit_of_hessian_and_grad_of_vjp():
    x = rng.standard_normal(4)
    expected = torch.autograd.functional.hessian(f_torch, torch.tensor(x)).numpy()
    np.testing.assert_allclose(gradjit.jit(gradjit.hessian(f_np))(x), expected, rtol=1e-10)
    v = rng.standard_normal(4)

    def pulled(x):
        return np.sum(gradjit.vjp(lambda z: np.sin(z) * z, x)[1](v)[0])

    expected_grad = v * (2 * np.cos(x) - x * np.sin(x))
    np.testing.assert_allclose(gradjit.grad(pulled)(x), expected_grad, rtol=1e-12)


def test_interpreter_backend():
    x = rng.standard_normal(3)
    h = gradjit.hessian(lambda x: np.sum(x ** 4), backend="interpreter")(x)
    np.testing.assert_allclose(h, np.diag(12 * x ** 2), rtol=1e-12)


@pytest.mark.parametrize("f", [lambda a, b: (b * a ** 3).sum(),
                               lambda a, b: (b * a.log() / a).sum(),
                               lambda a, b: (a.sqrt() * b ** 2).sum()],
                         ids=["pow", "log-div", "sqrt"])
def test_hessian_where_a_cotangent_is_zero_against_torch(f):
    """At b = 0 the cotangent reaching a's derivative is 0, but the Hessian's cross block is
    not: the VJP must stay linear in the cotangent for forward-over-reverse to see it."""
    a, b = np.array([1.0, 2.0, 0.5]), np.zeros(3)
    ours = gradjit.hessian(f, argnums=(0, 1))(gradjit.tensor(a), gradjit.tensor(b))
    theirs = torch.func.hessian(f, argnums=(0, 1))(torch.tensor(a), torch.tensor(b))
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(ours[i][j].numpy(), theirs[i][j].numpy(), rtol=1e-12)


def softplus_energy(x, a):
    return np.sum(np.logaddexp(0, a @ x)) + np.sum(x ** 4) / 4


def test_jit_hessian_of_a_softplus_energy_against_jax_and_torch():
    """benchmarks' W10: the basis pushed through a @ x, logaddexp's second derivative and
    the final contraction a.T @ diag(s'') @ a, with features far in both tails."""
    jax = pytest.importorskip("jax")
    x, a = rng.standard_normal(7), rng.standard_normal((9, 7))
    a[0] *= 200.0  # a @ x of hundreds: the sigmoid saturates
    ours = gradjit.jit(gradjit.hessian(softplus_energy))(x, a)
    x64 = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        theirs = jax.hessian(lambda x, a: jax.numpy.sum(jax.numpy.logaddexp(0, a @ x))
                             + jax.numpy.sum(x ** 4) / 4)(x, a)
    finally:
        jax.config.update("jax_enable_x64", x64)
    np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12, atol=1e-12)
    torch_h = torch.func.hessian(lambda x, a: torch.nn.functional.softplus(a @ x).sum()
                                 + (x ** 4).sum() / 4)(torch.tensor(x), torch.tensor(a))
    np.testing.assert_allclose(ours, torch_h.numpy(), rtol=1e-12, atol=1e-12)
