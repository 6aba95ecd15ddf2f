"""torch.autograd: backward and grad over the eager tape."""
from __future__ import annotations

import numpy as np

from gradjit.autograd import forward_ad, functional, graph  # noqa: F401
from gradjit.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from gradjit.autograd.function import Function, FunctionCtx
from gradjit.autograd.gradcheck import gradcheck, gradgradcheck
from gradjit.autograd.variable import Variable
from gradjit.tensor import engine
from gradjit.tensor.dtypes import CPU
from gradjit.tensor.hot_path import plain_float
from gradjit.tensor.tensor import Tensor
from gradjit.tensor.grad_mode import (enable_grad, inference_mode, is_grad_enabled, no_grad,
                                      set_grad_enabled)

__all__ = ["Function", "FunctionCtx", "Variable", "backward", "composite",
           "detect_anomaly", "enable_grad", "grad", "gradcheck", "gradgradcheck", "inference_mode",
           "is_grad_enabled", "no_grad", "set_detect_anomaly", "set_grad_enabled"]


def composite(name, fn, *tensors):
    """fn(*tensors), written with tensor operations, recorded as one operation: its result's
    grad_fn is named `name` and its next_functions are the tensors' (a gradjit extension:
    nn.functional reports PyTorch's MseLossBackward0 for a loss it composes; a None among them,
    an optional operand left out (a convolution's bias), is an empty edge as in PyTorch).
    Gradients flow through fn's operations as usual."""
    from gradjit.tensor.arith import apply
    return apply(name, fn, *tensors, operands=[
        t for t in tensors if t is None or t.dtype.is_floating_point or t.dtype.is_complex])


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _seeds(outputs, grad_outputs):
    """The cotangent of each output: given, or ones for a scalar output."""
    if grad_outputs is None:
        grads = [None] * len(outputs)
    else:  # a tensor, or a sequence of them (another object raises as tuple() does)
        grads = [grad_outputs] if hasattr(grad_outputs, "_edge") else list(grad_outputs)
    if len(grads) < len(outputs):  # (more are ignored, as PyTorch zips them)
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if out._grad_edge() is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        value = out._value
        if g is None and type(value) is np.ndarray and value.size == 1 and \
                plain_float(value.dtype) and out._device is CPU:
            seeds.append(Tensor._wrap(np.ones(value.shape, value.dtype)))  # new_ones' value
            continue
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out.dtype.is_complex:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            g = out.new_ones(tuple(out.shape))
        elif not hasattr(g, "_edge"):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        elif tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} "
                               f"and output[{i}] has a shape of {out.shape}.")
        seeds.append(g if g.dtype is out.dtype else g.to(out.dtype))
    return seeds


def _edges(inputs):
    edges = []
    for t in inputs:
        edge = t._grad_edge()
        if edge is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(edge)
    return edges


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate the gradients of `tensors` into the .grad of the leaves (or of `inputs`)."""
    outputs = _as_list(tensors)
    seeds = _seeds(outputs, grad_tensors if grad_tensors is not None else grad_variables)
    retain = create_graph if retain_graph is None else retain_graph
    targets = None
    if inputs is not None:
        inputs = _as_list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        targets = dict(zip(_edges(inputs), inputs))
    roots = [o._grad_edge() for o in outputs]

    def accumulate(captured):
        for edge, g in captured.items():
            tensor = targets[edge] if targets is not None else edge.variable
            engine.accumulate(tensor, g, create_graph)
    engine.execute(roots, seeds, targets, retain, create_graph, deliver=accumulate)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, without touching any .grad."""
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    if is_grads_batched:
        return _batched_grad(outputs, inputs, _as_list(grad_outputs), retain_graph,
                             create_graph, allow_unused, materialize_grads)
    seeds = _seeds(outputs, grad_outputs)
    edges = _edges(inputs)
    retain = create_graph if retain_graph is None else retain_graph
    captured = engine.execute([o._grad_edge() for o in outputs], seeds, set(edges), retain,
                              create_graph)
    result = []
    for i, (t, edge) in enumerate(zip(inputs, edges)):
        g = captured.get(edge)
        if g is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is "
                                   "the desired behavior.")
            g = t.new_zeros(tuple(t.shape)) if materialize_grads else None
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """grad for each row of the grad_outputs (their first dimension is a batch), stacked."""
    from gradjit.tensor.shape import stack
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if tuple(g.shape[1:]) != tuple(out.shape):
            # (PyTorch's message shows the first row's shape less its first dimension)
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {g.shape[2:]} and output[{i}] has a "
                f"shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
    count = grad_outputs[0].shape[0]
    retain = create_graph if retain_graph is None else retain_graph
    rows = [grad(outputs, inputs, [g[b] for g in grad_outputs], retain or b < count - 1,
                 create_graph, allow_unused=allow_unused, materialize_grads=materialize_grads)
            for b in range(count)]
    return tuple(None if column[0] is None else stack(column) for column in zip(*rows))


def __getattr__(name):
    """torch.autograd.profiler loads when first used."""
    if name == "profiler":
        import importlib
        return importlib.import_module("gradjit.autograd.profiler")
    raise AttributeError(f"module 'gradjit.autograd' has no attribute {name!r}")
