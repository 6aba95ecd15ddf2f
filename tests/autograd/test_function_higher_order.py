"""autograd.Function at second order against PyTorch: a backward written with differentiable
tensor ops is differentiated again (grad of grad, gradgradcheck), and once_differentiable's
results refuse it with PyTorch's error."""
import numpy as np
import pytest
import torch

import gradjit
from tests.autograd.test_function import _classes as documented_functions
from tests.torch_reference import same_error


def _classes(lib):
    """The docs' exp saving its output and the Legendre polynomial P3 (test_function's), and a
    square whose backward is once_differentiable."""
    _, exp, legendre, _ = documented_functions(lib)

    class OnceSquare(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    return {"exp": exp, "p3": legendre, "once": OnceSquare}


X = np.array([0.3, -0.7, 1.2, 2.0])


@pytest.mark.parametrize("which", ["exp", "p3"])
@pytest.mark.parametrize("outer", [lambda y: y.sum(), lambda y: (y * y.sin()).sum()])
def test_second_derivative_through_the_users_backward(which, outer):
    results = []
    for lib in (gradjit, torch):
        x = lib.tensor(X, requires_grad=True)
        y = _classes(lib)[which].apply(x)
        (g,) = lib.autograd.grad(outer(y), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((y, g, gg, type(y.grad_fn).__name__, g.requires_grad))
    for ours, theirs in zip(*results):
        if isinstance(theirs, torch.Tensor):
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                       rtol=1e-12)
        else:
            assert ours == theirs


@pytest.mark.parametrize("which", ["exp", "p3"])
def test_gradgradcheck_passes_as_in_pytorch(which):
    for lib in (gradjit, torch):
        x = lib.tensor(X, requires_grad=True)
        assert lib.autograd.gradgradcheck(_classes(lib)[which].apply, (x,))


def test_backward_twice_with_backward_calls():
    """loss.backward(create_graph=True), then backward of the gradient: .grad accumulates."""
    grads = []
    for lib in (gradjit, torch):
        x = lib.tensor(X, requires_grad=True)
        _classes(lib)["p3"].apply(x).pow(2).sum().backward(create_graph=True)
        first = x.grad.clone()
        x.grad.sum().backward()
        grads.append((first.detach().numpy(), x.grad.detach().numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)


def _once_gradient(lib, outer):
    x = lib.tensor(X, requires_grad=True)
    (g,) = lib.autograd.grad(outer(_classes(lib)["once"].apply(x)), x, create_graph=True)
    return g


def test_once_differentiable_refuses_the_second_derivative():
    ours, theirs = (_once_gradient(lib, lambda y: (y * y).sum()) for lib in (gradjit, torch))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "Error"
    assert repr(ours).split("grad_fn")[1] == repr(theirs).split("grad_fn")[1]
    same_error(lambda: ours.sum().backward(), lambda: theirs.sum().backward())


def test_once_differentiable_with_a_constant_cotangent_has_no_history():
    # y.sum()'s cotangent does not require grad: the gradient is a plain tensor, as in PyTorch
    ours, theirs = (_once_gradient(lib, lambda y: y.sum()) for lib in (gradjit, torch))
    assert ours.requires_grad == theirs.requires_grad
    assert ours.grad_fn is None and theirs.grad_fn is None
