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
    np.testing.assert_allclose(alphas.grad.numpy(), expected.numpy(), rtol=5e-4, atol=1e-30)


@pytest.mark.parametrize("df", [1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4])
def test_chi2_draw_gradient_as_pytorch(df):
    gradjit.manual_seed(0)
    dfs = gradjit.full((100,), df, requires_grad=True)
    x = gradjit.distributions.Chi2(dfs).rsample()
    x.sum().backward()
    # x = 2 g, g ~ Gamma(df / 2): dx/ddf = dg/dalpha
    expected = torch._standard_gamma_grad(torch.full((100,), df / 2),
                                          torch.tensor(x.detach().numpy()) / 2)
    np.testing.assert_allclose(dfs.grad.numpy(), expected.numpy(), rtol=1e-3, atol=1e-30)


GRID = [1e-2, 1e-1, 1e0, 1e1, 1e2]


@pytest.mark.xfail(strict=True, reason="gradjit differentiates a Beta (Dirichlet) draw through "
                   "its normalized Gamma draws, an unbiased coupling of its own; PyTorch's "
                   "follows the marginal's constant cdf")
@pytest.mark.parametrize("con1", GRID)
@pytest.mark.parametrize("con0", GRID)
def test_beta_draw_gradients_as_pytorch(con1, con0):
    gradjit.manual_seed(0)
    c1 = gradjit.full((20,), con1, dtype=gradjit.float64, requires_grad=True)
    c0 = gradjit.full((20,), con0, dtype=gradjit.float64, requires_grad=True)
    x = gradjit.distributions.Beta(c1, c0).rsample()
    x.sum().backward()
    xs = torch.tensor(x.detach().numpy())
    total = torch.full((20,), con1 + con0, dtype=torch.float64)
    # PyTorch's Dirichlet backward for x = (x, 1 - x) and an upstream gradient (1, 0)
    d1 = torch._dirichlet_grad(xs, torch.full((20,), con1, dtype=torch.float64), total) * (1 - xs)
    d0 = -torch._dirichlet_grad(1 - xs, torch.full((20,), con0, dtype=torch.float64), total) * xs
    finite = np.isfinite(d1.numpy()) & np.isfinite(d0.numpy())
    assert finite.any()
    np.testing.assert_allclose(c1.grad.numpy()[finite], d1.numpy()[finite], rtol=5e-3)
    np.testing.assert_allclose(c0.grad.numpy()[finite], d0.numpy()[finite], rtol=5e-3)


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
