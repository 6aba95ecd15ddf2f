"""SparseAdam's constructor and its refusal of dense gradients: gradjit has no sparse layout,
so every gradient it makes is one SparseAdam refuses, as PyTorch does."""
from __future__ import annotations

import gradjit
from gradjit.optim.optimizer import Optimizer, check_range


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if gradjit.is_tensor(lr) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        check_range("learning rate", lr, 0.0 < lr)
        check_range("epsilon value", eps, 0.0 < eps)
        for i, beta in enumerate(betas):
            check_range(f"beta parameter at index {i}", beta, 0.0 <= beta < 1.0)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not "
                             f"support complex parameters")

    def _update_group(self, group):
        if any(p.grad is not None for p in group["params"]):
            raise RuntimeError("SparseAdam does not support dense gradients, please consider "
                               "Adam instead")
