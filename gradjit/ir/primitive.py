"""The primitive: a name plus its rules (shape/dtype, numpy evaluation, VJP, sympy form).

`bind` runs a primitive on whatever it is given: numpy arrays are evaluated at once,
objects that define `__gradjit_bind__` (eager tensors, tracers, IR values) take over.
"""
from __future__ import annotations

import contextlib
import inspect
import threading

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from gradjit.ir.types import (TensorType, _asarray, bfloat16, complex32, dtype, is_bfloat16,
                              is_complex32, round_bfloat16, round_complex32, type_of)


class ShapeError(TypeError):
    """A primitive was applied to operands whose shapes or dtypes it does not accept."""

    def in_torch_words(self) -> Exception:
        """The error as PyTorch raises it for Tensors (the message is numpy's, for traced
        numpy code); operand mismatches are RuntimeErrors there."""
        return RuntimeError(str(self))


class BroadcastError(ShapeError, ValueError):
    """Operand shapes that do not broadcast. `shapes` (the operands', in order) lets each
    surface word it: numpy's message is the error's own, Tensors give PyTorch's; a ValueError
    too, as numpy's is, so that numpy code catching it catches this."""

    def __init__(self, message, shapes=()):
        super().__init__(message)
        self.shapes = tuple(tuple(s) for s in shapes)

    def in_torch_words(self) -> Exception:
        """PyTorch folds the shapes left to right and names the rightmost dimension where the
        shape so far (tensor a) and the next operand's (tensor b) differ without a 1."""
        so_far = self.shapes[0] if self.shapes else ()
        for shape in self.shapes[1:]:
            rank = max(len(so_far), len(shape))
            a, b = (1,) * (rank - len(so_far)) + so_far, (1,) * (rank - len(shape)) + shape
            for dim in reversed(range(rank)):
                if a[dim] != b[dim] and 1 not in (a[dim], b[dim]):
                    return RuntimeError(f"The size of tensor a ({a[dim]}) must match the size "
                                        f"of tensor b ({b[dim]}) at non-singleton dimension "
                                        f"{dim}")
            so_far = tuple(max(x, y) for x, y in zip(a, b))
        return RuntimeError(str(self))


class MismatchError(ShapeError, ValueError):
    """Operands whose sizes do not fit together (matmul's inner sizes, stack's shapes): a
    ValueError too, as numpy's is."""


class ReshapeError(ShapeError, ValueError):
    """A shape that does not hold the operand's elements (a ValueError too, as numpy's)."""

    def __init__(self, message, shape, size):
        super().__init__(message)
        self.shape, self.size = shape, size

    def in_torch_words(self) -> Exception:
        if not self.size and -1 in self.shape:
            return RuntimeError(f"cannot reshape tensor of 0 elements into shape "
                                f"{list(self.shape)} because the unspecified dimension size -1 "
                                f"can be any value and is ambiguous")
        for i, d in enumerate(self.shape):
            if d < -1:
                return RuntimeError(f"invalid shape dimension {d} at index {i} of shape "
                                    f"{list(self.shape)}")
        return RuntimeError(f"shape '{list(self.shape)}' is invalid for input of size "
                            f"{self.size}")


class UnknownDimensionsError(ValueError):
    """A shape with more than one dimension left to infer (-1)."""

    def in_torch_words(self) -> Exception:
        return RuntimeError("only one dimension can be inferred")


class AxisError(np.exceptions.AxisError):
    """An axis outside [-rank, rank) (rank 0 takes -1 and 0, as rank 1 does); inserting an
    axis passes the rank it makes. numpy's own AxisError (a ValueError and an IndexError) with
    its message, worded as PyTorch's IndexError for Tensors."""

    def __init__(self, axis, rank):
        super().__init__(axis, rank)
        self.args, self.rank = (super().__str__(),), max(rank, 1)

    def __str__(self):
        # numpy's words them from axis and ndim; the message kept in args can be given the
        # user's line when the error was raised while tracing
        return self.args[0]

    def in_torch_words(self) -> Exception:
        return IndexError(f"Dimension out of range (expected to be in range of [{-self.rank}, "
                          f"{self.rank - 1}], but got {self.axis})")


class RepeatedAxisError(ValueError):
    """An axis named twice in a list of axes."""

    def __init__(self, message, axis):
        super().__init__(message)
        self.axis = axis

    def in_torch_words(self) -> Exception:
        return RuntimeError(f"dim {self.axis} appears multiple times in the list of dims")


class PermutationError(ValueError):
    """Axes that are not a permutation of the operand's."""

    def __init__(self, message, axes, rank):
        super().__init__(message)
        self.axes, self.rank = tuple(axes), rank

    def in_torch_words(self) -> Exception:
        if len(self.axes) != self.rank:
            return RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input does not match "
                "the length of the desired ordering of dimensions i.e. input.dim() = "
                f"{self.rank} is not equal to len(dims) = {len(self.axes)}")
        return RuntimeError("permute(): duplicate dims are not allowed.")


class BoundsError(IndexError):
    """An index outside the size of its axis."""

    def __init__(self, message, index, axis, size, by_array=False):
        super().__init__(message)
        self.index, self.axis, self.size, self.by_array = index, axis, size, by_array

    def in_torch_words(self) -> Exception:
        if self.by_array and not self.size:  # PyTorch's index kernel names neither
            return IndexError("index is out of bounds for dimension with size 0")
        return IndexError(f"index {self.index} is out of bounds for dimension {self.axis} "
                          f"with size {self.size}")


class BatchingError(ValueError):
    """vmap cannot map this function over these axes (inconsistent sizes, an axis out of
    range, a Python decision on a value that differs along the mapped axis)."""


@dataclass(frozen=True, eq=False)
class Primitive:
    """One operation of the IR, defined once.

    kind: 'elementwise', 'reduction', 'structural', 'contraction', 'source' or 'effect'.
    shape_rule(*in_types, **params) -> TensorType (None for effects).
    evaluate(*arrays, **params) -> numpy array: the reference semantics.
    vjp(g, out, *args, **params) -> one cotangent (or None for "no gradient") per arg;
      written with primitives only, so it runs on numpy, tensors and IR values alike. Given
      as `Partials` (one rule per arg), a caller can compute only the cotangents it needs.
    jvp(tangents, out, *args, **params) -> the tangent of out (None: zero), given one tangent
      per arg (None: zero); the forward-mode rule, the transpose of vjp (set on every
      differentiable primitive, and on stop_reverse, whose tangent passes where its
      cotangent does not).
    batch(args, batched, size, **params) -> the result for a stack of `size` applications:
      the operands flagged in `batched` carry a leading axis of length `size` (the others are
      shared by every application), and so does the result; the vmap rule, written with
      primitives (None only for sources, which have no operands to batch).
    sympy(sp, *symbols, **params) -> the scalar meaning (elementwise primitives).
    arity: the operand count; left None it is read from the shape rule's positional
      parameters (a rule over `*types` must state it, a variadic primitive takes one or more).
    """

    name: str
    kind: str
    shape_rule: Callable[..., TensorType | None]
    evaluate: Callable[..., Any]
    vjp: Callable[..., tuple] | None
    params: tuple[str, ...] = ()
    sympy: Callable[..., Any] | None = None
    variadic: bool = False
    differentiable: bool = True
    arity: int | None = None
    jvp: Callable[..., Any] | None = None
    batch: Callable[..., Any] | None = None
    doc: str = field(default="", compare=False)

    def __post_init__(self):
        if self.arity is None and not self.variadic:
            object.__setattr__(self, "arity", _positional_count(self.name, self.shape_rule))

    def accepts(self, count: int) -> bool:
        """Whether `count` operands is a valid application of this primitive."""
        return count >= 1 if self.variadic else count == self.arity

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"

    def infer(self, *in_types: TensorType, **params) -> TensorType | None:
        """Apply the shape rule; errors name this primitive and every operand type."""
        if not self.accepts(len(in_types)):
            wanted = "one or more" if self.variadic else self.arity
            raise ShapeError(f"{self.name} takes {wanted} operands, not {len(in_types)}")
        try:
            return self.shape_rule(*in_types, **params)
        except ShapeError as error:
            operands = ", ".join(map(str, in_types))
            raise ShapeError(f"{self.name}({operands}): {error}") from None


class Partials:
    """A VJP rule as one rule per operand, rule(g, out, *args, **params) -> that operand's
    cotangent (None: the operand has no gradient)."""

    __slots__ = ("rules",)

    def __init__(self, *rules):
        self.rules = rules

    def __call__(self, g, out, *args, **params):
        return tuple(None if rule is None else rule(g, out, *args, **params)
                     for rule in self.rules)

    def some(self, wanted, g, out, *args, **params) -> list:
        """The cotangents of the operands flagged in `wanted`, None for the others (eager
        backward skips operands that do not require grad)."""
        some = []  # (a loop, not a comprehension: no frame of its own)
        for rule, w in zip(self.rules, wanted):
            some.append(rule(g, out, *args, **params) if w and rule is not None else None)
        return some


def _positional_count(name, rule) -> int:
    kinds = [p.kind for p in inspect.signature(rule).parameters.values()]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        raise TypeError(f"primitive {name}: its shape rule takes *operands, so state its arity")
    return sum(k in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
               for k in kinds)


PRIMITIVES: dict[str, Primitive] = {}


def register(prim: Primitive) -> Primitive:
    if prim.name in PRIMITIVES:
        raise ValueError(f"primitive {prim.name} is defined twice")
    PRIMITIVES[prim.name] = prim
    return prim


def bind(prim: Primitive, *args, **params):
    """Run `prim` on args: the highest-priority array-like argument decides how."""
    handler = None
    for arg in args:
        priority = getattr(type(arg), "__gradjit_priority__", None)
        if priority is not None and (handler is None or priority > handler.__gradjit_priority__):
            handler = type(arg)
    if handler is None and _ambient.stack:
        handler = _ambient.stack[-1]
    if handler is not None:
        return handler.__gradjit_bind__(prim, args, params)
    if not params and prim.kind == "elementwise":  # `evaluate`, without its frame: eager
        out = evaluate_plain(prim, args)         # backward's rules come here
        if out is not None:
            return out
    return evaluate_general(prim, args, params)


# Applying a primitive binds it: `prim(*args)` is bind(prim, *args) itself, without a method
# frame in between (every eager primitive, forward and backward, comes through here).
Primitive.__call__ = bind


class _Ambient(threading.local):
    def __init__(self):
        self.stack = []


_ambient = _Ambient()


def current_ambient():
    return _ambient.stack[-1] if _ambient.stack else None


@contextlib.contextmanager
def ambient_handler(handler):
    """Within this block, primitives bound to no array-like at all (a `full`, an `iota`,
    or numbers only) go to `handler` instead of being evaluated with numpy."""
    _ambient.stack.append(handler)
    try:
        yield handler
    finally:
        _ambient.stack.pop()


def evaluate(prim: Primitive, args, params):
    """Evaluate on numpy values: check types with the shape rule, then run numpy."""
    if not params and prim.kind == "elementwise":  # eager backward's rules, mostly
        out = evaluate_plain(prim, args)
        if out is not None:
            return out
    return evaluate_general(prim, args, params)


def evaluate_general(prim: Primitive, args, params):
    """`evaluate` where `evaluate_plain` does not apply."""
    if all(type(a) is np.ndarray for a in args):  # nothing to convert or lift (most calls)
        arrays = args
    else:
        arrays = lift_scalars([_asarray(a) for a in args] if args else [], args)
    out_type = _inferred(prim, tuple([type_of(a) for a in arrays]), params)
    widen = prim.kind in _WIDENED
    if widen:
        for a in arrays:
            if _narrow_float(a.dtype):
                # PyTorch computes float16 and bfloat16 in float32, rounding each result
                arrays = [b.astype(np.float32) if _narrow_float(b.dtype) else b for b in arrays]
                break
    result = quietly(prim.evaluate, *arrays, **params)
    if out_type is None:
        return None
    result = _asarray(result)
    if out_type.dtype is bfloat16:
        # views of bfloat16 storage stay views; computed values are rounded
        return result if not widen and is_bfloat16(result.dtype) else round_bfloat16(result)
    if out_type.dtype is complex32:  # as bfloat16, in complex64 storage
        return result if not widen and is_complex32(result.dtype) else round_complex32(result)
    if result.dtype != out_type.dtype.numpy:
        with np.errstate(over="ignore"):  # a float32 result past float16's range is inf
            result = result.astype(out_type.dtype.numpy)
    return result


_WIDENED = ("elementwise", "reduction", "contraction")  # not views, sorts or sources
_INFERRED: dict = {}  # (prim, operand types, params) -> result type, for eager calls
_MISSING = object()


def _inferred(prim: Primitive, types, params):
    """prim's shape rule on `types`, remembered (a rule depends on types and params only);
    params that cannot key a dict (arrays) ask the rule each time, and so does a rule that
    raises."""
    try:
        key = (prim, types, tuple(params.items()), tuple(map(type, params.values())))
        known = _INFERRED.get(key, _MISSING)
    except TypeError:
        return prim.infer(*types, **params)
    if known is _MISSING:
        known = prim.infer(*types, **params)
        if len(_INFERRED) > 4096:
            _INFERRED.clear()
        _INFERRED[key] = known
    return known
_PLAIN = _F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_BOOL = np.dtype(bool)
_RESULTS: dict = {}  # (prim, dtype, shape, operand count) -> its result's numpy dtype


def fresh_result(prim: Primitive) -> bool:
    """Whether prim's numpy evaluation is a ufunc or np.where: it broadcasts numbers itself
    and returns a new array, never a view of an operand."""
    return isinstance(prim.evaluate, np.ufunc) or prim.evaluate is np.where


def evaluate_plain(prim: Primitive, args):
    """`evaluate` on the eager hot path, or None where it does not apply: an elementwise
    primitive without parameters on arrays of one shape, float32 or float64 of one dtype (bool
    conditions and Python numbers beside them). The shape rule's verdict on those types is
    remembered, not re-derived (a rule that raises is asked again, so it raises every time)."""
    dt = shape = None
    conditions = numbers = False
    for a in args:
        kind = type(a)
        if kind is np.ndarray:
            if shape is None:
                shape = a.shape
            elif a.shape != shape:
                return None
            kind = a.dtype
            if kind is _BOOL:
                conditions = True
            elif dt is None:
                dt = kind
            elif kind is not dt:
                return None
        elif kind is float or kind is int:
            numbers = True
        else:
            return None
    if dt is not _F32 and dt is not _F64:
        return None
    bools = tuple(type(a) is np.ndarray and a.dtype is _BOOL for a in args) if conditions \
        else len(args)
    key = (prim, dt, shape, bools)
    result_dtype = _RESULTS.get(key)
    if result_dtype is None:
        plain, condition = TensorType(shape, dtype(dt)), TensorType(shape, dtype(_BOOL))
        out_type = prim.infer(*[condition if conditions and bools[i] else plain
                                for i in range(len(args))])
        if out_type is None or out_type.dtype is bfloat16:
            return None
        if len(_RESULTS) > 4096:
            _RESULTS.clear()
        result_dtype = _RESULTS[key] = out_type.dtype.numpy
    if not numbers:
        arrays = args
    elif fresh_result(prim):  # broadcasts numbers itself
        arrays = [a if type(a) is np.ndarray else dt.type(a) for a in args]
    else:
        arrays = [a if type(a) is np.ndarray else np.broadcast_to(np.asarray(a, dt), shape)
                  for a in args]
    token = ERRORS.set(IGNORED)  # quietly(), inline
    try:
        result = prim.evaluate(*arrays)
    finally:
        ERRORS.reset(token)
    if type(result) is not np.ndarray:
        result = _asarray(result)
    if result.dtype is not result_dtype and result.dtype != result_dtype:
        result = result.astype(result_dtype)
    return result


class _LegacyErrors:
    """numpy 1.26's error state behind numpy 2's context-variable interface."""

    @staticmethod
    def set(state):
        return np.seterr(**state)

    @staticmethod
    def reset(token):
        np.seterr(**token)


try:  # numpy 2 keeps the floating-point error state in a context variable
    from numpy._core._ufunc_config import _extobj_contextvar as ERRORS
    from numpy._core._ufunc_config import _make_extobj
    IGNORED = _make_extobj(all="ignore")
except ImportError:  # numpy 1.26
    ERRORS, IGNORED = _LegacyErrors, {"all": "ignore"}


def quietly(fn, *args, **kwargs):
    """fn(*args, **kwargs) under np.errstate(all="ignore") (PyTorch does not warn about inf
    and nan), the state set directly: a microsecond less than the context manager, which
    builds it anew on every call. The hottest paths inline these three lines."""
    token = ERRORS.set(IGNORED)
    try:
        return fn(*args, **kwargs)
    finally:
        ERRORS.reset(token)


def _narrow_float(numpy_dtype) -> bool:
    """float16, or bfloat16's marked float32 storage (a cheap test: it runs on every op)."""
    return numpy_dtype.kind == "f" and (numpy_dtype.itemsize == 2 or
                                        numpy_dtype.metadata is not None)


def lift_scalars(arrays, originals):
    """Python numbers among the operands become arrays shaped like `scalar_template`."""
    like = scalar_template(arrays, originals)
    if like is None:
        return arrays
    # a read-only broadcast view: no memory or time spent on the template's size
    return [np.broadcast_to(_number(o, like.dtype), like.shape) if is_python_scalar(o)
            else a for a, o in zip(arrays, originals)]


def _number(value, numpy_dtype):
    """A Python number in a tensor's dtype; complex32's kernels take it rounded to complex32
    (the others compute with it unrounded, in float32 for float16 and bfloat16)."""
    array = np.asarray(value, numpy_dtype)
    return round_complex32(array) if is_complex32(numpy_dtype) else array


def scalar_template(values, originals=None):
    """The operand whose shape and dtype a Python number next to it takes: the last
    non-bool array (so `where(c, x, 0)` fills like x), else the last array."""
    originals = values if originals is None else originals
    arrays = [v for v, o in zip(values, originals) if not is_python_scalar(o)]
    numeric = [a for a in arrays if not ir_type(a).dtype.is_bool]
    return (numeric or arrays or [None])[-1]


def is_python_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def ir_type(x) -> TensorType:
    """The TensorType of any array-like: numpy arrays, or objects with an `ir_type`."""
    known = getattr(x, "ir_type", None)
    return known if known is not None else type_of(x)


# ---- shape-rule helpers shared by the primitive definitions ----

def require(condition: bool, message: str):
    if not condition:
        raise ShapeError(message)

