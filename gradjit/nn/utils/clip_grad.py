"""torch.nn.utils.clip_grad: the total norm of gradients, and scaling or clamping them in
place."""
from __future__ import annotations

import math
import types
import warnings

import gradjit


def _tensors(parameters):
    return [parameters] if gradjit.is_tensor(parameters) else list(parameters)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the tensors' norms (a 0-dim tensor; 0 for none)."""
    tensors = [t for t in _tensors(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return gradjit.tensor(0.0)
    norms = gradjit.stack([t.detach().abs().max() if math.isinf(norm_type) else
                           gradjit.linalg.vector_norm(t.detach(), norm_type) for t in tensors])
    total = norms.max() if math.isinf(norm_type) else gradjit.linalg.vector_norm(norms,
                                                                                norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by max_norm / (total_norm + 1e-6) where that is below 1."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    scale = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    with gradjit.no_grad():
        for g in grads:
            g.mul_(scale.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale the gradients together so that their total norm is at most max_norm; returns
    the total norm before clipping."""
    if not gradjit.is_tensor(parameters) and isinstance(parameters, types.GeneratorType):
        parameters = list(parameters)
        if not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    parameters = _tensors(parameters)
    total = get_total_norm([p.grad for p in parameters], norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to [-clip_value, clip_value]."""
    with gradjit.no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(-float(clip_value), float(clip_value))


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """PyTorch's deprecated name of clip_grad_norm_."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)
