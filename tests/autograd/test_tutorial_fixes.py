"""Autograd behaviours that PyTorch's tutorials rely on, compared with torch."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _exp_with_jvp(t, scale=1.0):
    class Exp(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.result = x.exp()
            return ctx.result

        @staticmethod
        def jvp(ctx, g):
            return g * ctx.result * scale
    return Exp


def _pushed(t):
    fwad = t.autograd.forward_ad
    x = t.tensor([0.5, -1.0, 2.0], dtype=t.float64, requires_grad=True)
    with fwad.dual_level():
        out = _exp_with_jvp(t).apply(fwad.make_dual(x, t.tensor([1.0, 2.0, 3.0],
                                                                 dtype=t.float64)))
        return fwad.unpack_dual(out * 2).tangent


def test_function_with_only_jvp_under_forward_ad():
    # the forward-mode AD tutorial: a custom Function that defines jvp and no backward
    np.testing.assert_allclose(_pushed(gradjit).detach().numpy(), _pushed(torch).detach().numpy())


def _check(t, scale):
    x = t.tensor([0.3, -0.2], dtype=t.float64, requires_grad=True)
    return t.autograd.gradcheck(_exp_with_jvp(t, scale).apply, (x,), check_forward_ad=True,
                                check_backward_ad=False, check_undefined_grad=False,
                                check_batched_grad=False)


def test_gradcheck_forward_ad_only():
    assert _check(gradjit, 1.0) is True and _check(torch, 1.0) is True


def test_gradcheck_forward_ad_mismatch():
    messages = []
    for t in (torch, gradjit):
        with pytest.raises(RuntimeError) as info:
            _check(t, 2.0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_backward_through_jvp_only_function_still_raises():
    def call(t):
        x = t.tensor([0.3], requires_grad=True)
        _exp_with_jvp(t).apply(x).sum().backward()
    same_error(lambda: call(gradjit), lambda: call(torch))
