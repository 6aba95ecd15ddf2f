"""custom_vjp as JAX defines it: a function whose reverse-mode derivative is the user's rule.

The function becomes one primitive of kind 'library' (run on the host through numpy, between
compiled kernels, like the LAPACK primitives), made for it and not registered in the table:
its VJP applies one more such primitive per differentiable argument, which runs the user's
fwd for the residuals and bwd for the cotangents. So grad, jit, value_and_grad, the eager
tape and every backend see one op per call. The rule itself is not differentiated again:
second derivatives through it, forward mode and vmap refuse it with a message."""
from __future__ import annotations

import functools
import itertools
import re

import numpy as np

from gradjit.ir.primitive import BatchingError, Primitive
from gradjit.ir.types import TensorType, type_of

_serial = itertools.count()


class custom_vjp:
    """`@gradjit.custom_vjp` then `f.defvjp(fwd, bwd)`: fwd(*args) returns (output,
    residuals), bwd(residuals, g) (bwd(*nondiff, residuals, g) with nondiff_argnums) returns
    a tuple of one cotangent (or None) per differentiable argument. f returns one array."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self._primitives = {}  # (nondiff values, operand count) -> Primitive

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        self._primitives.clear()

    def __call__(self, *args):
        if self.fwd is None:
            raise TypeError(f"{self.__name__}: no VJP rule: call {self.__name__}.defvjp(fwd, "
                            f"bwd) before calling it")
        nondiff = tuple(args[i] for i in self.nondiff_argnums)
        diff = [a for i, a in enumerate(args) if i not in self.nondiff_argnums]
        key = (nondiff, len(diff))
        if key not in self._primitives:
            self._primitives[key] = self._primitive(nondiff, len(diff))
        return self._primitives[key](*diff)

    def _full(self, nondiff, diff):
        """The user's argument list from the differentiable operands and nondiff values."""
        args, values, fixed = [], iter(diff), dict(zip(self.nondiff_argnums, nondiff))
        for i in range(len(diff) + len(nondiff)):
            args.append(fixed[i] if i in fixed else next(values))
        return args

    def _primitive(self, nondiff, count):
        name = f"custom_vjp_{re.sub(r'[^A-Za-z0-9_]', '_', self.__qualname__)}_{next(_serial)}"

        def evaluate(*arrays):
            out = self.fun(*self._full(nondiff, arrays))
            if isinstance(out, (tuple, list, dict)):
                raise TypeError(f"{self.__name__}: a custom_vjp function returns one array "
                                f"here, not a {type(out).__name__}")
            return np.asarray(out)

        def shape_rule(*types):
            with np.errstate(all="ignore"):
                return type_of(evaluate(*(np.zeros(t.shape, t.dtype.numpy) for t in types)))

        cotangents = [self._cotangent(name, nondiff, count, i) for i in range(count)]

        def vjp(g, out, *args):
            return tuple(ct(*args, g) if ct is not None else None for ct in cotangents)

        return Primitive(name, "library", shape_rule, evaluate, vjp, arity=count,
                         jvp=_refuse("forward-mode autodiff (jvp)"),
                         batch=_refuse("vmap"), doc=f"{self.__name__} with its custom VJP")

    def _cotangent(self, name, nondiff, count, index):
        """The primitive giving the cotangent of differentiable argument `index`."""
        def evaluate(*arrays):
            *args, g = arrays
            full = self._full(nondiff, args)
            _, residuals = self.fwd(*full)
            cts = self.bwd(*nondiff, residuals, g)
            if not isinstance(cts, (tuple, list)) or len(cts) != count:
                raise TypeError(f"{self.__name__}: its bwd rule {_where(self.bwd)} must return "
                                f"a tuple of {count} cotangent(s), one per differentiable "
                                f"argument, not {_describe(cts)}")
            arg = np.asarray(args[index])
            ct = cts[index]
            if ct is None:
                return np.zeros_like(arg)
            ct = np.asarray(ct)
            if ct.shape != arg.shape:
                raise ValueError(f"{self.__name__}: its bwd rule {_where(self.bwd)} returned "
                                 f"a cotangent of shape {ct.shape} for argument {index} of "
                                 f"shape {arg.shape}")
            return ct.astype(arg.dtype)

        def shape_rule(*types):
            return TensorType(types[index].shape, types[index].dtype)

        second = _refuse("a second derivative (the bwd rule is not differentiated)")
        return Primitive(f"{name}_bwd{index}", "library", shape_rule, evaluate, second,
                         arity=count + 1, jvp=second, batch=_refuse("vmap"))


def _refuse(what):
    def rule(*args, **params):
        if what == "vmap":
            raise BatchingError("can't apply vmap to a custom_vjp function: it defines only a "
                                "VJP")
        raise TypeError(f"can't apply {what} to a custom_vjp function: it defines only a VJP")
    return rule


def _where(fn) -> str:
    code = getattr(fn, "__code__", None)
    return f"({code.co_filename}:{code.co_firstlineno})" if code else ""


def _describe(value) -> str:
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__name__}"


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """jax.checkpoint (remat): fun's gradient recomputes its intermediates from its arguments
    instead of keeping them. fun becomes one op (custom_vjp) that keeps only its arguments;
    its VJP runs fun's compiled pullback on them when the gradient is taken. fun returns one
    array; policy and static_argnums are not supported (everything is recomputed)."""
    if policy is not None or static_argnums:
        raise NotImplementedError("checkpoint: policy and static_argnums are not supported; "
                                  "every intermediate of the function is recomputed")
    from gradjit.tracer import jit, vjp
    compiled = jit(fun)

    def forward(*args):
        return compiled(*args)

    def keep_arguments(*args):
        return compiled(*args), args

    def recompute(args, g):
        return vjp(fun, *args)[1](g)

    functools.update_wrapper(forward, fun)
    rematerialized = custom_vjp(forward)
    rematerialized.defvjp(keep_arguments, recompute)
    return rematerialized
