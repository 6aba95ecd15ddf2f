"""Python -> IR: traced values, numpy dispatch, guards, the specialization cache, and the
transformations grad, value_and_grad and jit."""
from __future__ import annotations

from gradjit.ir.elementwise import stop_gradient
from gradjit.tracer.api import Transformed
from gradjit.tracer.array_methods import TracerArrayConversionError
from gradjit.tracer.cache import CacheInfo, Explanation, RetraceWarning
from gradjit.tracer.captures import CapturedArrayChanged, check_captures, debug_captures
from gradjit.tracer.constructors import install as _install_constructors
from gradjit.tracer.polynomial_values import install as _install_polynomial_values
from gradjit.tracer.custom import checkpoint, custom_gradient, custom_jvp, custom_vjp
from gradjit.tracer.custom import checkpoint as remat
from gradjit.tracer.trace import TraceError, Traced
from gradjit.tracer.jacobians import hessian, jacfwd, jacobian, jacrev
from gradjit.tracer.transforms import (closure_convert, elementwise_grad, jvp, linear_transpose,
                                      linearize, named_call, vjp)
from gradjit.tracer.vmap import vmap
from gradjit.tracer.vectorize import install as _install_vectorize
from gradjit.tracer.hips import (defjvp, defvjp, deriv, grad_and_aux, grad_named,
                                 hessian_tensor_product, hessian_vector_product,
                                 holomorphic_grad, make_ggnvp,
                                 make_hvp, make_jvp, make_vjp, multigrad_dict, primitive,
                                 tensor_jacobian_product, vector_jacobian_product)

_install_constructors()  # numpy's constructors do not dispatch: see tracer/constructors.py
_install_vectorize()  # nor does np.vectorize: see tracer/vectorize.py
_install_polynomial_values()  # np.polynomial's values test for ndarray: see its module


def _decorator(mode, fn, **options):
    if fn is None:
        return lambda f: Transformed(f, mode, **options)
    return Transformed(fn, mode, **options)


def grad(fn=None, argnums=0, has_aux=False, *, backend=None, max_traces=64, symbolic=False,
         deterministic=False, argnum=None, holomorphic=False, allow_int=False, reduce_axes=()):
    """The gradient of scalar-valued `fn` with respect to the arguments `argnums`, compiled.

    Arrays `fn` reads from outside its arguments (globals, closures, attributes) are
    trace-time constants: the compiled code keeps their values from tracing (explain lists
    them; check_captures and debug_captures find one that changed since).

    Gradients have the structure and type of the differentiated arguments; with `has_aux`,
    `fn` returns (value, aux) and the call returns (gradients, aux). With `symbolic`, the
    elementwise regions of the optimized IR are also simplified through sympy (bounded:
    regions of at most 64 ops, 1 s each; importing sympy costs about 0.5 s once), keeping
    only rewrites proven to change no result bit (gradjit.ir.symbolic_exact).

    `backend`: 'cpu' (default), 'cuda', 'cuda-emulator' or 'interpreter'. With
    `deterministic`, the GPU backends run scatter-adds (the gradients of indexing) in one
    fixed order instead of by atomics, so results are bitwise reproducible from run to run;
    the CPU backend and the interpreter always are. `argnum` is HIPS autograd's name for
    argnums.

    A real function of complex arguments gets df/dx - i df/dy (JAX's and HIPS autograd's
    convention); a complex result needs `holomorphic` (its complex derivative), as in JAX.
    With `allow_int`, integer and bool arguments get JAX's float0 zeros as their gradient
    (else they are refused); None leaves of a differentiated argument get None."""
    _check_reduce_axes(reduce_axes, "grad")
    return _decorator("grad", fn, argnums=argnums if argnum is None else argnum,
                      has_aux=has_aux, backend=backend, max_traces=max_traces,
                      symbolic=symbolic, deterministic=deterministic, holomorphic=holomorphic,
                      allow_int=allow_int)


def value_and_grad(fn=None, argnums=0, has_aux=False, *, backend=None, max_traces=64,
                   symbolic=False, deterministic=False, argnum=None, holomorphic=False,
                   allow_int=False, reduce_axes=()):
    """Like grad, returning (value, gradients), or ((value, aux), gradients) with has_aux."""
    _check_reduce_axes(reduce_axes, "value_and_grad")
    return _decorator("value_and_grad", fn, argnums=argnums if argnum is None else argnum,
                      has_aux=has_aux, backend=backend, max_traces=max_traces,
                      symbolic=symbolic, deterministic=deterministic, holomorphic=holomorphic,
                      allow_int=allow_int)


def _check_reduce_axes(reduce_axes, name):
    if reduce_axes:  # named axes (pmap's) do not exist here, and JAX has dropped the option
        raise NotImplementedError(f"reduce_axes argument to {name} is deprecated")


def jit(fn=None, static_argnums=(), *, static_argnames=(), donate_argnums=(),
        donate_argnames=(), inline=False, keep_unused=False, backend=None, max_traces=64,
        symbolic=False, deterministic=False):
    """`fn` compiled: traced once per input signature and path, then run natively (backend
    and deterministic as for grad). Arrays `fn` reads from outside its arguments (globals,
    closures, attributes) are trace-time constants, as for grad: see check_captures.

    Static arguments (`static_argnums` by position, `static_argnames` by name; each
    completed from the other through fn's signature, as in JAX) are part of the cache key
    instead of traced. Donation is a hint that JAX's CPU backend ignores too: argument
    buffers are never reused for results. `inline` and `keep_unused` change nothing: a jit
    called inside another trace is always inlined, and unused arguments cost nothing."""
    del donate_argnums, donate_argnames, inline, keep_unused
    return _decorator("jit", fn, static_argnums=static_argnums,
                      static_argnames=static_argnames, backend=backend,
                      max_traces=max_traces, symbolic=symbolic, deterministic=deterministic)


def explain(fn) -> Explanation:
    """The cached traces of a transformed function, with their guards, the arrays they
    captured from outside their arguments (shapes, dtypes) and the source lines of each."""
    explainer = getattr(type(fn), "__gradjit_explain__", None)
    if explainer is not None:  # gradjit.compile's functions
        return explainer(fn)
    if not isinstance(fn, Transformed):
        raise TypeError(f"explain() takes a function made by grad/value_and_grad/jit, not "
                        f"{type(fn).__name__}")
    return fn.explain()


__all__ = ["CacheInfo", "CapturedArrayChanged", "RetraceWarning", "TraceError", "Traced",
           "TracerArrayConversionError", "Transformed", "check_captures", "checkpoint",
           "closure_convert", "custom_gradient", "custom_jvp", "custom_vjp", "linear_transpose",
           "named_call", "remat",
           "debug_captures",
           "elementwise_grad", "explain", "grad", "hessian", "jacfwd", "jacobian", "jacrev",
           "jit", "jvp", "linearize", "stop_gradient", "value_and_grad", "vjp",
           "vmap",
           # HIPS autograd's
           "defjvp", "defvjp", "deriv", "grad_and_aux", "grad_named",
           "hessian_tensor_product", "hessian_vector_product", "holomorphic_grad",
           "make_ggnvp", "make_hvp",
           "make_jvp", "make_vjp", "multigrad_dict", "primitive", "tensor_jacobian_product",
           "vector_jacobian_product"]
