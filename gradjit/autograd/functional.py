"""torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp and vhp over the eager tape,
with PyTorch's argument conventions (a Tensor or a tuple of Tensors in, the same out),
create_graph and strict mode. The compiled equivalents are gradjit.func / gradjit.jacrev."""
from __future__ import annotations

import gradjit
from gradjit import autograd
from gradjit.tensor.grad_mode import enable_grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(x, what, fn_name):
    """(whether x was a tuple, x as a tuple of Tensors), with PyTorch's TypeError."""
    many = isinstance(x, tuple)
    items = x if many else (x,)
    if not all(isinstance(t, gradjit.Tensor) for t in items):
        shown = type(x) if not many else type(next(t for t in items
                                                   if not isinstance(t, gradjit.Tensor)))
        raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of "
                        f"Tensors but the given {what} has type {shown}.")
    return many, items


def _shaped(many, items):
    return items if many else items[0]


def _differentiable(inputs, create_graph):
    """Inputs the tape can differentiate: views that keep the caller's graph when it is to be
    extended (create_graph), fresh leaves otherwise."""
    if create_graph:
        return tuple(t.view_as(t) if t.requires_grad else t.detach().requires_grad_()
                     for t in inputs)
    return tuple(t.detach().requires_grad_() for t in inputs)


def _call(func, inputs, fn_name):
    with enable_grad():
        return _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)


def _grads(outputs, inputs, seeds, create_graph, retain_graph=True):
    """d<outputs, seeds>/d inputs, None for an input the outputs do not depend on."""
    used = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    if not used:
        return (None,) * len(inputs)
    return autograd.grad([o for o, _ in used], inputs, [s for _, s in used],
                         retain_graph=retain_graph, create_graph=create_graph,
                         allow_unused=True)


def _independent(j):
    return (f"The output of the user-provided function is independent of input {j}. This is "
            f"not allowed in strict mode.")


# Strict mode's refusal of a tensor that does not require grad, by what the tensor is.
_UNDIFFERENTIABLE = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The "
               "outputs must be computed in a differentiable manner from the input when "
               "running in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
}


def _require(tensors, kind, strict):
    """In strict mode, refuse a tensor that is missing or does not require grad."""
    for i, t in enumerate(tensors if strict else ()):
        if t is None:
            raise RuntimeError(_independent(i))
        if not t.requires_grad:
            raise RuntimeError(_UNDIFFERENTIABLE[kind].format(i=i))


def _filled(grads, like, create_graph, refuse=None):
    """Zeros for unused inputs, detached unless create_graph; in strict mode `refuse(j)` is
    the message that refuses input j's independence."""
    result = []
    for j, (g, t) in enumerate(zip(grads, like)):
        if g is None:
            if refuse is not None:
                raise RuntimeError(refuse(j))
            g = gradjit.zeros_like(t)
        result.append(g if create_graph else g.detach())
    return tuple(result)


def _check_vector(v, like, fn_name, what):
    """v validated against like (the outputs or inputs it pairs with), as a tuple."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {what} a single Tensor "
                               f"with a single element.")
        return (gradjit.ones_like(like[0]),)
    _, v = _as_tuple(v, "v", fn_name)
    if len(like) == 1 and len(v) != 1:
        raise RuntimeError("The given v should contain a single Tensor.")
    if len(v) != len(like):
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(like)} but got "
                           f"{len(v)}.")
    for a, b in zip(v, like):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(f"v has invalid size: should be {b.shape} but got {a.shape}.")
    return v


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T J): the outputs and the vector-Jacobian product per input."""
    many_in, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs = _differentiable(inputs, create_graph)
    many_out, outputs = _call(func, inputs, "vjp")
    _require(outputs, "outputs", strict)
    v = _check_vector(v, outputs, "vjp", "user-provided function returns")
    grads = _grads(outputs, inputs, v, create_graph)
    result = _filled(grads, inputs, create_graph, _independent if strict else None)
    outs = tuple(o if create_graph else o.detach() for o in outputs)
    return _shaped(many_out, outs), _shaped(many_in, result)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), J v), by the double-backward trick: the VJP is linear in its cotangent
    u, so differentiating <VJP(u), v> with respect to u gives J v."""
    many_in, inputs = _as_tuple(inputs, "inputs", "jvp")
    inputs = _differentiable(inputs, create_graph)
    v = _check_vector(v, inputs, "jvp", "input to the user-provided function is")
    many_out, outputs = _call(func, inputs, "jvp")
    _require(outputs, "outputs", strict)
    with enable_grad():
        us = tuple(gradjit.zeros_like(o).requires_grad_() for o in outputs)
        pulled = _grads(outputs, inputs, us, create_graph=True)
        if strict:
            _filled(pulled, inputs, True, _independent)
        pairs = [(g, t) for g, t in zip(pulled, v) if g is not None]
        pushed = (autograd.grad([g for g, _ in pairs], us, [t for _, t in pairs],
                                create_graph=create_graph, allow_unused=True)
                  if pairs else (None,) * len(us))
    result = _filled(pushed, outputs, create_graph)
    outs = tuple(o if create_graph else o.detach() for o in outputs)
    return _shaped(many_out, outs), _shaped(many_out, result)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: for output i and input j a Tensor of shape
    outputs[i].shape + inputs[j].shape, nested in tuples as the outputs and inputs are.
    vectorize is a speed hint in PyTorch; the rows are computed one by one here either way."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".'
                             ' Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strict and vectorize:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    many_in, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = _differentiable(inputs, create_graph)
    many_out, outputs = _call(func, inputs, "jacobian")
    blocks = []
    _require(outputs, "outputs", strict)
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        flat = out.reshape(-1)
        for k in range(flat.numel()):
            grads = _grads((flat[k],), inputs, (gradjit.ones_like(flat[k]),), create_graph)
            filled = _filled(grads, inputs, create_graph, strict and (
                lambda j: f"Output {i} of the user-provided function is independent of input "
                          f"{j}. This is not allowed in strict mode.") or None)
            for row, g in zip(rows, filled):
                row.append(g)
        blocks.append(tuple(
            (gradjit.stack(row) if row else gradjit.zeros((0,) + tuple(t.shape), dtype=t.dtype))
            .reshape(tuple(out.shape) + tuple(t.shape)) for row, t in zip(rows, inputs)))
    per_output = [_shaped(many_in, block) for block in blocks]
    return _shaped(many_out, tuple(per_output))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar-valued func: the Jacobian of its gradient, [i][j] of shape
    inputs[i].shape + inputs[j].shape for tuple inputs."""
    many_in, inputs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*args):  # in the inputs' form: a tuple for tuple inputs
        out = _scalar(func(*args), "hessian")
        grads = _grads((out,), args, (gradjit.ones_like(out),), create_graph=True)
        grads = _filled(grads, args, True)
        _require(grads, "jacobian", strict)
        return _shaped(many_in, grads)
    return jacobian(gradient, _shaped(many_in, inputs), create_graph, False, vectorize,
                    outer_jacobian_strategy)


def _scalar(out, fn_name):
    many, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
    if many and len(outs) != 1:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           f"contain a single element")
    return outs[0]


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T H) for scalar-valued func."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), H v) for scalar-valued func; the Hessian of a twice differentiable
    function is symmetric, so this is v^T H up to rounding."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp")


def _second_order(func, inputs, v, create_graph, strict, fn_name):
    many_in, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _differentiable(inputs, create_graph)
    v = _check_vector(v, inputs, fn_name, "input to the user-provided function is")
    with enable_grad():
        out = _scalar(func(*inputs), fn_name)
        _require((out,), "outputs", strict)
        grads = _grads((out,), inputs, (gradjit.ones_like(out),), create_graph=True)
        _require(grads, "jacobian", strict)
        pairs = [(g, t) for g, t in zip(grads, v) if g is not None]
        second = (_grads([g for g, _ in pairs], inputs, [t for _, t in pairs], create_graph)
                  if pairs else (None,) * len(inputs))
    result = _filled(second, inputs, create_graph, strict and (
        lambda j: f"The jacobian of the user-provided function is independent of input {j}. "
                  "This is not allowed in strict mode.") or None)
    return (out if create_graph else out.detach()), _shaped(many_in, result)
