"""torch.func: PyTorch's names for the compiled transformations, with its argument names,
result layouts and (func/checks.py) its checks and errors; each is the gradjit transformation
JAX's name gives, so they compose and compile once per signature."""
from __future__ import annotations

import contextlib
import functools

from gradjit.func import checks as C
from gradjit.tensor.random import TracedRandomDraw
from gradjit.tracer import grad as _grad
from gradjit.tracer import jacfwd as _jacfwd
from gradjit.tracer import jacrev as _jacrev
from gradjit.tracer import jvp as _jvp
from gradjit.tracer import value_and_grad, vjp as _vjp
from gradjit.tracer import vmap as _vmap
from gradjit.tracer.pytree import dicts_in_insertion_order

__all__ = ["functional_call", "functionalize", "grad", "grad_and_value", "hessian", "jacfwd",
           "jacrev", "jvp", "linearize", "replace_all_batch_norm_modules_", "stack_module_state",
           "vjp", "vmap"]


def _torch_dicts(call):
    """call flattening dicts as torch.func does: keys in insertion order, where JAX's
    transformations sort them (their results' dicts keep the order the keys came in)."""
    @functools.wraps(call)
    def in_torch_order(*args, **kwargs):
        with dicts_in_insertion_order():
            return call(*args, **kwargs)
    return in_torch_order


def _with_checked_args(transformed, func, argnums, forward=False, jacobian=None):
    """transformed, called once torch's checks of argnums and the differentiated arguments
    pass (for the jacobian function so named, first that all arguments are real)."""
    @functools.wraps(func)
    def call(*args, **kwargs):
        if jacobian:
            C.real(jacobian, args, "inputs")
        nums = C.argnums(argnums, args)
        C.differentiable(tuple(args[i] for i in (nums if isinstance(nums, tuple) else (nums,))),
                         forward)
        with dicts_in_insertion_order():
            return transformed(*args, **kwargs)
    return call


def grad(func, argnums=0, has_aux=False):
    """The gradient of scalar-valued func with respect to args[argnums] (a tuple of them for
    tuple argnums); with has_aux, func returns (output, aux) and this returns (grad, aux)."""
    return _with_checked_args(_grad(C.checked(func, C.GRAD, has_aux), argnums=argnums,
                                    has_aux=has_aux), func, argnums)


def grad_and_value(func, argnums=0, has_aux=False):
    """(grad, output), or (grad, (output, aux)) with has_aux: torch.func's order, the reverse
    of value_and_grad's."""
    both = value_and_grad(C.checked(func, C.GRAD, has_aux), argnums=argnums, has_aux=has_aux)

    def grad_and_value_of(*args, **kwargs):
        value, gradient = both(*args, **kwargs)
        return gradient, value
    return _with_checked_args(grad_and_value_of, func, argnums)


@_torch_dicts
def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn) or (output, vjp_fn, aux): vjp_fn(cotangents) gives a tuple of
    one cotangent per primal."""
    C.differentiable(primals)
    result = _vjp(C.checked(func, C.VJP, has_aux), *primals, has_aux=has_aux)

    @_torch_dicts
    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        C.cotangents(result[0], cotangents)
        return result[1](cotangents)
    return (result[0], vjp_fn) + tuple(result[2:])


@_torch_dicts
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the JVP along tangents), or (output, jvp, aux) with has_aux."""
    tangents = C.tangents(primals, tangents)
    return _jvp(C.checked(func, C.JVP, has_aux, strict=strict), primals, tangents, has_aux)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of func by reverse mode; chunk_size bounds how many rows torch computes at
    once, which changes no value here, where the rows are one batched program."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _with_checked_args(_jacrev(C.checked(func, C.VJP, has_aux, "jacrev"), argnums,
                                      has_aux), func, argnums, jacobian="jacrev")


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of func by forward mode."""
    _check_randomness(randomness)
    return _draws_refused(randomness, _with_checked_args(
        _jacfwd(C.checked(func, C.JVP, has_aux, "jacfwd"), argnums, has_aux), func, argnums,
        forward=True, jacobian="jacfwd"), func)


def hessian(func, argnums=0):
    """The Hessian of func with respect to args[argnums]: forward over reverse mode."""
    return jacfwd(jacrev(func, argnums), argnums)


def _draws_refused(randomness, call, func):
    """call (named as func), a random draw inside it refused with torch's message in
    randomness='error' mode (gradjit refuses a draw inside a trace whatever the mode: the
    trace would replay it)."""
    @functools.wraps(func)
    def refusing(*args, **kwargs):
        try:
            return call(*args, **kwargs)
        except TracedRandomDraw:
            if randomness != "error":
                raise
            raise RuntimeError("vmap: called random operation while in randomness error mode. "
                               "Please either use the 'same' or 'different' randomness flags "
                               "on vmap or perform the randomness operation out of vmap") from None
    return refusing


def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over the in_dims axes of its arguments, results stacked on out_dims."""
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. "
                         f"(got {chunk_size})")
    cache = {}  # the positions and values of the static arguments -> the mapped function
    single = []  # [True] once func gave one Tensor for out_dims=(d,)
    body = C.vmap_outputs(func, out_dims, single)

    def mapped(*args, **kwargs):
        C.vmap_out_dims(func, out_dims)
        C.vmap_inputs(func, in_dims, args)
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        dims += (None,) * len(kwargs)  # torch maps no keyword argument
        values = args + tuple(kwargs.values())
        static = tuple((i, a) for i, (a, d) in enumerate(zip(values, dims))
                       if d is None and isinstance(a, _STATIC))
        key = (static, tuple(kwargs))
        if key not in cache:
            cache[key] = _vmap(_with_static(body, static, tuple(kwargs)), in_axes=tuple(
                d for i, d in enumerate(dims) if i not in dict(static)), out_axes=out_dims)
        out = cache[key](*(a for i, a in enumerate(values) if i not in dict(static)))
        return out[0] if single else out
    return _draws_refused(randomness, _torch_dicts(mapped), func)


# Python values that torch.vmap hands to func unchanged (as dims, sizes, flags), not traced
_STATIC = (bool, int, float, str, type(None))


def _with_static(func, static, keywords):
    """func of the traced values alone: the static ones put back at their positions, and the
    last len(keywords) values passed by those names."""
    def call(*rest):
        rest, fixed = list(rest), dict(static)
        values = [fixed[i] if i in fixed else rest.pop(0) for i in range(len(rest) + len(fixed))]
        split = len(values) - len(keywords)
        return func(*values[:split], **dict(zip(keywords, values[split:])))
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
    if tie_weights:
        dicts = _untied(known, dicts)
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


def _untied(known, values):
    """values, with each given tensor also under the other names of a tensor the module holds
    under several (tied weights), as torch's functional_call does."""
    names = {}
    for name, tensor in known.items():
        names.setdefault(id(tensor), []).append(name)
    untied = dict(values)
    for tied in (sorted(n) for n in names.values() if len(n) > 1):
        given = [values[n] for n in tied if n in values]
        if len({id(v) for v in given}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {tied}, which are "
                             f"tied. Consider using tie_weights=False")
        untied.update({n: given[0] for n in tied} if given else {})
    return untied


@contextlib.contextmanager
def _swapped(module, values):
    """The module's parameters and buffers replaced by values (by dotted name), then put
    back, even when the call raises. A parametrized tensor's name is assigned as PyTorch
    assigns it: through the parametrization's right_inverse into its original."""
    from gradjit.nn.utils.parametrize import is_parametrized
    restores = []
    try:
        for name, value in values.items():
            owner, _, leaf = name.rpartition(".")
            holder = module.get_submodule(owner) if owner else module
            table = (holder._parameters if leaf in holder._parameters else
                     holder._buffers if leaf in holder._buffers else None)
            if table is not None:
                restores.append(functools.partial(table.__setitem__, leaf, table[leaf]))
                table[leaf] = value
            elif is_parametrized(holder, leaf):
                restores.append(functools.partial(setattr, holder, leaf, getattr(holder, leaf)))
                setattr(holder, leaf, value)
        yield
    finally:
        for restore in reversed(restores):
            restore()


@_torch_dicts
def linearize(func, *primals):
    """(func(*primals), jvp_fn) with jvp_fn(*tangents) the JVP at primals, compiled once."""
    from gradjit.tracer.transforms import linearize as _linearize
    output, jvp_fn = _linearize(func, *primals)
    return output, _torch_dicts(jvp_fn)


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
