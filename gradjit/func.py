"""torch.func: PyTorch's names for the compiled transformations, with its argument names
(in_dims/out_dims, argnums) and result layouts; each is the gradjit transformation that JAX's
name gives, so they compose, compile once per signature and take Tensors or numpy arrays."""
from __future__ import annotations

import contextlib

from gradjit.tracer import grad as _grad
from gradjit.tracer import hessian, jacfwd, jacrev, jvp as _jvp, value_and_grad, vjp
from gradjit.tracer import vmap as _vmap

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "replace_all_batch_norm_modules_", "stack_module_state",
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
    return _jvp(func, primals, tangents, has_aux)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over the in_dims axes of its arguments, results stacked on out_dims."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. "
                         f"(got {chunk_size})")
    cache = {}  # the positions and values of the static arguments -> the mapped function

    def mapped(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        static = tuple((i, a) for i, (a, d) in enumerate(zip(args, dims))
                       if d is None and isinstance(a, _STATIC))
        if static not in cache:
            cache[static] = _vmap(_with_static(func, static), in_axes=type(dims)(
                d for i, d in enumerate(dims) if i not in dict(static)), out_axes=out_dims)
        return cache[static](*(a for i, a in enumerate(args) if i not in dict(static)),
                             **kwargs)
    return mapped


# Python values that torch.vmap hands to func unchanged (as dims, sizes, flags), not traced
_STATIC = (bool, int, float, str, type(None))


def _with_static(func, static):
    def call(*rest, **kwargs):
        rest, fixed = list(rest), dict(static)
        args = [fixed[i] if i in fixed else rest.pop(0) for i in range(len(rest) + len(fixed))]
        return func(*args, **kwargs)
    return call


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


def linearize(func, *primals):
    """(func(*primals), jvp_fn) with jvp_fn(*tangents) the JVP at primals, compiled once."""
    from gradjit.tracer.transforms import linearize as _linearize
    return _linearize(func, *primals)


def functionalize(func, *, remove="mutations"):
    """func itself: a gradjit trace already turns in-place updates into new values."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for "
                           f"remove={remove}. Valid options are:\n     remove='mutations': all "
                           "inplace and out= operators will be removed from the program, and "
                           "replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all aliasing "
                           "operators {view} will be replaced with their non-aliasing "
                           "counterparts, {view}_copy.\n")
    return func


def stack_module_state(models):
    """({name: the models' parameters stacked}, {name: their buffers stacked}): the state of
    an ensemble of one architecture, for vmap over functional_call."""
    import gradjit
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/"
                           "eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tensors, name):
        grads = {t.requires_grad for t in tensors}
        if len(grads) > 1:
            raise RuntimeError(f"Expected {name} from each model to have the same "
                               ".requires_grad")
        out = gradjit.stack(tensors)
        return out.detach().requires_grad_() if grads == {True} else out

    def table(named):
        entries = [dict(named(m)) for m in models]
        return {k: stacked([e[k] for e in entries], k) for k in entries[0]}
    return (table(lambda m: m.named_parameters()), table(lambda m: m.named_buffers()))


def replace_all_batch_norm_modules_(root):
    """Batch norms under root stop tracking running statistics (so vmap sees no in-place
    update of them); root is returned."""
    from gradjit.nn.modules.normalization import _BatchNorm
    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = module.running_var = module.num_batches_tracked = None
            module.track_running_stats = False
    return root


_TORCH_VMAP_KEYWORDS = {"in_dims", "out_dims", "randomness", "chunk_size"}


def namespace_vmap(func, *args, **kwargs):
    """gradjit.vmap answers both torch.vmap and jax.vmap: torch's keywords (in_dims, out_dims,
    randomness, chunk_size) choose torch.func.vmap, anything else JAX's signature."""
    if _TORCH_VMAP_KEYWORDS & set(kwargs):
        return vmap(func, *args, **kwargs)
    return _vmap(func, *args, **kwargs)
