"""A compiled call (jit, grad, value_and_grad) on Tensors that require grad joins the eager
tape as one CompiledFunctionBackward node: backward through it equals eager gradjit and
PyTorch 2.13, and create_graph gives higher-order gradients through compiled pullbacks."""
import numpy as np
import pytest
import torch as real

import gradjit
import gradjit as torch

RNG = np.random.default_rng(0)
W, X = RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(5, 3)).astype(np.float32)


def mlp(w, x, t):
    return (t.tanh(x @ w) * 2).sum(dim=1)


def torch_grad(fn, *arrays, wrt=(0,)):
    leaves = [real.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arrays)]
    fn(*leaves, real).pow(2).sum().backward()
    return [leaves[i].grad.numpy() for i in wrt]


def test_jit_output_backward_fills_grad_like_eager_and_torch():
    w, x = torch.tensor(W, requires_grad=True), torch.tensor(X)
    y = gradjit.jit(lambda w, x: mlp(w, x, torch))(w, x)
    assert type(y.grad_fn).__name__ == "CompiledFunctionBackward" and x.grad is None
    y.pow(2).sum().backward()
    compiled = w.grad.numpy().copy()
    w.grad = None
    mlp(w, x, torch).pow(2).sum().backward()
    np.testing.assert_allclose(compiled, w.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(compiled, torch_grad(mlp, W, X)[0], rtol=1e-5, atol=1e-6)


def test_gradients_reach_every_argument_that_requires_grad_through_nested_arguments():
    params = {"w": torch.tensor(W, requires_grad=True), "scale": torch.tensor(1.5)}
    x = torch.tensor(X, requires_grad=True)
    f = gradjit.jit(lambda p, x: mlp(p["w"], x, torch) * p["scale"])
    f(params, x).pow(2).sum().backward()
    expected = torch_grad(lambda w, x, t: mlp(w, x, t) * 1.5, W, X, wrt=(0, 1))
    np.testing.assert_allclose(params["w"].grad.numpy(), expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), expected[1], rtol=1e-5, atol=1e-6)
    assert params["scale"].grad is None


def test_several_outputs_used_or_not():
    def two(w, x):
        z = x @ w
        return z.sin(), z.exp().sum()
    w = torch.tensor(W, requires_grad=True)
    a, b = gradjit.jit(two)(w, torch.tensor(X))
    b.backward()  # only the second output reaches the loss
    tw = real.tensor(W, requires_grad=True)
    (real.tensor(X) @ tw).exp().sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5)
    w.grad, tw.grad = None, None
    a, b = gradjit.jit(two)(w, torch.tensor(X))
    (3 * a.sum() + b).backward()
    z = real.tensor(X) @ tw
    (3 * z.sin().sum() + z.exp().sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5)


def test_the_pullback_is_compiled_once_and_reused():
    f = gradjit.jit(lambda w, x: mlp(w, x, torch))
    w, x = torch.tensor(W, requires_grad=True), torch.tensor(X)
    for _ in range(3):
        f(w, x).sum().backward()
    (pullback,) = f._pullbacks.values()
    assert pullback.cache_info()[0] == 1 and f.cache_info()[0] == 1
    tw = real.tensor(W, requires_grad=True)
    mlp(tw, real.tensor(X), real).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3 * tw.grad.numpy(), rtol=1e-5)


def test_second_and_third_derivatives_through_create_graph():
    w = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = gradjit.jit(lambda w: (w ** 3 * w.sin()).sum())(w)
    (g,) = torch.autograd.grad(y, w, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), w, create_graph=True)
    (ggg,) = torch.autograd.grad(gg.sum(), w)
    tw = real.tensor([0.5, -1.0, 2.0], dtype=real.float64, requires_grad=True)
    (tg,) = real.autograd.grad((tw ** 3 * tw.sin()).sum(), tw, create_graph=True)
    (tgg,) = real.autograd.grad(tg.sum(), tw, create_graph=True)
    (tggg,) = real.autograd.grad(tgg.sum(), tw)
    for got, want in ((g, tg), (gg, tgg), (ggg, tggg)):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)


def test_grad_and_value_and_grad_outputs_join_the_graph():
    def loss(w):
        return (w.exp() * w).sum()
    w = torch.tensor([0.1, 0.2, -0.3], dtype=torch.float64, requires_grad=True)
    value, g = gradjit.value_and_grad(loss)(w)
    (value + (g ** 2).sum()).backward()
    tw = real.tensor([0.1, 0.2, -0.3], dtype=real.float64, requires_grad=True)
    tv = (tw.exp() * tw).sum()
    (tg,) = real.autograd.grad(tv, tw, create_graph=True)
    (tv + (tg ** 2).sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_no_grad_calls_and_plain_arrays_record_nothing():
    w = torch.tensor(W, requires_grad=True)
    with torch.no_grad():
        y = gradjit.jit(lambda w: w * 2)(w)
    assert not y.requires_grad
    assert isinstance(gradjit.jit(lambda w: w * 2)(W), np.ndarray)


def test_in_place_change_of_a_saved_argument_is_reported():
    w = torch.tensor(W, requires_grad=True)
    x = torch.tensor(X)
    y = gradjit.jit(lambda w, x: mlp(w, x, torch))(w, x)
    with torch.no_grad():
        x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_backward_twice_without_retain_graph_is_refused():
    w = torch.tensor(W, requires_grad=True)
    y = gradjit.jit(lambda w: (w * w).sum())(w)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_a_tensor_that_requires_grad_read_from_a_closure_is_refused():
    w = torch.tensor(W, requires_grad=True)
    with pytest.raises(TypeError, match="pass it as an argument"):
        gradjit.jit(lambda x: x @ w)(torch.tensor(X))
    with torch.no_grad():  # no gradient to lose
        gradjit.jit(lambda x: x @ w)(torch.tensor(X))


def test_into_refuses_arguments_that_require_grad():
    f = gradjit.jit(lambda w: w * 2)
    with pytest.raises(TypeError, match="carry no gradient"):
        f.into(np.empty((3, 4), np.float32), torch.tensor(W, requires_grad=True))
