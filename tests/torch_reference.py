"""Comparisons with PyTorch that several test modules share."""
import numpy as np
import pytest


def same_error(g_call, t_call):
    """Both raise, the same exception type with the same message (raised while tracing,
    gradjit's names the user's line after it)."""
    with pytest.raises(Exception) as t_info:
        t_call()
    with pytest.raises(type(t_info.value)) as g_info:
        g_call()
    assert message(g_info.value) == str(t_info.value), (str(g_info.value), str(t_info.value))


def message(error) -> str:
    """An error's message without the user's line a traced call adds after it."""
    return str(error).partition("\n  at ")[0]


def weighted_gradients(t, fn, arrays, dtype):
    """fn's output (fn(t, *tensors), t a library) and the gradients of its weighted sum with
    respect to each input."""
    xs = [t.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    out = fn(t, *xs)
    if out.requires_grad:
        weights = t.tensor(np.linspace(0.5, 1.5, max(out.numel(), 1))[:out.numel()]
                           .reshape(tuple(out.shape)).astype(dtype))
        (out * weights).sum().backward()
    return out, [x.grad for x in xs]


def to_gradjit(x, memo=None):
    """A torch value (tensors, dtypes, sizes, functions, and containers of them) as gradjit's:
    tensors through numpy copies keeping requires_grad; a parameter met twice becomes the same
    gradjit parameter, so duplicate-parameter checks still see one."""
    import torch

    import gradjit
    memo = {} if memo is None else memo
    if id(x) in memo:
        return memo[id(x)]
    if isinstance(x, torch.nn.Parameter):
        out = gradjit.nn.Parameter(gradjit.tensor(x.detach().numpy().copy()),
                                   requires_grad=x.requires_grad)
    elif isinstance(x, torch.Tensor):
        out = gradjit.tensor(x.detach().numpy().copy())
        out = out.requires_grad_() if x.requires_grad else out
    elif isinstance(x, torch.dtype):
        return getattr(gradjit, str(x).split(".")[1])
    elif isinstance(x, torch.device):
        return str(x)
    elif isinstance(x, torch.Size):
        return tuple(x)
    elif isinstance(x, (list, tuple)):
        return type(x)(to_gradjit(v, memo) for v in x)
    elif isinstance(x, dict):
        return {k: to_gradjit(v, memo) for k, v in x.items()}
    elif callable(x) and (getattr(x, "__module__", None) or "").startswith("torch"):
        return getattr(gradjit.nn.functional, x.__name__, None) or getattr(gradjit, x.__name__)
    else:
        return x
    if x.is_leaf and x.grad is not None:  # an optimizer's error may need a step
        out.grad = to_gradjit(x.grad)
    memo[id(x)] = out
    return out


def agree(fn, *arrays, dtype=np.float64, rtol=1e-7):
    """fn(library, *tensors): the same values and weighted-sum gradients in torch and gradjit."""
    import gradjit
    torch = pytest.importorskip("torch")
    (t_out, t_grads), (g_out, g_grads) = (weighted_gradients(lib, fn, arrays, dtype)
                                          for lib in (torch, gradjit))
    assert str(g_out.dtype) == str(t_out.dtype) and tuple(g_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol)
    for g, t in zip(g_grads, t_grads):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=rtol, atol=rtol)
