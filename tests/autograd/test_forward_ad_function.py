"""Forward-mode AD against PyTorch: an autograd.Function's jvp used by torch.func.jvp and in a
dual level (also when it has a backward), and tangents that keep a history when the primal
requires grad (forward over reverse)."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

X = np.array([0.3, -0.7, 1.2])
T = np.array([1.0, 2.0, 0.5])
W = np.array([0.5, -1.5, 2.0])


def _scaled_exp(lib):
    """exp(x) * k and x * k: its jvp is three times the derivative, so a result shows which
    rule made it."""
    class ScaledExp(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x.exp() * k, x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
            ctx.save_for_backward(output[0])
            ctx.save_for_forward(output[0])

        @staticmethod
        def backward(ctx, g_exp, g_lin):
            result, = ctx.saved_tensors
            return g_exp * result + g_lin * ctx.k, None

        @staticmethod
        def jvp(ctx, x_t, k_t):
            result, = ctx.saved_tensors
            return 3 * x_t * result, x_t * ctx.k
    return ScaledExp


def _np(t):
    return None if t is None else t.detach().numpy()


def _both(run):
    return run(gradjit, gradjit.autograd.forward_ad), run(torch, torch.autograd.forward_ad)


def _close(ours, theirs):
    for a, b in zip(ours, theirs):
        if b is None or isinstance(b, (bool, str)):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_func_jvp_uses_the_functions_jvp():
    def run(lib, _):
        def f(x):
            e, lin = _scaled_exp(lib).apply(x, 2.0)
            return (e.sin() + lin).sum()
        out, tangent = lib.func.jvp(f, (lib.tensor(X),), (lib.tensor(T),))
        return _np(out), _np(tangent)
    _close(*_both(run))


def test_dual_level_uses_jvp_and_backward_stays_the_users():
    def run(lib, fwad):
        x = lib.tensor(X, requires_grad=True)
        with fwad.dual_level():
            e, lin = _scaled_exp(lib).apply(fwad.make_dual(x, lib.tensor(T)), 2.0)
            y = e.sin() * lin
            tangent = fwad.unpack_dual(y).tangent
            y.sum().backward()
        return _np(fwad.unpack_dual(y).primal), _np(tangent), _np(x.grad)
    _close(*_both(run))


@pytest.mark.parametrize("fn", [lambda d, w: (d.sin() * d).sum(),
                                lambda d, w: (d * w).exp().mean(),
                                lambda d, w: gradjit_or_torch(d).tanh(d @ w)])
def test_tangent_keeps_a_history_when_the_primal_requires_grad(fn):
    def run(lib, fwad):
        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
        with fwad.dual_level():
            tangent = fwad.unpack_dual(fn(fwad.make_dual(x, lib.tensor(T)), w)).tangent
            has_history = tangent.grad_fn is not None
            (tangent * tangent).sum().backward()
        return _np(tangent), has_history, _np(x.grad), _np(w.grad)
    ours, theirs = _both(run)
    assert theirs[1]
    _close(ours, theirs)


def gradjit_or_torch(t):
    return gradjit if isinstance(t, gradjit.Tensor) else torch


def test_tangent_without_a_leaf_that_requires_grad_has_no_history():
    def run(lib, fwad):
        with fwad.dual_level():
            tangent = fwad.unpack_dual(fwad.make_dual(lib.tensor(X), lib.tensor(T)).sin()).tangent
        return _np(tangent), tangent.requires_grad, tangent.grad_fn is None
    _close(*_both(run))


def test_a_tangent_that_requires_grad_gives_the_result_a_history():
    def run(lib, fwad):
        t = lib.tensor(T, requires_grad=True)
        with fwad.dual_level():
            tangent = fwad.unpack_dual(fwad.make_dual(lib.tensor(X), t).exp()).tangent
            tangent.sum().backward()
        return _np(tangent), _np(t.grad)
    _close(*_both(run))


def test_inside_a_level_requires_grad_is_torchs():
    """A dual of a tensor that does not require grad, and what is computed from it, neither
    require grad nor have a grad_fn; a leaf that requires grad brings both back."""
    def run(lib, fwad):
        with fwad.dual_level():
            d = fwad.make_dual(lib.tensor(X), lib.tensor(T))
            y = d.sin() * 2
            e, _ = _scaled_exp(lib).apply(d, 2.0)
            w = lib.tensor(W, requires_grad=True)
            z = y * w
            flags = [(t.requires_grad, t.is_leaf, t.grad_fn is None) for t in (d, y, e)]
            flags.append((z.requires_grad, z.is_leaf, type(z.grad_fn).__name__))
            d.requires_grad_()
            q = d * 3
            flags.append((q.requires_grad, type(q.grad_fn).__name__))
            return flags, y.numpy(), repr(y), _np(fwad.unpack_dual(q).tangent)
    ours, theirs = _both(run)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert ours[2] == theirs[2]  # the tangent is printed
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12)


def _backward_only(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            result, = ctx.saved_tensors
            return g * result
    return Exp


def test_forward_mode_without_jvp_is_refused_as_in_torch():
    def in_a_level(lib, fwad):
        with fwad.dual_level():
            _backward_only(lib).apply(fwad.make_dual(lib.tensor(X), lib.tensor(T)))
    same_error(lambda: in_a_level(gradjit, gradjit.autograd.forward_ad),
               lambda: in_a_level(torch, torch.autograd.forward_ad))
    same_error(lambda: gradjit.func.jvp(_backward_only(gradjit).apply, (gradjit.tensor(X),),
                                        (gradjit.tensor(T),)),
               lambda: torch.func.jvp(_backward_only(torch).apply, (torch.tensor(X),),
                                      (torch.tensor(T),)))
    with gradjit.autograd.forward_ad.dual_level():  # inputs without tangents: no jvp needed
        assert not _backward_only(gradjit).apply(gradjit.tensor(X)).requires_grad
