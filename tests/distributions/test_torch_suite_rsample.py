"""PyTorch's suite's reparameterized-gradient checks (TestRsample): the gradient of a Gamma,
Chi2, Beta or Dirichlet draw in its concentration, along the draw's constant cdf, equals
PyTorch's own (torch._standard_gamma_grad, torch._dirichlet_grad) at gradjit's draw."""
import numpy as np
import pytest
import torch

import gradjit


@pytest.mark.parametrize("alpha", [1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4])
def test_gamma_draw_gradient_as_pytorch(alpha):
    gradjit.manual_seed(0)
    alphas = gradjit.full((100,), alpha, requires_grad=True)
    x = gradjit.distributions.Gamma(alphas, gradjit.ones(100)).rsample()
    x.sum().backward()
    expected = torch._standard_gamma_grad(torch.full((100,), alpha),
                                          torch.tensor(x.detach().numpy()))
    np.testing.assert_allclose(alphas.grad.numpy(), expected.numpy(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("df", [1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4])
def test_chi2_draw_gradient_as_pytorch(df):
    gradjit.manual_seed(0)
    dfs = gradjit.full((100,), df, requires_grad=True)
    x = gradjit.distributions.Chi2(dfs).rsample()
    x.sum().backward()
    # x = 2 g, g ~ Gamma(df / 2): dx/ddf = dg/dalpha
    expected = torch._standard_gamma_grad(torch.full((100,), df / 2),
                                          torch.tensor(x.detach().numpy()) / 2)
    np.testing.assert_allclose(dfs.grad.numpy(), expected.numpy(), rtol=1e-6, atol=0)


GRID = [1e-2, 1e-1, 1e0, 1e1, 1e2]


@pytest.mark.parametrize("con1", GRID)
@pytest.mark.parametrize("con0", GRID)
def test_beta_draw_gradients_as_pytorch(con1, con0):
    """A Beta draw is the first coordinate of a two-category Dirichlet draw: its gradient is
    PyTorch's Dirichlet backward of that draw for an upstream gradient (1, 0)."""
    c1 = gradjit.full((20,), con1, dtype=gradjit.float64, requires_grad=True)
    c0 = gradjit.full((20,), con0, dtype=gradjit.float64, requires_grad=True)
    gradjit.manual_seed(0)
    beta = gradjit.distributions.Beta(c1, c0)
    beta.rsample().sum().backward()
    gradjit.manual_seed(0)
    pair = torch.tensor(beta._dirichlet.sample().numpy())  # the same draw, both coordinates
    conc = torch.tensor(beta._dirichlet.concentration.detach().numpy())
    upstream = torch.tensor([1.0, 0.0], dtype=torch.float64).expand(20, 2)
    want = torch.distributions.dirichlet._Dirichlet_backward(pair, conc, upstream)
    np.testing.assert_allclose(c1.grad.numpy(), want[:, 0].numpy(), rtol=1e-12, atol=0)
    np.testing.assert_allclose(c0.grad.numpy(), want[:, 1].numpy(), rtol=1e-12, atol=0)


@pytest.mark.parametrize("con1,con0", [(0.5, 0.5), (1.0, 1.0), (2.0, 5.0), (10.0, 1.0)])
def test_beta_draw_gradients_are_unbiased(con1, con0):
    """The mean gradient of the draws is that of the mean, con1 / (con1 + con0)."""
    gradjit.manual_seed(0)
    c1 = gradjit.full((200000,), con1, dtype=gradjit.float64, requires_grad=True)
    c0 = gradjit.full((200000,), con0, dtype=gradjit.float64, requires_grad=True)
    gradjit.distributions.Beta(c1, c0).rsample().sum().backward()
    total = con1 + con0
    assert abs(float(c1.grad.mean()) - con0 / total ** 2) < 0.01 / total
    assert abs(float(c0.grad.mean()) + con1 / total ** 2) < 0.01 / total


def test_dirichlet_gradient_of_a_moment_as_pytorch():
    """d/dalpha of E[(z3 - mean)^2] by the reparameterized draws, against the closed form."""
    alpha_crit = 0.25 * (5.0 ** 0.5 - 1.0)
    for shift in [-0.1, 0.0, 0.1]:
        gradjit.manual_seed(0)
        alpha = gradjit.tensor([alpha_crit + shift], requires_grad=True)
        vec = gradjit.cat([alpha, alpha, gradjit.ones(1)])
        z = gradjit.distributions.Dirichlet(vec.expand(100000, 3)).rsample()
        mean_z3 = 1.0 / (2.0 * alpha + 1.0)
        loss = gradjit.pow(z[:, 2] - mean_z3, 2.0).mean()
        (actual,) = gradjit.autograd.grad(loss, [alpha])
        a = alpha_crit + shift
        expected = (1.0 - 2.0 * a - 4.0 * a ** 2) / ((1.0 + a) ** 2 * (1.0 + 2.0 * a) ** 3)
        assert abs(float(actual) - expected) < 0.002


def implicit_grid(dtype):
    """Draws and concentrations over every branch of PyTorch's approximations: draws near 0,
    near 1 and near the mean, concentrations from 1e-3 to 1e4."""
    rng = np.random.default_rng(0)
    conc = np.exp(rng.uniform(-7, 9, 4000))
    draws = np.concatenate([np.exp(rng.uniform(-12, 10, 2000)),
                            conc[2000:] * rng.uniform(0.85, 1.15, 2000)])
    unit = np.concatenate([rng.uniform(0, 1, 2000), rng.uniform(0, 1e-3, 1000),
                           1 - rng.uniform(0, 1e-3, 1000)])
    total = conc + np.exp(rng.uniform(-5, 7, 4000))
    return [a.astype(dtype) for a in (conc, draws, unit, total)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_standard_gamma_grad_as_pytorch(dtype):
    conc, draws, _, _ = implicit_grid(dtype)
    mine = gradjit._standard_gamma_grad(gradjit.tensor(conc), gradjit.tensor(draws))
    want = torch._standard_gamma_grad(torch.tensor(conc), torch.tensor(draws))
    assert str(mine.dtype) == str(want.dtype)
    np.testing.assert_allclose(mine.numpy(), want.numpy(), rtol=1e-12 if dtype == "float64"
                               else 1e-6, atol=0)


def test_dirichlet_grad_as_pytorch():
    conc, _, unit, total = implicit_grid("float64")
    mine = gradjit._dirichlet_grad(*(gradjit.tensor(a) for a in (unit, conc, total)))
    want = torch._dirichlet_grad(*(torch.tensor(a) for a in (unit, conc, total)))
    np.testing.assert_allclose(mine.numpy(), want.numpy(), rtol=1e-9, atol=0)


def test_dirichlet_grad_float32_as_pytorch():
    """In float32 PyTorch takes digamma's logarithm, and sums the series near 0 and 1, in
    float32, where differences of digammas cancel: gradjit rounds as it does, so all but the
    odd one-ulp split of a digamma agree to rounding."""
    conc, _, unit, total = implicit_grid("float32")
    mine = gradjit._dirichlet_grad(*(gradjit.tensor(a) for a in (unit, conc, total)))
    want = torch._dirichlet_grad(*(torch.tensor(a) for a in (unit, conc, total)))
    assert mine.dtype == gradjit.float32
    error = np.abs(mine.numpy() - want.numpy()) / np.abs(want.numpy())
    assert np.all(error < 1e-4) and np.mean(error > 2e-6) < 1e-3


def test_dirichlet_backward_helper_as_pytorch():
    """PyTorch's suite imports _Dirichlet_backward: the same vector-Jacobian product."""
    from torch.distributions.dirichlet import _Dirichlet_backward as theirs

    from gradjit.distributions.dirichlet import _Dirichlet_backward as mine
    gradjit.manual_seed(0)
    conc = gradjit.tensor([[0.3, 2.0, 5.0], [1.0, 1.0, 40.0]], dtype=gradjit.float64)
    x = gradjit.distributions.Dirichlet(conc).sample((5,))
    g = np.random.default_rng(1).normal(size=(5, 2, 3))
    expanded = conc.expand(5, 2, 3)
    got = mine(x, expanded, gradjit.tensor(g))
    want = theirs(torch.tensor(x.numpy()), torch.tensor(expanded.numpy()), torch.tensor(g))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=0)


def test_dirichlet_draw_gradient_as_pytorch():
    gradjit.manual_seed(0)
    conc = gradjit.tensor([0.2, 1.5, 7.0, 30.0], dtype=gradjit.float64, requires_grad=True)
    x = gradjit.distributions.Dirichlet(conc).rsample((50,))
    assert x.grad_fn.name() == "_DirichletBackward"
    weights = np.arange(4.0)
    (x * gradjit.tensor(weights)).sum().backward()
    tc = torch.tensor(conc.detach().numpy(), requires_grad=True)
    from torch.distributions.dirichlet import _Dirichlet_backward
    want = _Dirichlet_backward(torch.tensor(x.detach().numpy()), tc.detach().expand(50, 4),
                               torch.tensor(weights).expand(50, 4)).sum(0)
    np.testing.assert_allclose(conc.grad.numpy(), want.numpy(), rtol=1e-12)
