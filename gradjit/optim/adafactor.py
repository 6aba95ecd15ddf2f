"""Adafactor (Shazeer and Stern, 2018) as PyTorch 2.13 runs it on CPU tensors: the second
moment of a matrix kept as row and column means whose product estimates it, updates clipped
by their RMS and scaled by the parameter's RMS."""
from __future__ import annotations

import gradjit
from gradjit.optim.optimizer import Optimizer


def _check(ok, message):
    if not ok:
        raise ValueError(message)


class Adafactor(Optimizer):
    _complex_refusal = "Adafactor does not support complex parameters"

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if gradjit.is_tensor(lr) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _check(0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}")
        _check(0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}")
        _check(eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}")
        _check(0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}")
        _check(1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}")
        _check(0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def _state(self, group, p):
        state = self.state[p]
        if not state:
            state["step"] = gradjit.tensor(0.0)
            if p.grad.dim() > 1:  # one mean per row and one per column
                state["row_var"] = p.grad.new_zeros(tuple(p.grad.shape[:-1]) + (1,))
                state["col_var"] = p.grad.new_zeros(tuple(p.grad.shape[:-2]) + (1,) +
                                                    tuple(p.grad.shape[-1:]))
            else:
                state["variance"] = gradjit.zeros_like(p.grad)
        return state

    def _update_group(self, group):
        eps1, eps2 = group["eps"]
        lr, d = float(group["lr"]), group["d"]
        for p, grad, state in self._stepped(group):
            if eps1 is None:  # the first parameter's dtype decides, for the whole group
                eps1 = gradjit.finfo(p.dtype).eps
            step = state["step"].item()
            one_minus_beta2 = step ** group["beta2_decay"]
            rho = min(lr, 1 / step ** 0.5)
            alpha = max(eps2, p.norm(2).item() / p.numel() ** 0.5) * rho
            if group["weight_decay"] != 0:
                p.mul_(1 - lr * group["weight_decay"])
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_var.lerp_(_mean_square(grad, -1), one_minus_beta2)
                col_var.lerp_(_mean_square(grad, -2), one_minus_beta2)
                estimate = (row_var @ col_var).div_(
                    row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                state["variance"].lerp_(grad * grad, one_minus_beta2)
                estimate = state["variance"].clone()
            update = estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
            denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
            p.add_(update, alpha=-alpha / denom)


def _mean_square(grad, dim):
    """The mean of grad's squares along `dim` (kept), as the squared norm over the count."""
    return gradjit.norm(grad, dim=dim, keepdim=True).square_().div_(grad.size(dim))
