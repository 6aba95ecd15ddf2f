"""Host primitives: library primitives that run a Python function on numpy arrays between
compiled kernels (the ops of custom_vjp/custom_jvp functions and of their rules). A rule not
given is gradjit's own jvp or vjp of the function, itself one more host primitive made when
first asked for, so a function is differentiated as often as asked, as JAX does."""
from __future__ import annotations

import functools

import numpy as np

from gradjit import ops
from gradjit.ir import elementwise as E
from gradjit.ir import structural as S
from gradjit.ir.primitive import Primitive, ambient_handler, ir_type
from gradjit.ir.types import TensorType
from gradjit.ir.types import dtype as ir_dtype


def host_primitive(name, shape_rule, fn, arity, *, vjp=None, jvp=None, batch=None, doc=""):
    """The primitive computing fn(*arrays), one array, on the host. A rule left None is
    derived from fn, which is then traced by gradjit (numpy or gradjit operations only);
    vmap runs the primitive once per example, by a host primitive with derived rules too,
    unless `batch(args, batched, size)` is given and returns the batch's value (not None)."""
    made = {}  # the derived primitives, each made once: a name per function keeps the IR text

    def once(key, make):
        if key not in made:
            made[key] = make()
        return made[key]

    def derived_jvp(tangents, out, *args):
        push = once("jvp", lambda: _pushforward(name, fn, shape_rule, arity))
        return push(*args, *(E.zeros_like(a) if t is None else t
                             for t, a in zip(tangents, args)))

    def derived_vjp(g, out, *args):
        rule = once("vjp", lambda: cotangent_rule(name, arity, _pullback_of(fn), name))
        return rule(g, out, *args)

    def batch_rule(args, batched, size):
        out = None if batch is None else batch(args, batched, size)
        if out is not None:
            return out
        flags = tuple(batched)
        return once(("vmap", flags, size), lambda: _looped(prim, flags, size))(*args)

    prim = Primitive(name, "library", shape_rule, on_host(fn), vjp or derived_vjp, arity=arity,
                     jvp=jvp or derived_jvp, batch=batch_rule, doc=doc)
    return prim


def _pushforward(name, fn, shape_rule, arity):
    """(*args, *tangents) -> the tangent of fn(*args), by gradjit's forward mode."""
    from gradjit.tracer.transforms import jvp

    def pushforward(*arrays):
        return jvp(fn, arrays[:arity], arrays[arity:])[1]
    return host_primitive(f"{name}_jvp", lambda *types: shape_rule(*types[:arity]),
                          pushforward, 2 * arity)


def _pullback_of(fn):
    """(args, g) -> fn's cotangent for each float argument (None for the others), by
    gradjit's reverse mode."""
    from gradjit.tracer.transforms import _pullback

    def cotangents_of(args, g):
        floats = tuple(i for i, a in enumerate(args) if ir_type(a).dtype.is_float)
        grads = iter(_pullback(fn, floats, False, None)(g, *args) if floats else ())
        return [next(grads) if i in floats else None for i in range(len(args))]
    return cotangents_of


def cotangent_rule(name, count, cotangents_of, label):
    """A VJP rule computing cotangents_of(args, g), a cotangent (or None) per operand, in one
    host primitive: they are packed into one flat vector of the widest float type, which
    slices, reshapes and casts give back per operand. The packing is traced with the rest,
    so the primitive's own rules are derived."""
    def packed(*arrays):
        *args, g = arrays
        wide = _packed_dtype(ir_type(a).dtype.numpy for a in args)
        pieces = []
        for index, (arg, ct) in enumerate(zip(args, cotangents_of(args, g))):
            t = ir_type(arg)
            ct = np.zeros(t.shape, wide) if ct is None else _array(ct)
            shape = tuple(np.shape(ct))
            if shape != t.shape:
                raise ValueError(f"{label}: its rule returned a cotangent of shape {shape} for "
                                 f"argument {index} of shape {t.shape}")
            pieces.append(ops.reshape(ops.astype(ops.astype(ct, t.dtype.numpy), wide), (-1,)))
        return ops.concatenate(pieces)

    def shape_rule(*types):
        wide = _packed_dtype(t.dtype.numpy for t in types[:-1])
        return TensorType((sum(t.size for t in types[:-1]),), ir_dtype(wide))
    pack = host_primitive(f"{name}_cotangents", shape_rule, packed, count + 1)

    def vjp(g, out, *args):
        flat, offset, cotangents = pack(*args, g), 0, []
        for arg in args:
            t = ir_type(arg)
            piece = S.reshape(S.slice_(flat, start=(offset,), stop=(offset + t.size,),
                                       step=(1,)), shape=t.shape)
            cotangents.append(piece if ir_type(piece).dtype == t.dtype else
                              E.cast(piece, dtype=t.dtype.name))
            offset += t.size
        return tuple(cotangents)
    return vjp


def _array(x):
    """A rule's result as an array: numpy's, a traced value, or a number made one."""
    return x if isinstance(x, np.ndarray) or hasattr(x, "ir_type") else np.asarray(x)


def _packed_dtype(dtypes):
    """The float type that holds every cotangent exactly (the widest of the arguments')."""
    return np.result_type(*dtypes, np.float32)


def batched_shape(shape_rule, flags, size):
    """The shape rule of a primitive's batch: shape_rule's type per example, `size` of them
    (the operands flagged lead with the example axis)."""
    def rule(*types):
        one = shape_rule(*(TensorType(t.shape[1:], t.dtype) if b else t
                           for t, b in zip(types, flags)))
        return TensorType((size,) + one.shape, one.dtype)
    return rule


def _looped(prim, flags, size):
    """The primitive applying `prim` to each of `size` examples (the operands flagged lead
    with the example axis) and stacking the results; its derivatives are those of the loop,
    so they apply prim's own rules per example."""
    shape_rule = batched_shape(prim.shape_rule, flags, size)

    def each(*arrays):
        if size == 0:
            t = shape_rule(*(ir_type(a) for a in arrays))
            return np.zeros(t.shape, t.dtype.numpy)
        return ops.stack([prim(*(a[i] if b else a for a, b in zip(arrays, flags)))
                          for i in range(size)])
    marks = "".join("b" if b else "s" for b in flags)  # batched or shared, in the name
    return host_primitive(f"{prim.name}_vmap_{marks}", shape_rule, each, len(flags))


def on_host(evaluate):
    """evaluate running the user's code on numpy arrays, even when called while a program is
    being built (a shape rule): primitives bound to arrays alone are computed, not emitted."""
    @functools.wraps(evaluate)
    def run(*arrays):
        with ambient_handler(None):
            return evaluate(*arrays)
    return run
