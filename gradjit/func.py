"""torch.func: PyTorch's names for the compiled transformations, with its argument names
(in_dims/out_dims, argnums) and result layouts; each is the gradjit transformation that JAX's
name gives, so they compose, compile once per signature and take Tensors or numpy arrays."""
from __future__ import annotations

import contextlib

from gradjit.tracer import grad as _grad
from gradjit.tracer import hessian, jacfwd, jacrev, jit, jvp as _jvp, value_and_grad, vjp
from gradjit.tracer import vmap as _vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "vjp", "vmap"]


def grad(func, argnums=0, has_aux=False):
    """The gradient of scalar-valued func with respect to args[argnums] (a tuple of them for
    tuple argnums); with has_aux, func returns (output, aux) and this returns (grad, aux)."""
    return _grad(func, argnums=argnums, has_aux=has_aux)


def grad_and_value(func, argnums=0, has_aux=False):
    """(grad, output), or (grad, (output, aux)) with has_aux: torch.func's order, the reverse
    of value_and_grad's."""
    both = value_and_grad(func, argnums=argnums, has_aux=has_aux)

    def grad_and_value_of(*args, **kwargs):
        value, gradient = both(*args, **kwargs)
        return gradient, value
    return grad_and_value_of


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the JVP along tangents), or (output, jvp, aux) with has_aux."""
    if not has_aux:
        return _jvp(func, primals, tangents)

    def main(*args):
        return func(*args)[0]
    out, tangent = _jvp(main, primals, tangents)
    return out, tangent, jit(func)(*primals)[1]


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over the in_dims axes of its arguments, results stacked on out_dims."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. "
                         f"(got {chunk_size})")
    return _vmap(func, in_axes=in_dims, out_axes=out_dims)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with its parameters and buffers named in the dict(s) replaced
    by the given tensors for the call (and restored after), so a gradient with respect to
    them can be taken of a Module: grad(lambda p, x: functional_call(model, p, (x,)))."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (list, tuple)):
        merged = {}
        for d in dicts:
            repeated = sorted(set(merged) & set(d))
            if repeated:
                raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                                 f"functional call is ambiguous")
            merged.update(d)
        dicts = merged
    known = dict(module.named_parameters(remove_duplicate=False))
    known.update(module.named_buffers(remove_duplicate=False))
    if strict:
        missing = sorted(set(known) - set(dicts))
        unexpected = sorted(set(dicts) - set(known))
        problems = [f"\n\t{what} key(s): {', '.join(map(repr, keys))}."
                    for what, keys in (("Unexpected", unexpected), ("Missing", missing)) if keys]
        if problems:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:"
                               + "".join(problems))
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _swapped(module, dicts):
        return module(*args, **(kwargs or {}))


@contextlib.contextmanager
def _swapped(module, values):
    """The module's parameters and buffers replaced by values (by dotted name), then put
    back, even when the call raises."""
    saved = []
    try:
        for name, value in values.items():
            owner, _, leaf = name.rpartition(".")
            holder = module.get_submodule(owner) if owner else module
            table = (holder._parameters if leaf in holder._parameters else
                     holder._buffers if leaf in holder._buffers else None)
            if table is None:
                continue
            saved.append((table, leaf, table[leaf]))
            table[leaf] = value
        yield
    finally:
        for table, leaf, old in reversed(saved):
            table[leaf] = old
