"""torch.func's checks of the arguments and results of its transformations, with its error
types and messages: what gradjit's transformations (JAX's rules) accept or word differently is
refused here as torch.func refuses it, before or while the function is traced."""
from __future__ import annotations

import contextlib
import functools
import itertools

GRAD = "grad_and_value(f)(*args)"
VJP = "vjp(f, *primals)"
JVP = "jvp(f, primals, tangents)"


class Spec:
    """The structure of a pytree as torch.utils._pytree sees it (tuples, lists and dicts are
    nodes, anything else, None too, a leaf), printed as torch's TreeSpec."""

    def __init__(self, kind, context, children):
        self.kind, self.context, self.children = kind, context, children

    def __eq__(self, other):
        return (isinstance(other, Spec) and (self.kind, self.context, self.children) ==
                (other.kind, other.context, other.children))

    def __repr__(self, indent=0):
        if self.kind is None:
            return "*"
        inner = [c.__repr__(indent + 2) for c in self.children]
        joined = inner[0] + "," + ",".join("\n" + " " * (indent + 2) + c for c in inner[1:]) \
            if len(inner) > 1 else "".join(inner)
        return f"TreeSpec({self.kind.__name__}, {self.context}, [{joined}])"


LEAF = Spec(None, None, [])


def spec(tree) -> Spec:
    if isinstance(tree, (tuple, list)):
        return Spec(type(tree), None, [spec(x) for x in tree])
    if isinstance(tree, dict):
        return Spec(type(tree), list(tree), [spec(x) for x in tree.values()])
    return LEAF


def leaves(tree) -> list:
    if isinstance(tree, (tuple, list)):
        return [x for item in tree for x in leaves(item)]
    if isinstance(tree, dict):
        return [x for item in tree.values() for x in leaves(item)]
    return [tree]


class _Star:
    def __repr__(self):
        return "*"


def pprint(tree) -> str:
    """torch's treespec_pprint: the tree with its leaves printed as *."""
    return repr(_rebuild(tree, itertools.repeat(_Star())))


def _tensor(x) -> bool:
    from gradjit import Tensor
    return isinstance(x, Tensor)


def argnums(nums, args):
    """The argument positions nums names (negative ones wrapped), as torch checks them."""
    if not isinstance(nums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(nums)}")
    wrapped = tuple(_argnum(n, len(args)) for n in (nums if isinstance(nums, tuple) else (nums,)))
    if isinstance(nums, tuple) and not nums:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {wrapped}")
    return wrapped if isinstance(nums, tuple) else wrapped[0]


def _argnum(n, count):
    if not isinstance(n, int):
        raise RuntimeError(f"argnum must be int, got: {type(n)}")
    if -count <= n < count:
        return n % count
    raise RuntimeError(f"Got argnum={n}, but only {count} positional inputs")


def differentiable(trees, forward=False):
    """The leaves of trees are Tensors that can carry a gradient (a tangent, forward)."""
    for x in leaves(trees):
        if not _tensor(x):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.is_floating_point() or x.is_complex():
            continue
        if forward:
            raise ValueError(f"Expected primal to be floating point or complex, but got: "
                             f"{x.dtype}")
        raise RuntimeError("only Tensors of floating point dtype can require gradients")


def _split_aux(out, api, has_aux):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           f"has_aux is True")
    for x in leaves(out[1]):
        if not _tensor(x):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return out


def real(name, tree, side):
    """jacrev's and jacfwd's refusal of complex inputs and outputs."""
    for i, x in enumerate(leaves(tree)):
        if _tensor(x) and x.is_complex():
            raise RuntimeError(f"{name}: Expected all {side} to be real but received complex "
                               f"tensor at flattened input idx: {i}")


def checked(func, api, has_aux, jacobian=None, strict=False):
    """func, its result checked as torch.func checks the function's output for api (and for
    the jacobian function so named; strict: jvp's refusal of outputs that no input reaches)."""
    from gradjit.tracer.leaves import is_traced

    @functools.wraps(func)
    def call(*args, **kwargs):
        with _reverse_mode(api in (GRAD, VJP)):
            out = func(*args, **kwargs)
        main, _ = _split_aux(out, api, has_aux)
        if api == GRAD:
            if not _tensor(main):
                raise RuntimeError(f"{GRAD}: Expected f(*args) to return a Tensor, got "
                                   f"{type(main)}")
            if main.dim() != 0:
                raise RuntimeError(f"{GRAD}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {main.dim()} dims. Maybe you wanted to use "
                                   f"the vjp or jacrev APIs instead?")
            return out
        flat = leaves(main)
        if not flat or len(flat) == 1 and flat[0] is None:
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                               f"(got output = {flat})")
        for x in flat:
            if not _tensor(x):
                raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(x)}")
            if api == VJP and not (x.is_floating_point() or x.is_complex()):
                raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or "
                                   f"complex Tensors, got Tensor with dtype {x.dtype}")
            if strict and not is_traced(x):
                raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                                   "independent of the inputs. This is not allowed with "
                                   "strict=True.")
        if jacobian:
            real(jacobian, flat, "outputs")
        return out
    return call


@contextlib.contextmanager
def _reverse_mode(reverse):
    """Grad mode on while a transformation's function runs (torch.func ignores an outer
    no_grad); under grad and vjp, however deep, what it computes under no_grad gets no
    gradient."""
    from gradjit.tensor.grad_mode import _state
    saved = _state.enabled, _state.stops_traced
    _state.enabled, _state.stops_traced = True, reverse or saved[1]
    try:
        yield
    finally:
        _state.enabled, _state.stops_traced = saved


def cotangents(outputs, cots):
    """vjp_fn's cotangents against the outputs they pull back."""
    if spec(outputs) != spec(cots):
        raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree "
                           f"structure of outputs to the function. cotangents: {pprint(cots)}, "
                           f"primal output: {pprint(outputs)}")
    for i, (o, c) in enumerate(zip(leaves(outputs), leaves(cots))):
        if tuple(o.shape) != tuple(c.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} "
                               f"and output[{i}] has a shape of {o.shape}.")


def tangents(primals, tans):
    """jvp's tangents, each in its primal's dtype (torch converts them); torch's errors for a
    primal or tangent that does not fit."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{JVP}: Expected primals to be a tuple. E.g. it should be valid to "
                           f"call f(*primals).")
    if spec(primals) != spec(tans):
        raise RuntimeError(f"{JVP}: Expected primals and tangents to have the same python "
                           f"structure. For example, if primals is a tuple of 3 tensors, "
                           f"tangents also must be. Got primals with structure {spec(primals)} "
                           f"and tangents with structure {spec(tans)}")
    for name, tree in (("primals", primals), ("tangents", tans)):
        flat = leaves(tree)
        if not flat:
            raise RuntimeError(f"{JVP}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not _tensor(x):
                raise RuntimeError(f"{JVP}: Expected {name} to only contain Tensors, got "
                                   f"{type(x)}")
    converted = []
    for p, t in zip(leaves(primals), leaves(tans)):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                               f"that of the original Tensor, this is not supported. Tensor is "
                               f"of size {list(p.shape)} while the given forward gradient is of "
                               f"size {list(t.shape)}.")
        converted.append(t.to(p.dtype))
    return _rebuild(tans, iter(converted))


def _rebuild(tree, values):
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(x, values) for x in tree)
    if isinstance(tree, dict):
        return {k: _rebuild(v, values) for k, v in tree.items()}
    return next(values)


def name_of(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({name_of(func.func)}, ...)"
    return repr(func)


def prefix(dims, tree):
    """dims spread over the leaves of tree, of which it is a prefix (torch's
    _broadcast_to_and_flatten), or None when it is not one."""
    if not isinstance(dims, (tuple, list, dict)):
        return [dims] * len(leaves(tree))
    if type(dims) is not type(tree) or len(dims) != len(tree):
        return None
    if isinstance(dims, dict):
        if set(dims) != set(tree):
            return None
        parts = [prefix(dims[k], tree[k]) for k in tree]
    else:
        parts = [prefix(d, x) for d, x in zip(dims, tree)]
    return None if any(p is None for p in parts) else [a for p in parts for a in p]


def vmap_inputs(func, in_dims, args):
    """torch.vmap's checks of in_dims against the positional arguments."""
    where = f"vmap({name_of(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({name_of(func)})(<inputs>): got no inputs. Maybe you forgot to "
                         f"add inputs, or you are trying to vmap over a function with no inputs. "
                         f"The latter is unsupported.")
    dims = prefix(in_dims, args)
    if dims is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {spec(in_dims)} but inputs has structure "
                         f"{spec(args)}.")
    sizes = []
    for x, dim in zip(leaves(args), dims):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but in_dim must be either "
                             f"an integer dimension or None.")
        if not _tensor(x):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is of type "
                             f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             f"None as the respective in_dim")
        if not -x.dim() <= dim < x.dim():
            raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input is a "
                             f"Tensor of dimensionality {x.dim()} so expected in_dim to satisfy "
                             f"-{x.dim()} <= in_dim < {x.dim()}.")
        sizes.append(x.shape[dim])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")


def vmap_out_dims(func, out_dims):
    """out_dims is an int, None or a tuple/list/dict tree of them."""
    if isinstance(out_dims, int):
        return
    for dim in leaves(out_dims):
        if dim is not None and not isinstance(dim, int):
            raise ValueError(f"vmap({name_of(func)}, ..., out_dims={out_dims}): `out_dims` must "
                             f"be an int, None or a python collection of ints representing "
                             f"where in the outputs the vmapped dimension should appear.")


def vmap_outputs(func, out_dims, single):
    """func, its result checked against out_dims as torch.vmap checks it; a lone Tensor with
    out_dims=(d,) is returned as (it,), and single ([]) gets True, to be unpacked after."""
    from gradjit.tracer.leaves import unwrap
    from gradjit.tracer.trace import varies
    name = name_of(func)

    @functools.wraps(func)
    def call(*args, **kwargs):
        out = func(*args, **kwargs)
        dims = prefix(out_dims, out)
        if _tensor(out) and isinstance(out_dims, tuple):  # torch takes (d,) for one Tensor
            dims = list(out_dims) if len(out_dims) == 1 else None
            single[:] = [True]
        if dims is None:
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                             f"compatible with the structure of `outputs`. out_dims has "
                             f"structure {spec(out_dims)} but outputs has structure "
                             f"{spec(out)}.")
        for x, dim in zip(leaves(out), dims):
            if dim is None and _tensor(x) and varies(unwrap(x)):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 f"when out_dim is None")
            if dim is None:
                continue
            if not _tensor(x):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(x)}. Did you mean to set out_dims= to None for "
                                 f"output?")
            if not -x.dim() - 1 <= dim <= x.dim():
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-x.dim() - 1}, {x.dim()}], but got {dim})")
        return (out,) if single else out
    return call
