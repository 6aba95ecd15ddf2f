"""custom_vjp and custom_jvp as JAX defines them, and checkpoint built on custom_vjp: a
function whose derivative is the user's rule.

The function becomes one primitive of kind 'library' (run on the host through numpy, between
compiled kernels, like the LAPACK primitives), made for it and not registered in the table;
its rules are more such primitives: custom_vjp's VJP runs the user's fwd and bwd, custom_jvp's
JVP runs the user's rule and its VJP transposes the rule's tangent map. So grad, jit,
value_and_grad, jvp, the eager tape and every backend see one op per call. vmap runs such an
op once per example on the host (so per-example gradients, jacrev and jacfwd work through
it). The rules are not differentiated again: second derivatives through them, and gradients
of a vmap through them, refuse with a message."""
from __future__ import annotations

import functools
import itertools
import re

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.elementwise import zeros_like
from gradjit.ir.primitive import Primitive, ambient_handler, ir_type
from gradjit.ir.types import TensorType, type_of
from gradjit.ir.types import dtype as ir_dtype
from gradjit.tracer.pytree import LEAF, flatten, unflatten

_serial = itertools.count()


class _Custom:
    """A function whose derivative rule is the user's: one library primitive per set of
    nondiff values, whose rules (set by the subclass) are more library primitives."""

    kind = ""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self._primitives = {}  # (nondiff values, operand count) -> (Primitive, its layouts)

    def __call__(self, *args):
        if not self._defined():
            raise TypeError(f"{self.__name__}: no rule: call {self.__name__}.def{self.kind[7:]}"
                            f"(...) before calling it")
        nondiff = tuple(args[i] for i in self.nondiff_argnums)
        diff = [a for i, a in enumerate(args) if i not in self.nondiff_argnums]
        key = (nondiff, len(diff))
        if key not in self._primitives:
            self._primitives[key] = self._primitive(nondiff, len(diff))
        prim, layout = self._primitives[key]
        return layout(tuple(ir_type(a) for a in diff)).unpack(prim(*diff))

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
            return _Layout(out).pack(out)

        known = {}  # operand types -> the result's layout: the function runs once per signature

        def layout(types):
            if types not in known:
                with np.errstate(all="ignore"), ambient_handler(None):
                    known[types] = _Layout(self.fun(*self._full(nondiff, [
                        np.zeros(t.shape, t.dtype.numpy) for t in types])))
            return known[types]

        def shape_rule(*types):
            return layout(types).packed_type

        vjp, jvp = self._rules(name, nondiff, count, shape_rule, layout)
        return _host_primitive(name, shape_rule, evaluate, vjp, count, jvp,
                               f"{self.__name__} with its {self.kind} rule"), layout

    def _cotangents(self, name, count, cotangents_of):
        """The VJP: one host primitive runs the rule once, cotangents_of(args, g) giving a
        cotangent (or None) per differentiable argument, and packs them into one flat vector
        of the widest float type, which slices, reshapes and casts give back per argument."""
        @_on_host
        def evaluate(*arrays):
            *args, g = arrays
            packed = _packed_dtype(np.asarray(a).dtype for a in args)
            pieces = []
            for index, (arg, ct) in enumerate(zip(args, cotangents_of(args, g))):
                arg = np.asarray(arg)
                ct = np.zeros(arg.shape, packed) if ct is None else np.asarray(ct)
                if ct.shape != arg.shape:
                    raise ValueError(f"{self.__name__}: its rule returned a cotangent of shape "
                                     f"{ct.shape} for argument {index} of shape {arg.shape}")
                pieces.append(ct.astype(arg.dtype).astype(packed).ravel())
            return np.concatenate(pieces)

        def shape_rule(*types):
            packed = _packed_dtype(t.dtype.numpy for t in types[:-1])
            return TensorType((sum(t.size for t in types[:-1]),), ir_dtype(packed))
        second = _refuse("a second derivative (the rule is not differentiated)")
        pack = _host_primitive(f"{name}_cotangents", shape_rule, evaluate, second, count + 1,
                               second)

        def vjp(g, out, *args):
            packed, offset, cotangents = pack(*args, g), 0, []
            for arg in args:
                t = ir_type(arg)
                piece = S.reshape(S.slice_(packed, start=(offset,), stop=(offset + t.size,),
                                           step=(1,)), shape=t.shape)
                cotangents.append(piece if ir_type(piece).dtype == t.dtype else
                                  E.cast(piece, dtype=t.dtype.name))
                offset += t.size
            return tuple(cotangents)
        return vjp


class custom_vjp(_Custom):
    """`@gradjit.custom_vjp` then `f.defvjp(fwd, bwd)`: fwd(*args) returns (output,
    residuals), bwd(residuals, g) (bwd(*nondiff, residuals, g) with nondiff_argnums) returns
    a tuple of one cotangent (or None) per differentiable argument. f may return a tuple, list
    or dict of arrays (one op computes them packed), and bwd then gets g of that structure."""

    kind = "custom_vjp"
    fwd = bwd = None

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        self._primitives.clear()

    def _defined(self):
        return self.fwd is not None

    def _rules(self, name, nondiff, count, out_type, layout):
        def cotangents_of(args, g):
            _, residuals = self.fwd(*self._full(nondiff, args))
            g = layout(tuple(type_of(np.asarray(a)) for a in args)).unpack(g)
            cts = self.bwd(*nondiff, residuals, g)
            if not isinstance(cts, (tuple, list)) or len(cts) != count:
                raise TypeError(f"{self.__name__}: its bwd rule {_where(self.bwd)} must return "
                                f"a tuple of {count} cotangent(s), one per differentiable "
                                f"argument, not {_describe(cts)}")
            return cts
        return (self._cotangents(name, count, cotangents_of),
                _refuse("forward-mode autodiff (jvp)"))


class custom_jvp(_Custom):
    """`@gradjit.custom_jvp` then `f.defjvp(rule)`: rule(primals, tangents) (with
    nondiff_argnums, rule(*nondiff, primals, tangents)) returns (output, tangent of the
    output), linear in the tangents. Forward mode applies the rule; reverse mode transposes
    its tangent map (the VJP of the rule's tangent output with respect to the tangents),
    so the rule must be written with numpy or gradjit operations. f may return a tuple, list or
    dict of arrays; the rule's tangent then has that structure."""

    kind = "custom_jvp"
    rule = None

    def defjvp(self, rule):
        self.rule = rule
        self._primitives.clear()

    def _defined(self):
        return self.rule is not None

    def _rules(self, name, nondiff, count, out_type, layout):
        from gradjit.tracer import vjp as reverse

        def tangent_map(primals, tangents):
            out_layout = layout(tuple(type_of(np.asarray(p)) for p in primals))
            return out_layout.pack(self.rule(*nondiff, tuple(primals), tuple(tangents))[1])

        @_on_host
        def evaluate(*arrays):
            primals, tangents = arrays[:count], arrays[count:]
            out, tangent = self.rule(*nondiff, tuple(primals), tuple(tangents))
            out_layout = _Layout(out)
            shapes = _Layout(tangent).shapes
            if shapes != out_layout.shapes:
                raise ValueError(f"{self.__name__}: its jvp rule {_where(self.rule)} returned "
                                 f"a tangent of shape(s) {_shapes(shapes)} for an output of "
                                 f"shape(s) {_shapes(out_layout.shapes)}")
            return out_layout.pack(tangent)

        def shape_rule(*types):  # the tangent has the output's type
            return out_type(*types[:count])
        second = _refuse("a second derivative (the rule is not differentiated)")
        pushforward = _host_primitive(f"{name}_tangent", shape_rule, evaluate, second,
                                      2 * count, second)

        def jvp(tangents, out, *args):
            return pushforward(*args, *(zeros_like(a) if t is None else t
                                        for t, a in zip(tangents, args)))

        def cotangents_of(args, g):
            # the primals are constants of the tangent map (differentiating them would take
            # this rule again), so the map is traced afresh for each point
            def at_the_point(*tangents):
                return tangent_map(args, tangents)
            zeros = [np.zeros_like(np.asarray(a)) for a in args]
            return reverse(at_the_point, *zeros)[1](g)
        return self._cotangents(name, count, cotangents_of), jvp


class _Layout:
    """Where a custom function's result (an array, or a tuple/list/dict of them) sits in the
    one flat array its op computes: the leaves raveled one after another in their common
    dtype. A lone array is kept as it is."""

    def __init__(self, out):
        leaves: list = []
        self.structure = flatten(out, leaves)
        arrays = [np.asarray(leaf) for leaf in leaves]
        self.shapes = [a.shape for a in arrays]
        self.dtypes = [a.dtype for a in arrays]
        self.single = self.structure == LEAF
        common = np.result_type(*self.dtypes) if arrays else np.dtype(np.float32)
        self.common = common
        self.packed_type = type_of(arrays[0]) if self.single else \
            TensorType((sum(int(np.prod(s)) for s in self.shapes),), ir_dtype(common))

    def pack(self, out):
        if self.single:
            return out
        leaves: list = []
        if flatten(out, leaves) != self.structure:
            raise TypeError("a custom function's rule gave a result of another structure "
                            "than the function's own")
        if not leaves:
            return np.zeros(0, self.common)
        return ops.concatenate([ops.astype(ops.reshape(leaf, (-1,)), self.common)
                                for leaf in leaves])

    def unpack(self, packed):
        if self.single:
            return packed
        pieces, offset = [], 0
        for shape, dtype in zip(self.shapes, self.dtypes):
            size = int(np.prod(shape))
            piece = ops.reshape(ops.getitem(packed, slice(offset, offset + size)), shape)
            pieces.append(ops.astype(piece, dtype))
            offset += size
        return unflatten(self.structure, iter(pieces))


def _shapes(shapes) -> str:
    return ", ".join(str(s) for s in shapes)


def _packed_dtype(dtypes):
    """The float type that holds every cotangent exactly (the widest of the arguments')."""
    return np.result_type(*dtypes, np.float32)


def _host_primitive(name, shape_rule, evaluate, vjp, arity, jvp, doc=""):
    """A library primitive computed on the host; vmap runs it once per example."""
    prim = Primitive(name, "library", shape_rule, evaluate, vjp, arity=arity, jvp=jvp,
                     batch=lambda args, batched, size: _looped(prim, args, batched, size),
                     doc=doc)
    return prim


def _looped(prim, args, batched, size):
    """`prim` applied to each of `size` examples (the operands flagged in `batched` lead with
    the example axis), the results stacked: one host primitive looping over the examples."""
    flags = tuple(batched)

    def shape_rule(*types):
        one = prim.shape_rule(*(TensorType(t.shape[1:], t.dtype) if b else t
                                for t, b in zip(types, flags)))
        return TensorType((size,) + one.shape, one.dtype)

    @_on_host
    def evaluate(*arrays):
        if size == 0:
            t = shape_rule(*(type_of(np.asarray(a)) for a in arrays))
            return np.zeros(t.shape, t.dtype.numpy)
        return np.stack([np.asarray(prim.evaluate(*(a[i] if b else a
                                                    for a, b in zip(arrays, flags))))
                         for i in range(size)])
    refuse = _refuse("a derivative of a vmap (the rule is not differentiated)")
    return _host_primitive(f"{prim.name}_vmap", shape_rule, evaluate, refuse, len(args),
                           refuse)(*args)


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
