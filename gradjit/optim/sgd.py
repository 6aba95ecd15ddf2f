"""Stochastic gradient descent with PyTorch's momentum, dampening, Nesterov and weight decay."""
from __future__ import annotations

from gradjit.optim.optimizer import Optimizer, check_lr, check_range


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_lr(lr)
        check_range("momentum value", momentum, momentum >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(
            lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
            nesterov=nesterov, maximize=maximize, foreach=foreach,
            differentiable=differentiable, fused=fused))

    def _update_group(self, group):
        momentum = group["momentum"]
        for p in group["params"]:
            if p.grad is None:
                continue
            grad = self._grad(group, p)
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = grad.detach().clone()
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            p.add_(grad, alpha=-group["lr"])
