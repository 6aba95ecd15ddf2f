"""Differential checks for functions and modules that return several tensors (recurrent
layers' states, attention's weights): every result, and the gradients of every float input and
parameter under one random cotangent per result."""
import numpy as np

import gradjit
from tests.nn.helpers import close, copy_weights, torch


def flat(out):
    """The tensors of a nested result, in order; None entries are kept as None."""
    if isinstance(out, (tuple, list)):
        return [t for part in out for t in flat(part)]
    return [out]


def compare_calls(g_fn, t_fn, arrays, gm=None, tm=None, rtol=2e-5, atol=2e-6):
    """g_fn and t_fn take the arrays as tensors (float ones requiring grad); gm/tm, when given,
    are the modules whose parameter gradients are compared too (torch's weights loaded)."""
    if gm is not None:
        copy_weights(gm, tm)
    gs = [gradjit.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    ts = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    g_out, t_out = flat(g_fn(*gs)), flat(t_fn(*ts))
    assert len(g_out) == len(t_out)
    rng = np.random.default_rng(1)
    g_loss, t_loss = 0, 0
    for g, t in zip(g_out, t_out):
        assert (g is None) == (t is None)
        if t is None:
            continue
        assert tuple(g.shape) == tuple(t.shape)
        close(g, t, rtol, atol)
        cotangent = rng.standard_normal(tuple(t.shape)).astype(np.float32)
        g_loss = g_loss + (g * gradjit.tensor(cotangent)).sum()
        t_loss = t_loss + (t * torch.tensor(cotangent)).sum()
    g_loss.backward(), t_loss.backward()
    for g, t in zip(gs, ts):
        if t.grad is not None:
            close(g.grad, t.grad, rtol, atol)
    if gm is not None:
        t_params = dict(tm.named_parameters())
        assert [n for n, _ in gm.named_parameters()] == list(t_params)
        for name, p in gm.named_parameters():
            close(p.grad, t_params[name].grad, rtol, atol)
