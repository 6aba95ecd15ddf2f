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


def _sort_function(t):
    class Sort(t.autograd.Function):
        @staticmethod
        def forward(x):
            ind = x.argsort(-1)
            return x.take_along_dim(ind, -1), ind, ind.argsort(-1)

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, ind, ind_inv = output
            ctx.mark_non_differentiable(ind, ind_inv)
            ctx.save_for_backward(ind_inv)

        @staticmethod
        def backward(ctx, g, _0, _1):
            ind_inv, = ctx.saved_tensors
            return g.take_along_dim(ind_inv, -1)
    return Sort


def test_tuple_output_function_under_func_grad():
    # extending torch.func with autograd.Function: NumpySort returns (values, ind, ind_inv)
    x = np.array([[0.3, -1.0, 2.0], [1.5, 0.2, -0.7]], np.float32)

    def run(t):
        sort = _sort_function(t)
        return t.func.grad(lambda a: (sort.apply(a)[0] * t.arange(3.0)).sum())(t.tensor(x))
    np.testing.assert_allclose(run(gradjit).numpy(), run(torch).numpy())


def test_save_for_forward_feeds_jvp():
    def run(t):
        class Exp(t.autograd.Function):
            @staticmethod
            def forward(x):
                return x.exp()

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_forward(output)

            @staticmethod
            def jvp(ctx, x_t):
                output, = ctx.saved_tensors
                return x_t * output
        fwad = t.autograd.forward_ad
        with fwad.dual_level():
            out = Exp.apply(fwad.make_dual(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])))
            return fwad.unpack_dual(out).tangent
    np.testing.assert_allclose(run(gradjit).numpy(), run(torch).numpy(), rtol=1e-6)


def test_vmap_passes_python_arguments_unchanged():
    def run(t):
        return t.func.vmap(lambda a, dim, scale: a.sum(dim) * scale, in_dims=(0, None, None))(
            t.arange(12.0).reshape(2, 2, 3), 1, 0.5)
    np.testing.assert_array_equal(run(gradjit).numpy(), run(torch).numpy())


def _scaled(t, extra):
    class Scale(t.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        @t.autograd.function.once_differentiable
        def backward(ctx, g):
            return (g * ctx.k, None) + extra
    return Scale


@pytest.mark.parametrize("extra", [(None, None), (None, 1.0)])
def test_backward_may_return_trailing_nones(extra):
    def run(t):
        x = t.tensor([1.0, 2.0], requires_grad=True)
        _scaled(t, extra).apply(x, 3.0).sum().backward()
        return x.grad
    if extra[-1] is None:
        np.testing.assert_array_equal(run(gradjit).numpy(), run(torch).numpy())
    else:
        same_error(lambda: run(gradjit), lambda: run(torch))
