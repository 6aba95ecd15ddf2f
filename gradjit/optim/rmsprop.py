"""RMSprop, plain or centered, with optional momentum, in PyTorch's order of operations."""
from __future__ import annotations

from gradjit.optim.optimizer import Optimizer, check_lr, check_range


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        check_range("epsilon value", eps, eps >= 0.0)
        check_range("momentum value", momentum, momentum >= 0.0)
        check_range("weight_decay value", weight_decay, weight_decay >= 0.0)
        check_range("alpha value", alpha, alpha >= 0.0)
        super().__init__(params, dict(
            lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
            weight_decay=weight_decay, capturable=capturable, foreach=foreach,
            maximize=maximize, differentiable=differentiable))

    def _state(self, group, p):
        return self._state_of(p, "square_avg",
                              *(["momentum_buffer"] if group["momentum"] > 0 else []),
                              *(["grad_avg"] if group["centered"] else []))

    def _update_group(self, group):
        alpha, lr = group["alpha"], group["lr"]
        for p, grad, state in self._stepped(group):
            if group["weight_decay"] != 0:
                grad = grad.add(p, alpha=group["weight_decay"])
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(group["eps"])
            if group["momentum"] > 0:
                buf = state["momentum_buffer"]
                buf.mul_(group["momentum"]).addcdiv_(grad, avg)
                p.add_(buf, alpha=-lr)
            else:
                p.addcdiv_(grad, avg, value=-lr)
