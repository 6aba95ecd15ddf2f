"""Differential checks of gradjit.nn against torch.nn with the same weights and inputs."""
import numpy as np
import pytest

from tests.torch_reference import message, same_error  # noqa: F401 (the nn tests' import)

import gradjit

torch = pytest.importorskip("torch")


def to_gradjit(state):
    return {k: gradjit.tensor(v.detach().numpy()) for k, v in state.items()}


def copy_weights(gm, tm):
    """Give the gradjit module the torch module's parameters and buffers."""
    gm.load_state_dict(to_gradjit(tm.state_dict()))


def close(g, t, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(g.detach()), t.detach().numpy(), rtol=rtol, atol=atol)


def run_both(g_fn, t_fn, *arrays, grads=True):
    """Call both on the same inputs (floating arrays require grad), back-propagate the same
    random cotangent; returns (gradjit output, torch output, [(gradjit grad, torch grad)])."""
    gs = [gradjit.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    ts = [torch.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    g_out, t_out = g_fn(*gs), t_fn(*ts)
    pairs = []
    if grads and t_out.requires_grad:
        cotangent = np.random.default_rng(0).standard_normal(tuple(t_out.shape))
        cotangent = cotangent.astype(t_out.detach().numpy().dtype)
        (g_out * gradjit.tensor(cotangent)).sum().backward()
        (t_out * torch.tensor(cotangent)).sum().backward()
        pairs = [(g.grad, t.grad) for g, t in zip(gs, ts) if t.grad is not None]
    return g_out, t_out, pairs


def check(g_fn, t_fn, *arrays, rtol=1e-5, atol=1e-6, grads=True):
    g_out, t_out, pairs = run_both(g_fn, t_fn, *arrays, grads=grads)
    close(g_out, t_out, rtol, atol)
    for g, t in pairs:
        assert g is not None
        close(g, t, rtol, atol)
    return g_out, t_out


def check_module(gm, tm, *arrays, rtol=1e-5, atol=1e-6):
    """Same weights, same outputs, and the same gradients for inputs and parameters."""
    copy_weights(gm, tm)
    check(gm, tm, *arrays, rtol=rtol, atol=atol)
    t_params = dict(tm.named_parameters())
    assert [n for n, _ in gm.named_parameters()] == list(t_params)
    for name, p in gm.named_parameters():
        close(p.grad, t_params[name].grad, rtol, atol)
    for (name, b), (t_name, tb) in zip(gm.named_buffers(), tm.named_buffers()):
        assert name == t_name
        close(b, tb, rtol, atol)


def randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def plain(value):
    """A result in library-free terms: tensors as (dtype, values), containers item by item,
    anything else by its repr."""
    if isinstance(value, (gradjit.Tensor, torch.Tensor)):
        return str(value.dtype), value.detach().tolist()
    if isinstance(value, dict):
        return type(value).__name__, [(k, plain(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return [plain(v) for v in value]
    return repr(value)


def outcome(scenario, lib):
    """scenario(lib)'s result, or its error's type and message."""
    try:
        return "ok", plain(scenario(lib))
    except Exception as error:  # the error is the outcome being compared
        return type(error).__name__, message(error)


def same_outcome(scenario, rtol=0.0, atol=0.0):
    """scenario(lib) gives the same result (numbers within the tolerances) or raises the same
    error in gradjit and torch."""
    ours, theirs = outcome(scenario, gradjit), outcome(scenario, torch)
    assert _close(ours, theirs, rtol, atol), (ours, theirs)


def _close(a, b, rtol, atol):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return a == b


def uniform(t, *shape, seed=0, low=-1.0, high=1.0, dtype="float32"):
    """The same seeded uniform values as a tensor of library `t` (torch or gradjit)."""
    values = np.random.default_rng(seed).uniform(low, high, shape)
    return t.tensor(values, dtype=getattr(t, dtype))


def tensors(t, value):
    """The tensors of a tensor or a nested tuple or list of them."""
    if isinstance(value, t.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from tensors(t, v)


def backward(t, out, *leaves):
    """out (a tensor or nested tuple) with the gradients of its weighted sum with respect to
    leaves."""
    total = sum((o * t.linspace(0.5, 1.5, max(o.numel(), 1))[: o.numel()].reshape(o.shape)
                 .to(o.dtype)).sum() for o in tensors(t, out) if o.requires_grad)
    total.backward()
    return out, [leaf.grad for leaf in leaves]

