"""torch.nn.utils: gradient clipping and parameters as one vector."""
from __future__ import annotations

import math

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


def parameters_to_vector(parameters):
    return gradjit.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Fill the parameters, in order, from consecutive slices of vec."""
    if not gradjit.is_tensor(vec):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n


clip_grad_norm = clip_grad_norm_  # PyTorch's deprecated name


# name -> (module, its name there): loaded on first use, keeping `import gradjit` light
_ON_USE = {"parametrize": ("parametrize", None), "parametrizations": ("parametrizations", None),
           "prune": ("prune", None),
           "weight_norm": ("parametrizations", "old_weight_norm"),
           "remove_weight_norm": ("parametrizations", "remove_weight_norm"),
           "spectral_norm": ("parametrizations", "old_spectral_norm"),
           "remove_spectral_norm": ("parametrizations", "remove_spectral_norm")}


def __getattr__(name):
    if name not in _ON_USE:
        raise AttributeError(f"module 'gradjit.nn.utils' has no attribute {name!r}")
    import importlib
    module, attribute = _ON_USE[name]
    loaded = importlib.import_module(f"gradjit.nn.utils.{module}")
    return loaded if attribute is None else getattr(loaded, attribute)
