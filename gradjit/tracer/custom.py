"""custom_vjp and custom_jvp as JAX defines them, and checkpoint built on custom_vjp: a
function whose derivative is the user's rule.

The function becomes one primitive of kind 'library' (run on the host through numpy, between
compiled kernels, like the LAPACK primitives), made for it and not registered in the table;
its rules are more such primitives: custom_vjp's VJP runs the user's fwd and bwd, custom_jvp's
JVP runs the user's rule and its VJP transposes the rule's tangent map. So grad, jit,
value_and_grad, jvp, the eager tape and every backend see one op per call. The rules are not
differentiated again: second derivatives through them and vmap refuse with a message."""
from __future__ import annotations

import functools
import itertools
import re

import numpy as np

from gradjit.ir.elementwise import zeros_like
from gradjit.ir.primitive import BatchingError, Primitive, ambient_handler
from gradjit.ir.types import TensorType, type_of

_serial = itertools.count()


class _Custom:
    """A function whose derivative rule is the user's: one library primitive per set of
    nondiff values, whose rules (set by the subclass) are more library primitives."""

    kind = ""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self._primitives = {}  # (nondiff values, operand count) -> Primitive

    def __call__(self, *args):
        if not self._defined():
            raise TypeError(f"{self.__name__}: no rule: call {self.__name__}.def{self.kind[7:]}"
                            f"(...) before calling it")
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
        name = f"{self.kind}_{re.sub(r'[^A-Za-z0-9_]', '_', self.__qualname__)}_{next(_serial)}"

        @_on_host
        def evaluate(*arrays):
            out = self.fun(*self._full(nondiff, arrays))
            if isinstance(out, (tuple, list, dict)):
                raise TypeError(f"{self.__name__}: a {self.kind} function returns one array "
                                f"here, not a {type(out).__name__}")
            return np.asarray(out)

        def shape_rule(*types):
            with np.errstate(all="ignore"):
                return type_of(evaluate(*(np.zeros(t.shape, t.dtype.numpy) for t in types)))

        vjp, jvp = self._rules(name, nondiff, count)
        return Primitive(name, "library", shape_rule, evaluate, vjp, arity=count, jvp=jvp,
                         batch=_refuse("vmap"), doc=f"{self.__name__} with its {self.kind} rule")

    def _cotangents(self, name, count, cotangent_of):
        """The VJP made of one host primitive per differentiable argument: cotangent_of(args,
        g, index) computes the cotangent of argument `index`."""
        second = _refuse("a second derivative (the rule is not differentiated)")

        def make(index):
            @_on_host
            def evaluate(*arrays):
                *args, g = arrays
                arg = np.asarray(args[index])
                ct = cotangent_of(args, g, index)
                if ct is None:
                    return np.zeros_like(arg)
                ct = np.asarray(ct)
                if ct.shape != arg.shape:
                    raise ValueError(f"{self.__name__}: its rule returned a cotangent of shape "
                                     f"{ct.shape} for argument {index} of shape {arg.shape}")
                return ct.astype(arg.dtype)

            def shape_rule(*types):
                return TensorType(types[index].shape, types[index].dtype)
            return Primitive(f"{name}_ct{index}", "library", shape_rule, evaluate, second,
                             arity=count + 1, jvp=second, batch=_refuse("vmap"))
        cotangents = [make(i) for i in range(count)]

        def vjp(g, out, *args):
            return tuple(ct(*args, g) for ct in cotangents)
        return vjp


class custom_vjp(_Custom):
    """`@gradjit.custom_vjp` then `f.defvjp(fwd, bwd)`: fwd(*args) returns (output,
    residuals), bwd(residuals, g) (bwd(*nondiff, residuals, g) with nondiff_argnums) returns
    a tuple of one cotangent (or None) per differentiable argument. f returns one array."""

    kind = "custom_vjp"
    fwd = bwd = None

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        self._primitives.clear()

    def _defined(self):
        return self.fwd is not None

    def _rules(self, name, nondiff, count):
        def cotangent_of(args, g, index):
            _, residuals = self.fwd(*self._full(nondiff, args))
            cts = self.bwd(*nondiff, residuals, g)
            if not isinstance(cts, (tuple, list)) or len(cts) != count:
                raise TypeError(f"{self.__name__}: its bwd rule {_where(self.bwd)} must return "
                                f"a tuple of {count} cotangent(s), one per differentiable "
                                f"argument, not {_describe(cts)}")
            return cts[index]
        return (self._cotangents(name, count, cotangent_of),
                _refuse("forward-mode autodiff (jvp)"))


class custom_jvp(_Custom):
    """`@gradjit.custom_jvp` then `f.defjvp(rule)`: rule(primals, tangents) (with
    nondiff_argnums, rule(*nondiff, primals, tangents)) returns (output, tangent of the
    output), linear in the tangents. Forward mode applies the rule; reverse mode transposes
    its tangent map (the VJP of the rule's tangent output with respect to the tangents),
    so the rule must be written with numpy or gradjit operations. f returns one array."""

    kind = "custom_jvp"
    rule = None

    def defjvp(self, rule):
        self.rule = rule
        self._primitives.clear()

    def _defined(self):
        return self.rule is not None

    def _rules(self, name, nondiff, count):
        from gradjit.tracer import vjp as reverse

        def tangent_map(primals, tangents):
            return self.rule(*nondiff, tuple(primals), tuple(tangents))[1]

        @_on_host
        def evaluate(*arrays):
            primals, tangents = arrays[:count], arrays[count:]
            out, tangent = self.rule(*nondiff, tuple(primals), tuple(tangents))
            out, tangent = np.asarray(out), np.asarray(tangent)
            if tangent.shape != out.shape:
                raise ValueError(f"{self.__name__}: its jvp rule {_where(self.rule)} returned "
                                 f"a tangent of shape {tangent.shape} for an output of shape "
                                 f"{out.shape}")
            return tangent.astype(out.dtype)

        def shape_rule(*types):
            with np.errstate(all="ignore"):
                return type_of(evaluate(*(np.zeros(t.shape, t.dtype.numpy) for t in types)))
        second = _refuse("a second derivative (the rule is not differentiated)")
        pushforward = Primitive(f"{name}_tangent", "library", shape_rule, evaluate, second,
                                arity=2 * count, jvp=second, batch=_refuse("vmap"))

        def jvp(tangents, out, *args):
            return pushforward(*args, *(zeros_like(a) if t is None else t
                                        for t, a in zip(tangents, args)))

        def cotangent_of(args, g, index):
            # the primals are constants of the tangent map (differentiating them would take
            # this rule again), so the map is traced afresh for each point
            def at_the_point(*tangents):
                return tangent_map(args, tangents)
            zeros = [np.zeros_like(np.asarray(a)) for a in args]
            return reverse(at_the_point, *zeros)[1](g)[index]
        return self._cotangents(name, count, cotangent_of), jvp


def _on_host(evaluate):
    """evaluate running the user's code on numpy arrays, even when called while a program is
    being built (a shape rule): primitives bound to arrays alone are computed, not emitted."""
    @functools.wraps(evaluate)
    def run(*arrays):
        with ambient_handler(None):
            return evaluate(*arrays)
    return run


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
