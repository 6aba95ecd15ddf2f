"""torch.utils.checkpoint: a function's forward keeps none of the tensors its backward reads;
backward runs the function again (same inputs, same random state) to get them back."""
from __future__ import annotations

import contextlib
import warnings

from gradjit.autograd.graph import saved_tensors_hooks
from gradjit.tensor.grad_mode import enable_grad, is_grad_enabled, no_grad
from gradjit.tensor.random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]

_PASS_REENTRANT = ("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                   "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                   "use_reentrant will raise an exception. use_reentrant=False is recommended, "
                   "but if you need to preserve the current default behavior, you can pass "
                   "use_reentrant=True. Refer to docs for more details on the differences "
                   "between the two variants.")
_PASS_REENTRANT_SEQUENTIAL = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


def _refuse(kwargs):
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


class _Frame:
    """One checkpointed call: the saved tensors of its forward are numbered, not kept, and
    the first of them backward asks for runs the function again to collect them all."""

    def __init__(self, function, args, kwargs, rng_state, recompute_context):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state, self.recompute_context = rng_state, recompute_context
        self.count = 0
        self.recomputed = {}

    def pack(self, tensor):
        self.count += 1
        return self.count - 1

    def unpack(self, index):
        if index not in self.recomputed:  # first read in this backward (or a retained rerun)
            self.recompute()
        return self.recomputed.pop(index)

    def recompute(self):
        collected = []

        def keep(tensor):  # a copy: later in-place writes of the rerun must not reach it
            collected.append(tensor.detach().clone())
            return len(collected) - 1

        args = [a.detach().requires_grad_(a.requires_grad) if hasattr(a, "_edge") else a
                for a in self.args]
        with self.forward_rng(), enable_grad(), self.recompute_context, \
                saved_tensors_hooks(keep, lambda i: i):
            self.function(*args, **self.kwargs)
        self.recomputed = dict(enumerate(collected))

    @contextlib.contextmanager
    def forward_rng(self):
        """The random state of the forward for the rerun, the caller's again after it; without
        preserve_rng_state the rerun draws on from the caller's."""
        if self.rng_state is None:
            yield
            return
        outer_state = get_rng_state()
        set_rng_state(self.rng_state)
        try:
            yield
        finally:
            set_rng_state(outer_state)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """function(*args, **kwargs), its intermediate tensors recomputed in backward instead of
    kept. Both use_reentrant settings give the same gradients here, to the inputs and to
    tensors the function reads from outside (as use_reentrant=False does in PyTorch)."""
    if use_reentrant is None:
        warnings.warn(_PASS_REENTRANT, stacklevel=2)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        _refuse(kwargs)
    if use_reentrant and (context_fn is not noop_context_fn or debug is not False):
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    if use_reentrant and is_grad_enabled() and not any(
            getattr(a, "requires_grad", False) for a in args):
        # PyTorch's reentrant checkpoint is a Function: without an input that requires grad,
        # its output has no history (not even through tensors the function reads)
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)
        with no_grad():
            return function(*args)
    if not use_reentrant and determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    forward_context, recompute_context = context_fn()
    frame = _Frame(function, args, kwargs, get_rng_state() if preserve_rng_state else None,
                   recompute_context)
    with forward_context, saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """functions applied in turn to input, in `segments` runs of equal length; each run but
    the last is checkpointed."""
    if use_reentrant is None:
        warnings.warn(_PASS_REENTRANT_SEQUENTIAL, stacklevel=2)
        use_reentrant = True
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    _refuse(kwargs)
    from gradjit.nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(run_functions):
        def forward(x):
            for f in run_functions:
                x = f(x)
            return x
        return forward

    size = len(functions) // segments
    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(run(functions[start:end]), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve_rng_state)
    return run(functions[end:])(input)
