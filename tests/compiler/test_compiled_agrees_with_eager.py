"""Calls the op database found to differ once compiled: inside gradjit.jit (interpreter and
CPU backend) they give what the eager call gives, and what PyTorch 2.13 gives."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

BACKENDS = ("interpreter", None)
X = np.random.default_rng(0).normal(size=(3, 5))

# torch.return_types results: the compiled call rebuilds the same named tuple
RETURN_TYPES = {
    "max": lambda t, x: t.max(x, 1),
    "min": lambda t, x: x.min(0, keepdim=True),
    "topk": lambda t, x: t.topk(x, 2),
    "sort": lambda t, x: x.sort(1, descending=True),
    "cummax": lambda t, x: x.cummax(1),
    "cummin": lambda t, x: t.cummin(x, 0),
    "mode": lambda t, x: t.mode(x.round(), 1),
    "kthvalue": lambda t, x: x.kthvalue(2, 1),
    "aminmax": lambda t, x: t.aminmax(x, dim=1),
    "linalg_slogdet": lambda t, x: t.linalg.slogdet(x[:, :3]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", RETURN_TYPES)
def test_compiled_call_returns_torchs_named_tuple(kind, backend):
    call = RETURN_TYPES[kind]
    expected = call(torch, torch.tensor(X))
    x = gradjit.tensor(X)
    eager = call(gradjit, x)
    compiled = gradjit.jit(lambda x: call(gradjit, x), backend=backend)(x)
    assert type(compiled) is type(eager)
    assert repr(compiled) == repr(eager) == repr(expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_negative_frequency_weights_traced_raise_torchs_error(backend):
    cov = gradjit.jit(lambda x, w: x.cov(fweights=w), backend=backend)
    x, good, bad = X[:, :4], np.array([1, 2, 1, 1]), np.array([1, -2, 1, 1])
    np.testing.assert_allclose(cov(gradjit.tensor(x), gradjit.tensor(good)).numpy(),
                               torch.cov(torch.tensor(x), fweights=torch.tensor(good)).numpy())
    same_error(lambda: cov(gradjit.tensor(x), gradjit.tensor(bad)),
               lambda: torch.cov(torch.tensor(x), fweights=torch.tensor(bad)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantiles_at_traced_q_give_torchs_values_gradients_and_range_error(name, backend):
    f = gradjit.jit(lambda x, q: getattr(gradjit, name)(x, q, dim=1), backend=backend)
    q = np.array([0.2, 0.7])
    g_x, g_q = gradjit.tensor(X, requires_grad=True), gradjit.tensor(q, requires_grad=True)
    t_x, t_q = torch.tensor(X, requires_grad=True), torch.tensor(q, requires_grad=True)
    g_out, t_out = f(g_x, g_q), getattr(torch, name)(t_x, t_q, dim=1)
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    g_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(g_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(g_q.grad.numpy(), t_q.grad.numpy(), rtol=1e-12)
    outside = np.array([0.2, 1.5])
    same_error(lambda: f(gradjit.tensor(X), gradjit.tensor(outside)),
               lambda: getattr(torch, name)(torch.tensor(X), torch.tensor(outside), dim=1))
