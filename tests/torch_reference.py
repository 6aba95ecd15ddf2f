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
