"""jvp, linearize, vjp and elementwise_grad over the compiled passes: each builds on a cached
Transformed (forward mode for jvp, reverse mode for vjp), so a function is traced once per
signature, compiles to native code, and inlines into an enclosing trace (jit, grad, jvp)."""
from __future__ import annotations

import functools
import threading
import types

import numpy as np

from gradjit.runtime.cache import LeastRecentlyUsed
from gradjit.tracer import leaves as L
from gradjit.tracer.api import Transformed, _leaf_dtype
from gradjit.tracer.captures import captures_current
from gradjit.tracer.outputs import FLOAT0
from gradjit.tracer.pytree import flatten, unflatten

# definition key -> {(name or mode, options): Transformed}; bounded like a function's signatures
_cached = LeastRecentlyUsed(256)
_lock = threading.Lock()


def _transformed(fn, mode, make, name=None, **options):
    """One Transformed of make(fn) per definition of fn (see _definition), name or mode and
    options, so a function passed afresh on every call, a lambda or a bound method, is traced
    once per signature, as a grad or jit object that the caller keeps is. Unlike a kept
    object's, the trace is dropped once an array it captured changed or was replaced: each
    call of jvp/vjp sees the values its function reads now, as JAX's do."""
    key = (name or mode, tuple(sorted(options.items())))
    definition = _definition(fn)
    with _lock:
        table = _cached.get(definition)
        if table is None:
            table = _cached[definition] = {}
        if key not in table or not captures_current(table[key]):
            table[key] = Transformed(make(fn), mode, **options)
        return table[key]


class _Same:
    """An object compared by identity (and kept alive while the key holding it is)."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __eq__(self, other):
        return isinstance(other, _Same) and other.obj is self.obj

    def __hash__(self):
        return id(self.obj)


def _captured(value, depth):
    """A captured value in a definition key: numbers, strings and tuples of them by value, a
    function by its definition, anything else (an array, a module: mutable, and baked into
    the trace as it is now) by identity."""
    if value is None or type(value) in (bool, int, float, complex, str, bytes):
        return (type(value), value)
    if type(value) is tuple:
        return tuple(_captured(v, depth) for v in value)
    if isinstance(value, (types.FunctionType, types.MethodType)) and depth < 4:
        return _definition(value, depth + 1)  # bounded: a closure may hold itself
    return _Same(value)


def _definition(fn, depth=0):
    """What a trace of fn depends on besides its arguments: a Python function's code, the
    values its closure, defaults and the globals it names hold; a bound method's function,
    object and the object's attributes (self.w assigned anew); any other callable itself.
    Two lambdas made by one expression with the same captured values trace alike, so they
    share one Transformed."""
    if isinstance(fn, types.MethodType):
        owner = fn.__self__
        attributes = getattr(owner, "__dict__", None)
        held = tuple((k, _captured(v, depth)) for k, v in attributes.items()) \
            if type(attributes) is dict else ()
        return ("method", _definition(fn.__func__, depth), _Same(owner), held)
    if isinstance(fn, types.FunctionType):
        cells = tuple(_captured(_contents(c), depth) for c in fn.__closure__ or ())
        defaults = tuple(_captured(v, depth) for v in fn.__defaults__ or ())
        keywords = tuple((k, _captured(v, depth))
                         for k, v in sorted((fn.__kwdefaults__ or {}).items()))
        namespace = fn.__globals__
        named = tuple((name, _captured(namespace[name], depth))
                      for name in _global_names(fn.__code__) if name in namespace)
        return ("function", fn.__code__, cells, defaults, keywords, named, _Same(namespace))
    return _Same(fn)


@functools.lru_cache(maxsize=1024)
def _global_names(code) -> tuple:
    """The names code and the functions defined in it may read as globals (co_names holds
    attribute names too: a superset, which only costs a lookup)."""
    nested = (_global_names(const) for const in code.co_consts if isinstance(const, types.CodeType))
    return tuple(dict.fromkeys([*code.co_names, *(n for names in nested for n in names)]))


_EMPTY = object()


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # a closure variable not yet assigned
        return _EMPTY


def jvp(fn, primals, tangents, has_aux=False, *, backend=None):
    """(fn(*primals), the directional derivative of fn at primals along tangents), as JAX's
    jax.jvp: primals and tangents are tuples (or lists) of pytrees of one structure, shapes
    and dtypes; the outputs are pytrees of fn's output structure, in the arguments' types.
    Integer primals are not differentiated (their tangents are ignored). With has_aux, fn
    returns (out, aux) and the call returns (out, tangent, aux)."""
    _check_pair(primals, tangents)
    out = _transformed(main_output(fn, has_aux), "jvp", _jvp_wrapper, backend=backend)(
        tuple(primals), _without_float0(primals, tangents))
    return (*out, _aux(fn, primals, backend)) if has_aux else out


def main_output(fn, has_aux):
    """fn, or with has_aux the function of fn's first result (its output without aux)."""
    if not has_aux:
        return fn

    def main(*args):
        return fn(*args)[0]
    return main


def _aux(fn, primals, backend):
    return _transformed(fn, "jit", lambda f: f, backend=backend)(*primals)[1]


def _jvp_wrapper(fn):
    def jvp_of(primals, tangents):
        return fn(*primals)
    jvp_of.__qualname__ = f"jvp_{getattr(fn, '__qualname__', 'f')}"
    return jvp_of


def _check_pair(primals, tangents, mismatch=TypeError):
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples (or lists) of arguments, "
                        f"not {type(primals).__name__} and {type(tangents).__name__}")
    p_leaves, t_leaves = [], []
    if flatten(tuple(primals), p_leaves) != flatten(tuple(tangents), t_leaves):
        raise TypeError("jvp: primals and tangents must have the same tree structure")
    for p, t in zip(p_leaves, t_leaves):
        if _leaf_dtype(p).kind not in "fc":
            continue
        if np.shape(L.unwrap(p)) != np.shape(L.unwrap(t)) or _leaf_dtype(t) != _leaf_dtype(p):
            if mismatch is ValueError:  # linearize's f_jvp, whose primals are given already
                raise ValueError("linearized function called on tangent values inconsistent "
                                 f"with the original primal values: got a tangent of shape "
                                 f"{np.shape(L.unwrap(t))} and dtype {_leaf_dtype(t)} for a "
                                 f"primal of shape {np.shape(L.unwrap(p))} and dtype "
                                 f"{_leaf_dtype(p)}")
            raise TypeError(f"jvp: a tangent of shape {np.shape(L.unwrap(t))} and dtype "
                            f"{_leaf_dtype(t)} for a primal of shape {np.shape(L.unwrap(p))} "
                            f"and dtype {_leaf_dtype(p)}: they must match")


def _without_float0(primals, tangents) -> tuple:
    """The tangents, JAX's float0 ones (of integer primals, holding no values) replaced by
    zeros of their primals, whose tangents are ignored alike."""
    t_leaves, p_leaves = [], []
    structure = flatten(tuple(tangents), t_leaves)
    if all(getattr(t, "dtype", None) != FLOAT0 for t in t_leaves):
        return tuple(tangents)
    flatten(tuple(primals), p_leaves)
    return unflatten(structure, iter(np.zeros_like(L.to_array(p))
                                     if getattr(t, "dtype", None) == FLOAT0 else t
                                     for p, t in zip(p_leaves, t_leaves)))


def linearize(fn, *primals, has_aux=False, backend=None):
    """(fn(*primals), f_jvp) with f_jvp(*tangents) the JVP at primals, as jax.linearize
    ((out, f_jvp, aux) with has_aux). f_jvp is the compiled forward-mode program, run with
    the primals fixed (it recomputes the primal computation along with the tangents rather
    than storing its residuals)."""
    main = main_output(fn, has_aux)
    compiled = _transformed(main, "jvp", _jvp_wrapper, backend=backend)
    result = _transformed(fn, "jit", lambda f: f, backend=backend)(*primals)

    def f_jvp(*tangents):
        _check_pair(primals, tangents, ValueError)
        return compiled(tuple(primals), _without_float0(primals, tangents))[1]
    return (result[0], f_jvp, result[1]) if has_aux else (result, f_jvp)


def vjp(fn, *primals, has_aux=False, reduce_axes=(), backend=None):
    """(fn(*primals), vjp_fn) or, with has_aux, (out, vjp_fn, aux), as jax.vjp: vjp_fn(ct)
    takes a cotangent of out's structure and returns a tuple of one cotangent per primal.
    vjp_fn is the reverse-mode program of <fn(*primals), ct> (grad with respect to the
    primals), compiled once and callable many times; it recomputes fn's forward values."""
    if reduce_axes:  # named axes (pmap's) do not exist here, and JAX has dropped the option
        raise NotImplementedError("reduce_axes argument to vjp is deprecated")
    result = _transformed(fn, "jit", lambda f: f, backend=backend)(*primals)
    out, aux = result if has_aux else (result, None)
    pull = _pullback(fn, tuple(range(len(primals))), has_aux, backend)

    def vjp_fn(cotangent):
        return pull(cotangent, *primals)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _pullback(fn, argnums, has_aux, backend, allow_int=False):
    """grad of (cotangent, *args) -> <fn(*args), cotangent> with respect to args[argnums]."""
    def make(f):
        def pullback(cotangent, *args):
            out = f(*args)
            return _vdot(out[0] if has_aux else out, cotangent)
        pullback.__qualname__ = f"vjp_{getattr(f, '__qualname__', 'f')}"
        return pullback
    # <out, ct> is complex for complex outputs: its holomorphic derivative is the pullback
    return _transformed(fn, "grad", make, name=("vjp", argnums, has_aux),
                        argnums=tuple(1 + i for i in argnums), backend=backend,
                        complex_output=True, allow_int=allow_int)


def _vdot(out, cotangent):
    outs, cts = [], []
    if flatten(out, outs) != flatten(cotangent, cts):
        raise ValueError("vjp: the cotangent must have the structure of the function's output")
    total = 0.0
    for o, c in zip(outs, cts):
        shape, dtype = np.shape(L.unwrap(o)), _leaf_dtype(o)
        if dtype.kind not in "fc":
            continue
        if np.shape(L.unwrap(c)) != shape or (_leaf_dtype(c).kind == "c" and dtype.kind != "c"):
            raise ValueError(f"vjp: a cotangent of shape {np.shape(L.unwrap(c))} and dtype "
                             f"{_leaf_dtype(c)} for an output of shape {shape} and dtype "
                             f"{dtype}: they must match (a complex one only for a complex "
                             "output)")
        total = total + (o * c).sum()
    return total


def elementwise_grad(fn, argnums=0, *, backend=None, argnum=None):
    """HIPS autograd's elementwise_grad: the gradient of sum(fn(...)), which for a function
    acting elementwise is the derivative at each element, in the argument's shape."""
    def summed(*args, **kwargs):
        return fn(*args, **kwargs).sum()
    summed.__qualname__ = f"elementwise_grad_{getattr(fn, '__qualname__', 'f')}"
    return Transformed(summed, "grad", argnums=argnums if argnum is None else argnum,
                       backend=backend)


def linear_transpose(fn, *primals, reduce_axes=()):
    """jax.linear_transpose: the transpose of fn, which must be linear in its arguments, as a
    function of a cotangent of fn's output; primals give the arguments' shapes and dtypes
    (arrays or ShapeDtypeStructs). A linear function's VJP at any point is its transpose."""
    at = [np.zeros(p.shape, p.dtype) if hasattr(p, "shape") and not isinstance(p, np.ndarray)
          else p for p in primals]
    pullback = vjp(fn, *at, reduce_axes=reduce_axes)[1]
    return lambda cotangent: pullback(cotangent)


def closure_convert(fun, *example_args):
    """jax.closure_convert: (fun taking its arguments then the hoisted constants, the
    constants). Every transformation here follows closures over traced values itself, so
    nothing needs hoisting and the constants are none."""
    def converted(*args):
        return fun(*args)
    functools.update_wrapper(converted, fun)
    return converted, []


def named_call(fun, *, name=None):
    """jax.named_call: fun itself (its name only labels JAX's staged-out programs)."""
    return fun
