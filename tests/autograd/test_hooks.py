"""Tensor.register_hook against PyTorch: hooks on leaves and non-leaves that observe or replace
the gradient, their order, removal, retain_grad after hooks, and autograd.grad's options."""
import numpy as np
import pytest
import torch

import gradjit


def _run(lib):
    seen = []
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, 0.25, 2.0], requires_grad=True)
    y = x * w
    y.retain_grad()
    y.register_hook(lambda g: seen.append(("y", g.tolist())))    # observes only
    y.register_hook(lambda g: g * 2)                             # then doubles
    y.register_hook(lambda g: seen.append(("y2", g.tolist())))   # sees the doubled one
    z = y.exp()
    handle = x.register_hook(lambda g: g + 1)
    removed = w.register_hook(lambda g: g * 0)
    removed.remove()
    z.sum().backward(retain_graph=True)
    first = (x.grad.clone(), w.grad.clone(), y.grad.clone())
    handle.remove()
    x.grad = None
    z.sum().backward()
    return first, x.grad, seen


def test_hooks_observe_and_replace_gradients_as_in_pytorch():
    (ours, ours_x, ours_seen), (theirs, theirs_x, theirs_seen) = _run(gradjit), _run(torch)
    for a, t in zip((*ours, ours_x), (*theirs, theirs_x)):
        np.testing.assert_allclose(a.numpy(), t.numpy(), rtol=1e-6)
    assert [n for n, _ in ours_seen] == [n for n, _ in theirs_seen] == ["y", "y2"] * 2
    for (_, a), (_, t) in zip(ours_seen, theirs_seen):
        np.testing.assert_allclose(a, t, rtol=1e-6)


def test_hooks_apply_to_autograd_grad_and_create_graph():
    def run(lib):
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        x.register_hook(lambda g: g * x)   # a differentiable replacement
        y = (x ** 3).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g, gg
    for a, t in zip(run(gradjit), run(torch)):
        np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-12)


def test_handle_is_a_context_manager_and_removal_is_idempotent():
    x = gradjit.ones(2, requires_grad=True)
    with x.register_hook(lambda g: g * 5) as handle:
        (x * 1).sum().backward()
    handle.remove()
    (x * 1).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_autograd_grad_options_match_pytorch():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        unused = lib.tensor([3.0], requires_grad=True)
        y = x * x
        gx, gu = lib.autograd.grad(y, (x, unused), grad_outputs=lib.tensor([1.0, 0.5]),
                                   allow_unused=True, retain_graph=True)
        (again,) = lib.autograd.grad(y.sum(), x)
        (zeros,) = lib.autograd.grad((x * 2).sum(), unused, allow_unused=True,
                                     materialize_grads=True)
        return gx, gu, again, zeros
    ours, theirs = run(gradjit), run(torch)
    assert ours[1] is None and theirs[1] is None
    for a, t in zip(ours[::2] + ours[3:], theirs[::2] + theirs[3:]):
        np.testing.assert_allclose(a.numpy(), t.numpy())


def test_errors_match_pytorch():
    for lib in (gradjit, torch):
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            lib.ones(2).register_hook(lambda g: g)
        with pytest.raises(RuntimeError, match="requires_grad=False"):
            lib.ones(2).retain_grad()
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
            (x * 2).requires_grad_(False)
        assert lib.ones(2).requires_grad_().requires_grad
