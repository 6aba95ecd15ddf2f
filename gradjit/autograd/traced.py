"""autograd.Function inside gradjit.grad/jit: the Function becomes a custom_vjp whose forward
runs the user's forward eagerly on the host and whose rules run forward (to fill ctx) and then
the user's backward (or, in forward mode, its jvp), so the compiled program holds it as one op
with the user's derivatives."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gradjit.tensor.base import TensorBase
from gradjit.tensor.factories import from_numpy, is_traced
from gradjit.tensor.grad_mode import no_grad

_rules = {}  # (Function subclass, positions of the tensor arguments) -> custom_vjp


class VmapInfo(NamedTuple):
    """What a Function's vmap staticmethod is told of the batch, as PyTorch's."""
    batch_size: int
    randomness: str


def traced_apply(cls, args, kwargs):
    """cls.apply(*args) where some argument is traced."""
    if kwargs:
        raise NotImplementedError(f"{cls.__name__}.apply inside gradjit.grad/jit takes "
                                  f"positional arguments only")
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, TensorBase) or is_traced(a))
    key = (cls, positions, len(args))
    if key not in _rules:
        _rules[key] = _rule(cls, positions, len(args))
    return _rules[key](*args)


def _rule(cls, positions, count):
    from gradjit.tracer.custom import custom_vjp

    def run_forward(*values):
        from gradjit.autograd.function import FunctionCtx
        ctx = FunctionCtx(tuple(i in positions for i in range(count)))
        inputs = [from_numpy(np.asarray(v)) if i in positions else v
                  for i, v in enumerate(values)]
        with no_grad():
            if cls.setup_context is None:
                output = cls.forward(ctx, *inputs)
            else:
                output = cls.forward(*inputs)
                cls.setup_context(ctx, tuple(inputs), output)
        parts = output if isinstance(output, tuple) else (output,)
        if not all(isinstance(o, TensorBase) for o in parts):
            raise NotImplementedError(f"{cls.__name__}.apply inside gradjit.grad/jit: forward "
                                      f"must return Tensors there, not a "
                                      f"{type(output).__name__}")
        arrays = tuple(o.numpy() for o in parts)
        return (arrays if isinstance(output, tuple) else arrays[0]), ctx

    def forward(*values):
        return run_forward(*values)[0]

    def backward(*rest):
        ctx, g = rest[-2], rest[-1]
        cotangents = g if isinstance(g, tuple) else (g,)
        grads = cls.backward(ctx, *(from_numpy(np.asarray(c)) for c in cotangents))
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != count:
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number "
                               f"of gradients (expected {count}, got {len(grads)})")
        return tuple(None if grads[i] is None else np.asarray(grads[i]) for i in positions)

    def pushforward(*rest):
        fixed, primals, tangents = iter(rest[:-2]), iter(rest[-2]), iter(rest[-1])
        values = [next(primals) if i in positions else next(fixed) for i in range(count)]
        output, ctx = run_forward(*values)
        ctx._read_forward_saves()
        pushed = cls.jvp(ctx, *(from_numpy(np.asarray(next(tangents))) if i in positions
                                else None for i in range(count)))
        pushed = tuple(np.asarray(t) for t in pushed) if isinstance(pushed, tuple) else \
            np.asarray(pushed)
        return output, pushed

    rule = custom_vjp(forward, nondiff_argnums=tuple(i for i in range(count)
                                                     if i not in positions))
    rule.__name__ = rule.__qualname__ = cls.__name__
    rule.defvjp(run_forward, backward)
    rule.defjvp(pushforward)
    if hasattr(cls, "vmap"):  # the user's batching rule, which vmap calls in place of looping
        rule.def_vmap(_vmap_rule(cls, positions, count))
    return rule


def _vmap_rule(cls, positions, count):
    """cls.vmap(info, in_dims, *args) as a batching rule: the tensors come stacked on axis 0
    (in_dims 0) or shared (None); its output is moved to lead with its out_dims axis."""
    def rule(size, in_batched, *values):
        flags = iter(in_batched)
        in_dims = tuple((0 if next(flags) else None) if i in positions else None
                        for i in range(count))
        inputs = [from_numpy(np.asarray(v)) if i in positions else v
                  for i, v in enumerate(values)]
        with no_grad():
            out, out_dims = cls.vmap(VmapInfo(size, "error"), in_dims, *inputs)
        out = np.asarray(out.numpy())
        return (out, False) if out_dims is None else (np.moveaxis(out, out_dims, 0), True)
    return rule
