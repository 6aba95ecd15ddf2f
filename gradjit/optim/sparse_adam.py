"""SparseAdam: Adam's moments and step updated only on the rows a sparse gradient holds (the
lazy Adam of embedding tables); a dense gradient is refused, as PyTorch refuses it."""
from __future__ import annotations

import math

import gradjit
from gradjit.optim.optimizer import Optimizer, check_range


class SparseAdam(Optimizer):
    _tensor_step = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if gradjit.is_tensor(lr) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        check_range("learning rate", lr, 0.0 < lr)
        check_range("epsilon value", eps, 0.0 < eps)
        for i, beta in enumerate(betas):
            check_range(f"beta parameter at index {i}", beta, 0.0 <= beta < 1.0)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        def positions(test):
            return [[i, j] for i, group in enumerate(self.param_groups)
                    for j, p in enumerate(group["params"]) if test(p)]
        sparse = positions(lambda p: p.is_sparse)
        complex_params = positions(lambda p: p.is_complex())
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense "
                             "parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             "support complex parameters")

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        for p in group["params"]:
            if p.grad is None:
                continue
            if not p.grad.is_sparse:
                raise RuntimeError("SparseAdam does not support dense gradients, please "
                                   "consider Adam instead")
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = gradjit.zeros_like(p)
                state["exp_avg_sq"] = gradjit.zeros_like(p)
            state["step"] += 1
            grad = (-p.grad if group["maximize"] else p.grad).coalesce()
            if not grad._nnz():
                continue
            rows, g = tuple(grad._indices()), grad._values()
            # each moment moves toward the new value by (1 - beta) on the rows present
            m, v = state["exp_avg"], state["exp_avg_sq"]
            m_rows = m[rows] + (g - m[rows]) * (1 - beta1)
            v_rows = v[rows] + (g * g - v[rows]) * (1 - beta2)
            m.index_put_(rows, m_rows)
            v.index_put_(rows, v_rows)
            step = state["step"]
            size = group["lr"] * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
            p.index_put_(rows, -size * (m_rows / (v_rows.sqrt() + group["eps"])),
                         accumulate=True)
