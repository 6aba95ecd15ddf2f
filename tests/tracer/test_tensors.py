"""Tracing functions written with Tensor methods (the seeds' spelling): Tensor in, Tensor out,
control flow through the Tensor's bool()/item(), and agreement with eager autograd."""
import numpy as np
import pytest

import gradjit as torch
import gradjit


def seed_control_flow(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


def eager_grad(fn, *args):
    leaves = [torch.tensor(np.array(a), requires_grad=True) for a in args]
    fn(*leaves).backward()
    return [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize("value", [0.7, -0.3, 0.6])
def test_seed_control_flow_on_scalar_tensors(value):
    g = gradjit.grad(lambda a: seed_control_flow(a).sum())
    a = torch.tensor(value)
    got = g(a)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float32
    d = seed_control_flow(a)
    assert torch.allclose(got, d / a)  # the seed's check: a.grad == d / a
    np.testing.assert_allclose(got.numpy(), eager_grad(lambda t: seed_control_flow(t).sum(),
                                                       np.float32(value))[0])


def test_tensor_methods_and_views():
    def f(x, w):
        h = (x.view(-1, 4) @ w).tanh()
        return (h.exp().sum(dim=1) / h.norm()).mean() + gradjit.stop_gradient(x).sum() * x.mean()
    x, w = torch.randn(2, 2, 2), torch.randn(4, 3)
    gx, gw = gradjit.grad(f, argnums=(0, 1))(x, w)
    ex, ew = eager_grad(f, x.numpy(), w.numpy())
    np.testing.assert_allclose(gx.numpy(), ex, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw.numpy(), ew, rtol=1e-5, atol=1e-6)


def test_detach_stops_the_compiled_gradient():
    g = gradjit.grad(lambda x: (x.detach() * x).sum())(torch.arange(4.0))
    assert g.tolist() == [0.0, 1.0, 2.0, 3.0]
    g = gradjit.grad(lambda x: (x.data * x * x).sum())(torch.arange(4.0))
    assert g.tolist() == [0.0, 2.0, 8.0, 18.0]


def test_item_and_bool_on_tensors_guard_and_retrace():
    @gradjit.grad
    def f(x):
        scale = x.max().item()
        return (x * scale).sum() if bool(x.sum() > 0) else (x * x).sum()
    for values in ([1.0, 2.0], [1.0, 2.0], [3.0, 2.0], [-3.0, 1.0]):
        x = torch.tensor(values)
        got = f(x)
        expected = np.full(2, max(values)) if sum(values) > 0 else 2 * np.array(values)
        np.testing.assert_allclose(got.numpy(), expected)
    assert f.cache_info() == (3, 1, 3)


def test_jit_returns_tensors_and_value_and_grad_returns_a_tensor_value():
    y = gradjit.jit(lambda x: (x.exp() + 1, x.shape))(torch.ones(2))
    assert isinstance(y[0], torch.Tensor) and tuple(y[1]) == (2,)
    value, g = gradjit.value_and_grad(lambda x: (x * x).sum())(torch.ones(3))
    assert isinstance(value, torch.Tensor) and value.item() == 3.0
    assert isinstance(g, torch.Tensor) and g.tolist() == [2.0, 2.0, 2.0]


def test_requires_grad_inputs_are_accepted_and_left_untouched():
    x = torch.ones(2, requires_grad=True)
    g = gradjit.grad(lambda x: (x * 3).sum())(x)
    # g joins x's graph (tests/autograd/test_compiled_node.py); its own gradient is zero
    assert g.tolist() == [3.0, 3.0] and x.grad is None and g.requires_grad


def test_float64_tensors_keep_their_dtype():
    x = torch.ones(3, dtype=torch.float64)
    assert gradjit.grad(lambda x: (x ** 2).sum())(x).dtype == torch.float64
