"""torch.autograd.graph: hooks on the tensors saved for backward (saved_tensors_hooks,
save_on_cpu, disable_saved_tensors_hooks), one hook over several gradients, the Node type of
every grad_fn and increment_version."""
from __future__ import annotations

import abc
import contextlib

from gradjit.tensor import graph, saved
from gradjit.tensor.graph import AccumulateGrad, RemovableHandle

__all__ = ["Node", "disable_saved_tensors_hooks", "increment_version",
           "register_multi_grad_hook", "save_on_cpu", "saved_tensors_hooks"]


class Node(abc.ABC):
    """The type of every grad_fn and of the AccumulateGrad nodes of leaves."""

    @abc.abstractmethod
    def name(self) -> str:
        """The node's class name, as PyTorch prints it."""


Node.register(graph.Node)
Node.register(AccumulateGrad)


class saved_tensors_hooks:
    """Within the context, each tensor saved for backward is stored as pack_hook(tensor), and
    backward reads unpack_hook(that) instead of it; the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if saved.saved_hooks.disabled is not None:
            raise RuntimeError(saved.saved_hooks.disabled)
        saved.saved_hooks.stack = saved.saved_hooks.stack + ((self.pack_hook,
                                                               self.unpack_hook),)

    def __exit__(self, *exc):
        saved.saved_hooks.stack = saved.saved_hooks.stack[:-1]


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept on the CPU and moved back to their device for backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: (t.device, t.cpu()), lambda packed: packed[1].to(packed[0]))


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Within the context, installing saved_tensors_hooks raises RuntimeError(error_message);
    so does entering it while hooks are installed."""
    previous = saved.saved_hooks.disabled
    if saved.saved_hooks.stack:
        raise RuntimeError(error_message)
    saved.saved_hooks.disabled = error_message
    try:
        yield
    finally:
        saved.saved_hooks.disabled = previous


def increment_version(tensor):
    """Count an in-place change that autograd did not see (a write through .data or numpy)."""
    for t in tensor if isinstance(tensor, (list, tuple)) else (tensor,):
        t._counter.value += 1


class _MultiHandle(RemovableHandle):
    def __init__(self, handles):
        self.handles = tuple(handles)

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """fn over several tensors' gradients in one backward pass: with mode 'all', called once
    at the end with the tuple of them (None for those not computed); with 'any', with the
    first one computed."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = list(tensors)
    grads = [None] * len(tensors)
    fired = []

    def finish():
        if mode == "all":
            fn(tuple(grads))
        grads[:] = [None] * len(tensors)
        fired.clear()

    def hook_for(i):
        def hook(g):
            if not fired:
                graph.after_backward(finish)
                if mode == "any":
                    fn(g)
            fired.append(i)
            grads[i] = g
        return hook
    return _MultiHandle(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)
                        if t.requires_grad)
