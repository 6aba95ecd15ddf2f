"""torch.nn.parallel's DataParallel as PyTorch runs it without GPUs: the wrapped module,
called directly (its parameters named module.*)."""
from __future__ import annotations

from gradjit.nn.modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        # PyTorch keeps no devices when none is available, and then calls the module as is
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


__all__ = ["DataParallel"]
