"""torch.nn.parallel: DataParallel over the one device that gradjit's eager tensors live on,
so it runs the module it wraps (as PyTorch's does without GPUs)."""
from __future__ import annotations

from gradjit.nn.modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module, self.dim = module, dim
        self.device_ids, self.output_device = list(device_ids or []), output_device

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

