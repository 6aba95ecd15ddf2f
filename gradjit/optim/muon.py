"""Muon: momentum whose update is orthogonalized by a Newton-Schulz iteration in bfloat16,
for 2-d parameters, with decoupled weight decay and a learning rate scaled by the shape."""
from __future__ import annotations

import math

import gradjit
from gradjit.optim.optimizer import Optimizer

_ADJUSTMENTS = {  # the scale of lr for an (A, B) parameter, by adjust_lr_fn
    "original": lambda a, b: math.sqrt(max(1, a / b)),
    "match_rms_adamw": lambda a, b: 0.2 * math.sqrt(max(a, b)),
}
_ADJUSTMENTS[None] = _ADJUSTMENTS["original"]  # torch's default


def zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """An approximate U V^T of grad = U S V^T: the quintic iteration X <- a X + (b G + c G^2) X,
    G = X X^T, on the wide orientation of grad scaled to unit norm, in bfloat16."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.shape[0] > grad.shape[1]
    x = grad.bfloat16()
    x = x.T if tall else x
    x = x / x.norm().clamp(min=eps)
    for _ in range(ns_steps):
        gram = x @ x.T
        x = gradjit.addmm(x, gradjit.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None):
        if gradjit.is_tensor(lr) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in _ADJUSTMENTS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(
            lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
            ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update_group(self, group):
        # a tensor lr stays one: its products round in its dtype, as torch's do
        lr, momentum = group["lr"], group["momentum"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            grad = p.grad
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = gradjit.zeros_like(grad)
            buf = state["momentum_buffer"].lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = zeropower_via_newtonschulz(update, group["ns_coefficients"],
                                                group["ns_steps"], group["eps"])
            scale = _ADJUSTMENTS[group["adjust_lr_fn"]](*p.shape[:2])
            p.mul_(1 - lr * group["weight_decay"])
            p.add_(update, alpha=float(-lr * scale))
