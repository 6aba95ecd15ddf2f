"""Adam and AdamW (decoupled weight decay), with AMSGrad, in PyTorch's order of operations so
that float32 results round as PyTorch's do."""
from __future__ import annotations

import gradjit
from gradjit.optim.optimizer import Optimizer, check_adam_options, check_tensor_betas


class Adam(Optimizer):
    _sparse_refusal = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_adam_options(lr, betas, eps, weight_decay, foreach, capturable)
        check_tensor_betas(betas, foreach, capturable)
        super().__init__(params, dict(
            lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
            maximize=maximize, foreach=foreach, capturable=capturable,
            differentiable=differentiable, fused=fused,
            decoupled_weight_decay=decoupled_weight_decay))

    def _state(self, group, p):
        return self._state_of(p, "exp_avg", "exp_avg_sq",
                              *(["max_exp_avg_sq"] if group["amsgrad"] else []))

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        lr, decay = group["lr"], group["weight_decay"]
        for p, grad, state in self._stepped(group):
            if decay != 0 and group["decoupled_weight_decay"]:
                p.mul_(1 - lr * decay)
            elif decay != 0:
                grad = grad.add(p, alpha=decay)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            step_size, correction2_sqrt = _corrections(state["step"], lr, beta1, beta2)
            if group["amsgrad"]:
                state["max_exp_avg_sq"].copy_(gradjit.maximum(state["max_exp_avg_sq"],
                                                              exp_avg_sq))
                exp_avg_sq = state["max_exp_avg_sq"]
            denom = (exp_avg_sq.sqrt() / correction2_sqrt).add_(group["eps"])
            if gradjit.is_tensor(step_size):  # compiled: the step counter stays a tensor
                p.add_(exp_avg / denom * -step_size.to(p.dtype))
            else:
                p.addcdiv_(exp_avg, denom, value=-step_size)


def _corrections(step, lr, beta1, beta2):
    """(step size, sqrt of the second moment's bias correction). Eagerly from the counter's
    value, as PyTorch computes them in Python floats; while gradjit.compile traces the step,
    as float64 tensors (as PyTorch does when compiling), so the one program serves every step
    instead of holding only for the counter's value at trace time."""
    if not gradjit.compiler.is_compiling():
        step = step.item()
        return lr / (1 - beta1 ** step), (1 - beta2 ** step) ** 0.5
    step = step.to(gradjit.float64)
    return lr / (1 - beta1 ** step), (1 - beta2 ** step).sqrt()


class AdamW(Adam):
    """Adam whose weight decay shrinks the parameters directly instead of adding to the
    gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
