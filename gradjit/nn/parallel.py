"""torch.nn.parallel: DataParallel as PyTorch runs it without GPUs (the wrapped module, called
directly, its parameters named module.*), and DistributedDataParallel over gradjit's process
groups: parameters and buffers start as rank 0's, and each backward ends with the gradients
averaged over the ranks, so every rank steps the same parameters."""
from __future__ import annotations

import contextlib

import gradjit
from gradjit.nn.modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        # PyTorch keeps no devices when none is available, and then calls the module as is
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, **kwargs):
        super().__init__()
        from gradjit import distributed as dist
        dist.get_world_size()  # refuses without a process group, as PyTorch does
        self.module, self.broadcast_buffers = module, broadcast_buffers
        self.device_ids, self._syncing, self._queued = device_ids, True, False
        self._dist = dist
        for t in (*module.parameters(), *module.buffers()):
            dist.broadcast(t, 0)
        for p in module.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self._gradient_arrived)

    def _gradient_arrived(self, _):
        if self._syncing and not self._queued:
            self._queued = True
            gradjit.autograd.Variable._execution_engine.queue_callback(self._average_gradients)

    def _average_gradients(self):
        """Every trainable parameter's gradient averaged over the ranks (one that got none in
        this backward counts as zeros, so that every rank sends the same messages)."""
        self._queued = False
        world = self._dist.get_world_size()
        for p in self.module.parameters():
            if not p.requires_grad:
                continue
            if p.grad is None:
                p.grad = gradjit.zeros_like(p)
            self._dist.all_reduce(p.grad)
            with gradjit.no_grad():
                p.grad.div_(world)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self._syncing:
            for b in self.module.buffers():
                self._dist.broadcast(b, 0)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside accumulate gradients locally, without averaging."""
        before, self._syncing = self._syncing, False
        try:
            yield
        finally:
            self._syncing = before


__all__ = ["DataParallel", "DistributedDataParallel"]
