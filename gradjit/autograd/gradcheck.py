"""torch.autograd.gradcheck and gradgradcheck: the Jacobians of a function from the tape's
gradients against central finite differences, entry by entry."""
from __future__ import annotations

import warnings

import numpy as np

from gradjit.tensor.base import TensorBase


class GradcheckError(RuntimeError):
    """A Jacobian mismatch found by gradcheck or gradgradcheck."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _differentiable(inputs):
    """The positions of the inputs gradcheck differentiates with respect to."""
    chosen = [i for i, t in enumerate(inputs) if isinstance(t, TensorBase) and t.requires_grad]
    if not chosen:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")
    for i in chosen:
        if inputs[i].dtype.ir.name != "f64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=3)
    return chosen


def _outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, TensorBase)]


def _numerical(func, inputs, i, eps):
    """d outputs / d inputs[i] by central differences: one (input numel, output numel) array
    per output."""
    x = inputs[i]
    base = x.detach().numpy().copy()
    columns = []
    for k in range(base.size):
        values = []
        for step in (eps, -eps):
            moved = base.copy()
            moved.flat[k] += step
            shifted = list(inputs)
            shifted[i] = _like(x, moved).requires_grad_(x.requires_grad)
            values.append([o.detach().numpy().astype(np.float64).ravel()
                           for o in _outputs(func, shifted)])
        columns.append([(a - b) / (2 * eps) for a, b in zip(*values)])
    return [np.stack([c[j] for c in columns]) if columns else np.zeros((0, 0))
            for j in range(len(columns[0]) if columns else 0)]


def _like(x, array):
    from gradjit.tensor.factories import tensor
    return tensor(array, dtype=x.dtype)


def _analytical(outputs, inputs, chosen):
    """For each output, the rows (input numel, output numel) of its Jacobian with respect to
    each chosen input, from one backward per output entry."""
    from gradjit.autograd import grad
    result = []
    for out in outputs:
        blocks = [np.zeros((inputs[i].numel(), out.numel())) for i in chosen]
        if out.requires_grad:
            for j in range(out.numel()):
                seed = np.zeros(tuple(out.shape), out.dtype.ir.numpy)
                seed.flat[j] = 1
                grads = grad(out, [inputs[i] for i in chosen], _like(out, seed),
                              retain_graph=True, allow_unused=True)
                for block, g in zip(blocks, grads):
                    if g is None:
                        continue
                    block[:, j] = g.detach().numpy().ravel()
        result.append(blocks)
    return result


def _forward_jacobians(func, inputs, chosen, outputs):
    """The same blocks as _analytical, from one forward-mode push per input entry."""
    from gradjit.autograd import forward_ad
    result = [[np.zeros((inputs[i].numel(), o.numel())) for i in chosen] for o in outputs]
    for position, i in enumerate(chosen):
        for k in range(inputs[i].numel()):
            seed = np.zeros(tuple(inputs[i].shape), inputs[i].dtype.ir.numpy)
            seed.flat[k] = 1
            with forward_ad.dual_level():
                shifted = list(inputs)
                shifted[i] = forward_ad.make_dual(inputs[i].detach(), _like(inputs[i], seed))
                for j, out in enumerate(_outputs(func, shifted)):
                    tangent = forward_ad.unpack_dual(out).tangent
                    if tangent is not None:
                        result[j][position][k] = tangent.detach().numpy().ravel()
    return result


def _printed(array, dtype):
    from gradjit.tensor.factories import tensor
    return tensor(array.astype(np.float64)).to(dtype)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when every Jacobian of func at inputs agrees with its finite differences
    (allclose with rtol, atol); otherwise GradcheckError, or False without raise_exception.
    fast_mode checks the same full Jacobians; the tape's gradients always have their
    input's dtype, which check_grad_dtypes would check."""
    inputs = _as_tuple(inputs)
    chosen = _differentiable(inputs)
    outputs = _outputs(func, inputs)
    modes = ([("", _analytical(outputs, inputs, chosen))] if check_backward_ad else []) + \
        ([("computed with forward mode ", _forward_jacobians(func, inputs, chosen, outputs))]
         if check_forward_ad else [])
    for position, i in enumerate(chosen):
        numerical = _numerical(func, inputs, i, eps)
        for j, (out, num) in enumerate(zip(outputs, numerical)):
            if check_backward_ad and not out.requires_grad:
                if not np.allclose(num, 0, rtol=rtol, atol=atol):
                    return _fail("Numerical gradient for function expected to be zero",
                                 raise_exception)
                continue
            for mode, analytical in modes:
                ana = analytical[j][position]
                if not np.allclose(ana, num, rtol=rtol, atol=atol):
                    dtype = out.dtype
                    return _fail(f"Jacobian {mode}mismatch for output {j:d} with respect to "
                                 f"input {i:d},\nnumerical:{_printed(num, dtype)}\n"
                                 f"analytical:{_printed(ana, dtype)}\n", raise_exception)
    return True


def _fail(message, raise_exception):
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """gradcheck of func's gradients (taken with create_graph) as a function of the inputs and
    of the output cotangents (random normal ones unless given)."""
    from gradjit.autograd import grad
    from gradjit.tensor.random import randn_like
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(randn_like(o.detach()).requires_grad_()
                             for o in _outputs(func, inputs) if o.requires_grad)
    grad_outputs = _as_tuple(grad_outputs)
    count = len(inputs)

    def gradients(*args):
        xs, seeds = args[:count], args[count:]
        outs = [o for o in _outputs(func, xs) if o.requires_grad]
        wrt = [x for x in xs if isinstance(x, TensorBase) and x.requires_grad]
        grads = grad(outs, wrt, seeds, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)
    return gradcheck(gradients, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_grad_dtypes=check_grad_dtypes)
