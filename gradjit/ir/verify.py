"""The verifier: every value defined once before use, every op applied to as many operands,
and params of the kinds, its primitive takes, every type addressable, every result typed as
the shape rule says. Whatever passes it compiles to code that stays inside its buffers."""
from __future__ import annotations

import math

from gradjit.ir.array_value import ArrayValue
from gradjit.ir.core import Function, Value, canonical_params
from gradjit.ir.primitive import ShapeError
from gradjit.ir.types import ALL_DTYPES, TensorType


class VerifyError(ValueError):
    """An ill-formed function; the message names the op and the problem."""


# Compiled code indexes with int64 byte offsets, and user space is 2**47 bytes on x86-64 and
# AArch64: a tensor past this can neither be allocated nor indexed without wrapping.
MAX_BYTES = 2 ** 47
_MAX_PARAM_INT = 2 ** 62  # beyond any extent or offset, so arithmetic on it cannot wrap
_DTYPE_NAMES = {d.name for d in ALL_DTYPES}


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) < _MAX_PARAM_INT


def _is_number(v) -> bool:
    return isinstance(v, (bool, int, float, complex)) and (not isinstance(v, int) or
                                                           abs(v) < 2 ** 64)


def _is_numbers(v) -> bool:
    """A nested tuple of numbers (a constant's value), walked without recursion."""
    stack = [v]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            stack.extend(item)
        elif not _is_number(item):
            return False
    return True


def _ints(v) -> bool:
    return isinstance(v, tuple) and all(_is_int(x) for x in v)


# What each param name holds, for every primitive that takes it (a table walk in
# tests/ir/test_verify.py checks every param of every primitive has an entry).
PARAM_KINDS = {
    "axis": ("an integer", _is_int),
    "axes": ("a list of integers", _ints),
    "shape": ("a list of integers", _ints),
    "perm": ("a list of integers", _ints),
    "start": ("a list of integers", _ints),
    "stop": ("a list of integers", _ints),
    "step": ("a list of integers", _ints),
    "low": ("a list of integers", _ints),
    "high": ("a list of integers", _ints),
    "interior": ("a list of integers", _ints),
    "dtype": ("an element type", lambda v: isinstance(v, str) and v in _DTYPE_NAMES),
    "value": ("a number", _is_number),
    "keepdims": ("true or false", lambda v: isinstance(v, bool)),
    "expected": ("true or false", lambda v: isinstance(v, bool)),
    "upper": ("true or false", lambda v: isinstance(v, bool)),
    "lower": ("true or false", lambda v: isinstance(v, bool)),
    "unit": ("true or false", lambda v: isinstance(v, bool)),
    "complete": ("true or false", lambda v: isinstance(v, bool)),
    "full_matrices": ("true or false", lambda v: isinstance(v, bool)),
    "inverse": ("true or false", lambda v: isinstance(v, bool)),
    "n": ("an integer", _is_int),
    "site": ("a string or none", lambda v: v is None or isinstance(v, str)),
    "axis_name": ("a name", lambda v: v is not None),  # a collective's vmap axis
    "axis_size": ("an integer", _is_int),
}
# A constant's value is the whole array, as nested lists.
PARAM_KINDS_BY_PRIMITIVE = {("constant", "value"): (
    "nested lists of numbers",
    lambda v: isinstance(v, ArrayValue) and v.array.dtype.kind in "biufc" or _is_numbers(v)),
    ("check_index", "bound"): ("an integer", _is_int),
    ("check_index", "low"): ("an integer", _is_int),
    ("check_index", "error"): ("IndexError or RuntimeError",
                               lambda v: v in ("IndexError", "RuntimeError")),
    ("check_index", "words"): ("a message", lambda v: isinstance(v, str))}


def check_type(t) -> str | None:
    """What is wrong with `t` as the type of a value, or None."""
    if not isinstance(t, TensorType):
        return f"{t!r} is not a tensor type"
    size = math.prod(t.shape)
    if size * t.dtype.numpy.itemsize > MAX_BYTES:
        return f"{t} holds {size} elements, more than can be addressed ({MAX_BYTES} bytes)"
    return None


def check_params(prim, params: dict) -> str | None:
    """What is wrong with `params` for `prim`, or None."""
    for key, v in params.items():
        what, accepts = PARAM_KINDS_BY_PRIMITIVE.get((prim.name, key)) or PARAM_KINDS[key]
        if not accepts(v):
            return f"param {key} must be {what}, not {v!r}"
    return None


def verify(fn: Function) -> Function:
    defined = set()
    for p in fn.params:
        problem = check_type(p.type) if isinstance(p, Value) else f"{p!r} is not a value"
        if problem:
            raise VerifyError(f"@{fn.name}: parameter: {problem}")
        if p in defined:
            raise VerifyError(f"@{fn.name}: parameter {p} appears twice")
        defined.add(p)
    for index, op in enumerate(fn.ops):
        where = f"@{fn.name}, op {index} ({op.prim.name})"
        _verify_operands(op, defined, where)
        inferred = _infer(op, where)
        if (inferred is None) != (op.out is None):
            raise VerifyError(f"{where}: result present/absent against the shape rule")
        if op.out is not None:
            if op.out.type != inferred:
                raise VerifyError(f"{where}: result typed {op.out.type}, rule gives {inferred}")
            if op.out in defined:
                raise VerifyError(f"{where}: result {op.out} is defined twice")
            defined.add(op.out)
    for r in fn.results:
        if r not in defined:
            raise VerifyError(f"@{fn.name}: result {r} is never defined")
    return fn


def _verify_operands(op, defined, where):
    count = len(op.inputs)
    if not op.prim.accepts(count):
        wanted = "one or more" if op.prim.variadic else str(op.prim.arity)
        raise VerifyError(f"{where}: takes {wanted} operands, not {count}")
    for v in op.inputs:
        if v not in defined:
            raise VerifyError(f"{where}: operand {v} is used before it is defined")


def _infer(op, where):
    try:
        params = canonical_params(op.prim, op.params)
    except TypeError as error:
        raise VerifyError(f"{where}: {error}") from None
    problem = check_params(op.prim, params)
    if problem:
        raise VerifyError(f"{where}: {problem}")
    try:
        inferred = op.prim.infer(*(v.type for v in op.inputs), **params)
    except (TypeError, ValueError, ShapeError, OverflowError) as error:
        raise VerifyError(f"{where}: {error}") from None
    problem = None if inferred is None else check_type(inferred)
    if problem:
        raise VerifyError(f"{where}: {problem}")
    return inferred

